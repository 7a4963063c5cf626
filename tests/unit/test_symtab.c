/* SPDX-License-Identifier: MIT */
/*
 * The sorted symbol tables (lib/runtime/symtab.c) against elfutils' own answer:
 * every symbol of every object this test has mapped (itself, libc, libdw,
 * libelf, ...) is looked up at its start, its middle and just past its end,
 * and wherever the index decides, its name must be the one
 * dwfl_module_addrinfo gives. At a function's start (what the profiler
 * looks up) it must decide nearly always.
 */
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/symtab.h"
#include "tap.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct tally {
	unsigned modules, lookups, decided, wrong;
	unsigned starts, starts_decided; /* look-ups at a sized symbol's start */
};

/* 1 if the index decided. */
static int check(Dwfl_Module *m, const struct pv_symtab *t, GElf_Addr a, struct tally *n)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *want = dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL, NULL);
	int undecided;
	GElf_Addr start;
	const char *got = pv_symtab_symbol(t, a, &start, &undecided);
	n->lookups++;
	if (undecided)
		return 0;
	n->decided++;
	if (!want || !got || strcmp(want, got) != 0) {
		if (n->wrong++ < 10)
			printf("#   at %#llx: elfutils says %s, the index %s\n",
			       (unsigned long long)a, want ? want : "(none)", got ? got : "(none)");
	}
	return 1;
}

static int each_module(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	(void)userdata, (void)name, (void)start;
	struct tally *n = arg;
	struct pv_symtab *t = pv_symtab_build(m);
	if (!t)
		return DWARF_CB_OK;
	n->modules++;
	int count = dwfl_module_getsymtab(m);
	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		if (!dwfl_module_getsym_info(m, i, &sym, &a, NULL, NULL, NULL) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		int decided = check(m, t, a, n);
		if (sym.st_size > 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			n->starts++;
			n->starts_decided += decided;
		}
		if (sym.st_size > 1)
			check(m, t, a + sym.st_size / 2, n);
		check(m, t, a + sym.st_size, n);
	}
	pv_symtab_free(t);
	return DWARF_CB_OK;
}

int main(void)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	dwfl_report_begin(dwfl);
	tap_ok(dwfl_linux_proc_report(dwfl, getpid()) == 0, "this process's objects reported");
	dwfl_report_end(dwfl, NULL, NULL);
	struct tally n = { 0 };
	dwfl_getmodules(dwfl, each_module, &n, 0);
	printf("# %u modules, %u look-ups, %u decided by the index; %u of %u function starts\n",
	       n.modules, n.lookups, n.decided, n.starts_decided, n.starts);
	tap_ok(n.modules >= 3, "symbol tables of several objects (%u)", n.modules);
	tap_is(n.wrong, 0, "every name the index gives is elfutils' name");
	tap_ok(n.starts_decided * 100 >= n.starts * 99,
	       "the index decides at least 99%% of look-ups at a function's start");
	dwfl_end(dwfl);
	return tap_done();
}
