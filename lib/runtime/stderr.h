/* SPDX-License-Identifier: MIT */
/*
 * stderr.h — where the runtime's messages go: the stderr the process had at
 * start-up.
 *
 * It is kept as a copy of fd 2 out of the program's way (fds.h): a program
 * that closes fd 2 and opens a data file there never gets a message in it.
 * If the program closes the copy too, fd 2 is used while it is still the
 * same file; otherwise the message is dropped.
 *
 * Start-up's messages (the notice, a bad setting) are held until the
 * process first has something to profile: a shell, timeout or time that
 * inherits LD_PRELOAD and runs no instrumented code says nothing, and the
 * program it runs says them once.
 */
#ifndef PV_RUNTIME_STDERR_H
#define PV_RUNTIME_STDERR_H

/* At start-up, before any message: remember this stderr, and make it
 * pv_log's sink, holding what is said until pv_stderr_speak. Until then
 * messages go to fd 2 as it is. */
void pv_stderr_init(void);

/* The process has something to profile: write the messages held, and say
 * the next ones at once. */
void pv_stderr_speak(void);

#endif /* PV_RUNTIME_STDERR_H */
