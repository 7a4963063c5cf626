#define _GNU_SOURCE
#include "symbols.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct mapped_range {
	uintptr_t lo, hi;
};

struct pv_symbolizer {
	Dwfl *dwfl; /* what is mapped now */
	Dwfl *gone; /* objects dlclose'd earlier, at their old addresses */
	struct mapped_range *mapped; /* /proc/self/maps, sorted */
	size_t n_mapped;
};


static void read_mapped(struct pv_symbolizer *s)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096];
	size_t cap = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (s->n_mapped == cap) {
			cap = cap ? 2 * cap : 256;
			struct mapped_range *m = realloc(s->mapped, cap * sizeof(*m));
			if (!m)
				break;
			s->mapped = m;
		}
		s->mapped[s->n_mapped++] = (struct mapped_range){ lo, hi };
	}
	if (f)
		fclose(f);
}

static int is_mapped(const struct pv_symbolizer *s, uintptr_t addr)
{
	size_t lo = 0, hi = s->n_mapped; /* /proc/self/maps is sorted */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (addr < s->mapped[mid].lo)
			hi = mid;
		else if (addr >= s->mapped[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
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
	if (dwfl_linux_proc_report(s->dwfl, getpid()) != 0) {
		dwfl_end(s->dwfl);
		free(s);
		return NULL;
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (unloaded) {
		read_mapped(s);
		s->gone = dwfl_begin(&offline_callbacks);
		if (s->gone) {
			dwfl_report_begin(s->gone);
			for (const struct pv_unloaded *u = unloaded; u; u = u->next)
				dwfl_report_elf(s->gone, u->path, u->path, -1, (GElf_Addr)u->bias,
						false);
			dwfl_report_end(s->gone, NULL, NULL);
		}
	}
	return s;
}

void pv_symbols_close(struct pv_symbolizer *s)
{
	if (!s)
		return;
	dwfl_end(s->dwfl);
	if (s->gone)
		dwfl_end(s->gone);
	free(s->mapped);
	free(s);
}

/* The module an address belongs to: an unloaded object's when the address
 * lies in one and nothing is mapped there now. */
static Dwfl_Module *module_of(struct pv_symbolizer *s, Dwarf_Addr a)
{
	if (!s)
		return NULL;
	if (s->gone && !is_mapped(s, (uintptr_t)a)) {
		Dwfl_Module *m = dwfl_addrmodule(s->gone, a);
		if (m)
			return m;
	}
	return dwfl_addrmodule(s->dwfl, a);
}

typedef char *cxa_demangle_fn(const char *, char *, size_t *, int *);

char *pv_demangle(const char *name)
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

void pv_symbols_lookup(struct pv_symbolizer *s, void *addr, struct pv_symbol *out)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)addr;
	Dwfl_Module *m = module_of(s, a);
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

	GElf_Off offset = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m, a, &offset, &sym, NULL, NULL, NULL);
	if (name) {
		out->name = pv_demangle(name);
		if (!out->name)
			out->name = strdup(name);
	} else {
		const char *base_name = strrchr(out->module, '/');
		base_name = base_name ? base_name + 1 : out->module;
		if (asprintf(&out->name, "%s+0x%llx", base_name,
			     (unsigned long long)(a - base)) < 0)
			out->name = NULL;
	}

	Dwfl_Line *line = dwfl_module_getsrc(m, a);
	if (line) {
		int lineno = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		if (file) {
			out->file = strdup(file);
			out->line = lineno;
		}
	}
}

void pv_symbol_free(struct pv_symbol *sym)
{
	free(sym->name);
	free(sym->module);
	free(sym->file);
	memset(sym, 0, sizeof(*sym));
}
