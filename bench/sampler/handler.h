/* SPDX-License-Identifier: MIT */
#ifndef HANDLER_H
#define HANDLER_H
#include <signal.h>
#include <stdlib.h>
#include "sampler.h"
/* The real-time signal the runtime would take for itself. */
#define SMP_SIGNAL (SIGRTMIN + 3)
typedef void (*smp_after_fn)(struct smp_thread *t);
extern long smp_period_ns;
/* SMP_RESTART=1 installs the handler with SA_RESTART (the EINTR tests). */
static inline int getenv_restart(void)
{
	const char *v = getenv("SMP_RESTART");
	return v && *v == '1';
}
int smp_install_handler(int code, smp_after_fn fn);
#endif
