/* SPDX-License-Identifier: MIT */
/*
 * load.c — a saved profile (schema "profviz-1", any revision) back into the
 * report the writers take. Every field is checked for its type and every
 * reference for its range: a truncated or foreign file gets one line naming
 * the file and the first thing wrong, never a crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

struct reader {
	const char *path;
	int failed;
};

static void fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct reader *rd, const char *fmt, ...)
{
	if (rd->failed++)
		return; /* the first fault is the one worth reading */
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "profviz: %s: ", rd->path);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static json_t *member(struct reader *rd, json_t *obj, const char *key, json_type type,
		      const char *where)
{
	json_t *v = json_object_get(obj, key);
	if (!v || json_typeof(v) != type) {
		static const char *const names[] = { "an object", "an array", "a string",
						     "an integer", "a number", "true", "false",
						     "null" };
		fail(rd, "%s%s\"%s\" is %s, not %s", where, *where ? ": " : "", key,
		     v ? names[json_typeof(v)] : "missing", names[type]);
		return NULL;
	}
	return v;
}

static uint64_t count_of(struct reader *rd, json_t *obj, const char *key, const char *where)
{
	json_t *v = member(rd, obj, key, JSON_INTEGER, where);
	if (v && json_integer_value(v) < 0)
		fail(rd, "%s: \"%s\" is negative", where, key);
	return v && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* An optional count (a field later revisions added): 0 when missing. */
static uint64_t count_or(struct reader *rd, json_t *obj, const char *key, const char *where)
{
	return json_object_get(obj, key) ? count_of(rd, obj, key, where) : 0;
}

/* An optional amount, a number of at least 0 (a field later revisions
 * added): 0 when missing. */
static double amount_or(struct reader *rd, json_t *obj, const char *key, const char *where)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return 0;
	if (!json_is_number(v) || !(json_number_value(v) >= 0)) {
		fail(rd, "%s: \"%s\" is not a number of at least 0", where, key);
		return 0;
	}
	return json_number_value(v);
}

/* An optional number: def when missing or null. */
static double real_or(json_t *obj, const char *key, double def)
{
	json_t *v = json_object_get(obj, key);
	return json_is_number(v) ? json_number_value(v) : def;
}

static char *text_of(struct reader *rd, json_t *obj, const char *key, const char *where)
{
	json_t *v = member(rd, obj, key, JSON_STRING, where);
	char *s = strdup(v ? json_string_value(v) : "");
	if (!s)
		fail(rd, "out of memory");
	return s;
}

/* One number per event, into out[]. */
static void values_of(struct reader *rd, json_t *obj, const char *key, unsigned nev,
		      uint64_t *out, const char *where)
{
	json_t *a = member(rd, obj, key, JSON_ARRAY, where);
	if (!a)
		return;
	if (json_array_size(a) != nev) {
		fail(rd, "%s: \"%s\" has %zu values for %u events", where, key, json_array_size(a),
		     nev);
		return;
	}
	for (unsigned i = 0; i < nev; i++) {
		json_t *v = json_array_get(a, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			fail(rd, "%s: \"%s\"[%u] is not a count", where, key, i);
			return;
		}
		out[i] = (uint64_t)json_integer_value(v);
	}
}

static const uint64_t none[PV_MAX_EVENTS];

/* The same, from a field older revisions may lack: copied from fallback. */
static void values_or(struct reader *rd, json_t *obj, const char *key, unsigned nev,
		      uint64_t *out, const uint64_t *fallback, const char *where)
{
	if (json_object_get(obj, key))
		values_of(rd, obj, key, nev, out, where);
	else
		memcpy(out, fallback, nev * sizeof(*out));
}

/* A reference to a function: an id in [0, n). */
static int function_ref(struct reader *rd, json_t *v, unsigned n, const char *where)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) >= (json_int_t)n) {
		fail(rd, "%s refers to no function", where);
		return 0;
	}
	return (int)json_integer_value(v);
}

/* Each event's name, unit and backend; its kind as saved (revision 3 on),
 * else from its unit and name. */
