/* SPDX-License-Identifier: MIT */
/* The signal handler that the two signal candidates share: charge one
 * sample (worth weight_ns) to the thread's current slot. Async-signal-safe:
 * no locks, no allocation, errno kept. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "handler.h"

__thread struct smp_thread *smp_self __attribute__((tls_model("initial-exec")));
long smp_period_ns;

static int own_code;
static smp_after_fn after;

static void on_sample(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	int saved = errno;
	struct smp_thread *t = smp_self;
	if (t) {
		if (si->si_code != own_code && !(own_code == POLL_IN && si->si_code == POLL_HUP)) {
			t->foreign++;
		} else {
			/* A CPU-time timer that fell behind the tick says how many
			 * periods one signal stands for. */
			uint64_t periods = 1 + (own_code == SI_TIMER && si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0);
			int s = t->cur;
			t->hits[s]++;
			t->weight_ns[s] += periods * (uint64_t)smp_period_ns;
			if (after)
				after(t);
		}
	}
	errno = saved;
}

int smp_install_handler(int code, smp_after_fn fn)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	own_code = code;
	after = fn;
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | (getenv_restart() ? SA_RESTART : 0);
	sigemptyset(&sa.sa_mask);
	return sigaction(SMP_SIGNAL, &sa, 0);
}
