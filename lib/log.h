/*
 * log.h — the runtime's messages to the user.
 *
 * Everything goes to fd 2 with a "profviz: " prefix, written with write(2)
 * in one piece so it cannot mix with the program's buffered stderr. Tests
 * swap the sink to capture messages.
 */
#ifndef PV_LOG_H
#define PV_LOG_H

typedef void pv_log_sink_fn(const char *line);

/* Where messages go; NULL restores stderr. */
void pv_log_set_sink(pv_log_sink_fn *sink);

void pv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PV_LOG_H */
