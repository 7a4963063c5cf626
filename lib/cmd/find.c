/* SPDX-License-Identifier: MIT */
/*
 * find.c — the function a sub-command's --focus, --root or --lines names,
 * as a user types it: the whole name, the name without parameters, the
 * name as the graph's box shows it, a /regex/, or a part of the name found
 * in one function only. A name that
 * finds no function, or several, gets the nearest ones listed.
 */
#define _GNU_SOURCE
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/nearest.h"
#include "cmd/cmd.h"
#include "model/copies.h"
#include "output/dotstyle.h"

#define PV_FIND_SHOWN 8 /* candidates listed at most */
#define PV_FIND_FAR ((size_t)1 << 20) /* nearness of a name that does not hold it */

/* What the user typed, and how it is being tried. */
struct query {
	const char *text;
	regex_t re; /* for a /regex/ */
	int (*match)(const struct pv_symbol *s, const struct query *q);
};

/* The length of name without its parameters ("ns::f(int) const": 5). */
static size_t bare_length(const char *name)
{
	return (size_t)(pv_name_params(name) - name);
}

static int exactly(const struct pv_symbol *s, const struct query *q)
{
	return !strcmp(s->name, q->text);
}

/* s's name without its parameters is q's: "ns::f(int) const" for "ns::f". */
static int bare(const struct pv_symbol *s, const struct query *q)
{
	size_t n = bare_length(s->name);
	return strlen(q->text) == n && !strncmp(s->name, q->text, n);
}

/* s's name as a box shows it is q's: "Map<...>::find". */
static int as_shown(const struct pv_symbol *s, const struct query *q)
{
	char *shown = pv_short_name(s->name);
	int same = shown && !strcmp(shown, q->text);
	free(shown);
	return same;
}

/* q's text is a part of s's name without its parameters. */
static int part(const struct pv_symbol *s, const struct query *q)
{
	size_t n = bare_length(s->name);
	const char *at = memmem(s->name, n, q->text, strlen(q->text));
	return at != NULL;
}

/* The whole name (parameters included, as the JSON has it) matches. */
static int matches_regex(const struct pv_symbol *s, const struct query *q)
{
	return regexec(&q->re, s->name, 0, NULL, 0) == 0;
}

/* Copies of one header function share name, module, file and line; without
 * a file, two functions of a name cannot be told to be one. */
static int same_definition(const struct pv_rfunc *a, const struct pv_rfunc *b)
{
	return !strcmp(a->sym.name, b->sym.name) && !strcmp(a->sym.module, b->sym.module) &&
	       a->sym.file && b->sym.file && !strcmp(a->sym.file, b->sym.file) &&
	       a->sym.line == b->sym.line;
}

/* Mark in chosen the functions q takes: how many, 0 for none, -1 when they
 * are not all one definition (chosen then marks every one of them). */
static int choose(const struct pv_report *r, const struct query *q, char *chosen)
{
	int n = 0, first = -1, several = 0;
	memset(chosen, 0, r->n_funcs);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		if (!q->match(&r->funcs[i].sym, q))
			continue;
		if (first < 0)
			first = (int)i;
		else if (!same_definition(&r->funcs[first], &r->funcs[i]))
			several = 1;
		chosen[i] = 1;
		n++;
	}
	return several ? -1 : n;
}

/* The most edits a candidate may be from what was typed: a quarter of it,
 * 2 at least. */
/* How near name is to what was typed, smaller nearer: a name holding it
 * (case aside) by how much longer it is; any other by its edit distance to
 * the name or to its last component ("ns::Map<int>::find": "find"), after
 * every name that holds it. */
static size_t nearness(const char *name, const char *typed)
{
	size_t n = bare_length(name), len = strlen(typed), most = pv_edits_allowed(typed);
	char *whole = strndup(name, n);
	if (!whole)
		return PV_FIND_FAR | (most + 1);
	int holds = strcasestr(whole, typed) != NULL;
	free(whole);
	if (holds)
		return n - len;
	const char *last = name;
	for (const char *c = name; c + 1 < name + n; c++)
		if (c[0] == ':' && c[1] == ':')
			last = c + 2;
	size_t d = pv_edit_distance(typed, name, n, most);
	size_t dl = pv_edit_distance(typed, last, n - (size_t)(last - name), most);
	return PV_FIND_FAR | (d < dl ? d : dl);
}

/* A name is a candidate when it holds what was typed, or is a few edits
 * from it. */
static int near_enough(size_t near, const char *typed)
{
	return near < PV_FIND_FAR || (near & (PV_FIND_FAR - 1)) <= pv_edits_allowed(typed);
}

