/* SPDX-License-Identifier: MIT */
/*
 * stderr.h — where the runtime's messages go: the stderr the process had at
 * start-up.
 *
 * Messages go to fd 2 while it is still that file (same device and inode),
 * so the runtime holds no descriptor of its own for them. When the program
 * is about to close or replace fd 2 (close, dup2, dup3, close_range,
 * closefrom, freopen of stderr, daemon), a copy is made first, out of the
 * program's way (fds.h): a program that closes fd 2 and opens a data file
 * there never gets a message in it, and its messages still reach the
 * start-up stderr. If the program closes the copy too, or takes fd 2 some
 * other way (a system call of its own), the message is dropped. A process
 * that detaches (setsid, daemon) keeps no copy: a starter that waits for
 * the end of that stderr (a shell's $(...), a captured subprocess, an ssh
 * session) would wait for the daemon's whole life. Its messages go to fd 2
 * while that is still the start-up stderr, and are dropped after.
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

/* fd 2 is about to be closed or replaced by the program: keep a copy of it
 * first, if it is still the start-up stderr and none is kept yet. errno may
 * change. */
void pv_stderr_keep(void);

/* The process detaches from its starter (setsid, daemon): the copy, if
 * one is kept, is closed, and none is made again. errno is kept. */
void pv_stderr_detach(void);

/* In a fork's child, where only the forking thread is: the copy's lock
 * is free, whoever held it in the parent. */
void pv_stderr_forked(void);

#endif /* PV_RUNTIME_STDERR_H */
