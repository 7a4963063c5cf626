/* SPDX-License-Identifier: MIT */
/*
 * cmd.h — what the command's parts share: the sub-commands' entries, the
 * profile as read back from its JSON, and the few helpers every
 * sub-command uses to read its arguments.
 */
#ifndef PV_CMD_H
#define PV_CMD_H

#include <stdio.h>

#include "output/config.h"
#include "model/report.h"

struct pv_command {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv); /* argv[0] is the sub-command's name */
	void (*help)(FILE *out);            /* what its --help prints */
};

/* Every command, in the order the help lists them (help.c). */
extern const struct pv_command pv_commands[];
extern const size_t pv_n_commands;

int pv_cmd_run(int argc, char **argv);     /* run.c */
int pv_cmd_report(int argc, char **argv);  /* report.c */
int pv_cmd_dot(int argc, char **argv);     /* dot.c */
int pv_cmd_convert(int argc, char **argv); /* convert.c */
int pv_cmd_merge(int argc, char **argv);   /* merge.c */
int pv_cmd_diff(int argc, char **argv);    /* diff.c */
int pv_cmd_html(int argc, char **argv);    /* html.c */
int pv_cmd_dump(int argc, char **argv);    /* window.c */
int pv_cmd_reset(int argc, char **argv);   /* window.c */
int pv_cmd_start(int argc, char **argv);   /* window.c */
int pv_cmd_stop(int argc, char **argv);    /* window.c */
int pv_cmd_help(int argc, char **argv);    /* help.c */
int pv_cmd_version(int argc, char **argv); /* help.c */
void pv_help_run(FILE *out);
void pv_help_report(FILE *out);
void pv_help_dot(FILE *out);
void pv_help_convert(FILE *out);
void pv_help_merge(FILE *out);
void pv_help_diff(FILE *out);
void pv_help_html(FILE *out);
void pv_help_dump(FILE *out);
void pv_help_reset(FILE *out);
void pv_help_start(FILE *out);
void pv_help_stop(FILE *out);
void pv_help_help(FILE *out);
void pv_help_version(FILE *out);

/* What `profviz --help` prints: the usage and the commands. */
void pv_help_overview(FILE *out);

/* What reading a sub-command's options came to: go on; done, --help
 * printed; or trouble, said on stderr. */
enum pv_parsed { PV_PARSED, PV_HELPED, PV_BAD_USAGE };

/* Exit status for trouble: a bad file or usage, a file that could not be
 * written (as grep's and diff's 2); 0 otherwise. */
#define PV_EXIT_TROUBLE 2

/* A profile read from a file, and what owns its memory. */
struct pv_loaded {
	struct pv_report r; /* r.events points into events */
	struct pv_event_desc events[PV_MAX_EVENTS];
	int revision;       /* of the schema it was written with */
	char *path;
	char *program;
	/* The processes that went into it: one, or several after a merge
	 * (r.processes points here then). */
	unsigned n_processes;
	struct pv_rprocess *processes;
};

/* Read a profile a run wrote (.json). 0, or -1 after one line on stderr
 * that names the file and what is wrong with it. */
int pv_load(const char *path, struct pv_loaded *out);
/* The same from memory; name stands for the file in messages. */
int pv_load_buffer(const char *name, const char *data, size_t size, struct pv_loaded *out);
void pv_loaded_free(struct pv_loaded *l);

/* Mark in chosen (one byte per function of r) the function named name:
 * by its whole name, else by its name without parameters ("ns::f"); all
 * copies of it when it is a header's. Its number of copies, or -1 after a
 * message: no such function, or the name is several functions' (listed,
 * with file:line). */
int pv_find_functions(const struct pv_report *r, const char *name, const char *path,
		      char *chosen);

/* Write r to path in the format its extension asks for (atomically, as the
 * runtime does). 0, or -1 after a message. */
int pv_write_to(const char *path, const struct pv_report *r);

/* Put event name first in l, every figure with it, and sort again: the
 * graph and the path formats show the first event. 0, or -1 after a message
 * (no such event: the file's are listed). */
int pv_lead_with_event(struct pv_loaded *l, const char *name);

/* Whether b counts what a does: the same events, in order, in the same
 * units, each sampled in both or in neither. Otherwise one line naming both
 * files and their events. */
int pv_same_events(const struct pv_loaded *a, const struct pv_loaded *b, const char *cmd);

/* The colour a share of pct percent is shown in on a terminal, and the
 * end of it ("" each when colour is 0). */
const char *pv_heat(int colour, double pct);
const char *pv_plain(int colour);

/* Parse a percentage ("0.5", "0.5%") or a count for an option: 0, or -1
 * after a message naming the option. */
int pv_arg_percent(const char *option, const char *value, double *out);
int pv_arg_count(const char *option, const char *value, unsigned long *out);

/* --waits apart (the default: shares of the work, the waits apart with
 * their share of the wall) or --waits in (shares of everything, the waits
 * inside), as PROFVIZ_WAITS: *inside set, 0; or -1 after a message. */
int pv_arg_waits(const char *value, int *inside);

/* The text of --help that says so. */
#define PV_WAITS_USAGE                                                                     \
	"  --waits HOW    apart (default): shares of the work (the CPU time, when it was\n"  \
	"                 sampled), libc's waits grey, each with its share of the wall;\n"   \
	"                 in: shares of the work and the waits together\n"

#endif /* PV_CMD_H */
