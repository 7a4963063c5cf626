/* SPDX-License-Identifier: MIT */
/*
 * exec attempts that fail, as a shell's search through PATH makes them.
 * usage: exec_tries search   names that are not there, one that is there but
 *                            does not execute, then this program again, which
 *                            returns 3 (one image replacement)
 *        exec_tries fail     every exec call fails; the program goes on and
 *                            returns 0
 * Each attempt is made from try_exec, after one call of work, and prints
 * the error it got.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;
static volatile long sink;
static char *again[] = { "exec_tries", "replaced", NULL };

static void work(void)
{
	for (long i = 0; i < 100000; i++)
		sink += i;
}

/* how: the exec function to call; what: its path, file or descriptor. */
static void try_exec(const char *how, const char *what)
{
	work();
	if (!strcmp(how, "execv"))
		execv(what, again);
	else if (!strcmp(how, "execve"))
		execve(what, again, environ);
	else if (!strcmp(how, "execvp"))
		execvp(what, again);
	else if (!strcmp(how, "execvpe"))
		execvpe(what, again, environ);
	else if (!strcmp(how, "execl"))
		execl(what, "exec_tries", "replaced", (char *)NULL);
	else if (!strcmp(how, "execlp"))
		execlp(what, "exec_tries", "replaced", (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle(what, "exec_tries", "replaced", (char *)NULL, environ);
	else if (!strcmp(how, "execveat"))
		execveat(AT_FDCWD, what, again, environ, 0);
	else if (!strcmp(how, "fexecve")) {
		int fd = open(what, O_RDONLY | O_CLOEXEC);
		fexecve(fd, again, environ);
		int e = errno;
		close(fd);
		errno = e;
	}
	printf("%s %s: %s\n", how, what, strerror(errno));
	fflush(stdout); /* before a later exec replaces the image */
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "replaced")) {
		work();
		return 3;
	}
	/* /dev/null is there and cannot be executed: its attempts get as far
	 * as the exec, where the others stop at the name. */
	if (!strcmp(argv[1], "search")) {
		try_exec("execv", "missing1/exec_tries");
		try_exec("execv", "missing2/exec_tries");
		try_exec("execv", "/dev/null");
		try_exec("execv", "/proc/self/exe");
		return 1;
	}
	static const char *const fails[][2] = {
		{ "execv", "missing/exec_tries" },   { "execv", "/dev/null" },
		{ "execve", "/dev/null" },           { "execl", "/dev/null" },
		{ "execle", "missing/exec_tries" },  { "execvp", "no-such-command-here" },
		{ "execvp", "null" },                { "execvpe", "no-such-command-here" },
		{ "execlp", "null" },                { "execveat", "missing/exec_tries" },
		{ "execveat", "/dev/null" },         { "fexecve", "/dev/null" },
	};
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++)
		try_exec(fails[i][0], fails[i][1]);
	work();
	return 0;
}
