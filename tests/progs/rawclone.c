/* SPDX-License-Identifier: MIT */
/* A child made by clone(2) with CLONE_VM and without CLONE_SETTLS: it runs
 * with its parent's memory and TLS (t_raw_clone.py).
 *
 * usage: rawclone shared|vfork
 *   shared: parent and child run instrumented code at the same time;
 *   vfork:  CLONE_VFORK too, so the parent waits for the child to end.
 * Before the clone the parent calls rec(5) BEFORE times, six calls each;
 * after it, parent and child call rec(20) AFTER times each. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BEFORE 100
#define AFTER 2000

static int small(int x)
{
	return x * 3 + 1;
}

static int mid(int x)
{
	return small(x) ^ small(x + 1);
}

__attribute__((noinline)) long work(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i) + (i & 1 ? small(i) : 0);
	return s;
}

__attribute__((noinline)) long rec(int d)
{
	return d <= 0 ? work(50) : rec(d - 1) + mid(d);
}

static int child_main(void *arg)
{
	long s = 0;
	for (int i = 0; i < AFTER; i++)
		s += rec(20);
	*(long *)arg = s;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	int vfork = strcmp(argv[1], "vfork") == 0;
	long s = 0, child_sum = 0;
	for (int i = 0; i < BEFORE; i++)
		s += rec(5);
	size_t size = 1 << 20;
	char *stack = malloc(size);
	int flags = CLONE_VM | SIGCHLD | (vfork ? CLONE_VFORK : 0);
	pid_t pid = clone(child_main, stack + size, flags, &child_sum);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	for (int i = 0; i < AFTER; i++)
		s += rec(20);
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("child %s %d, sums %ld %ld\n", WIFSIGNALED(status) ? "killed by" : "exited",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), s, child_sum);
	return 0;
}
