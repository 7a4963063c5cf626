/* SPDX-License-Identifier: MIT */
/*
 * fds.h — the runtime's own file descriptors: where they live, and which
 * numbers are theirs.
 *
 * Every descriptor the runtime keeps (each thread's perf events, its copy of
 * the start-up stderr) is moved out of the program's way: above the
 * program's soft RLIMIT_NOFILE when the hard limit leaves room, so the
 * program can open exactly as many files as without the runtime; otherwise
 * into the top eighth of the numbers the limit allows ("the share"), never
 * beyond it. The program's open() then returns the numbers it would have
 * had, and can fail at most one share earlier.
 *
 * A program may close or dup2 over any descriptor, daemons famously all of
 * them. The wrappers in interpose.c ask here whether one is ours, so that the
 * runtime stops using it before the program's call takes effect, and never
 * reads from or closes a number that has become the program's.
 */
#ifndef PV_FDS_H
#define PV_FDS_H

#include <signal.h>
#include <stddef.h>

#define PV_FDS_MAX 65536 /* higher descriptors are never claimed */

/* Note fd as the runtime's; 0, or -1 if it is too high to track. */
int pv_fd_claim(int fd);
void pv_fd_release(int fd);
int pv_fd_is_ours(int fd);

/* At start-up: keeps a fork from copying a briefly raised limit. */
void pv_fds_init(void);

/* The program's calls that close or replace descriptors (the wrappers of
 * close, dup2, dup3, close_range and closefrom) run between these. They
 * exclude the runtime's sections below: no descriptor the runtime has just
 * made, and not yet put where the wrappers look (a live thread's counters),
 * is taken unseen, nor a perf_event_open's number before it is moved out
 * of the program's way; and the runtime closes no number that the program
 * has taken and someone has been given since. errno is kept. */
void pv_fds_program_begins(void);
void pv_fds_program_ends(void);

/* A section of the runtime's that opens or closes its own descriptors, with
 * the thread's signals blocked (a handler's close would wait for it). wait:
 * 0 to give up at once while the program is in one of those calls. 1 if
 * entered; 0 if not: given up, or this thread is inside one of the
 * program's calls itself (its signal handler's hooks), which must not wait
 * for its own. Sections nest. */
int pv_fds_runtime_begins(int wait, sigset_t *saved);
void pv_fds_runtime_ends(const sigset_t *saved);

/* Only the calling thread exists (the copy a dying process writes its
 * profile from): what other threads held is free again. */
void pv_fds_alone(void);

/* A close-on-exec copy of fd at a number out of the program's way, claimed
 * as the runtime's; fd itself is left open. -1 with errno EMFILE when no
 * number is free there. */
int pv_fd_dup_private(int fd);

/* Where the runtime's descriptors go under the current limit, for messages:
 * "numbers 112-127, the top eighth of RLIMIT_NOFILE (128)". Returns 1 when
 * they count against the program's limit (no room above it), 0 when not. */
int pv_fds_describe(char *out, size_t size);

#endif /* PV_FDS_H */
