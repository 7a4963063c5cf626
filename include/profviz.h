/* SPDX-License-Identifier: MIT */
/*
 * profviz.h — the public interface of the profviz runtime.
 *
 * Nothing here is needed to profile a program: building it with
 * -finstrument-functions and running it with LD_PRELOAD=profviz.so is enough.
 * This header only lets a program keep functions out of the profile and, if it
 * wants, ask for a profile at a moment of its choosing, or of a window of its
 * run.
 */
#ifndef PROFVIZ_H
#define PROFVIZ_H

#ifdef __cplusplus
extern "C" {
#endif

/* Keep a function out of the profile (and out of the hooks' cost). */
#define PROFVIZ_NO_INSTRUMENT __attribute__((no_instrument_function))

/*
 * The API below is weak so that a program that uses it still runs, unprofiled,
 * without the preload: check the function pointer before calling, e.g.
 *     if (profviz_dump) profviz_dump();
 */

/* Write every configured output now, with the profile gathered so far.
 * Returns 0 on success, -1 if any output could not be written. */
int profviz_dump(void) __attribute__((weak));

/* Windows of a long run, each written to files of its own (prof.w1.json,
 * prof.w2.json, ... beside the configured outputs), holding what ran since
 * the window opened; the exit's profile stays the whole run's (unless
 * PROFVIZ_START=paused). Each returns 0, or -1 (not profiled, or a file
 * not written). None may be called from a signal handler. */
/* Open a window, unless one is open. */
int profviz_start(void) __attribute__((weak));
/* Write the open window, or what ran since the last window's end, and close it. */
int profviz_stop(void) __attribute__((weak));
/* Open a window from now: the open one's figures so far are dropped. */
int profviz_reset(void) __attribute__((weak));
/* Write what ran since the last window's start; the next window starts now. */
int profviz_window(void) __attribute__((weak));

#ifdef __cplusplus
}
#endif

#endif /* PROFVIZ_H */
