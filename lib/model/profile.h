/* SPDX-License-Identifier: MIT */
/*
 * profile.h — the process-wide profile: functions and arcs, summed over threads.
 *
 * The runtime's threads hand their call-path trees over when they end, and
 * the threads still alive at exit are merged then (runtime/handover.c).
 * Everything here runs under the runtime's lock, never on the hot path, so
 * it may use malloc.
 */
#ifndef PV_PROFILE_H
#define PV_PROFILE_H

#include <stdint.h>
#include <sys/types.h>

#include "base/htab.h"
#include "model/event.h"

/* What a function of the profile stands for. */
enum pv_func_kind {
	PV_FUNC_PLAIN,  /* a function of the program */
	PV_FUNC_SIGNAL, /* a signal's delivery: its handlers ran under it */
	PV_FUNC_WAIT,   /* a wait in libc: its self is blocked time */
};

/* "plain", "signal", "wait": the kind's name in a saved profile. */
const char *pv_func_kind_name(enum pv_func_kind k);

/* The kind named so: 1, or 0 if the name is none of them. */
int pv_func_kind_named(const char *name, enum pv_func_kind *k);

struct pv_fstat {
	void *fn;
	enum pv_func_kind kind; /* said by whoever adds its calls */
	uint64_t calls;
	uint64_t inlined_calls; /* ... of which ran as bodies inlined into their callers */
	uint64_t samples; /* the sampler's looks charged to its self (0 unless sampled) */
	uint64_t timed_ns; /* ... and what of its sampled self was timed instead */
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS];
	UT_hash_handle hh;
};

struct pv_arc_key {
	void *caller; /* NULL: called from uninstrumented code */
	void *callee;
};

struct pv_astat {
	struct pv_arc_key key;
	uint64_t calls;
	/* ... of which entered an activation of the callee already open (its
	 * recursion): those add nothing to the arc's total. */
	uint64_t nested_calls;
	/* ... of which ran as the callee's body inlined into the caller: no
	 * frame, no cost of their own (the caller's code ran). */
	uint64_t inlined_calls;
	uint64_t total[PV_MAX_EVENTS];
	UT_hash_handle hh;
};

/* One call path, merged over the threads of one name: recursion folded as
 * in the trees. */
struct pv_path_key {
	const struct pv_path *parent; /* NULL: called from uninstrumented code */
	void *fn;
	uintptr_t group; /* at the root: its threads' (pv_profile_group); else 0 */
};

struct pv_path {
	struct pv_path_key key;
	uint64_t calls;   /* entries, recursive ones (folded into it) included */
	uint64_t inlined_calls; /* ... of which were its body inlined into the parent's */
	uint64_t callees; /* calls made from it through the hooks (not signal deliveries) */
	uint64_t callee_misses; /* ... of which missed the cache (a costlier hook) */
	uint64_t samples; /* the sampler's looks charged to its self */
	uint64_t timed_ns; /* ... and what of its sampled self was timed instead */
	uint64_t self[PV_MAX_EVENTS];
	uint64_t total[PV_MAX_EVENTS]; /* of its outermost activations */
	UT_hash_handle hh; /* table order: every path after its parent */
};

/* Recursive calls from one path to a function open above it, folded into
 * that function's path up there (the trees fold recursion, runtime/cct.h):
 * run -> fib -> fib's calls are on run -> fib's path, and here, from it
 * into it. The arcs they are (fib -> fib) come back from these. */
struct pv_fold_key {
	const struct pv_path *from; /* the path that called */
	const struct pv_path *into; /* the path its calls were folded into */
};

struct pv_fold {
	struct pv_fold_key key;
	uint64_t calls;
	UT_hash_handle hh;
};

