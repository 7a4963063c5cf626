/*
 * fds.h — which file descriptors belong to the runtime (its perf events).
 *
 * A program may close or dup2 over any descriptor, daemons famously all of
 * them. The wrappers in interpose.c ask here whether one is ours, so that the
 * runtime stops using it before the program's call takes effect, and never
 * reads from or closes a number that has become the program's.
 */
#ifndef PV_FDS_H
#define PV_FDS_H

#define PV_FDS_MAX 65536 /* higher descriptors are never claimed */

/* Note fd as the runtime's; 0, or -1 if it is too high to track. */
int pv_fd_claim(int fd);
void pv_fd_release(int fd);
int pv_fd_is_ours(int fd);

#endif /* PV_FDS_H */
