/* SPDX-License-Identifier: MIT */
/*
 * log.h — profviz's messages to the user: one line each, "profviz: " first,
 * handed whole to a sink.
 *
 * The default sink writes the line to fd 2 with one writev(2), so it cannot
 * mix with a program's buffered stderr. The runtime installs a sink of its
 * own at start-up (runtime/stderr.h: the stderr the process started with,
 * kept out of the program's way); the command and tests may install theirs.
 * Debug lines (PROFVIZ_DEBUG=1..3) go the same way, when their level is on.
 */
#ifndef PV_BASE_LOG_H
#define PV_BASE_LOG_H

#include <limits.h>

/* Room for a whole path and the words around it. */
#define PV_LOG_LINE_MAX (PATH_MAX + 512)

/* Receives a whole line, prefix included, without its newline. */
typedef void pv_log_sink_fn(const char *line);

/* Where messages go; NULL restores fd 2. */
void pv_log_set_sink(pv_log_sink_fn *sink);

/* Write line and a newline to fd, in one writev(2) where it can: for sinks.
 * errno is kept. */
void pv_log_write_line(int fd, const char *line);

void pv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Debug levels: 0 none (the default), 1 the run's course (start-up, dumps),
 * 2 the runtime's repairs (reopened counters, re-keyed objects, abandoned
 * sections), 3 every resynchronisation and stray exit. */
#define PV_DEBUG_MAX 3
extern int pv_debug_level;

/* A debug line at level (cheap when that level is off). */
#define pv_debug(level, ...)                                   \
	do {                                                   \
		if (__builtin_expect(pv_debug_level >= (level), 0)) \
			pv_log("debug: " __VA_ARGS__);          \
	} while (0)

#endif /* PV_BASE_LOG_H */
