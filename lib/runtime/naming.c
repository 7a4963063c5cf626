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

static void name_function(void *symbolizer, void *fn, enum pv_func_kind kind,
			  struct pv_symbol *sym)
{
	if (kind == PV_FUNC_SIGNAL)
		signal_symbol(pv_signal_of(fn), sym);
	else if (kind == PV_FUNC_WAIT)
		wait_symbol(pv_wait_name(fn), sym);
	else
		pv_symbols_lookup(symbolizer, fn, sym);
}

enum pv_func_kind pv_runtime_kind_of(const void *fn)
{
	return pv_signal_of(fn) ? PV_FUNC_SIGNAL : pv_wait_name(fn) ? PV_FUNC_WAIT : PV_FUNC_PLAIN;
}

struct pv_namer pv_runtime_namer(struct pv_symbolizer *s)
{
	return (struct pv_namer){ name_function, pv_symbols_reloaded, s };
}
