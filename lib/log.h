/*
 * log.h — the runtime's messages to the user.
 *
 * Everything goes to the stderr the process had at start-up, with a
 * "profviz: " prefix, written with write(2) in one piece so it cannot mix
 * with the program's buffered stderr. That stderr is kept as a copy of
 * fd 2 out of the program's way (fds.h): a program that closes fd 2 and
 * opens a data file there never gets a message in it. If the program closes
 * the copy too, fd 2 is used while it is still the same file; otherwise the
 * message is dropped. Tests swap the sink to capture messages.
 */
#ifndef PV_LOG_H
#define PV_LOG_H

#include <limits.h>

/* Room for a whole path and the words around it. */
#define PV_LOG_LINE_MAX (PATH_MAX + 512)

typedef void pv_log_sink_fn(const char *line);

/* At start-up, before any message: remember this stderr. Until then
 * messages go to fd 2 as it is. */
void pv_log_init(void);

/* Where messages go; NULL restores stderr. */
void pv_log_set_sink(pv_log_sink_fn *sink);

void pv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PV_LOG_H */
