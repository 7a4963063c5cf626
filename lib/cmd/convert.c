/* SPDX-License-Identifier: MIT */
/*
 * convert.c — `profviz convert`: a saved profile in the other formats, by
 * the runtime's own writers, each chosen by its file's extension.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/format.h"

void pv_help_convert(FILE *out)
{
	char known[256];
	pv_output_extensions(known, sizeof(known));
	fprintf(out,
		"usage: profviz convert PROFILE.json -o OUTPUT [-o OUTPUT...]\n"
		"Write the profile to each OUTPUT, in the format its name asks for, one of\n"
		"%s.\n"
		"  -o OUTPUT      write there (atomically); may be given more than once\n"
		"OUTPUTs named after PROFILE.json without -o are written too.\n",
		known);
}

/* Each output, from -o or after the profile, checked for a format before
 * anything is read. The number of them, or -1 after a message. */
static int parse_outputs(int argc, char **argv, const char **profile, const char **outputs)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int n = 0, opt;
	while ((opt = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		if (opt == 'h') {
			pv_help_convert(stdout);
			return 0;
		}
		if (opt != 'o') {
			pv_help_convert(stderr);
			return -1;
		}
		outputs[n++] = optarg;
	}
	if (optind >= argc) {
		pv_help_convert(stderr);
		return -1;
	}
	*profile = argv[optind];
	for (int i = optind + 1; i < argc; i++)
		outputs[n++] = argv[i];
	if (!n) {
		fprintf(stderr, "profviz convert: no output: name one with -o FILE\n");
		return -1;
	}
	char known[256];
	pv_output_extensions(known, sizeof(known));
	for (int i = 0; i < n; i++)
		if (!pv_output_format_of(outputs[i])) {
			fprintf(stderr, "profviz convert: %s: no format for this name; end it in %s\n",
				outputs[i], known);
			return -1;
		}
	return n;
}

int pv_cmd_convert(int argc, char **argv)
{
	const char *profile = NULL;
	const char **outputs = calloc((size_t)argc, sizeof(*outputs));
	int n = outputs ? parse_outputs(argc, argv, &profile, outputs) : -1;
	if (n <= 0) {
		free(outputs);
		return n == 0 ? 0 : PV_EXIT_TROUBLE;
	}
	struct pv_loaded l;
	if (pv_load(profile, &l) < 0) {
		free(outputs);
		return PV_EXIT_TROUBLE;
	}
	int status = 0;
	for (int i = 0; i < n; i++) {
		/* Path formats from a file without paths would be empty, not wrong
		 * enough to notice. */
		const struct pv_format *f = pv_output_format_of(outputs[i]);
		if (f->from_paths && !l.r.n_paths && l.r.n_funcs) {
			fprintf(stderr, "profviz convert: %s has no call paths (written by a profviz "
				"before JSON revision 2), which %s needs\n", profile, f->extension);
			status = PV_EXIT_TROUBLE;
			continue;
		}
		if (pv_write_to(outputs[i], &l.r) < 0)
			status = PV_EXIT_TROUBLE;
	}
	pv_loaded_free(&l);
	free(outputs);
	return status;
}
