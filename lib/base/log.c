/* SPDX-License-Identifier: MIT */
#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int pv_debug_level;

static pv_log_sink_fn *pv_sink;

void pv_log_set_sink(pv_log_sink_fn *sink)
{
	pv_sink = sink;
}

void pv_log_write_line(int fd, const char *line)
{
	int saved_errno = errno;
	/* The line and its newline in one writev, without a copy: a message may
	 * come from a fatal signal's handler on the program's small sigaltstack,
	 * where the line's own buffer is all the stack there is to spare.
	 * (POSIX does not list writev as async-signal-safe; glibc's is the bare
	 * system call.) */
	struct iovec part[2] = { { (void *)line, strlen(line) }, { (void *)"\n", 1 } };
	int n = 2;
	struct iovec *at = part;
	while (n > 0) {
		ssize_t w = writev(fd, at, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		/* A short write: go on from where it stopped. */
		while (n > 0 && (size_t)w >= at->iov_len) {
			w -= (ssize_t)at->iov_len;
			at++;
			n--;
		}
		if (n > 0) {
			at->iov_base = (char *)at->iov_base + w;
			at->iov_len -= (size_t)w;
		}
	}
	errno = saved_errno;
}

void pv_log(const char *fmt, ...)
{
	int saved_errno = errno;
	char line[PV_LOG_LINE_MAX];
	int n = snprintf(line, sizeof(line), "profviz: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (pv_sink)
		pv_sink(line);
	else
		pv_log_write_line(2, line);
	errno = saved_errno;
}
