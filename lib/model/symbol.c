/* SPDX-License-Identifier: MIT */
#include "model/symbol.h"

#include <stdlib.h>
#include <string.h>

int pv_symbol_copy(struct pv_symbol *to, const struct pv_symbol *from)
{
	to->name = strdup(from->name);
	to->module = strdup(from->module);
	to->file = from->file ? strdup(from->file) : NULL;
	to->line = from->line;
	if (to->name && to->module && (to->file || !from->file))
		return 0;
	pv_symbol_free(to);
	return -1;
}

void pv_symbol_free(struct pv_symbol *sym)
{
	free(sym->name);
	free(sym->module);
	free(sym->file);
	memset(sym, 0, sizeof(*sym));
}
