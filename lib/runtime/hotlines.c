/* SPDX-License-Identifier: MIT */
#include "runtime/hotlines.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* A function of the report by its address. */
struct keyed {
	uintptr_t fn;
	unsigned index;
};

static int by_fn(const void *a, const void *b)
{
	uintptr_t x = ((const struct keyed *)a)->fn, y = ((const struct keyed *)b)->fn;
	return (x > y) - (x < y);
}

int pv_hotlines_annotate(struct pv_report *r, const struct pv_hotpc *pcs, size_t n,
			 const struct pv_hotpcs_account *read, struct pv_symbolizer *s,
			 unsigned keep, struct pv_hotlines_account *account)
{
	memset(account, 0, sizeof(*account));
	account->read = *read;
	struct keyed *keys = malloc((r->n_funcs + 1) * sizeof(*keys));
	int status = keys ? 0 : -1;
	for (unsigned i = 0; keys && i < r->n_funcs; i++)
		keys[i] = (struct keyed){ (uintptr_t)r->funcs[i].fn, i };
	if (keys)
		qsort(keys, r->n_funcs, sizeof(*keys), by_fn);
	for (size_t i = 0; keys && i < n; i++) {
		struct keyed want = { (uintptr_t)pv_symbols_function(s, (void *)pcs[i].pc), 0 };
		const struct keyed *hit =
			want.fn ? bsearch(&want, keys, r->n_funcs, sizeof(*keys), by_fn) : NULL;
		if (!hit) {
			account->outside += pcs[i].samples;
			continue;
		}
		int line = 0;
		const char *file = pv_symbols_line(s, (void *)pcs[i].pc, &line);
		if (pv_lines_add(&r->funcs[hit->index].lines, file, line, pcs[i].samples) < 0)
			status = -1;
		else
			account->placed += pcs[i].samples;
	}
	for (unsigned i = 0; i < r->n_funcs; i++)
		pv_lines_keep(&r->funcs[i].lines, keep);
	pv_debug(1, "hot lines: %" PRIu64 " PCs sampled, %" PRIu64 " of them in profviz, %" PRIu64
		 " outside the profile's functions, %zu distinct; %" PRIu64 " lost (a ring was "
		 "full), %" PRIu64 " threads without a ring", read->samples, read->own,
		 account->outside, n, read->lost, read->refused);
	free(keys);
	return status;
}
