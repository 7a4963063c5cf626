/* SPDX-License-Identifier: MIT */
/*
 * vfork children that call instrumented functions, in the parent's memory:
 * one then execs from inside an instrumented function (which never
 * returns), one _exits. The parent then does its own work.
 * usage: vforker ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

static void child_helper(int i)
{
	sink += i;
}

static void child_exec(int i)
{
	child_helper(i);
	char *argv[] = { "true", NULL };
	execvp("true", argv);
	_exit(127);
}

static void child_exit(int i)
{
	child_helper(i);
	_exit(i % 100);
}

static void parent_work(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, failed = 0;
	for (int i = 0; i < rounds; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			if (i % 2)
				child_exit(i);
			child_exec(i);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    WEXITSTATUS(status) != (i % 2 ? i % 100 : 0))
			failed++;
		parent_work(i);
	}
	printf("rounds %d failed %d\n", rounds, failed);
	return 0;
}
