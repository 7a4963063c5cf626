/* SPDX-License-Identifier: MIT */
/*
 * format.h — the formats profviz writes, each chosen by a file's extension.
 *
 * A new format is a writer in its own file, declared here and added to the
 * table in format.c.
 */
#ifndef PV_OUTPUT_FORMAT_H
#define PV_OUTPUT_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "model/report.h"

/* Writes the whole report to out. 0, or -1 if out failed. */
typedef int pv_writer_fn(FILE *out, const struct pv_report *r);
pv_writer_fn pv_write_dot;    /* dot.c */
pv_writer_fn pv_write_json;   /* json.c */
/* 2: "paths", the calling-context tree; 3: "kinds" of events, no "backend"
 * (it was "backends"[0]); 4: sampled time ("sampling", each function's and
 * path's "samples", each function's "kind"); 5: "profviz_version", of the
 * profviz that wrote the file; 6: threads' names ("per_thread"'s "name" and
 * "main", "thread_groups", a root path's "threads"). */
#define PV_JSON_REVISION 6
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

#endif /* PV_OUTPUT_FORMAT_H */
