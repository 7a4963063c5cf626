/* SPDX-License-Identifier: MIT */
/* What the ways to install a handler answer, printed (t_signals.py holds
 * them to the same program's without profviz): SIG_ERR refused, the old
 * handlers returned, sigset's SIG_HOLD, and siginterrupt's effect on a
 * read that a signal interrupts. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* Still in glibc, no longer in its headers. */
extern sighandler_t bsd_signal(int sig, sighandler_t handler);
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static volatile int seen;

static void on_sig(int sig)
{
	seen = sig;
}

static const char *name(sighandler_t h)
{
	return h == SIG_ERR ? "SIG_ERR" : h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN"
	       : h == SIG_HOLD ? "SIG_HOLD" : h == on_sig ? "on_sig" : "other";
}

static void show(const char *what, sighandler_t h)
{
	printf("%s: %s errno %s\n", what, name(h), h == SIG_ERR ? strerror(errno) : "-");
	errno = 0;
}

/* A read of an empty pipe that SIGALRM lands in after 20 ms. */
static void timed_read(const char *what)
{
	int fds[2];
	char c;
	if (pipe(fds) != 0)
		return;
	struct itimerval once = { { 0, 0 }, { 0, 20000 } };
	setitimer(ITIMER_REAL, &once, NULL);
	/* Restarted, the read would wait for ever: a second process writes. */
	if (fork() == 0) {
		usleep(300000);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		_exit(0);
	}
	ssize_t n = read(fds[0], &c, 1);
	printf("%s: read %zd%s\n", what, n, n < 0 && errno == EINTR ? " EINTR" : "");
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	show("signal SIG_ERR", signal(SIGUSR1, SIG_ERR));
	show("bsd_signal SIG_ERR", bsd_signal(SIGUSR1, SIG_ERR));
	show("sysv_signal SIG_ERR", sysv_signal(SIGUSR1, SIG_ERR));
	show("signal", signal(SIGUSR1, on_sig));
	show("bsd_signal again", bsd_signal(SIGUSR1, SIG_IGN));
	show("sigset", sigset(SIGUSR1, on_sig));
	show("sigset SIG_HOLD", sigset(SIGUSR1, SIG_HOLD));
	show("sigset SIG_HOLD again", sigset(SIGUSR1, SIG_HOLD));
	show("sigset after hold", sigset(SIGUSR1, SIG_DFL));
	show("signal 0", signal(0, on_sig));
	show("sigset SIGKILL", sigset(SIGKILL, on_sig));
	siginterrupt(SIGALRM, 1);
	bsd_signal(SIGALRM, on_sig);
	timed_read("siginterrupt 1, then bsd_signal");
	siginterrupt(SIGALRM, 0);
	timed_read("siginterrupt 0");
	return 0;
}