static void read_events(struct reader *rd, json_t *root, struct pv_loaded *l)
{
	json_t *names = member(rd, root, "events", JSON_ARRAY, "");
	json_t *units = member(rd, root, "units", JSON_ARRAY, "");
	json_t *backends = json_object_get(root, "backends");
	json_t *kinds = json_object_get(root, "kinds");
	if (!names || !units)
		return;
	size_t n = json_array_size(names);
	if (n == 0 || n > PV_MAX_EVENTS || json_array_size(units) != n) {
		fail(rd, "%zu events with %zu units (1 to %d events expected)", n,
		     json_array_size(units), PV_MAX_EVENTS);
		return;
	}
	/* From revision 3 every event says its kind; older files are judged. */
	if ((l->revision >= 3 || (kinds && !json_is_null(kinds))) &&
	    (!json_is_array(kinds) || json_array_size(kinds) != n)) {
		fail(rd, "%zu events with %zu kinds", n, json_array_size(kinds));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = json_string_value(json_array_get(names, i));
		const char *unit = json_string_value(json_array_get(units, i));
		const char *backend = json_string_value(json_array_get(backends, i));
		json_t *kind_value = json_array_get(kinds, i);
		const char *kind_name = json_string_value(kind_value);
		if (!name || !unit) {
			fail(rd, "event %zu has no name or unit", i);
			return;
		}
		enum pv_event_kind kind = pv_event_kind_of(name, unit);
		if (kind_value && (!kind_name || !pv_event_kind_named(kind_name, &kind))) {
			fail(rd, "event %zu is of no known kind (%s%.32s%s)", i, kind_name ? "'" : "",
			     kind_name ? kind_name : "not a string", kind_name ? "'" : "");
			return;
		}
		pv_event_describe(&l->events[i], name, kind, backend ? backend : "tsc");
		if (pv_event_is_time(&l->events[i]) != !strcmp(unit, "ns")) {
			fail(rd, "event %zu: a %s in '%.32s'", i, pv_event_kind_name(kind), unit);
			return;
		}
	}
	l->r.nev = (unsigned)n;
	l->r.events = l->events;
}

/* A function's hot lines, when its PCs were sampled: each a source line (or
 * a null file: elsewhere in the function) and the samples there. */
static void read_lines(struct reader *rd, json_t *f, struct pv_rfunc *out, const char *where)
{
	json_t *list = json_object_get(f, "lines");
	if (!list)
		return;
	if (!json_is_array(list)) {
		fail(rd, "%s: \"lines\" is not an array", where);
		return;
	}
	for (size_t i = 0; i < json_array_size(list) && !rd->failed; i++) {
		json_t *x = json_array_get(list, i);
		char at[80];
		snprintf(at, sizeof(at), "%s: lines[%zu]", where, i);
		if (!json_is_object(x)) {
			fail(rd, "%s is not an object", at);
			return;
		}
		json_t *file = json_object_get(x, "file");
		if (!json_is_string(file) && !json_is_null(file)) {
			fail(rd, "%s: its file is neither a string nor null", at);
			return;
		}
		uint64_t line = count_of(rd, x, "line", at);
		uint64_t samples = count_of(rd, x, "samples", at);
		if (line > INT_MAX)
			fail(rd, "%s: its line is out of range", at);
		if (!rd->failed &&
		    pv_lines_add(&out->lines, json_string_value(file), (int)line, samples) < 0)
			fail(rd, "out of memory");
	}
}

static void read_function(struct reader *rd, json_t *f, unsigned nev, struct pv_rfunc *out,
			  unsigned i)
{
	char where[48];
	snprintf(where, sizeof(where), "functions[%u]", i);
	if (!json_is_object(f)) {
		fail(rd, "%s is not an object", where);
		return;
	}
	out->id = (int)i;
	out->sym.name = text_of(rd, f, "name", where);
	out->sym.module = text_of(rd, f, "module", where);
	json_t *file = json_object_get(f, "file");
	if (json_is_string(file)) {
		out->sym.file = strdup(json_string_value(file));
		out->sym.line = (int)json_integer_value(json_object_get(f, "line"));
	}
	json_t *address = json_object_get(f, "address");
	if (json_is_string(address))
		out->fn = (void *)(uintptr_t)strtoull(json_string_value(address), NULL, 16);
	json_t *kind = json_object_get(f, "kind"); /* revision 4 on */
	if (kind && (!json_is_string(kind) ||
		     !pv_func_kind_named(json_string_value(kind), &out->kind)))
		fail(rd, "%s: \"kind\" is no kind of function", where);
	out->calls = count_of(rd, f, "calls", where);
	out->inlined_calls = count_or(rd, f, "inlined_calls", where);
	out->samples = count_or(rd, f, "samples", where);
	out->timed_ns = count_or(rd, f, "timed_ns", where);
	values_of(rd, f, "self", nev, out->self, where);
	values_of(rd, f, "total", nev, out->total, where);
	values_or(rd, f, "raw_self", nev, out->raw_self, out->self, where);
	values_or(rd, f, "raw_total", nev, out->raw_total, out->total, where);
	values_or(rd, f, "waited", nev, out->waited, none, where);
	read_lines(rd, f, out, where);
	out->copies = 1;
}

