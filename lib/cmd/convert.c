/* SPDX-License-Identifier: MIT */
/*
 * convert.c — `profviz convert`: a saved profile in the other formats, by
 * the runtime's own writers, each chosen by its file's extension.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/format.h"

void pv_help_convert(FILE *out)
{
	char known[256];
	pv_output_extensions(known, sizeof(known));
	fprintf(out,
		"usage: profviz convert PROFILE.json OUTPUT...\n"
		"Write the profile to each OUTPUT, in the format its name asks for, one of\n"
		"%s.\n",
		known);
}

int pv_cmd_convert(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		pv_help_convert(stdout);
		return 0;
	}
	if (argc < 3) {
		pv_help_convert(stderr);
		return PV_EXIT_TROUBLE;
	}
	char known[256];
	pv_output_extensions(known, sizeof(known));
	for (int i = 2; i < argc; i++)
		if (!pv_output_format_of(argv[i])) {
			fprintf(stderr, "profviz convert: %s: no format for this name; end it in %s\n",
				argv[i], known);
			return PV_EXIT_TROUBLE;
		}
	struct pv_loaded l;
	if (pv_load(argv[1], &l) < 0)
		return PV_EXIT_TROUBLE;
	int status = 0;
	for (int i = 2; i < argc; i++) {
		/* Path formats from a file without paths would be empty, not wrong
		 * enough to notice. */
		const struct pv_format *f = pv_output_format_of(argv[i]);
		if (f->from_paths && !l.r.n_paths && l.r.n_funcs) {
			fprintf(stderr, "profviz convert: %s has no call paths (written by a profviz "
				"before JSON revision 2), which %s needs\n", argv[1], f->extension);
			status = PV_EXIT_TROUBLE;
			continue;
		}
		if (pv_write_to(argv[i], &l.r) < 0)
			status = PV_EXIT_TROUBLE;
	}
	pv_loaded_free(&l);
	return status;
}
