/* SPDX-License-Identifier: MIT */
#include "runtime/symtab.h"

#include <stdlib.h>

/* A symbol elfutils would consider for an address at or above its start. */
struct entry {
	GElf_Addr start;
	GElf_Xword size; /* 0: a label without a size */
	const char *name;
	int ndx;     /* its place in the module's table: elfutils' tie-break */
	int binding; /* higher is preferred: global 3, weak 2, local 1, other 0 */
};

struct pv_symtab {
	struct entry *e; /* by start */
	GElf_Addr *reach; /* reach[i]: the furthest end of e[0..i] */
	size_t n;
	int first_global; /* elfutils looks at [first_global, n) before the rest */
};

/* How far down the sorted table a look-up walks before leaving it to elfutils. */
#define MAX_WALK 64
#define MAX_CONTAINING 16

static int binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int by_start(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ndx - y->ndx;
}

static int by_ndx(const void *a, const void *b)
{
	return ((const struct entry *)a)->ndx - ((const struct entry *)b)->ndx;
}

void pv_symtab_free(struct pv_symtab *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->reach);
	free(t);
}

struct pv_symtab *pv_symtab_build(Dwfl_Module *m)
{
	int n = dwfl_module_getsymtab(m);
	int first_global = dwfl_module_getsymtab_first_global(m);
	if (n <= 0 || first_global < 0)
		return NULL;
	struct pv_symtab *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->first_global = first_global == 0 ? 1 : first_global;
	t->e = malloc((size_t)n * sizeof(*t->e));
	t->reach = malloc((size_t)n * sizeof(*t->reach));
	if (!t->e || !t->reach) {
		pv_symtab_free(t);
		return NULL;
	}
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr start;
		const char *name = dwfl_module_getsym_info(m, i, &sym, &start, NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
		    type == STT_FILE || type == STT_TLS)
			continue;
		t->e[t->n++] = (struct entry){ start, sym.st_size, name, i, binding_rank(&sym) };
	}
	qsort(t->e, t->n, sizeof(*t->e), by_start);
	GElf_Addr reach = 0;
	for (size_t i = 0; i < t->n; i++) {
		GElf_Addr end = t->e[i].start + t->e[i].size;
		if (end > reach)
			reach = end;
		t->reach[i] = reach;
	}
	return t;
}

/* Is sym a better pick than best, seen in table order? elfutils' rule for
 * symbols with a size that contain the address. */
static int better(const struct entry *best, const struct entry *sym)
{
	if (!best || best->start < sym->start || best->binding < sym->binding)
		return 1;
	return best->start == sym->start &&
	       ((best->size > sym->size && best->binding <= sym->binding) ||
		(best->size >= sym->size && best->binding < sym->binding));
}

/* The best of the candidates whose table index lies in [lo, hi). */
static const struct entry *pick(const struct entry *c, size_t n, int lo, int hi)
{
	const struct entry *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (c[i].ndx >= lo && c[i].ndx < hi && better(best, &c[i]))
			best = &c[i];
	return best;
}

const char *pv_symtab_symbol(const struct pv_symtab *t, GElf_Addr addr, GElf_Addr *start,
			     int *undecided)
{
	*undecided = 1;
	if (!t)
		return NULL;
	/* The first entry that starts above addr. */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Below it, every symbol that contains addr: entries are walked down
	 * while something at or below them still reaches past addr. */
	struct entry found[MAX_CONTAINING];
	size_t n_found = 0, walked = 0;
	for (size_t i = lo; i-- > 0;) {
		const struct entry *e = &t->e[i];
		if (e->start != addr && t->reach[i] <= addr)
			break;
		if (++walked > MAX_WALK)
			return NULL;
		if (e->size == 0) {
			/* A label right at addr may stop elfutils from looking at
			 * local symbols at all. */
			if (e->start == addr && e->ndx >= t->first_global)
				return NULL;
			continue;
		}
		if (addr - e->start < e->size) {
			if (n_found == MAX_CONTAINING)
				return NULL;
			found[n_found++] = *e;
		}
	}
	qsort(found, n_found, sizeof(found[0]), by_ndx);
	const struct entry *best = pick(found, n_found, t->first_global, 1 << 30);
	if (!best && t->first_global > 1)
		best = pick(found, n_found, 1, t->first_global);
	if (!best)
		return NULL; /* only labels without a size: elfutils' own rules */
	*undecided = 0;
	*start = best->start;
	return best->name;
}
