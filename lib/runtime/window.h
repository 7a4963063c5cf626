/* SPDX-License-Identifier: MIT */
/*
 * window.h — profiles of windows of the run, for long-running programs: a
 * window opens (a signal, profviz_start(), the command, the interval) and
 * is written when it closes, to files of its own (prof.w1.json, ...),
 * holding what ran while it was open (model/window.h).
 *
 * The hooks are not told: they keep counting, and a window is the
 * difference between the profiles at its ends. So the call paths stay
 * exact whenever a window opens, and the hooks cost what they always do.
 */
#ifndef PV_RUNTIME_WINDOW_H
#define PV_RUNTIME_WINDOW_H

#include <signal.h>

#include "base/compiler.h"
#include "output/config.h"

/* At start-up: the signal's handler and the thread that does what it asks
 * (and writes every PROFVIZ_INTERVAL seconds), when either is configured. */
PV_HIDDEN void pv_window_init(void);

/* PROFVIZ_SIGNAL's handler, which runtime.c installs (wrap.h): it hands
 * what the signal asks to the serving thread. */
PV_HIDDEN void pv_window_on_signal(int sig, siginfo_t *info, void *context);

/* The first instrumented call: the thread that serves the signal and the
 * interval starts (as the progress lines' does). */
PV_HIDDEN void pv_window_start_thread(void);

/* Whether sig is the window signal, which the program's own handler does
 * not get (wrap/signals.c keeps it for reading back). */
PV_HIDDEN int pv_window_takes(int sig);

/* At the process's end, before the exit's profile: the open window
 * written. Whether the exit's profile is to be written too (not when the
 * run started paused: its profile is its windows). */
PV_HIDDEN int pv_window_at_exit(void);

/* In a forked child, which has no thread to serve it: no windows there;
 * its profile is written at its exit, whole. */
PV_HIDDEN void pv_window_forked(void);

#endif /* PV_RUNTIME_WINDOW_H */