static void read_arc(struct reader *rd, json_t *a, struct pv_report *r, unsigned i)
{
	char where[48];
	snprintf(where, sizeof(where), "arcs[%u]", i);
	struct pv_rarc *out = &r->arcs[i];
	if (!json_is_object(a)) {
		fail(rd, "%s is not an object", where);
		return;
	}
	json_t *caller = json_object_get(a, "caller");
	out->caller = json_is_null(caller) ? -1 : function_ref(rd, caller, r->n_funcs, where);
	out->callee = function_ref(rd, json_object_get(a, "callee"), r->n_funcs, where);
	out->calls = count_of(rd, a, "calls", where);
	json_t *nested = json_object_get(a, "nested_calls");
	out->nested_calls = json_is_integer(nested) ? (uint64_t)json_integer_value(nested) : 0;
	out->inlined_calls = count_or(rd, a, "inlined_calls", where);
	values_of(rd, a, "total", r->nev, out->total, where);
	values_or(rd, a, "raw_total", r->nev, out->raw_total, out->total, where);
	values_or(rd, a, "waited", r->nev, out->waited, none, where);
}

/* Path i's folds, [into, calls] each, into an ancestor's path or its own. */
static void read_folds(struct reader *rd, json_t *folds, struct pv_report *r, unsigned i,
		       const char *where)
{
	if (!folds)
		return;
	if (!json_is_array(folds)) {
		fail(rd, "%s: its folds are not an array", where);
		return;
	}
	size_t n = json_array_size(folds);
	struct pv_rfold *more = realloc(r->folds, (r->n_folds + n + 1) * sizeof(*more));
	if (!more) {
		fail(rd, "out of memory");
		return;
	}
	r->folds = more;
	for (size_t k = 0; k < n; k++) {
		json_t *f = json_array_get(folds, k);
		json_t *into = json_array_get(f, 0), *calls = json_array_get(f, 1);
		int up = 0;
		if (json_is_integer(into) && json_integer_value(into) >= 0 &&
		    json_integer_value(into) <= (json_int_t)i)
			for (int at = (int)i; at >= 0 && !up; at = r->paths[at].parent)
				up = at == (int)json_integer_value(into);
		if (json_array_size(f) != 2 || !up || !json_is_integer(calls) ||
		    json_integer_value(calls) < 0) {
			fail(rd, "%s: folds[%zu] is not [a path above it, calls]", where, k);
			return;
		}
		r->folds[r->n_folds++] = (struct pv_rfold){ (int)i, (int)json_integer_value(into),
							   (uint64_t)json_integer_value(calls) };
	}
}

static void read_path(struct reader *rd, json_t *p, struct pv_report *r, unsigned i)
{
	char where[48];
	snprintf(where, sizeof(where), "paths[%u]", i);
	struct pv_rpath *out = &r->paths[i];
	if (!json_is_object(p)) {
		fail(rd, "%s is not an object", where);
		return;
	}
	json_t *parent = json_object_get(p, "parent");
	out->parent = -1;
	if (!json_is_null(parent)) {
		/* Each path comes after its parent: the writers walk them so. */
		if (!json_is_integer(parent) || json_integer_value(parent) < 0 ||
		    json_integer_value(parent) >= (json_int_t)i)
			fail(rd, "%s: its parent is not a path before it", where);
		else
			out->parent = (int)json_integer_value(parent);
	}
	out->func = function_ref(rd, json_object_get(p, "function"), r->n_funcs, where);
	out->calls = count_of(rd, p, "calls", where);
	out->inlined_calls = count_or(rd, p, "inlined_calls", where);
	out->samples = count_or(rd, p, "samples", where);
	out->timed_ns = count_or(rd, p, "timed_ns", where);
	values_of(rd, p, "self", r->nev, out->self, where);
	values_of(rd, p, "total", r->nev, out->total, where);
	values_or(rd, p, "raw_self", r->nev, out->raw_self, out->self, where);
	read_folds(rd, json_object_get(p, "folds"), r, i, where);
	json_t *threads = json_object_get(p, "threads"); /* revision 6 on */
	if (!threads)
		return;
	if (out->parent >= 0 || !json_is_integer(threads) || json_integer_value(threads) < 0 ||
	    json_integer_value(threads) >= (json_int_t)r->n_groups)
		fail(rd, "%s: \"threads\" is not a root's index in thread_groups", where);
	else
		out->group = (unsigned)json_integer_value(threads) + 1;
}

