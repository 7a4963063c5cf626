/* SPDX-License-Identifier: MIT */
/*
 * dotstyle.h — how profviz's graphs look: text made safe for dot, names
 * as boxes show them, colours, amounts at a glance (dotstyle.c).
 */
#ifndef PV_DOTSTYLE_H
#define PV_DOTSTYLE_H

#include <stddef.h>
#include <stdio.h>

#include "model/event.h"
#include "model/symbol.h"

/* Write s as the inside of a dot string, cut at max bytes with "...". */
void pv_dot_text(FILE *out, const char *s, size_t max);

/* Write a C++ name as a box shows it, cut at max bytes: without its
 * parameters, template arguments elided: "ns::Map<...>::find". */
void pv_dot_short_name(FILE *out, const char *name, size_t max);

/* The same into memory the caller frees (NULL when memory ran out), not
 * cut: what a user may type back from a box (--focus "Map<...>::find"). */
char *pv_short_name(const char *name);

/* name whole, parameters too, its template arguments elided:
 * "std::_Rb_tree<...>::find(int const&)", for tables. Freed by the caller;
 * NULL when memory ran out. */
char *pv_elided_name(const char *name);

/* Where name's parameter list begins ("f(int) const" -> "(int) const"), or
 * its end when it has none. */
const char *pv_name_params(const char *name);

/* "#rrggbb" of a colour given as hue, saturation, lightness (0-1 each). */
void pv_hsl_to_hex(double h, double s, double l, char hex[8]);

/* The text colour that reads on fill hex: black on light, white on dark. */
const char *pv_text_colour(const char hex[8]);

/* An amount of event e at a glance: "1.234 ms", "5.600 M", "12 ns". */
void pv_dot_amount(FILE *out, double v, const struct pv_event_desc *e);

/* For a tooltip: the whole name, file:line where known, and the module. */
void pv_dot_definition(FILE *out, const struct pv_symbol *sym, size_t name_max);

#endif /* PV_DOTSTYLE_H */
