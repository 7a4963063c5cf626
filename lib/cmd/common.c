/* common.c — what every sub-command does alike: read its numbers, name a
 * function, write a file. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "output.h"

int pv_arg_percent(const char *option, const char *value, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (end != value && *end == '%')
		end++;
	if (errno || end == value || *end || !(v >= 0 && v <= 100)) {
		fprintf(stderr, "profviz: %s: '%s' is not a percentage (0-100, e.g. 0.5 or 0.5%%)\n",
			option, value);
		return -1;
	}
	*out = v;
	return 0;
}

int pv_arg_count(const char *option, const char *value, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(value, &end, 10);
	if (errno || end == value || *end || value[0] == '-') {
		fprintf(stderr, "profviz: %s: '%s' is not a whole number\n", option, value);
		return -1;
	}
	*out = v;
	return 0;
}

/* name without its parameters: "ns::f(int) const" -> "ns::f". */
static size_t bare_length(const char *name)
{
	const char *paren = strchr(name, '(');
	return paren && paren != name ? (size_t)(paren - name) : strlen(name);
}

static int matches_bare(const char *full, const char *name)
{
	size_t n = bare_length(full);
	if (strlen(name) != n || strncmp(full, name, n))
		return 0;
	return 1;
}

int pv_find_function(const struct pv_report *r, const char *name, const char *path)
{
	int found = -1, several = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (!strcmp(r->funcs[i].sym.name, name))
			return (int)i;
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (matches_bare(r->funcs[i].sym.name, name)) {
			several |= found >= 0;
			if (found < 0)
				found = (int)i;
		}
	if (found >= 0 && !several)
		return found;
	if (several) {
		fprintf(stderr, "profviz: %s: '%s' names several functions; give the whole name:\n",
			path, name);
		for (unsigned i = 0; i < r->n_funcs; i++)
			if (matches_bare(r->funcs[i].sym.name, name))
				fprintf(stderr, "  %s\n", r->funcs[i].sym.name);
		return -1;
	}
	fprintf(stderr, "profviz: %s: no function '%s' in the profile\n", path, name);
	return -1;
}

int pv_write_to(const char *path, const struct pv_report *r)
{
	const struct pv_format *f = pv_output_format_of(path);
	if (!f) {
		char known[128];
		pv_output_extensions(known, sizeof(known));
		fprintf(stderr, "profviz: %s: no format for this name; end it in %s\n", path, known);
		return -1;
	}
	return pv_output_write_file(path, f->write, r);
}

static void events_text(const struct pv_report *r, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned e = 0; e < r->nev && used < size; e++)
		used += (size_t)snprintf(out + used, size - used, "%s%s [%s]", e ? ", " : "",
					 r->events[e].name, pv_event_unit(&r->events[e]));
}

int pv_same_events(const struct pv_loaded *a, const struct pv_loaded *b, const char *cmd)
{
	int same = a->r.nev == b->r.nev;
	for (unsigned e = 0; same && e < a->r.nev; e++)
		same = !strcmp(a->r.events[e].name, b->r.events[e].name) &&
		       !strcmp(pv_event_unit(&a->r.events[e]), pv_event_unit(&b->r.events[e]));
	if (!same) {
		char ea[512], eb[512];
		events_text(&a->r, ea, sizeof(ea));
		events_text(&b->r, eb, sizeof(eb));
		fprintf(stderr, "profviz %s: %s counts %s but %s counts %s: the events must be "
			"the same, in the same order and units\n", cmd, a->path, ea, b->path, eb);
	}
	return same;
}