/* The threads of each name (revision 6 on): before the paths, which name
 * them. */
static void read_groups(struct reader *rd, json_t *root, struct pv_report *r)
{
	json_t *list = json_object_get(root, "thread_groups");
	if (!json_is_array(list))
		return;
	r->n_groups = (unsigned)json_array_size(list);
	r->groups = calloc(r->n_groups + 1, sizeof(*r->groups));
	if (!r->groups) {
		fail(rd, "out of memory");
		return;
	}
	for (unsigned g = 0; g < r->n_groups; g++) {
		json_t *e = json_array_get(list, g);
		const char *name = json_string_value(json_object_get(e, "name"));
		if (!name) {
			fail(rd, "thread_groups[%u] has no name", g);
			return;
		}
		snprintf(r->groups[g].name, sizeof(r->groups[g].name), "%s", name);
		r->groups[g].main_thread = json_is_true(json_object_get(e, "main"));
	}
}

static void read_threads(struct reader *rd, json_t *root, struct pv_report *r)
{
	json_t *list = json_object_get(root, "per_thread");
	if (!json_is_array(list))
		return;
	r->n_thread_list = (unsigned)json_array_size(list);
	r->thread_list = calloc(r->n_thread_list + 1, sizeof(*r->thread_list));
	if (!r->thread_list) {
		fail(rd, "out of memory");
		return;
	}
	for (unsigned i = 0; i < r->n_thread_list; i++) {
		json_t *t = json_array_get(list, i);
		struct pv_rthread *out = &r->thread_list[i];
		char where[48];
		snprintf(where, sizeof(where), "per_thread[%u]", i);
		out->tid = (pid_t)json_integer_value(json_object_get(t, "tid"));
		out->calls = count_of(rd, t, "calls", where);
		values_of(rd, t, "total", r->nev, out->total, where);
		values_or(rd, t, "raw_total", r->nev, out->raw_total, out->total, where);
		out->cpu_seconds = real_or(t, "cpu_seconds", -1);
		out->wall_seconds = real_or(t, "wall_seconds", 0);
		out->cut_short = json_is_true(json_object_get(t, "cut_short"));
		const char *name = json_string_value(json_object_get(t, "name")); /* revision 6 */
		snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
		out->main_thread = json_is_true(json_object_get(t, "main"));
	}
}

static void read_compensation(struct reader *rd, json_t *root, struct pv_report *r)
{
	r->compensated = json_is_true(json_object_get(root, "compensated"));
	values_or(rd, root, "raw_run_total", r->nev, r->raw_run_total, r->run_total, "");
	json_t *o = json_object_get(root, "overhead");
	/* "inlined" is newer than the others: 0 when absent */
	const char *keys[] = { "caller", "caller_miss", "callee", "callee_span", "inlined" };
	double *into[] = { r->caller_cost, r->caller_miss_cost, r->callee_cost, r->callee_span,
			   r->inlined_cost };
	for (int k = 0; k < 5 && json_is_object(o); k++) {
		json_t *a = json_object_get(o, keys[k]);
		for (unsigned i = 0; i < r->nev && i < json_array_size(a); i++)
			into[k][i] = json_number_value(json_array_get(a, i));
	}
	if (json_object_get(root, "clamped"))
		values_of(rd, root, "clamped", r->nev, r->clamped, "");
	for (unsigned i = 0; i < r->nev; i++) {
		json_t *ratio = json_array_get(json_object_get(root, "running_ratio"), i);
		r->multiplexed[i] = json_is_number(ratio) ? json_number_value(ratio) : 1;
	}
}

