/* SPDX-License-Identifier: MIT */
/*
 * symbol.h — a function's name as the profile records it.
 */
#ifndef PV_MODEL_SYMBOL_H
#define PV_MODEL_SYMBOL_H

struct pv_symbol {
	char *name;   /* demangled; "module+0xoffset" when there is no symbol */
	char *module; /* absolute path of the object, or "" */
	char *file;   /* source file, or NULL */
	int line;
};

/* to: a copy of from, with strings of its own. 0, or -1 (to left empty)
 * when memory ran out. */
int pv_symbol_copy(struct pv_symbol *to, const struct pv_symbol *from);

/* Free sym's strings and leave it empty. */
void pv_symbol_free(struct pv_symbol *sym);

#endif /* PV_MODEL_SYMBOL_H */
