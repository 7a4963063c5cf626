/*
 * sysraw.h — system calls made directly, never through a libc function that
 * profviz.so itself interposes (a plain close() inside the runtime binds to
 * the runtime's own wrapper).
 */
#ifndef PV_BASE_SYSRAW_H
#define PV_BASE_SYSRAW_H

#include <sys/syscall.h>
#include <unistd.h>

/* close(2) of a descriptor of profviz's own. */
static inline int pv_sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

#endif /* PV_BASE_SYSRAW_H */
