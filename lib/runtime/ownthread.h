/* SPDX-License-Identifier: MIT */
/*
 * ownthread.h — a thread of the runtime's own, made with pthread_create
 * (the progress lines; the sampler under a sanitizer's runtime).
 */
#ifndef PV_OWNTHREAD_H
#define PV_OWNTHREAD_H

/* Start fn(arg) on a detached thread with every signal blocked (the mask
 * is inherited), so that the program's signals go to the program's
 * threads. 0, or an errno. */
int pv_own_thread_start(void *(*fn)(void *), void *arg);

#endif /* PV_OWNTHREAD_H */
