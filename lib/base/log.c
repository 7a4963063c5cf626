/* SPDX-License-Identifier: MIT */
#include "base/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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
	char buf[PV_LOG_LINE_MAX + 1];
	size_t len = strlen(line);
	if (len > PV_LOG_LINE_MAX - 1)
		len = PV_LOG_LINE_MAX - 1;
	memcpy(buf, line, len);
	buf[len++] = '\n';
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w <= 0 && errno != EINTR)
			break;
		if (w > 0)
			off += (size_t)w;
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
