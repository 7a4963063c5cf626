/* SPDX-License-Identifier: MIT */
/* One sampler candidate behind a common face, so that the same driver
 * (measure.c, safety.c) measures each of them: timer.c, perf.c, poll.c,
 * and none.c (no sampling, the baseline for cost). */
#ifndef SAMPLER_H
#define SAMPLER_H
#include <stdint.h>

/* Where a thread is: a slot the workload sets before it runs a function.
 * Slot 0 is "outside the measured functions". */
enum { SLOT_NONE, SLOT_A, SLOT_B, NSLOTS };

struct smp_thread {
	volatile int cur;              /* published state: the current slot */
	uint64_t hits[NSLOTS];         /* signals or looks that found the thread in a slot */
	uint64_t weight_ns[NSLOTS];    /* CPU time charged to the slot */
	uint64_t foreign;              /* signals of ours with a code we did not send */
	int fd;                        /* perf only: -1 when closed after setup */
	void *ring;                    /* perf only: the mapping that keeps the event alive */
	int timer_ok;                  /* timer only */
	void *timer;                   /* timer only (timer_t) */
	int clock;                     /* poll only: the thread's CPU clock (clockid_t) */
	uint64_t last_ns;              /* poll only: the clock at the previous look */
	int registered;
};

/* Installed before any thread starts; period in ns. */
int smp_init(long period_ns);
/* Each thread: begin with its own record, end before it exits. */
int smp_thread_begin(struct smp_thread *t);
void smp_thread_end(struct smp_thread *t);
/* The poll sampler charges what it has not seen yet; the others do nothing. */
void smp_flush(void);
extern const char *smp_name;
extern __thread struct smp_thread *smp_self __attribute__((tls_model("initial-exec")));
#endif
