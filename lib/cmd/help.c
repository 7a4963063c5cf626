/* SPDX-License-Identifier: MIT */
/*
 * help.c — what the command says of itself: its sub-commands (the table
 * profviz.c dispatches by), the overview (`profviz --help`), a command's
 * help, the PROFVIZ_* variables, all of it at once (`profviz help all`,
 * which the man page is made from by help2man), and its version.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/version.h"
#include "cmd/cmd.h"
#include "output/variables.h"

/* Every command, in the order the help lists them. */
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

/* A variable's text starts in this column, after its name, and lines end
 * before the last: help2man takes the lines that follow at that column as
 * the same paragraph. */
#define TEXT_COLUMN 26
#define LINE_END 79

static const char help_help[] =
	"usage: profviz help [COMMAND | variables | all]\n"
	"Without an argument, the commands; with a command, its --help; variables: the\n"
	"PROFVIZ_* variables; all: everything, as the man page has it.\n";

static const char version_help[] =
	"usage: profviz version, or profviz --version\n"
	"profviz's version: the one the runtime's start-up line and the JSON's\n"
	"\"profviz_version\" give when the runtime was built with this command.\n";

void pv_help_help(FILE *out)
{
	fputs(help_help, out);
}

void pv_help_version(FILE *out)
{
	fputs(version_help, out);
}

void pv_help_overview(FILE *out)
{
	fputs("Usage: profviz COMMAND [ARGS...]\n"
	      "  or:  profviz help [COMMAND | variables | all]\n"
	      "  or:  profviz --version\n"
	      "A function-level profiler for C and C++ programs. Build the program with -g,\n"
	      "its usual optimisation (-O2) and the hooks. With clang, whose times are truer:\n"
	      "-finstrument-functions-after-inlining -gdwarf-aranges. With gcc:\n"
	      "-finstrument-functions and\n"
	      "-finstrument-functions-exclude-file-list=.h,/usr/include/. profviz run\n"
	      "preloads the runtime, profviz.so, which counts every call exactly, per call\n"
	      "path, samples where the threads spend their CPU time, and writes the profile\n"
	      "at exit. The other commands show a saved profile again, other ways, without\n"
	      "running the program again.\n\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < pv_n_commands; i++)
		fprintf(out, "  %-8s %s\n", pv_commands[i].name, pv_commands[i].summary);
	fputs("\nEach command's --help says more; profviz help variables lists the PROFVIZ_*\n"
	      "variables, and profviz help all everything (as man profviz does).\n",
	      out);
}

/* text from its column to the end of the line, then on lines of their own
 * at that column, broken between words. */
static void print_wrapped(FILE *out, const char *text, int column)
{
	int at = column;
	while (*text) {
		size_t word = strcspn(text, " ");
		if (at > column && at + 1 + (int)word > LINE_END) {
			fprintf(out, "\n%*s", column, "");
			at = column;
		} else if (at > column) {
			fputc(' ', out);
			at++;
		}
		fwrite(text, 1, word, out);
		at += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

static void print_variable(FILE *out, const char *name, const char *accepted,
			   const char *fallback)
{
	char *text;
	if (asprintf(&text, "%s. Default: %s.", accepted, fallback) < 0)
		return;
	fprintf(out, "  %-*s", TEXT_COLUMN - 2, name);
	print_wrapped(out, text, TEXT_COLUMN);
	free(text);
}

static void print_variables(FILE *out)
{
	fputs("The runtime reads these once, at start-up; a bad value is reported, naming the\n"
	      "variable, and the default used.\n",
	      out);
	for (unsigned i = 0; i < pv_n_variables; i++)
		print_variable(out, pv_variables[i].name, pv_variables[i].accepted,
			       pv_variables[i].fallback);
	fputs("And the command's own:\n", out);
	print_variable(out, pv_command_variable.name, pv_command_variable.accepted,
		       pv_command_variable.fallback);
}

/* A command's help with its usage on one line, as help2man reads a
 * paragraph: "usage: " and the lines that continue the synopsis go. */
static void print_command(FILE *out, const struct pv_command *c)
{
	char *text = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&text, &size);
	if (!m)
		return;
	c->help(m);
	fclose(m);
	fprintf(out, "profviz %s:\n ", c->name);
	char *line = text;
	if (!strncmp(line, "usage: ", 7))
		line += 7;
	/* The synopsis: its first line, and those indented far under it (an
	 * option is indented by two). */
	for (int first = 1;; first = 0) {
		char *end = strchrnul(line, '\n');
		char *start = line + strspn(line, " ");
		if (!first && start - line < 10)
			break;
		fprintf(out, " %.*s", (int)(end - start), start);
		line = *end ? end + 1 : end;
		if (!*end)
			break;
	}
	fprintf(out, "\n\n%s\n", line);
	free(text);
}

static void print_reference(FILE *out)
{
	pv_help_overview(out);
	fputc('\n', out);
	for (size_t i = 0; i < pv_n_commands; i++)
		print_command(out, &pv_commands[i]);
	fputs("Environment:\n", out);
	print_variables(out);
}

static int asks_help(int argc, char **argv)
{
	return argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

int pv_cmd_help(int argc, char **argv)
{
	if (asks_help(argc, argv)) {
		fputs(help_help, stdout);
		return 0;
	}
	if (argc < 2) {
		pv_help_overview(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "all")) {
		print_reference(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "variables")) {
		print_variables(stdout);
		return 0;
	}
	for (size_t i = 0; i < pv_n_commands; i++)
		if (!strcmp(argv[1], pv_commands[i].name)) {
			pv_commands[i].help(stdout);
			return 0;
		}
	fprintf(stderr, "profviz help: no command or topic '%s'\n", argv[1]);
	fputs(help_help, stderr);
	return PV_EXIT_TROUBLE;
}

int pv_cmd_version(int argc, char **argv)
{
	if (asks_help(argc, argv)) {
		fputs(version_help, stdout);
		return 0;
	}
	if (argc > 1) {
		fputs(version_help, stderr);
		return PV_EXIT_TROUBLE;
	}
	printf("profviz %s\n", pv_version);
	return 0;
}