/* How event 0 was sampled (revision 4 on): zeros when absent. */
static void read_sampling(struct reader *rd, json_t *root, struct pv_report *r)
{
	json_t *s = json_object_get(root, "sampling");
	if (!s)
		return;
	if (!json_is_object(s)) {
		fail(rd, "\"sampling\" is not an object");
		return;
	}
	struct pv_sampling *out = &r->sampling;
	out->rate_hz = amount_or(rd, s, "rate_hz", "sampling");
	out->wall_seconds = amount_or(rd, s, "wall_seconds", "sampling");
	out->looks = count_or(rd, s, "looks", "sampling");
	out->samples = count_or(rd, s, "samples", "sampling");
	out->own_samples = count_or(rd, s, "own_samples", "sampling");
	out->own_ns = count_or(rd, s, "own_ns", "sampling");
	out->unsampled_ns = count_or(rd, s, "unsampled_ns", "sampling");
	out->blocked_ns = count_or(rd, s, "blocked_ns", "sampling");
	out->sampler_ns = count_or(rd, s, "sampler_ns", "sampling");
	out->timed_ns = count_or(rd, s, "timed_ns", "sampling");
	out->timed_start_ns = count_or(rd, s, "timed_start_ns", "sampling");
	out->sample_cost_ns = count_or(rd, s, "sample_cost_ns", "sampling");
}

static void read_processes(struct reader *rd, json_t *root, struct pv_loaded *l)
{
	json_t *list = json_object_get(root, "processes");
	size_t n = json_is_array(list) ? json_array_size(list) : 0;
	l->processes = calloc(n ? n : 1, sizeof(*l->processes));
	if (!l->processes) {
		fail(rd, "out of memory");
		return;
	}
	if (!n) { /* written by one process */
		l->n_processes = 1;
		l->processes[0].program = strdup(l->program);
		l->processes[0].pid = l->r.pid;
		return;
	}
	l->n_processes = (unsigned)n; /* before reading: freed whatever fails */
	for (size_t i = 0; i < n; i++) {
		json_t *p = json_array_get(list, i);
		l->processes[i].program = text_of(rd, p, "program", "processes");
		l->processes[i].pid = (int)json_integer_value(json_object_get(p, "pid"));
		json_t *from = json_object_get(p, "from");
		if (json_is_string(from))
			l->processes[i].from = strdup(json_string_value(from));
	}
	l->n_processes = (unsigned)n;
	l->r.n_processes = l->n_processes;
	l->r.processes = l->processes;
}

