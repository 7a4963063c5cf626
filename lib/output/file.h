/* SPDX-License-Identifier: MIT */
/*
 * file.h — profviz's files: their names, and writing each atomically.
 *
 * A file is written to a fresh temporary beside it and renamed into place,
 * so a reader never sees half a profile and a crash mid-write leaves the old
 * one. A symlink or a read-only file at the path is refused with a message.
 */
#ifndef PV_OUTPUT_FILE_H
#define PV_OUTPUT_FILE_H

#include <limits.h>

#include "model/report.h"
#include "output/format.h"

/* One file to write, as configured (PROFVIZ_OUTPUT, or a command's -o). */
struct pv_output {
	char path[PATH_MAX]; /* %p, %h, %% are expanded when writing */
	char given[256];     /* as the user wrote it, for messages */
	const struct pv_format *format;
};

/* Expand %p (pid), %h (host name) and %% in a path template.
 * 0, or -1 if the result does not fit. */
int pv_expand_path(const char *template, int pid, char *out, unsigned size);

/* How this process's files are told apart from its relatives'. */
struct pv_output_tag {
	int child_pid; /* a forked child: ".PID" before the extension, unless %p */
	int exec_n;    /* written before exec: ".execN" before the extension */
	int window_n;  /* a window of the run (runtime/window.h): ".wN" */
};

/* Write one file with writer, atomically. 0, or -1 after a message. */
int pv_output_write_file(const char *path, pv_writer_fn *writer, const struct pv_report *r);

/* Write each of the n outputs. 0, or -1 if any file failed (each is
 * reported). */
int pv_output_write_all(const struct pv_output *outputs, unsigned n, const struct pv_report *r,
			int pid, struct pv_output_tag tag);

/* Remove the files of each of the n outputs that a write_all with this tag
 * made, as far as can be told: regular files that write_all would have
 * replaced (a symlink, or a read-only file, it leaves alone). */
void pv_output_remove_all(const struct pv_output *outputs, unsigned n, int pid,
			  struct pv_output_tag tag);

/* The final path for one output. 0, or -1 if it does not fit. */
int pv_output_path(const struct pv_output *o, int pid, struct pv_output_tag tag, char *out,
		   unsigned size);

#endif /* PV_OUTPUT_FILE_H */
