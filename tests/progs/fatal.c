/* SPDX-License-Identifier: MIT */
/*
 * Deaths by signal that crash reporters and small signal stacks bring about.
 * Before the death, outer() calls step() 5 times; the death comes inside
 * event_here().
 * usage: fatal MODE [SIGNAL]
 *   resethand        a SIGTERM handler installed with SA_RESETHAND re-raises
 *   resethand-segv   a SIGSEGV handler with SA_RESETHAND returns: the fault
 *                    comes again, at the default action
 *   abort-handler    abort() with a SIGABRT handler that returns
 *   abort-ignored    abort() with SIGABRT ignored
 *   altstack SIGNAL  SIGNAL (a number; 11: a real fault) at its default
 *                    action, on an 8 KiB alternate signal stack
 *   raise SIGNAL     SIGNAL (a number) at its default action
 *   children-ignored    SIGPWR at its default action, SIGCHLD ignored
 *   children-handled    abort-handler, SIGCHLD handled by the program
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

static void step(int i)
{
	sink += i;
}

static void say(const char *what)
{
	(void)!write(1, what, strlen(what));
}

static void reporter(int sig)
{
	say(sig == SIGSEGV ? "reporter SIGSEGV\n" : sig == SIGABRT ? "reporter SIGABRT\n"
								    : "reporter SIGTERM\n");
	/* SA_RESETHAND: the action reads back as the default from now on. */
	struct sigaction now;
	sigaction(sig, NULL, &now);
	say(now.sa_handler == SIG_DFL ? "now default\n" : "still handled\n");
	if (sig == SIGTERM)
		raise(sig); /* delivered at the default once the handler returns */
}

static void on_child(int sig)
{
	(void)sig;
	say("SIGCHLD\n");
}

static void install(int sig, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = reporter;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static void fault(void)
{
	*(volatile int *)(uintptr_t)16 = 1;
}

static void die_by(int sig)
{
	if (sig == SIGSEGV)
		fault();
	else
		raise(sig);
}

static void event_here(const char *mode, int sig)
{
	if (!strcmp(mode, "resethand")) {
		install(SIGTERM, SA_RESETHAND);
		raise(SIGTERM);
	} else if (!strcmp(mode, "resethand-segv")) {
		install(SIGSEGV, SA_RESETHAND);
		fault();
	} else if (!strcmp(mode, "abort-handler")) {
		install(SIGABRT, 0);
		abort();
	} else if (!strcmp(mode, "abort-ignored")) {
		signal(SIGABRT, SIG_IGN);
		abort();
	} else if (!strcmp(mode, "altstack")) {
		static char small[8192];
		stack_t ss = { .ss_sp = small, .ss_size = sizeof(small) };
		sigaltstack(&ss, NULL);
		die_by(sig);
	} else if (!strcmp(mode, "raise")) {
		die_by(sig);
	} else if (!strcmp(mode, "children-ignored")) {
		signal(SIGCHLD, SIG_IGN);
		raise(SIGPWR);
	} else if (!strcmp(mode, "children-handled")) {
		signal(SIGCHLD, on_child);
		install(SIGABRT, 0);
		abort(); /* a SIGCHLD would come as the SIGABRT handler returns */
	}
}

static void outer(const char *mode, int sig)
{
	for (int i = 0; i < 5; i++)
		step(i);
	event_here(mode, sig);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int sig = argc > 2 ? atoi(argv[2]) : 0;
	printf("start %s\n", mode);
	fflush(stdout);
	outer(mode, sig);
	printf("survived %s\n", mode);
	return 2;
}
