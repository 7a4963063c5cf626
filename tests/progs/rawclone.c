/* SPDX-License-Identifier: MIT */
/* A child made by clone(2) with CLONE_VM and without CLONE_SETTLS: it runs
 * with its parent's memory and TLS (t_raw_clone.py).
 *
 * usage: rawclone shared|vfork|unborn|fail
 *   shared: parent and child run instrumented code at the same time;
 *   vfork:  CLONE_VFORK too, so the parent waits for the child to end;
 *   unborn: as shared, from a thread that has run no instrumented code;
 *   fail:   a clone the kernel refuses (EINVAL): no child.
 * Before the clone the parent calls rec(5) BEFORE times, six calls each;
 * after it, parent and child call rec(20) AFTER times each. */
#define _GNU_SOURCE
#include <pthread.h>
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

static const char *how;

/* The clone and the work after it, in parent and child. Not instrumented:
 * in the unborn mode, the thread that clones has run no hook yet. */
__attribute__((no_instrument_function)) static void *clone_and_work(void *arg)
{
	long *s = arg, child_sum = 0;
	size_t size = 1 << 20;
	char *stack = malloc(size);
	int flags = CLONE_VM | SIGCHLD;
	if (!strcmp(how, "vfork"))
		flags |= CLONE_VFORK;
	if (!strcmp(how, "fail"))
		flags = CLONE_VM | CLONE_THREAD; /* without CLONE_SIGHAND: EINVAL */
	pid_t pid = clone(child_main, stack + size, flags, &child_sum);
	if (pid < 0 && strcmp(how, "fail")) {
		perror("clone");
		exit(1);
	}
	for (int i = 0; i < AFTER; i++)
		*s += rec(20);
	int status = 0;
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		exit(1);
	printf("child %s %d, sums %ld %ld\n", pid < 0 ? "refused" :
	       WIFSIGNALED(status) ? "killed by" : "exited",
	       pid < 0 ? 0 : WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), *s,
	       child_sum);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	how = argv[1];
	long s = 0;
	for (int i = 0; i < BEFORE; i++)
		s += rec(5);
	if (strcmp(how, "unborn")) {
		clone_and_work(&s);
		return 0;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, clone_and_work, &s) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}
