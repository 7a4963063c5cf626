/* SPDX-License-Identifier: MIT */
/*
 * How a process may live and die, one mode per run; before the event it
 * calls step() 5 times from outer(), and the event happens inside
 * event_here(), so the profile's open frames can be checked.
 * usage: life MODE [arg]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile int sink;

static void step(int i)
{
	sink += i;
}

static void on_term(int sig)
{
	printf("handler %d\n", sig);
	fflush(stdout);
	_exit(7);
}

static void child_work(void)
{
	for (int i = 0; i < 3; i++)
		step(i);
}

static void event_here(const char *mode, const char *arg)
{
	if (!strcmp(mode, "exit"))
		exit(3);
	if (!strcmp(mode, "_exit"))
		_exit(4);
	if (!strcmp(mode, "quick_exit"))
		quick_exit(5);
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "segv"))
		*(volatile int *)(uintptr_t)16 = 1;
	if (!strcmp(mode, "term") || !strcmp(mode, "int"))
		raise(mode[0] == 't' ? SIGTERM : SIGINT);
	if (!strcmp(mode, "handler")) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGTERM, NULL, &old);
		printf("reads back its handler: %s\n", old.sa_handler == on_term ? "yes" : "no");
		fflush(stdout);
		raise(SIGTERM);
	}
	if (!strcmp(mode, "ignored")) {
		/* Set ignored before start (by the test): must stay ignored. */
		struct sigaction old;
		sigaction(SIGINT, NULL, &old);
		printf("SIGINT %s\n", old.sa_handler == SIG_IGN ? "ignored" : "not ignored");
		raise(SIGINT);
		printf("survived\n");
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			child_work();
			exit(0);
		}
		int status;
		waitpid(pid, &status, 0);
		printf("child %d exited %d\n", pid > 0, WEXITSTATUS(status));
	}
	if (!strcmp(mode, "exec")) {
		char *argv[] = { "life", "return", NULL };
		execv("/proc/self/exe", argv);
		perror("execv");
	}
	if (!strcmp(mode, "execlp")) {
		execlp(arg, "life", "return", (char *)NULL);
		perror("execlp");
	}
	if (!strcmp(mode, "spawn") || !strcmp(mode, "vfork")) {
		pid_t pid;
		char *argv[] = { "true", NULL };
		if (mode[0] == 's') {
			posix_spawnp(&pid, "true", NULL, NULL, argv, environ);
		} else {
			pid = vfork();
			if (pid == 0) {
				execvp("true", argv);
				_exit(127);
			}
		}
		int status;
		waitpid(pid, &status, 0);
		printf("%s child exited %d\n", mode, WEXITSTATUS(status));
		for (int i = 0; i < 4; i++)
			step(i);
	}
	if (!strcmp(mode, "vfork_exit")) {
		pid_t pid = vfork();
		if (pid == 0)
			_exit(9); /* in the parent's memory: must not write the parent's profile */
		int status;
		waitpid(pid, &status, 0);
		printf("vfork child exited %d\n", WEXITSTATUS(status));
	}
	if (!strcmp(mode, "chdir")) {
		if (chdir("/") != 0)
			perror("chdir");
	}
	if (!strcmp(mode, "errno")) {
		/* errno set before each call must be seen inside it and after it. */
		int bad = 0;
		for (int i = 0; i < 100000; i++) {
			errno = 1000 + i % 7;
			step(i);
			bad += errno != 1000 + i % 7;
		}
		printf("errno changed %d times\n", bad);
	}
}

static void outer(const char *mode, const char *arg)
{
	for (int i = 0; i < 5; i++)
		step(i);
	event_here(mode, arg);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "return";
	printf("start %s\n", mode);
	fflush(stdout);
	fprintf(stderr, "err %s\n", mode);
	outer(mode, argc > 2 ? argv[2] : "");
	printf("end %s\n", mode);
	return 2;
}