/* What the profile is missing, each counted so that the outputs can say so. */
struct pv_losses {
	uint64_t unrecorded_calls; /* no memory on the thread for a frame or a node */
	uint64_t merge_failures;   /* records lost merging threads (no memory) */
	uint64_t counters_lost;    /* threads whose events could not be reopened */
	uint64_t rekeys_incomplete; /* threads whose calls into an unloaded object
				     * kept their old keys (retire.h): the thread
				     * kept growing its index for two seconds */
	uint64_t threads_cut_short; /* threads still running at the dump whose open
				     * calls' costs stop before it: their events
				     * could not be read then */
	uint64_t threads_shared;    /* threads that made a clone(2) share their
				     * TLS: nothing recorded on them since */
	uint64_t contexts_unplaced; /* ucontexts made while a thread kept as many
				     * as it can apart: their calls hang from the
				     * code that switched to them */
	uint64_t catches_in_bodies; /* C++ catches reached through frames run
				     * without exit hooks (clang) into a function
				     * with inlined bodies open, which may stay
				     * open past the catch */
};

/* Every member of struct pv_losses, for the code that treats them alike:
 * adding two up, asking whether any is counted. The JSON writes them
 * under these names, and cmd/load.c reads each by its name as written
 * (t_schema looks for each there). */
#define PV_LOSSES(X)                                                         \
	X(unrecorded_calls) X(merge_failures) X(counters_lost) X(rekeys_incomplete) \
	X(threads_cut_short) X(threads_shared) X(contexts_unplaced) X(catches_in_bodies)
#define PV_LOSS_ONE(name) +1
_Static_assert(sizeof(struct pv_losses) == (0 PV_LOSSES(PV_LOSS_ONE)) * sizeof(uint64_t),
	       "PV_LOSSES names every member of struct pv_losses");
#undef PV_LOSS_ONE

/* Is any loss counted in l? */
int pv_losses_any(const struct pv_losses *l);

/* How the run's time was sampled (runtime/sampler.h), when it was: the
 * profile's event 0 is then that time (PV_EVENT_SAMPLED). */
struct pv_sampling {
	double rate_hz;        /* samples per second of CPU asked for; 0: not sampled */
	double wall_seconds;   /* how long the sampler ran */
	uint64_t looks;        /* rounds over the live threads */
	uint64_t samples;      /* taken in the program's code (or looks that found it there): charged */
	uint64_t own_samples;  /* ... in profviz's code: dropped */
	uint64_t own_ns;       /* ... and the CPU time those stood for */
	uint64_t unsampled_ns; /* CPU time after a thread's last look, to its end */
	uint64_t blocked_ns;   /* time blocked in libc's waits, measured around them */
	uint64_t timed_ns;     /* CPU time timed at the hooks instead (timedstart.h) */
	uint64_t timed_start_ns; /* ... at most this much of each thread's first CPU */
	uint64_t sample_cost_ns; /* a sample's cost, which set rate_hz; 0: not measured */
	uint64_t sampler_ns;   /* the sampler thread's own CPU time */
};

/* dst's sampling plus src's (rates: the first one's, if they differ). */
void pv_sampling_add(struct pv_sampling *dst, const struct pv_sampling *src);

/* The relative standard error of a share estimated from n samples: each
 * look's charge is a count of a Poisson-like process, so 1/sqrt(n). */
double pv_sampling_error(uint64_t n);

/* Fewer samples than this and a function's sampled self is marked as
 * uncertain in every output (its error is above about 30 %). */
#define PV_FEW_SAMPLES 10

/* A thread's name as the kernel keeps it (comm: pthread_setname_np,
 * prctl(PR_SET_NAME), else the program's), its NUL included. */
#define PV_THREAD_NAME_MAX 16

/* The threads of one name, whose call paths are kept together, apart from
 * other names' (the main thread apart from all). */
struct pv_thread_group {
	char name[PV_THREAD_NAME_MAX];
	int main_thread; /* the process's first thread */
};

/* One thread as a whole: how much it ran, in wall and CPU time. */
struct pv_thread_stat {
	pid_t tid;
	char name[PV_THREAD_NAME_MAX]; /* "" when it could not be read */
	int main_thread;
	uint64_t calls;         /* through the hooks (not signal deliveries) */
	uint64_t outer_calls;   /* ... of which came from outside instrumented code */
	uint64_t inner_misses;  /* calls from instrumented code that missed the cache */
	uint64_t inlined_calls; /* ... of which ran inlined bodies (cheaper hooks, no frame) */
	uint64_t total[PV_MAX_EVENTS]; /* raw: its calls from outside instrumented code */
	double cpu_seconds;     /* its CPU time, or -1 if unknown */
	double wall_seconds;    /* from its first profiled call to its summary */
	int cut_short;          /* its open calls' costs stop before the dump (losses) */
};

