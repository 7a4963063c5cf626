/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/symbols.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <limits.h>
#include <stdbool.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/paths.h"
#include "runtime/srclines.h"
#include "runtime/symtab.h"

/* An unloaded object, opened at its old place for the names of its retired functions. */
struct gone {
	const struct pv_unloaded *module;
	Dwfl *dwfl; /* NULL until a look-up needs it */
	int failed;
};

struct pv_symbolizer {
	Dwfl *dwfl; /* what is mapped now */
	const struct pv_retired **retired; /* every retired key, sorted */
	size_t n_retired;
	struct gone *gone; /* one per unloaded object */
	size_t n_gone;
	struct pv_srclines *srclines; /* units' ranges, for modules without aranges */
	char path[PATH_MAX]; /* the last source file made a whole path */
};

static int by_address(const void *a, const void *b)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;
	return x < y ? -1 : x > y;
}

/* The keys retired so far and their objects. A dlclose may be adding to
 * the lists meanwhile: each record is published whole, and one added after
 * the profile was taken keys nothing in it. */
static int gather_retired(struct pv_symbolizer *s, const struct pv_unloaded *unloaded)
{
	size_t cap_r = 0;
	for (const struct pv_unloaded *u = unloaded; u; u = __atomic_load_n(&u->next, __ATOMIC_ACQUIRE)) {
		struct gone *g = realloc(s->gone, (s->n_gone + 1) * sizeof(*g));
		if (!g)
			return -1;
		s->gone = g;
		s->gone[s->n_gone++] = (struct gone){ .module = u };
		for (const struct pv_retired *r = __atomic_load_n(&u->records, __ATOMIC_ACQUIRE); r;
		     r = r->next) {
			if (s->n_retired == cap_r) {
				cap_r = cap_r ? 2 * cap_r : 64;
				const struct pv_retired **m = realloc(s->retired, cap_r * sizeof(*m));
				if (!m)
					return -1;
				s->retired = m;
			}
			s->retired[s->n_retired++] = r;
		}
	}
	if (s->n_retired)
		qsort(s->retired, s->n_retired, sizeof(*s->retired), by_address);
	return 0;
}

static const struct pv_retired *retired_record(const struct pv_symbolizer *s, const void *key)
{
	if (!s->n_retired)
		return NULL;
	const struct pv_retired **hit =
		bsearch(&key, s->retired, s->n_retired, sizeof(*s->retired), by_address);
	return hit ? *hit : NULL;
}

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* This process's mappings, from the calling thread's view: once main has
 * left through pthread_exit, /proc/self (its thread) shows no mappings. */
static int report_mappings(Dwfl *dwfl)
{
	FILE *f = fopen("/proc/thread-self/maps", "re");
	if (!f)
		f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	int err = dwfl_linux_proc_maps_report(dwfl, f);
	fclose(f);
	return err;
}

struct pv_symbolizer *pv_symbols_open(const struct pv_unloaded *unloaded)
{
	struct pv_symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->dwfl = dwfl_begin(&proc_callbacks);
	if (!s->dwfl) {
		free(s);
		return NULL;
	}
	dwfl_report_begin(s->dwfl);
	if (report_mappings(s->dwfl) != 0) {
		dwfl_end(s->dwfl);
		free(s);
		return NULL;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (gather_retired(s, unloaded) < 0) {
		pv_symbols_close(s);
		return NULL;
	}
	return s;
}

/* Each module's sorted symbol table hangs on its userdata, built on its first look-up. */
static char no_table; /* the userdata of a module whose table could not be built */

static int free_table(Dwfl_Module *m, void **userdata, const char *name, Dwarf_Addr start,
		      void *arg)
{
	(void)m, (void)name, (void)start, (void)arg;
	if (*userdata && *userdata != &no_table)
		pv_symtab_free(*userdata);
	*userdata = NULL;
	return DWARF_CB_OK;
}

static void end_dwfl(Dwfl *dwfl)
{
	dwfl_getmodules(dwfl, free_table, NULL, 0);
	dwfl_end(dwfl);
}

void pv_symbols_close(struct pv_symbolizer *s)
{
	if (!s)
		return;
	end_dwfl(s->dwfl);
	for (size_t i = 0; i < s->n_gone; i++)
		if (s->gone[i].dwfl)
			end_dwfl(s->gone[i].dwfl);
	free(s->gone);
	free(s->retired);
	pv_srclines_free(s->srclines);
	free(s);
}

/* The symbol's name for a, as dwfl_module_addrinfo gives it, and where
 * that symbol starts. */
static const char *symbol_name(Dwfl_Module *m, Dwarf_Addr a, Dwarf_Addr *start)
{
	void **userdata = NULL;
	dwfl_module_info(m, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata && !*userdata) {
		struct pv_symtab *t = pv_symtab_build(m);
		*userdata = t ? (void *)t : (void *)&no_table;
	}
	int undecided = 1;
	if (userdata && *userdata != &no_table) {
		GElf_Addr at = 0;
		const char *name = pv_symtab_symbol(*userdata, a, &at, &undecided);
		if (!undecided) {
			*start = at;
			return name;
		}
	}
	GElf_Off offset = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m, a, &offset, &sym, NULL, NULL, NULL);
	*start = a - offset;
	return name;
}

