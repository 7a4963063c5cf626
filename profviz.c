/* SPDX-License-Identifier: MIT */
/*
 * profviz.c — the command: works on profiles a run saved, with the
 * runtime's own writers. Each sub-command lives in lib/cmd/, their table
 * in lib/cmd/help.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

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