struct pv_profile {
	unsigned nev;
	struct pv_thread_group *groups; /* group g is groups[g - 1]; 0: none */
	unsigned n_groups;
	struct pv_thread_stat *thread_stats; /* one per merged thread, in merge order */
	unsigned n_thread_stats, thread_stats_cap;
	struct pv_fstat *funcs;
	struct pv_astat *arcs;
	struct pv_path *paths;
	struct pv_fold *folds;
	uint64_t threads;     /* merged so far */
	uint64_t stray_exits; /* summed from the threads */
	uint64_t resyncs;
	uint64_t enabled[PV_MAX_EVENTS]; /* perf time_enabled / time_running sums */
	uint64_t running[PV_MAX_EVENTS];
	struct pv_losses losses;
	struct pv_sampling sampling;
};

void pv_profile_init(struct pv_profile *p, unsigned nev);

/* dst's losses plus src's, each kind apart. */
void pv_losses_add(struct pv_losses *dst, const struct pv_losses *src);

/* The record of function fn, of the arc caller -> callee, of the path
 * parent -> fn (parent NULL: called from uninstrumented code), each added
 * zeroed if new; NULL only when memory ran out. */
struct pv_fstat *pv_profile_func(struct pv_profile *p, void *fn);
struct pv_astat *pv_profile_arc(struct pv_profile *p, void *caller, void *callee);
struct pv_path *pv_profile_path(struct pv_profile *p, const struct pv_path *parent, void *fn);
/* The root path of fn in the threads of group (0: of no group). */
struct pv_path *pv_profile_root_path(struct pv_profile *p, void *fn, unsigned group);

/* The group of the threads named name (the main thread's apart), added if
 * new: its number from 1, or 0 when memory ran out. */
unsigned pv_profile_group(struct pv_profile *p, const char *name, int main_thread);

/* The group of that name and kind in p, or 0 when p has none. */
unsigned pv_profile_find_group(const struct pv_profile *p, const char *name, int main_thread);

/* The group in dst of src's group g (0 for 0): the same name and kind. */
unsigned pv_profile_same_group(struct pv_profile *dst, const struct pv_profile *src,
			       unsigned g);
struct pv_fold *pv_profile_fold(struct pv_profile *p, const struct pv_path *from,
				const struct pv_path *into);

/* A new zeroed thread summary in p; NULL when memory ran out. */
struct pv_thread_stat *pv_profile_thread_add(struct pv_profile *p);

/* Where the records of another tree (a thread's nodes, another profile's
 * paths) went among p's paths, during one merge. Start with { p, NULL }; a
 * record that cannot be kept (no memory) is counted in p's losses. */
struct pv_path_map {
	struct pv_profile *p;
	struct pv_path_map_entry *entries;
};
struct pv_path *pv_path_map_get(const struct pv_path_map *m, const void *from);
void pv_path_map_put(struct pv_path_map *m, const void *from, struct pv_path *to);
void pv_path_map_clear(struct pv_path_map *m);

/* A function's new key, or NULL to keep the one it has. */
typedef void *pv_rekey_fn(void *fn, void *arg);

/* Add everything in src to dst (the ended threads into a dump's snapshot). */
void pv_profile_add(struct pv_profile *dst, const struct pv_profile *src);

/* The same, each function taking the key rekey maps it to (cct.h): records
 * whose keys become equal add up, call paths included. */
void pv_profile_add_rekeyed(struct pv_profile *dst, const struct pv_profile *src,
			    pv_rekey_fn *rekey, void *arg);

void pv_profile_clear(struct pv_profile *p);

/* Give every function, arc and path the key rekey maps its functions to
 * (cct.h), keeping each table's order (paths stay after their parents). */
void pv_profile_rekey(struct pv_profile *p, pv_rekey_fn *rekey, void *arg);

#endif /* PV_PROFILE_H */
