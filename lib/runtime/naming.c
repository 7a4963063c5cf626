/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/naming.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cct.h"
#include "runtime/waits.h"

/* The node a signal's handlers ran under: "<signal SIGALRM>". */
static void signal_symbol(int sig, struct pv_symbol *sym)
{
	const char *abbrev = sigabbrev_np(sig);
	char name[64];
	if (abbrev)
		snprintf(name, sizeof(name), "<signal SIG%s>", abbrev);
	else
		snprintf(name, sizeof(name), "<signal %d>", sig);
	memset(sym, 0, sizeof(*sym));
	sym->name = strdup(name);
	sym->module = strdup("");
}

/* The node a libc wait ran under: "<blocked: pthread_cond_wait>". */
static void wait_symbol(const char *wait, struct pv_symbol *sym)
{
	char name[64];
	snprintf(name, sizeof(name), "<blocked: %s>", wait);
	memset(sym, 0, sizeof(*sym));
	sym->name = strdup(name);
	sym->module = strdup("");
}

static enum pv_func_kind name_function(void *symbolizer, void *fn, struct pv_symbol *sym)
{
	int sig = pv_signal_of(fn);
	if (sig) {
		signal_symbol(sig, sym);
		return PV_FUNC_SIGNAL;
	}
	const char *wait = pv_wait_name(fn);
	if (wait) {
		wait_symbol(wait, sym);
		return PV_FUNC_WAIT;
	}
	pv_symbols_lookup(symbolizer, fn, sym);
	return PV_FUNC_PLAIN;
}

struct pv_namer pv_runtime_namer(struct pv_symbolizer *s)
{
	return (struct pv_namer){ name_function, pv_symbols_reloaded, s };
}
