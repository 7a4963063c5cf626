/* SPDX-License-Identifier: MIT */
/*
 * profviz.c — the command: works on profiles a run saved, with the
 * runtime's own writers. Each sub-command lives in lib/cmd/.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

static const struct pv_command commands[] = {
	{ "run", "run a program with the profiler, pass its exit status through", pv_cmd_run },
	{ "report", "the flat profile and the hottest arcs, in the terminal", pv_cmd_report },
	{ "dot", "the call graph again: other thresholds, a focus, a root", pv_cmd_dot },
	{ "convert", "write a saved profile in another format (by extension)", pv_cmd_convert },
	{ "merge", "sum several processes' profiles into one (a fork tree, MPI ranks)", pv_cmd_merge },
	{ "diff", "one graph of what changed between two runs, coloured by the change", pv_cmd_diff },
	{ "html", "one offline page to explore the profile: graph, table, icicle", pv_cmd_html },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fputs("usage: profviz COMMAND [ARGS...]   (profviz COMMAND --help for each)\n\n", out);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "profviz: no command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
