/*
 * output.h — writing the configured files, each atomically.
 *
 * A file is written to a fresh temporary beside it and renamed into place,
 * so a reader never sees half a profile and a crash mid-write leaves the old
 * one. A symlink or a read-only file at the path is refused with a message.
 *
 * The file's extension picks its format. A new format is a writer in its
 * own file, declared here and added to the table in output.c.
 */
#ifndef PV_OUTPUT_H
#define PV_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "report.h"

/* Writes the whole report to out. 0, or -1 if out failed. */
typedef int pv_writer_fn(FILE *out, const struct pv_report *r);
pv_writer_fn pv_write_dot;    /* dot.c */
pv_writer_fn pv_write_json;   /* json.c */
#define PV_JSON_REVISION 2    /* 2: "paths", the calling-context tree */
pv_writer_fn pv_write_folded; /* folded.c */
pv_writer_fn pv_write_pprof;  /* pprof.c */
pv_writer_fn pv_write_callgrind; /* callgrind.c */
pv_writer_fn pv_write_speedscope; /* speedscope.c */

struct pv_format {
	const char *extension; /* with its dot: ".dot" */
	pv_writer_fn *write;
	int from_paths;        /* written from the call paths alone */
};

/* The format path's extension asks for, or NULL when it has none we know. */
const struct pv_format *pv_output_format_of(const char *path);

/* The known extensions for a message: ".dot, .json or .folded". */
void pv_output_extensions(char *out, size_t size);

/* How this process's files are told apart from its relatives'. */
struct pv_output_tag {
	int child_pid; /* a forked child: ".PID" before the extension, unless %p */
	int exec_n;    /* written before exec: ".execN" before the extension */
};

/* Write one file with writer, atomically. 0, or -1 after a message. */
int pv_output_write_file(const char *path, pv_writer_fn *writer, const struct pv_report *r);

/* Write every output of c. 0, or -1 if any file failed (each is reported). */
int pv_output_write_all(const struct pv_config *c, const struct pv_report *r, int pid,
			struct pv_output_tag tag);

/* Remove the files of every output of c that a write_all with this tag
 * made, as far as can be told: regular files that write_all would have
 * replaced (a symlink, or a read-only file, it leaves alone). */
void pv_output_remove_all(const struct pv_config *c, int pid, struct pv_output_tag tag);

/* The final path for one output. 0, or -1 if it does not fit. */
int pv_output_path(const struct pv_output *o, int pid, struct pv_output_tag tag, char *out,
		   unsigned size);

#endif /* PV_OUTPUT_H */
