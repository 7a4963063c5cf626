/* SPDX-License-Identifier: MIT */
/*
 * pcring.h — one thread's sampled program counters, read from a perf ring
 * buffer by another thread.
 *
 * Each thread has a perf software task-clock event that samples its
 * user-space PC every period of its CPU time into a small ring mapped from
 * the event. Nothing is delivered to the thread: no signal, no wake-up
 * anyone waits for; and the descriptor is closed right after the mapping,
 * which keeps the event alive and counting (so a close or dup2 of the
 * program's can never hit it). The sampler opens the event for the thread
 * from a descriptor table of its own, where the program's never sees it;
 * without one, each thread opens its own, whose descriptor then takes a
 * number of the program's for that moment. The ring dies with its mapping: at munmap, at exec, when the
 * process ends. The event follows its thread only: a fork's child inherits
 * neither the event nor the mapping (the kernel does not copy it).
 *
 * A reader (the sampler thread) drains the ring now and then, as perf's
 * ring protocol wants: data_head read with acquire, records read, then
 * data_tail written with release; when the reader is too late, the kernel
 * drops samples and says how many in a PERF_RECORD_LOST, which it writes
 * with the first sample that fits again (so the count of a ring closed
 * while full lacks its last losses).
 */
#ifndef PV_PCRING_H
#define PV_PCRING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pv_pcring {
	void *map;              /* the control page then the data; NULL: no ring */
	size_t map_bytes;
	const unsigned char *data; /* the ring's data area */
	uint64_t data_size;     /* its bytes, a power of two */
	uint64_t samples;       /* PCs read so far */
	uint64_t lost;          /* samples the kernel dropped: the ring was full */
	int refused;            /* it could not be opened: not tried again */
	/* Its thread counts its samples as its time (pv_pcring_count): the
	 * records past `counted` are the thread's still, and no drain takes
	 * them, nor gives their space back to the kernel. */
	int counted_by_owner;
	uint64_t counted;       /* the position the thread has counted up to */
	uint64_t counted_cpu_ns; /* ... and the last sample's CPU clock there */
	uint64_t drained_cpu_ns; /* the last drained sample's CPU clock */
	uint64_t period_ns;     /* the CPU time between samples asked for */
	int event_fd;           /* the event, kept in the sampler's own table; */
	int has_event_fd;       /* ... so that it can change the period */
	int user_only;          /* no samples in the kernel: they were refused */
	/* The thread's switches off and onto a CPU, written into the ring
	 * while this event lives (pv_pcring_open_thread's switches): kept in
	 * the opener's table when has_switch_fd. switches_on is 1 while they
	 * are written, for the thread to read (the opener clears it, then
	 * closes the descriptor). */
	int switch_fd;
	int has_switch_fd;
	int switches_on;
	uintptr_t own_lo, own_hi; /* the runtime's code: its PCs are not the program's */
};

/* What a thread's ring holds past what it has counted: samples in the
 * program's code and the CPU time they stand for, the same in the
 * runtime's code, and samples the kernel dropped (the ring was full),
 * whose time the next sample stands for. */
struct pv_pcring_news {
	uint64_t samples, ns, own, own_ns, lost;
};

/* A count's view of the thread's switches (pv_pcring_count): the time it
 * spent off its CPU within a span, on CLOCK_MONOTONIC, and since the last
 * sample. The fields past the span carry from one count to the next. */
struct pv_pcring_offcpu {
	uint64_t from_ns, to_ns;     /* the span asked about */
	uint64_t off_ns;             /* ... and how much of it was off the CPU */
	uint64_t switched_out_ns;    /* a switch out not yet followed by one in, else 0 */
	uint64_t sample_ns;          /* the last sample: its time, */
	uint64_t sample_cpu_ns;      /* ... the thread's CPU clock then, */
	uint64_t off_since_sample_ns; /* ... and the time off the CPU since */
	uint64_t switches;           /* switches out */
};

/* What the reader hands each sampled PC to. */
typedef void pv_pc_fn(uintptr_t pc, void *arg);

/* Data pages a ring needs to hold reads_ns of samples taken every
 * period_ns, a power of two (at least 1). */
unsigned pv_pcring_pages(uint64_t period_ns, uint64_t reads_ns);