/* The module of an unloaded object, opened on first use. */
static Dwfl_Module *gone_module(struct pv_symbolizer *s, const struct pv_retired *r)
{
	struct gone *g = NULL;
	for (size_t i = 0; i < s->n_gone && !g; i++)
		if (s->gone[i].module == r->module)
			g = &s->gone[i];
	if (!g || g->failed)
		return NULL;
	if (!g->dwfl) {
		g->dwfl = dwfl_begin(&offline_callbacks);
		if (g->dwfl) {
			dwfl_report_begin(g->dwfl);
			dwfl_report_elf(g->dwfl, g->module->path, g->module->path, -1,
					(GElf_Addr)g->module->bias, false);
			dwfl_report_end(g->dwfl, NULL, NULL);
		}
		g->failed = !g->dwfl;
	}
	return g->dwfl ? dwfl_addrmodule(g->dwfl, (Dwarf_Addr)(uintptr_t)r->addr) : NULL;
}

/* The module an address belongs to: for a retired key, the unloaded
 * object's, and *a becomes the function's address there. */
static Dwfl_Module *module_of(struct pv_symbolizer *s, Dwarf_Addr *a)
{
	if (!s)
		return NULL;
	const struct pv_retired *r = retired_record(s, (const void *)(uintptr_t)*a);
	if (r) {
		*a = (Dwarf_Addr)(uintptr_t)r->addr;
		return gone_module(s, r);
	}
	return dwfl_addrmodule(s->dwfl, *a);
}

void *pv_symbols_reloaded(void *fn, void *symbolizer)
{
	struct pv_symbolizer *s = symbolizer;
	const struct pv_retired *r = s ? retired_record(s, fn) : NULL;
	if (!r)
		return NULL;
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, (Dwarf_Addr)(uintptr_t)r->addr);
	const char *name = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
	Dwarf_Addr bias = 0;
	if (!name || strcmp(name, r->module->path) != 0 || !dwfl_module_getelf(m, &bias) ||
	    bias != (Dwarf_Addr)r->module->bias)
		return NULL;
	return r->addr;
}

typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);

/* Demangle a C++ name if it is one; malloc'd text or NULL. */
static char *demangled(const char *name)
{
	static cxa_demangle_fn *demangle;
	static int looked;
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	if (!looked) {
		looked = 1;
		demangle = (cxa_demangle_fn *)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!demangle) {
			/* A C program with C++ libraries loaded late, or none: ask libstdc++. */
			void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
			if (h)
				demangle = (cxa_demangle_fn *)dlsym(h, "__cxa_demangle");
		}
	}
	if (!demangle)
		return NULL;
	int status = -1;
	char *out = demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The line of a from its unit's table. gcc can leave a row of a header's
 * line at the very address where a function of the .cpp begins (the end of
 * an inlined or emitted header function), and libdw may answer with that
 * row: the header's line for the .cpp's function. NULL if there is none. */
