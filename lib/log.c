#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pv_log_sink_fn *pv_sink;

void pv_log_set_sink(pv_log_sink_fn *sink)
{
	pv_sink = sink;
}

void pv_log(const char *fmt, ...)
{
	int saved_errno = errno;
	char line[1024];
	int n = snprintf(line, sizeof(line), "profviz: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (pv_sink) {
		pv_sink(line);
	} else {
		size_t len = strlen(line);
		line[len++] = '\n';
		for (size_t off = 0; off < len;) {
			ssize_t w = write(2, line + off, len - off);
			if (w <= 0 && errno != EINTR)
				break;
			if (w > 0)
				off += (size_t)w;
		}
	}
	errno = saved_errno;
}
