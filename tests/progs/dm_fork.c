/* SPDX-License-Identifier: MIT */
/* A parent and three forked children, each doing different work through
 * functions they share, for `profviz merge`: each process writes its own
 * profile (PROFVIZ_OUTPUT=prof.%p.json). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

void leaf(int weight)
{
	spin(20000UL * (unsigned long)weight);
}

void work_a(int n)
{
	for (int i = 0; i < n; i++)
		leaf(1);
}

void work_b(int n)
{
	for (int i = 0; i < n; i++)
		leaf(3);
}

void child_only(void)
{
	spin(300000);
}

/* The same function reached by another path in some processes. */
void via_b(int n)
{
	work_a(n);
}

void child(int which)
{
	work_a(10 * which);
	if (which >= 2)
		work_b(4 * which);
	if (which == 3) {
		child_only();
		via_b(7);
	}
}

int main(void)
{
	pid_t pids[3];
	for (int i = 0; i < 3; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			return 1;
		}
		if (pids[i] == 0) {
			child(i + 1);
			exit(0);
		}
	}
	work_a(5);
	for (int i = 0; i < 3; i++) {
		int status;
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