/* Open r for the calling thread: its user-space PC every period_ns of its
 * CPU time, into a ring of data_pages pages (a power of two). Runs in the
 * runtime's descriptor section (fds.h), which it enters itself (sections
 * nest). No malloc; errno may change. 0, or -errno: ENOSYS, EACCES/EPERM
 * (perf_event_paranoid, seccomp), ENOENT, EMFILE (no descriptor free for
 * the moment it needs one), EPERM from the mapping (the locked-memory
 * limits: perf_event_mlock_kb, then RLIMIT_MEMLOCK), EAGAIN (this thread
 * is inside the program's own close: try again later). r is left empty on
 * failure. Hand r to its reader only once this has returned, whole (under
 * the lock the reader takes, hotpcs.h). */
int pv_pcring_open(struct pv_pcring *r, uint64_t period_ns, unsigned data_pages);

/* The same for thread tid of this process, from a thread whose descriptor
 * table is its own (the sampler's, sampler.h): the event's descriptor never
 * enters the program's table, not even for the moment between its opening
 * and its closing, so no section of fds.h is entered. keep_fd: the
 * descriptor stays open there, in r->event_fd, for pv_pcring_period.
 * switches: the thread's switches off and onto a CPU are written into the
 * ring too while r->switch_fd is open (has_switch_fd: 0 if the kernel
 * refused them).
 * Nothing of libc's but system calls; errno may change. */
int pv_pcring_open_thread(struct pv_pcring *r, pid_t tid, uint64_t period_ns,
			  unsigned data_pages, int keep_fd, int switches);

/* A new period for the event behind fd; its timer starts again from now.
 * 0, or -errno. */
int pv_pcring_period(int fd, uint64_t period_ns);

/* Why pv_pcring_open failed with err, in the user's terms. */
void pv_pcring_explain(int err, char *out, size_t size);

/* Read r from a mapping laid out as perf's (the control page, then data
 * where its data_offset and data_size say, or the page after it): the
 * tests' simulated rings. 0, or -1 if the layout is not one. */
int pv_pcring_attach(struct pv_pcring *r, void *map, size_t map_bytes);

/* Hand every PC written since the last drain (up to `counted`, when its
 * thread counts them) to add(pc, arg), count the samples the kernel lost,
 * and give the space back to the kernel. One
 * reader at a time per ring; any thread, the sampler's included: nothing
 * of libc's is called, nothing allocated, no system call made. A record
 * that cannot be one (a size below its header's, not whole words, past the
 * data written) ends the drain with the ring emptied. */
void pv_pcring_drain(struct pv_pcring *r, pv_pc_fn *add, void *arg);

/* Where the kernel says how far it has written: a word that moves when a
 * sample lands (the hooks' one load to learn whether there is news). */
static inline const uint64_t *pv_pcring_head(const struct pv_pcring *r)
{
	return (const uint64_t *)&((const struct perf_event_mmap_page *)r->map)->data_head;
}

/* r's thread counts its samples from now on: from the head, the last
 * sample before it the base of the first one's CPU time. By whoever holds
 * r (its thread as it opens it, or the drains' lock). */
void pv_pcring_start_count(struct pv_pcring *r);

/* Is r (nearly) full? The kernel then drops what does not fit, and says so
 * only once there is room again. */
int pv_pcring_full(const struct pv_pcring *r);

/* On r's own thread: count the records written since the last count into
 * n (added to it), and the switches among them into off (NULL: passed
 * over), and move `counted` past them. Nothing is given back to the
 * kernel: a drain does that, up to `counted`. No system call, nothing of
 * libc's, async-signal-safe against any other reader. */
void pv_pcring_count(struct pv_pcring *r, struct pv_pcring_news *n, struct pv_pcring_offcpu *off);

/* The same count, from any thread, moving nothing: what a thread still
 * running has not counted yet (a dump). Records its thread counts and a
 * drain gives back meanwhile may be overwritten: a record that cannot be
 * one ends the count. */
void pv_pcring_peek(const struct pv_pcring *r, struct pv_pcring_news *n);

/* Unmap r (the event ends with it) and leave it empty. Nothing is drained. */
void pv_pcring_close(struct pv_pcring *r);

/* In a fork's child: r's mapping was not copied, so it is forgotten
 * without touching it. */
void pv_pcring_forget(struct pv_pcring *r);

#endif /* PV_PCRING_H */
