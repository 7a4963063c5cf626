/* SPDX-License-Identifier: MIT */
/*
 * profviz.c — the command: works on profiles a run saved, with the
 * runtime's own writers. Each sub-command lives in lib/cmd/.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

const struct pv_command pv_commands[] = {
	{ "run", "run a program with the profiler, pass its exit status through", pv_cmd_run,
	  pv_help_run },
	{ "report", "the flat profile and the hottest arcs, in the terminal", pv_cmd_report,
	  pv_help_report },
	{ "dot", "the call graph again: other thresholds, a focus, a root", pv_cmd_dot,
	  pv_help_dot },
	{ "convert", "write a saved profile in another format (by extension)", pv_cmd_convert,
	  pv_help_convert },
	{ "merge", "sum several processes' profiles into one (a fork tree, MPI ranks)",
	  pv_cmd_merge, pv_help_merge },
	{ "diff", "one graph of what changed between two runs, coloured by the change",
	  pv_cmd_diff, pv_help_diff },
	{ "html", "one offline page to explore the profile: graph, table, icicle", pv_cmd_html,
	  pv_help_html },
	{ "dump", "a running program's window: what ran since the last, to files of its own",
	  pv_cmd_dump, pv_help_dump },
	{ "reset", "a running program's window opened from now: what ran before left out",
	  pv_cmd_reset, pv_help_reset },
	{ "start", "a running program's window opened (as reset)", pv_cmd_start,
	  pv_help_start },
	{ "stop", "a running program's open window written and closed", pv_cmd_stop,
	  pv_help_stop },
	{ "help", "this overview, a command's help, the variables, or all of it", pv_cmd_help,
	  pv_help_help },
	{ "version", "profviz's version (as --version)", pv_cmd_version, pv_help_version },
};
const size_t pv_n_commands = sizeof(pv_commands) / sizeof(pv_commands[0]);

int main(int argc, char **argv)
{
	if (argc < 2) {
		pv_help_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		pv_help_overview(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version"))
		return pv_cmd_version(1, argv + 1);
	for (size_t i = 0; i < pv_n_commands; i++)
		if (!strcmp(argv[1], pv_commands[i].name))
			return pv_commands[i].main(argc - 1, argv + 1);
	fprintf(stderr, "profviz: no command '%s'\n", argv[1]);
	pv_help_overview(stderr);
	return 2;
}
