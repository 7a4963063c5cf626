/* SPDX-License-Identifier: MIT */
/*
 * window.c — `profviz dump PID`, `profviz reset PID`, `profviz start PID`
 * and `profviz stop PID`: windows of a running program's profile, asked
 * through the signal it was started with (PROFVIZ_SIGNAL, read from its
 * environment), each ask in the signal's value (output/config.h). The
 * runtime says on the program's stderr what it did and where it wrote.
 *
 * A signal rather than a socket or a control file: the runtime needs no
 * descriptor, thread or file of its own until asked, and a plain kill(1)
 * works the same way, one toggle a press.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output/config.h"

/* The sub-commands, each an ask. */
static const struct {
	const char *name;
	enum pv_window_ask ask;
	const char *does;
} windows[] = {
	{ "dump", PV_WINDOW_NEXT,
	  "write what ran since the last window's start (or the program's) to files of\n"
	  "its own (prof.w1.json, ...); the next window starts now" },
	{ "reset", PV_WINDOW_OPEN, "open a window from now: what ran before is left out" },
	{ "start", PV_WINDOW_START, "open a window, unless one is open" },
	{ "stop", PV_WINDOW_CLOSE, "write the open window, and close it" },
};

static void help(FILE *out, const char *name, const char *does)
{
	fprintf(out,
		"usage: profviz %s [--signal SIG] PID\n"
		"Ask the profiled program PID to %s.\n"
		"PID must have been started with PROFVIZ_SIGNAL set (e.g. PROFVIZ_SIGNAL=SIGUSR2);\n"
		"the signal carries the ask. The program says on its stderr what it did and\n"
		"which files it wrote. kill -SIG PID opens a window, or writes and closes the\n"
		"open one.\n"
		"  --signal SIG   the program's PROFVIZ_SIGNAL, when its environment cannot be\n"
		"                 read (a server that rewrites it with its process title);\n"
		"                 else this command's own PROFVIZ_SIGNAL, if set\n",
		name, does);
}

enum { WINDOW_dump, WINDOW_reset, WINDOW_start, WINDOW_stop };

void pv_help_dump(FILE *out)
{
	help(out, "dump", windows[WINDOW_dump].does);
}

void pv_help_reset(FILE *out)
{
	help(out, "reset", windows[WINDOW_reset].does);
}

void pv_help_start(FILE *out)
{
	help(out, "start", windows[WINDOW_start].does);
}

void pv_help_stop(FILE *out)
{
	help(out, "stop", windows[WINDOW_stop].does);
}

/* PROFVIZ_SIGNAL's value in pid's environment, into value: 1; 0 when it
 * has none, or reads back empty (a process that wrote its title over it);
 * -1 after a message when it cannot be read. */
static int signal_of(const char *cmd, pid_t pid, char *value, size_t size)
{
	char path[64], env[65536];
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, env, sizeof(env) - 1);
	int err = errno;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		fprintf(stderr, "profviz %s: cannot read the environment of process %d: %s\n", cmd,
			(int)pid, strerror(err));
		return -1;
	}
	env[n] = '\0';
	for (char *v = env; v < env + n; v += strlen(v) + 1)
		if (!strncmp(v, "PROFVIZ_SIGNAL=", 15)) {
			snprintf(value, size, "%s", v + 15);
			return 1;
		}
	return 0;
}

/* The signal that carries the ask: --signal's, the program's
 * PROFVIZ_SIGNAL, or this command's own. 0, or -1 after a message. */
static int window_signal(const char *cmd, pid_t pid, const char *given, int *sig)
{
	char value[128];
	const char *why, *from = "--signal";
	int found = 0;
	if (given) {
		snprintf(value, sizeof(value), "%s", given);
	} else if ((found = signal_of(cmd, pid, value, sizeof(value))) < 0) {
		return -1;
	} else if (found) {
		from = "its PROFVIZ_SIGNAL";
	} else if (getenv("PROFVIZ_SIGNAL")) {
		snprintf(value, sizeof(value), "%s", getenv("PROFVIZ_SIGNAL"));
		from = "this command's PROFVIZ_SIGNAL";
	} else {
		fprintf(stderr, "profviz %s: process %d's environment has no PROFVIZ_SIGNAL (or it "
			"was overwritten, as a server's process title does): start it with "
			"PROFVIZ_SIGNAL=SIGUSR2, and give --signal SIGUSR2 here if it rewrites its "
			"environment\n", cmd, (int)pid);
		return -1;
	}
	if (!pv_config_signal(value, sig, &why)) {
		fprintf(stderr, "profviz %s: %s, '%s', %s: process %d has no windows by it\n", cmd,
			from, value, why, (int)pid);
		return -1;
	}
	return 0;
}

static int ask(int which, int argc, char **argv)
{
	const char *cmd = windows[which].name;
	static const struct option longs[] = {
		{ "signal", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *given = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		if (opt == 'h') {
			help(stdout, cmd, windows[which].does);
			return 0;
		}
		if (opt != 's') {
			help(stderr, cmd, windows[which].does);
			return PV_EXIT_TROUBLE;
		}
		given = optarg;
	}
	char *end;
	long pid = optind + 1 == argc ? strtol(argv[optind], &end, 10) : 0;
	if (optind + 1 != argc || *end || pid <= 0 || end == argv[optind]) {
		help(stderr, cmd, windows[which].does);
		return PV_EXIT_TROUBLE;
	}
	int sig;
	if (window_signal(cmd, (pid_t)pid, given, &sig) < 0)
		return PV_EXIT_TROUBLE;
	union sigval v = { .sival_int = (int)windows[which].ask };
	if (sigqueue((pid_t)pid, sig, v) != 0) {
		fprintf(stderr, "profviz %s: cannot signal process %d: %s\n", cmd, (int)pid,
			strerror(errno));
		return PV_EXIT_TROUBLE;
	}
	return 0;
}

int pv_cmd_dump(int argc, char **argv)
{
	return ask(WINDOW_dump, argc, argv);
}

int pv_cmd_reset(int argc, char **argv)
{
	return ask(WINDOW_reset, argc, argv);
}

int pv_cmd_start(int argc, char **argv)
{
	return ask(WINDOW_start, argc, argv);
}

int pv_cmd_stop(int argc, char **argv)
{
	return ask(WINDOW_stop, argc, argv);
}
