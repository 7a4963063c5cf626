/*
 * output.h — writing the configured files, each atomically.
 *
 * A file is written to a fresh temporary beside it and renamed into place,
 * so a reader never sees half a profile and a crash mid-write leaves the old
 * one. A symlink or a read-only file at the path is refused with a message.
 */
#ifndef PV_OUTPUT_H
#define PV_OUTPUT_H

#include "config.h"
#include "report.h"

/* How this process's files are told apart from its relatives'. */
struct pv_output_tag {
	int child_pid; /* a forked child: ".PID" before the extension, unless %p */
	int exec_n;    /* written before exec: ".execN" before the extension */
};

/* Write every output of c. 0, or -1 if any file failed (each is reported). */
int pv_output_write_all(const struct pv_config *c, const struct pv_report *r, int pid,
			struct pv_output_tag tag);

/* The final path for one output. 0, or -1 if it does not fit. */
int pv_output_path(const struct pv_output *o, int pid, struct pv_output_tag tag, char *out,
		   unsigned size);

#endif /* PV_OUTPUT_H */
