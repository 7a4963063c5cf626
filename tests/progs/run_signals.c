/* SPDX-License-Identifier: MIT */
/*
 * A program a supervisor signals, for the signals `profviz run` passes on
 * (tests/t_run_signals.py). It first says which signals it started with
 * ignored and which blocked: "start ignored=1 blocked=12"; then, once
 * ready for them, "ready". By MODE:
 *   catch EXIT [OTHER...]   handles each signal named (by number); once EXIT
 *                           has come, prints "got SIG:COUNT..." for each that
 *                           came, ":VALUE" after a sigqueue()'s, and
 *                           "pending SIG..." for those still blocked, and
 *                           exits with EXIT's number;
 *   default                 waits with every disposition as it started: a
 *                           signal that kills ends it;
 *   parent SIG EXIT         sends SIG to its parent first, then as catch
 *                           EXIT SIG.
 * End of input on stdin ends it with status 99: nothing came.
 * usage: run_signals MODE [SIGNALS...]
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t came[NSIG], value[NSIG];

static void on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	came[sig]++;
	if (info->si_code == SI_QUEUE)
		value[sig] = info->si_value.sival_int;
}

static volatile unsigned sink;

static void work(unsigned n)
{
	for (unsigned i = 0; i < 1000 * n; i++)
		sink += i;
}

static void say_start(void)
{
	sigset_t mask;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	const char *sep = "";
	printf("start ignored=");
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction a;
		if (sigaction(sig, NULL, &a) == 0 && !(a.sa_flags & SA_SIGINFO) &&
		    a.sa_handler == SIG_IGN) {
			printf("%s%d", sep, sig);
			sep = ",";
		}
	}
	printf(" blocked=");
	sep = "";
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&mask, sig) == 1) {
			printf("%s%d", sep, sig);
			sep = ",";
		}
	printf("\n");
}

static int say_what_came(int exit_sig)
{
	sigset_t pending;
	sigpending(&pending);
	printf("got");
	for (int sig = 1; sig < NSIG; sig++)
		if (came[sig]) {
			printf(" %d:%d", sig, (int)came[sig]);
			if (value[sig])
				printf(":%d", (int)value[sig]);
		}
	printf(" pending");
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&pending, sig) == 1)
			printf(" %d", sig);
	printf("\n");
	return exit_sig;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: run_signals catch|default|parent [SIGNALS...]\n");
		return 2;
	}
	const char *mode = argv[1];
	int first = 2, exit_sig = 0;
	say_start();
	if (!strcmp(mode, "parent")) {
		if (argc < 4)
			return 2;
		kill(getppid(), atoi(argv[2]));
		first = 3;
	}
	sigset_t handled, wait_mask;
	sigemptyset(&handled);
	if (strcmp(mode, "default") != 0) {
		struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
		sigemptyset(&sa.sa_mask);
		exit_sig = argc > first ? atoi(argv[first]) : 0;
		for (int i = 2; i < argc; i++) {
			sigaddset(&handled, atoi(argv[i]));
			sigaction(atoi(argv[i]), &sa, NULL);
		}
	}
	/* Blocked outside ppoll(), so none comes between a look and the wait. */
	sigprocmask(SIG_BLOCK, &handled, &wait_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&handled, sig) == 1)
			sigdelset(&wait_mask, sig);
	for (unsigned i = 1; i <= 5; i++)
		work(i);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (exit_sig && came[exit_sig])
			return say_what_came(exit_sig);
		struct pollfd in = { .fd = 0, .events = POLLIN };
		char buf[64];
		if (ppoll(&in, 1, NULL, &wait_mask) > 0 && read(0, buf, sizeof(buf)) <= 0) {
			printf("nothing came\n");
			return 99;
		}
	}
}