static void read_profile(struct reader *rd, json_t *root, struct pv_loaded *l)
{
	struct pv_report *r = &l->r;
	json_t *format = json_object_get(root, "format");
	if (!json_is_string(format) || strcmp(json_string_value(format), "profviz-1")) {
		fail(rd, "not a profviz profile (no \"format\": \"profviz-1\")");
		return;
	}
	json_t *revision = json_object_get(root, "revision");
	l->revision = json_is_integer(revision) ? (int)json_integer_value(revision) : 1;
	l->program = text_of(rd, root, "program", "");
	r->program = l->program;
	r->pid = (int)json_integer_value(json_object_get(root, "pid"));
	read_events(rd, root, l);
	if (rd->failed)
		return;
	values_of(rd, root, "run_total", r->nev, r->run_total, "");
	/* A view's, with the waits apart from the work (view.h) */
	r->waits_apart = json_object_get(root, "waited") != NULL;
	values_or(rd, root, "waited", r->nev, r->waited, none, "");
	read_compensation(rd, root, r);
	json_t *losses = json_object_get(root, "losses");
	r->threads = (uint64_t)json_integer_value(json_object_get(root, "threads"));
	r->wall_seconds = real_or(root, "wall_seconds", 0);
	r->stray_exits = (uint64_t)json_integer_value(json_object_get(root, "stray_exits"));
	r->resyncs = (uint64_t)json_integer_value(json_object_get(root, "resyncs"));
	r->losses.unrecorded_calls =
		(uint64_t)json_integer_value(json_object_get(losses, "unrecorded_calls"));
	r->losses.merge_failures =
		(uint64_t)json_integer_value(json_object_get(losses, "merge_failures"));
	r->losses.counters_lost =
		(uint64_t)json_integer_value(json_object_get(losses, "counters_lost"));
	r->losses.rekeys_incomplete =
		(uint64_t)json_integer_value(json_object_get(losses, "rekeys_incomplete"));
	r->losses.threads_cut_short =
		(uint64_t)json_integer_value(json_object_get(losses, "threads_cut_short"));
	r->losses.threads_shared =
		(uint64_t)json_integer_value(json_object_get(losses, "threads_shared"));
	r->losses.contexts_unplaced =
		(uint64_t)json_integer_value(json_object_get(losses, "contexts_unplaced"));
	r->losses.catches_in_bodies =
		(uint64_t)json_integer_value(json_object_get(losses, "catches_in_bodies"));
	r->lost_records = (uint64_t)json_integer_value(json_object_get(losses, "lost_records"));
	read_sampling(rd, root, r);

	json_t *funcs = member(rd, root, "functions", JSON_ARRAY, "");
	json_t *arcs = member(rd, root, "arcs", JSON_ARRAY, "");
	json_t *paths = json_object_get(root, "paths"); /* revision 2 on */
	if (rd->failed)
		return;
	r->n_funcs = (unsigned)json_array_size(funcs);
	r->n_arcs = (unsigned)json_array_size(arcs);
	r->n_paths = json_is_array(paths) ? (unsigned)json_array_size(paths) : 0;
	r->funcs = calloc(r->n_funcs + 1, sizeof(*r->funcs));
	r->arcs = calloc(r->n_arcs + 1, sizeof(*r->arcs));
	r->paths = calloc(r->n_paths + 1, sizeof(*r->paths));
	if (!r->funcs || !r->arcs || !r->paths) {
		fail(rd, "out of memory");
		return;
	}
	for (unsigned i = 0; i < r->n_funcs && !rd->failed; i++)
		read_function(rd, json_array_get(funcs, i), r->nev, &r->funcs[i], i);
	for (unsigned i = 0; i < r->n_arcs && !rd->failed; i++)
		read_arc(rd, json_array_get(arcs, i), r, i);
	read_groups(rd, root, r);
	for (unsigned i = 0; i < r->n_paths && !rd->failed; i++)
		read_path(rd, json_array_get(paths, i), r, i);
	pv_report_sort_folds(r); /* written in order; a hand-made file's need not be */
	read_threads(rd, root, r);
	read_processes(rd, root, l);
	pv_report_hold_run_total(r); /* a file written before open calls were counted */
	r->node_threshold = PV_DEFAULT_NODE_THRESHOLD; /* as the runtime's graph */
	r->edge_threshold = PV_DEFAULT_EDGE_THRESHOLD;
	r->max_nodes = PV_DEFAULT_MAX_NODES;
}

/* root (consumed) into l; err: how jansson failed, when root is NULL. */
static int load_root(const char *path, json_t *root, const json_error_t *err,
		     struct pv_loaded *l)
{
	memset(l, 0, sizeof(*l));
	struct reader rd = { path, 0 };
	if (!root) {
		size_t n = strlen(path);
		if (err->line < 0) /* the file itself */
			fprintf(stderr, "profviz: %s: %s\n", path, err->text);
		else if (n < 5 || strcmp(path + n - 5, ".json"))
			/* prof.dot, prof.html: what a user finds beside the profile. */
			fprintf(stderr, "profviz: %s is not a profile: profiles are the JSON files "
				"that PROFVIZ_OUTPUT=prof.json or profviz run -o prof.json write\n",
				path);
		else
			fprintf(stderr, "profviz: %s: not valid JSON at line %d, column %d: %s\n",
				path, err->line, err->column, err->text);
		return -1;
	}
	if (!json_is_object(root))
		fail(&rd, "not a profviz profile (not a JSON object)");
	else
		read_profile(&rd, root, l);
	json_decref(root);
	l->path = strdup(path);
	if (rd.failed || !l->path) {
		pv_loaded_free(l);
		return -1;
	}
	return 0;
}

int pv_load(const char *path, struct pv_loaded *l)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);
	return load_root(path, root, &err, l);
}

int pv_load_buffer(const char *name, const char *data, size_t size, struct pv_loaded *l)
{
	json_error_t err;
	json_t *root = json_loadb(data, size, 0, &err);
	return load_root(name, root, &err, l);
}

void pv_loaded_free(struct pv_loaded *l)
{
	pv_report_free(&l->r);
	for (unsigned i = 0; i < l->n_processes; i++) {
		free(l->processes[i].program);
		free(l->processes[i].from);
	}
	free(l->processes);
	free(l->program);
	free(l->path);
	memset(l, 0, sizeof(*l));
}
