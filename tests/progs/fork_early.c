/* SPDX-License-Identifier: MIT */
/* A fork before the forking thread made any instrumented call: main itself
 * is kept out of the profile, so its thread has no profiler state yet. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "profviz.h"

static volatile int sink;

static void work(int i)
{
	sink += i;
}

PROFVIZ_NO_INSTRUMENT int main(void)
{
	pid_t pid = fork();
	for (int i = 0; i < 4; i++)
		work(i);
	if (pid == 0)
		return 0;
	waitpid(pid, NULL, 0);
	printf("done\n");
	return 0;
}
