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

#include <stddef.h>

#define PV_FDS_MAX 65536 /* higher descriptors are never claimed */

/* Note fd as the runtime's; 0, or -1 if it is too high to track. */
int pv_fd_claim(int fd);
void pv_fd_release(int fd);
int pv_fd_is_ours(int fd);

/* At start-up: keeps a fork from copying a briefly raised limit. */
void pv_fds_init(void);

/* A close-on-exec copy of fd at a number out of the program's way, claimed
 * as the runtime's; fd itself is left open. -1 with errno EMFILE when no
 * number is free there. */
int pv_fd_dup_private(int fd);

/* Where the runtime's descriptors go under the current limit, for messages:
 * "numbers 112-127, the top eighth of RLIMIT_NOFILE (128)". Returns 1 when
 * they count against the program's limit (no room above it), 0 when not. */
int pv_fds_describe(char *out, size_t size);

#endif /* PV_FDS_H */
