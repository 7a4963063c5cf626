/* SPDX-License-Identifier: MIT */
/*
 * progress.h — on request, a line now and then saying the run is still
 * being profiled: with an event read by a system call per hook a program
 * can run a hundred times slower, and a user should not take it for hung.
 */
#ifndef PV_PROGRESS_H
#define PV_PROGRESS_H

/* Every seconds, one line on stderr: how long profiled, how many threads
 * live. From a thread of the runtime's own, made only when asked for, with
 * every signal blocked: no signal of the program's lands there. 0, or -1. */
int pv_progress_start(unsigned seconds, unsigned (*live_threads)(void));

#endif /* PV_PROGRESS_H */
