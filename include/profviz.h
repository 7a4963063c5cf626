/* SPDX-License-Identifier: MIT */
/*
 * profviz.h — the public interface of the profviz runtime.
 *
 * Nothing here is needed to profile a program: building it with
 * -finstrument-functions and running it with LD_PRELOAD=profviz.so is enough.
 * This header only lets a program keep functions out of the profile and, if it
 * wants, ask for a profile at a moment of its choosing.
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

#ifdef __cplusplus
}
#endif

#endif /* PROFVIZ_H */
