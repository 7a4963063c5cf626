#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fds.h"

static pv_log_sink_fn *pv_sink;

/* The start-up stderr: its identity, and the runtime's copy of it. */
static int started;
static int had_stderr;
static dev_t stderr_dev;
static ino_t stderr_ino;
static int stderr_copy = -1;

void pv_log_init(void)
{
	struct stat st;
	if (fstat(2, &st) == 0) {
		stderr_dev = st.st_dev;
		stderr_ino = st.st_ino;
		had_stderr = 1;
		stderr_copy = pv_fd_dup_private(2);
	}
	started = 1;
}

void pv_log_set_sink(pv_log_sink_fn *sink)
{
	pv_sink = sink;
}

static int is_start_stderr(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == stderr_dev && st.st_ino == stderr_ino;
}

/* The descriptor to write to, or -1 when the start-up stderr is gone. */
static int destination(void)
{
	if (!started)
		return 2;
	if (!had_stderr)
		return -1;
	/* The program may have closed the copy (the wrappers then release it),
	 * and its number may have been reused since. */
	if (stderr_copy >= 0 && pv_fd_is_ours(stderr_copy) && is_start_stderr(stderr_copy))
		return stderr_copy;
	return is_start_stderr(2) ? 2 : -1;
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
	int fd;
	if (pv_sink) {
		pv_sink(line);
	} else if ((fd = destination()) >= 0) {
		size_t len = strlen(line);
		line[len++] = '\n';
		for (size_t off = 0; off < len;) {
			ssize_t w = write(fd, line + off, len - off);
			if (w <= 0 && errno != EINTR)
				break;
			if (w > 0)
				off += (size_t)w;
		}
	}
	errno = saved_errno;
}
