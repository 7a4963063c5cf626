/* SPDX-License-Identifier: MIT */
#include "runtime/srclines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

/* One address range of one compile unit. */
struct span {
	Dwarf_Addr low, high; /* [low, high), in the module's DWARF addresses */
	Dwarf_Off unit;       /* the unit's DIE */
};

/* One module's spans, sorted by start; the modules in a list. */
struct pv_srclines {
	Dwfl_Module *module;
	Dwarf *dwarf;
	Dwarf_Addr bias;
	struct span *spans;
	size_t n;
	struct pv_srclines *next;
};

static int by_low(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->low < y->low ? -1 : x->low > y->low;
}

static int add_span(struct pv_srclines *idx, size_t *cap, Dwarf_Addr low, Dwarf_Addr high,
		    Dwarf_Off unit)
{
	if (idx->n == *cap) {
		size_t more = *cap ? 2 * *cap : 64;
		struct span *s = realloc(idx->spans, more * sizeof(*s));
		if (!s)
			return -1;
		idx->spans = s;
		*cap = more;
	}
	idx->spans[idx->n++] = (struct span){ low, high, unit };
	return 0;
}

static struct pv_srclines *build(Dwfl_Module *m)
{
	struct pv_srclines *idx = calloc(1, sizeof(*idx));
	if (!idx)
		return NULL;
	idx->module = m;
	idx->dwarf = dwfl_module_getdwarf(m, &idx->bias);
	size_t cap = 0, header;
	Dwarf_Off off = 0, next;
	while (idx->dwarf && dwarf_nextcu(idx->dwarf, off, &next, &header, NULL, NULL, NULL) == 0) {
		Dwarf_Die unit;
		if (dwarf_offdie(idx->dwarf, off + header, &unit)) {
			Dwarf_Addr base, low, high;
			ptrdiff_t at = 0;
			while ((at = dwarf_ranges(&unit, at, &base, &low, &high)) > 0)
				if (low < high && add_span(idx, &cap, low, high, off + header) < 0)
					break;
		}
		off = next;
	}
	if (idx->n) /* no spans: no table to sort (a stripped module) */
		qsort(idx->spans, idx->n, sizeof(*idx->spans), by_low);
	return idx;
}

static struct pv_srclines *index_of(struct pv_srclines **cache, Dwfl_Module *m)
{
	for (struct pv_srclines *idx = *cache; idx; idx = idx->next)
		if (idx->module == m)
			return idx;
	struct pv_srclines *idx = build(m);
	if (idx) {
		idx->next = *cache;
		*cache = idx;
	}
	return idx;
}

int pv_srclines_find(struct pv_srclines **cache, Dwfl_Module *m, Dwarf_Addr addr,
		     const char **file, const char **dir, int *line)
{
	struct pv_srclines *idx = index_of(cache, m);
	if (!idx || !idx->n)
		return -1;
	Dwarf_Addr a = addr - idx->bias;
	/* The last span starting at or before a, then back over any that
	 * overlap it (units' ranges rarely nest). */
	size_t lo = 0, hi = idx->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx->spans[mid].low <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct span *s = &idx->spans[i];
		if (a >= s->high)
			continue;
		Dwarf_Die unit;
		if (!dwarf_offdie(idx->dwarf, s->unit, &unit))
			continue;
		Dwarf_Line *l = dwarf_getsrc_die(&unit, a);
		const char *name = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		if (name && dwarf_lineno(l, line) == 0) {
			Dwarf_Attribute attr;
			*file = name;
			*dir = dwarf_formstring(dwarf_attr(&unit, DW_AT_comp_dir, &attr));
			return 0;
		}
		if (lo - i > 64)
			break; /* far enough back: no unit holds it */
	}
	return -1;
}

void pv_srclines_free(struct pv_srclines *cache)
{
	while (cache) {
		struct pv_srclines *next = cache->next;
		free(cache->spans);
		free(cache);
		cache = next;
	}
}