static const char *line_at(Dwfl_Module *m, Dwfl_Line *found, Dwarf_Addr a, int *lineno)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *unit = dwfl_linecu(found);
	Dwarf_Lines *lines = NULL;
	size_t n = 0;
	if (!unit || !dwfl_module_getdwarf(m, &bias) || dwarf_getsrclines(unit, &lines, &n) != 0)
		return NULL;
	Dwarf_Addr want = a - bias;
	size_t lo = 0, hi = n; /* the first row at want or after */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr at = 0;
		dwarf_lineaddr(dwarf_onesrcline(lines, mid), &at);
		if (at < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Several rows may share want, in no reliable order: one ending the
	 * previous sequence, one of a file switch, the function's own. The
	 * function's is the one in the file of the code that follows it. */
	size_t end = lo;
	Dwarf_Addr at = 0;
	while (end < n && dwarf_lineaddr(dwarf_onesrcline(lines, end), &at) == 0 && at == want)
		end++;
	const char *after = end < n ? dwarf_linesrc(dwarf_onesrcline(lines, end), NULL, NULL) : NULL;
	Dwarf_Line *best = NULL, *any = NULL;
	for (size_t i = lo; i < end; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		bool ends = false;
		if (dwarf_lineendsequence(row, &ends) != 0 || ends)
			continue;
		const char *file = dwarf_linesrc(row, NULL, NULL);
		if (!file)
			continue;
		any = row;
		if (after && !strcmp(file, after))
			best = row;
	}
	Dwarf_Line *row = best ? best : any;
	const char *file = row ? dwarf_linesrc(row, NULL, NULL) : NULL;
	if (file && dwarf_lineno(row, lineno) == 0)
		return file;
	return NULL;
}

/* The directory a unit was compiled in (owned by libdw), or NULL. */
static const char *unit_dir(Dwarf_Die *unit)
{
	Dwarf_Attribute attr;
	return unit ? dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attr)) : NULL;
}

/* file as a whole path, cleaned: a relative one is the directory's the
 * compiler ran in ("../src/x.c" from a build directory), so that a reader
 * run from anywhere opens it (callgrind_annotate, profviz report --lines).
 * In s->path when made there, else file itself. */
static const char *whole_path(struct pv_symbolizer *s, const char *file, const char *dir)
{
	if (!file || file[0] == '/' || !dir || dir[0] != '/')
		return file;
	int n = snprintf(s->path, sizeof(s->path), "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= sizeof(s->path))
		return file;
	pv_path_normalise(s->path);
	return s->path;
}

/* The file (owned by libdw or s, until the next look-up) and line of the
 * code at a in m, or NULL. */
static const char *source_line(struct pv_symbolizer *s, Dwfl_Module *m, Dwarf_Addr a,
			       int *lineno)
{
	Dwfl_Line *line = dwfl_module_getsrc(m, a);
	const char *file = line ? line_at(m, line, a, lineno) : NULL;
	if (line && !file)
		file = dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
	const char *dir = file ? unit_dir(dwfl_linecu(line)) : NULL;
	/* No .debug_aranges (clang's default): find the unit by its ranges. */
	if (!file && pv_srclines_find(&s->srclines, m, a, &file, &dir, lineno) < 0)
		file = NULL;
	return whole_path(s, file, dir);
}

void pv_symbols_lookup(struct pv_symbolizer *s, void *addr, struct pv_symbol *out)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)addr;
	Dwfl_Module *m = module_of(s, &a);
	memset(out, 0, sizeof(*out));
	if (!m) {
		out->module = strdup("");
		if (asprintf(&out->name, "0x%llx", (unsigned long long)a) < 0)
			out->name = NULL;
		return;
	}
	Dwarf_Addr base = 0;
	const char *mainfile = NULL;
	const char *modname = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, &mainfile, NULL);
	out->module = strdup(mainfile ? mainfile : modname ? modname : "");

	Dwarf_Addr start = 0;
	const char *name = symbol_name(m, a, &start);
	if (name) {
		out->name = demangled(name);
		if (!out->name)
			out->name = strdup(name);
	} else {
		const char *base_name = strrchr(out->module, '/');
		base_name = base_name ? base_name + 1 : out->module;
		if (asprintf(&out->name, "%s+0x%llx", base_name,
			     (unsigned long long)(a - base)) < 0)
			out->name = NULL;
	}

	int lineno = 0;
	const char *file = source_line(s, m, a, &lineno);
	if (file) {
		out->file = strdup(file);
		out->line = lineno;
	}
}

void *pv_symbols_function(struct pv_symbolizer *s, void *pc)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)pc, start = 0;
	Dwfl_Module *m = s ? dwfl_addrmodule(s->dwfl, a) : NULL;
	return m && symbol_name(m, a, &start) ? (void *)(uintptr_t)start : NULL;
}

const char *pv_symbols_line(struct pv_symbolizer *s, void *pc, int *line)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)pc;
	Dwfl_Module *m = s ? dwfl_addrmodule(s->dwfl, a) : NULL;
	return m ? source_line(s, m, a, line) : NULL;
}
