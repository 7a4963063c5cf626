/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/smallfile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/sysraw.h"

ssize_t pv_read_small_file(const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -1;
	buf[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t got = 0;
	while (got + 1 < size) {
		ssize_t n = read(fd, buf + got, size - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	pv_sys_close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}