struct candidate {
	const struct pv_rfunc *f;
	size_t near;
};

static int nearer(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	if (a->near != b->near)
		return a->near < b->near ? -1 : 1;
	if (a->f->total[0] != b->f->total[0]) /* then the hotter */
		return a->f->total[0] < b->f->total[0] ? 1 : -1;
	return a->f->id - b->f->id;
}

/* Copies of one function next to each other (equally near: one name). */
static int by_definition(const void *x, const void *y)
{
	const struct candidate *a = x, *b = y;
	if (a->near != b->near)
		return a->near < b->near ? -1 : 1;
	int c = pv_copies_compare(a->f, b->f);
	return c ? c : a->f->id - b->f->id;
}

/* The functions marked in only (every function when NULL), nearest to what
 * was typed first (the hottest first for a /regex/, which no name is near
 * to), a header function's copies once; those far from it left out unless
 * only. How many, in *out (malloc'd). */
static unsigned nearest(const struct pv_report *r, const char *typed, int is_regex,
			const char *only, struct candidate **out)
{
	struct candidate *c = malloc((r->n_funcs + 1) * sizeof(*c));
	unsigned n = 0;
	for (unsigned i = 0; c && i < r->n_funcs; i++) {
		if (only && !only[i])
			continue;
		size_t near = is_regex ? 0 : nearness(r->funcs[i].sym.name, typed);
		if (only || near_enough(near, typed))
			c[n++] = (struct candidate){ &r->funcs[i], near };
	}
	unsigned kept = 0;
	if (c)
		qsort(c, n, sizeof(*c), by_definition);
	for (unsigned k = 0; k < n; k++)
		if (!kept || !same_definition(c[kept - 1].f, c[k].f))
			c[kept++] = c[k];
	if (c)
		qsort(c, kept, sizeof(*c), nearer);
	*out = c;
	return kept;
}

/* The first few candidates, one a line, with where each is defined. */
static void list(const struct candidate *c, unsigned n)
{
	for (unsigned k = 0; k < n && k < PV_FIND_SHOWN; k++) {
		const struct pv_symbol *s = &c[k].f->sym;
		if (s->file)
			fprintf(stderr, "  %s  (%s:%d)\n", s->name, s->file, s->line);
		else
			fprintf(stderr, "  %s  (at %p in %s)\n", s->name, c[k].f->fn, s->module);
	}
	if (n > PV_FIND_SHOWN)
		fprintf(stderr, "  and %u more\n", n - PV_FIND_SHOWN);
}

/* When text is "/regex/", compile it into q (POSIX extended): 1, or -1
 * after a message; 0 for any other text. */
static int compile_regex(struct query *q, const char *text, const char *path)
{
	size_t len = strlen(text);
	if (len < 3 || text[0] != '/' || text[len - 1] != '/')
		return 0;
	char *pattern = strndup(text + 1, len - 2);
	int err = pattern ? regcomp(&q->re, pattern, REG_EXTENDED | REG_NOSUB) : REG_ESPACE;
	free(pattern);
	if (err) {
		char why[256];
		regerror(err, &q->re, why, sizeof(why));
		fprintf(stderr, "profviz: %s: '%s' is not a regular expression: %s\n", path, text,
			why);
		return -1;
	}
	return 1;
}

int pv_find_functions(const struct pv_report *r, const char *name, const char *path,
		      char *chosen)
{
	struct query q = { .text = name };
	int is_regex = compile_regex(&q, name, path);
	if (is_regex < 0)
		return -1;
	/* The exact ways first: a part of a name only when no name is it. */
	int (*const ways[])(const struct pv_symbol *, const struct query *) = {
		exactly, bare, as_shown, is_regex ? matches_regex : part
	};
	int n = 0;
	for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]) && n == 0; w++) {
		q.match = ways[w];
		n = name[0] ? choose(r, &q, chosen) : 0;
	}
	struct candidate *c = NULL;
	if (n < 0) {
		unsigned k = nearest(r, name, is_regex, chosen, &c);
		fprintf(stderr, "profviz: %s: '%s' %s several functions; give one of:\n", path,
			name, q.match == part ? "is part of" : is_regex ? "matches" : "names");
		list(c, k);
	} else if (n == 0) {
		unsigned k = is_regex || !name[0] ? 0 : nearest(r, name, 0, NULL, &c);
		fprintf(stderr, "profviz: %s: no function %s'%s' in the profile%s\n", path,
			is_regex ? "matches " : "", name, k ? "; the nearest:" : "");
		list(c, k);
	}
	free(c);
	if (is_regex)
		regfree(&q.re);
	return n > 0 ? n : -1;
}
