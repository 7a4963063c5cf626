/* SPDX-License-Identifier: MIT */
/*
 * merge.c — `profviz merge`: the profiles of several processes (a program
 * and its forked children, MPI ranks) summed into one profile, written by
 * the runtime's own writers. Processes load code at different addresses,
 * so a function is matched by what it is — module, name, file:line — never
 * by its address; arcs and call paths are matched through their functions.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "base/paths.h"
#include "base/pairs.h"
#include "output/format.h"
#include "base/htab.h"

static const char usage[] =
	"usage: profviz merge [--force] -o OUT.json PROFILE.json...\n"
	"Sum the profiles of several processes (a program and its forked children,\n"
	"MPI ranks, a merge made before) into one: each function's calls and costs,\n"
	"each arc's, each call path's, and the runs' totals. Functions are matched\n"
	"by module, name and file:line, never by address. The profiles must have\n"
	"the same events, in the same order, in the same units.\n"
	"The merged profile lists the processes that went into it (\"processes\");\n"
	"its program and pid are the first profile's, its wall time the longest.\n"
	"Sampled time adds its samples, whatever rate each run had (each sample\n"
	"stands for the CPU time it carries), and the runs' sampling figures, the\n"
	"first one's rate.\n"
	"Profiles of different programs (by the executable's file name) are refused:\n"
	"their sum would be labelled with the first program alone.\n"
	"  -o, --output OUT  write there (atomically), in the format its extension\n"
	"                    asks for (.json to work on it further); required\n"
	"  --force           merge profiles of different programs all the same\n";

void pv_help_merge(FILE *out)
{
	fputs(usage, out);
}

struct func_entry {
	char *key; /* module, name, file, line, and which copy: see function_key */
	size_t len;
	int index;
	UT_hash_handle hh;
};

struct merged {
	struct pv_report r;
	struct pv_event_desc events[PV_MAX_EVENTS];
	unsigned cap_funcs, cap_arcs, cap_paths, cap_folds;
	struct pv_rprocess *processes;
	struct func_entry *func_table;
	struct pv_pair *arc_table, *path_table, *fold_table;
	int mixed_compensation;
	int with_paths, without_paths; /* inputs with call paths, and without */
};

/* Definition order: module, name, file, line. */
static int definition_order(const struct pv_rfunc *a, const struct pv_rfunc *b)
{
	int c = strcmp(a->sym.module, b->sym.module);
	if (!c)
		c = strcmp(a->sym.name, b->sym.name);
	if (!c)
		c = strcmp(a->sym.file ? a->sym.file : "", b->sym.file ? b->sym.file : "");
	if (!c)
		c = (a->sym.line > b->sym.line) - (a->sym.line < b->sym.line);
	return c;
}

/* Copies of one definition (a static function in a header) are told apart
 * by their order in memory, which loading at another address keeps. */
static int by_definition_then_address(const void *x, const void *y, void *funcs)
{
	const struct pv_rfunc *a = (const struct pv_rfunc *)funcs + *(const int *)x;
	const struct pv_rfunc *b = (const struct pv_rfunc *)funcs + *(const int *)y;
	int c = definition_order(a, b);
	if (c)
		return c;
	if (a->fn != b->fn)
		return (uintptr_t)a->fn < (uintptr_t)b->fn ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

static char *function_key(const struct pv_rfunc *f, unsigned copy, size_t *len)
{
	const char *file = f->sym.file ? f->sym.file : "";
	size_t m = strlen(f->sym.module) + 1, n = strlen(f->sym.name) + 1, s = strlen(file) + 1;
	*len = m + n + s + sizeof(f->sym.line) + sizeof(copy);
	char *key = malloc(*len), *at = key;
	if (!key)
		return NULL;
	memcpy(at, f->sym.module, m), at += m;
	memcpy(at, f->sym.name, n), at += n;
	memcpy(at, file, s), at += s;
	memcpy(at, &f->sym.line, sizeof(f->sym.line)), at += sizeof(f->sym.line);
	memcpy(at, &copy, sizeof(copy));
	return key;
}

/* Room for more entries in *array of *cap. 0, or -1. */
static int reserve(void **array, unsigned *cap, unsigned used, unsigned more, size_t size)
{
	if (used + more <= *cap)
		return 0;
	unsigned want = used + more + 16;
	void *grown = realloc(*array, (size_t)want * size);
	if (!grown)
		return -1;
	memset((char *)grown + (size_t)*cap * size, 0, (size_t)(want - *cap) * size);
	*array = grown;
	*cap = want;
	return 0;
}

static int new_function(struct merged *m, const struct pv_rfunc *f)
{
	struct pv_rfunc *out = &m->r.funcs[m->r.n_funcs];
	out->id = (int)m->r.n_funcs;
	out->fn = f->fn; /* the first process's: an address means nothing across them */
	out->kind = f->kind;
	out->copies = 1;
	if (pv_symbol_copy(&out->sym, &f->sym) < 0)
		return -1;
	return (int)m->r.n_funcs++;
}

/* in's functions into m; func_of[i] their merged index. 0, or -1. */
static int merge_functions(struct merged *m, const struct pv_report *in, int *func_of)
{
	unsigned n = in->n_funcs;
	int *order = malloc((n ? n : 1) * sizeof(*order));
	if (!order || reserve((void **)&m->r.funcs, &m->cap_funcs, m->r.n_funcs, n,
			      sizeof(*m->r.funcs)) < 0) {
		free(order);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		order[i] = (int)i;
	qsort_r(order, n, sizeof(*order), by_definition_then_address, in->funcs);
	unsigned copy = 0;
	for (unsigned k = 0; k < n; k++) {
		const struct pv_rfunc *f = &in->funcs[order[k]];
		copy = k && !definition_order(f, &in->funcs[order[k - 1]]) ? copy + 1 : 0;
		size_t len;
		char *key = function_key(f, copy, &len);
		struct func_entry *e = NULL;
		if (key)
			HASH_FIND(hh, m->func_table, key, len, e);
		if (e) {
			free(key);
		} else if (!key || !(e = calloc(1, sizeof(*e))) ||
			   (e->index = new_function(m, f)) < 0) {
			free(key);
			free(e);
			free(order);
			return -1;
		} else {
			e->key = key;
			e->len = len;
			HASH_ADD_KEYPTR(hh, m->func_table, e->key, e->len, e);
			if (!pv_htab_added(e, hh)) {
				free(key);
				free(e);
				free(order);
				return -1;
			}
		}
		struct pv_rfunc *out = &m->r.funcs[e->index];
		out->calls += f->calls;
		out->inlined_calls += f->inlined_calls;
		out->samples += f->samples;
		out->timed_ns += f->timed_ns;
		pv_costs_add(out->self, f->self, in->nev);
		pv_costs_add(out->total, f->total, in->nev);
		pv_costs_add(out->raw_self, f->raw_self, in->nev);
		pv_costs_add(out->raw_total, f->raw_total, in->nev);
		pv_costs_add(out->waited, f->waited, in->nev);
		if (pv_lines_add_all(&out->lines, &f->lines) < 0) {
			free(order);
			return -1;
		}
		func_of[order[k]] = e->index;
	}
	free(order);
	return 0;
}

static int merge_arcs(struct merged *m, const struct pv_report *in, const int *func_of)
{
	if (reserve((void **)&m->r.arcs, &m->cap_arcs, m->r.n_arcs, in->n_arcs,
		    sizeof(*m->r.arcs)) < 0)
		return -1;
	for (unsigned i = 0; i < in->n_arcs; i++) {
		const struct pv_rarc *a = &in->arcs[i];
		int caller = a->caller < 0 ? -1 : func_of[a->caller], callee = func_of[a->callee];
		int created, slot = pv_pair_slot(&m->arc_table, &m->r.n_arcs, caller, callee, &created);
		if (slot < 0)
			return -1;
		struct pv_rarc *out = &m->r.arcs[slot];
		if (created) {
			out->caller = caller;
			out->callee = callee;
		}
		out->calls += a->calls;
		out->nested_calls += a->nested_calls;
		out->inlined_calls += a->inlined_calls;
		pv_costs_add(out->total, a->total, in->nev);
		pv_costs_add(out->raw_total, a->raw_total, in->nev);
		pv_costs_add(out->waited, a->waited, in->nev);
	}
	return 0;
}

/* A fold is (its merged from path, its merged into path). */
static int merge_folds(struct merged *m, const struct pv_report *in, const int *path_of)
{
	if (reserve((void **)&m->r.folds, &m->cap_folds, m->r.n_folds, in->n_folds,
		    sizeof(*m->r.folds)) < 0)
		return -1;
	for (unsigned i = 0; i < in->n_folds; i++) {
		const struct pv_rfold *o = &in->folds[i];
		int from = path_of[o->from], into = path_of[o->into];
		int created, slot = pv_pair_slot(&m->fold_table, &m->r.n_folds, from, into, &created);
		if (slot < 0)
			return -1;
		m->r.folds[slot].from = from;
		m->r.folds[slot].into = into;
		m->r.folds[slot].calls += o->calls;
	}
	return 0;
}

/* The merged group of in's group g (0 for none): by name and kind. -1 when
 * memory ran out. */
static int merged_group(struct merged *m, const struct pv_report *in, unsigned g)
{
	if (!g || g > in->n_groups)
		return 0;
	const struct pv_thread_group *want = &in->groups[g - 1];
	for (unsigned k = 0; k < m->r.n_groups; k++)
		if (m->r.groups[k].main_thread == want->main_thread &&
		    !strcmp(m->r.groups[k].name, want->name))
			return (int)k + 1;
	struct pv_thread_group *grown = realloc(m->r.groups, (m->r.n_groups + 1) * sizeof(*grown));
	if (!grown)
		return -1;
	m->r.groups = grown;
	grown[m->r.n_groups++] = *want;
	return (int)m->r.n_groups;
}

/* A path is (its merged parent, its merged function), a root's parent
 * standing for its threads' group: each input's paths come after their
 * parents, so a parent is always merged first, and the merged paths keep
 * that order. */
static int merge_paths(struct merged *m, const struct pv_report *in, const int *func_of)
{
	int *path_of = malloc((in->n_paths ? in->n_paths : 1) * sizeof(*path_of));
	if (!path_of || reserve((void **)&m->r.paths, &m->cap_paths, m->r.n_paths, in->n_paths,
				sizeof(*m->r.paths)) < 0) {
		free(path_of);
		return -1;
	}
	for (unsigned i = 0; i < in->n_paths; i++) {
		const struct pv_rpath *p = &in->paths[i];
		int group = p->parent < 0 ? merged_group(m, in, p->group) : 0;
		int parent = p->parent < 0 ? -1 - group : path_of[p->parent], func = func_of[p->func];
		int created = 0, slot = group < 0 ? -1 : pv_pair_slot(&m->path_table, &m->r.n_paths,
								      parent, func, &created);
		if (slot < 0) {
			free(path_of);
			return -1;
		}
		struct pv_rpath *out = &m->r.paths[slot];
		if (created) {
			out->parent = parent < 0 ? -1 : parent;
			out->func = func;
			out->group = (unsigned)group;
		}
		out->calls += p->calls;
		out->inlined_calls += p->inlined_calls;
		out->samples += p->samples;
		out->timed_ns += p->timed_ns;
		pv_costs_add(out->self, p->self, in->nev);
		pv_costs_add(out->total, p->total, in->nev);
		pv_costs_add(out->raw_self, p->raw_self, in->nev);
		path_of[i] = slot;
	}
	int status = merge_folds(m, in, path_of);
	free(path_of);
	return status;
}

static int merge_threads(struct merged *m, const struct pv_report *in)
{
	struct pv_rthread *grown = realloc(m->r.thread_list, (m->r.n_thread_list +
							      in->n_thread_list + 1) *
							     sizeof(*grown));
	if (!grown)
		return -1;
	if (in->n_thread_list)
		memcpy(grown + m->r.n_thread_list, in->thread_list,
		       in->n_thread_list * sizeof(*grown));
	m->r.thread_list = grown;
	m->r.n_thread_list += in->n_thread_list;
	return 0;
}

/* The processes that went into l: its own list when it is a merge. */
static int merge_processes(struct merged *m, const struct pv_loaded *l)
{
	struct pv_rprocess *grown = realloc(m->processes, (m->r.n_processes + l->n_processes) *
							       sizeof(*grown));
	if (!grown)
		return -1;
	m->processes = grown;
	m->r.processes = grown;
	for (unsigned i = 0; i < l->n_processes; i++) {
		const struct pv_rprocess *p = &l->processes[i];
		const char *from = l->r.n_processes && p->from ? p->from : l->path;
		struct pv_rprocess *out = &grown[m->r.n_processes];
		out->pid = p->pid;
		out->program = strdup(p->program ? p->program : "");
		out->from = strdup(from);
		if (!out->program || !out->from) {
			free(out->program);
			free(out->from);
			return -1;
		}
		m->r.n_processes++;
	}
	return 0;
}

/* The program of l that is not first's (by file name), or NULL: a merge
 * names one program, the first's. */
static const char *other_program(const struct pv_loaded *first, const struct pv_loaded *l)
{
	const char *name = pv_path_base(first->r.program ? first->r.program : "");
	for (unsigned i = 0; i < l->n_processes; i++) {
		const char *program = l->processes[i].program ? l->processes[i].program : "";
		if (strcmp(pv_path_base(program), name))
			return program;
	}
	return NULL;
}

/* The run's own figures: sums, but the first's identity and calibration. */
static void merge_run(struct merged *m, const struct pv_report *in, int first)
{
	struct pv_report *r = &m->r;
	if (first) {
		r->pid = in->pid;
		r->nev = in->nev;
		memcpy(r->caller_cost, in->caller_cost, sizeof(r->caller_cost));
		memcpy(r->caller_miss_cost, in->caller_miss_cost, sizeof(r->caller_miss_cost));
		memcpy(r->callee_cost, in->callee_cost, sizeof(r->callee_cost));
		memcpy(r->callee_span, in->callee_span, sizeof(r->callee_span));
		memcpy(r->inlined_cost, in->inlined_cost, sizeof(r->inlined_cost));
		memcpy(r->multiplexed, in->multiplexed, sizeof(r->multiplexed));
		r->compensated = in->compensated;
		r->node_threshold = in->node_threshold;
		r->edge_threshold = in->edge_threshold;
		r->max_nodes = in->max_nodes;
	}
	if (in->compensated != r->compensated)
		m->mixed_compensation = 1;
	r->compensated &= in->compensated;
	pv_costs_add(r->run_total, in->run_total, in->nev);
	pv_costs_add(r->raw_run_total, in->raw_run_total, in->nev);
	pv_costs_add(r->clamped, in->clamped, in->nev);
	pv_costs_add(r->waited, in->waited, in->nev); /* a view's, whose waits are apart */
	r->waits_apart |= in->waits_apart;
	for (unsigned e = 0; e < in->nev; e++) /* the least counted, as a caption should say */
		if (in->multiplexed[e] < r->multiplexed[e])
			r->multiplexed[e] = in->multiplexed[e];
	r->threads += in->threads;
	r->stray_exits += in->stray_exits;
	r->resyncs += in->resyncs;
	pv_losses_add(&r->losses, &in->losses);
	/* Runs sampled at different rates (each at what a sample cost it)
	 * add up: each sample carries the CPU time it stands for. */
	pv_sampling_add(&r->sampling, &in->sampling);
	r->lost_records += in->lost_records;
	if (in->wall_seconds > r->wall_seconds)
		r->wall_seconds = in->wall_seconds;
}

static int merge_one(struct merged *m, const struct pv_loaded *l, int first)
{
	const struct pv_report *in = &l->r;
	int *func_of = malloc((in->n_funcs ? in->n_funcs : 1) * sizeof(*func_of));
	int rc = !func_of || merge_functions(m, in, func_of) < 0 || merge_arcs(m, in, func_of) < 0 ||
		 merge_paths(m, in, func_of) < 0 || merge_threads(m, in) < 0 ||
		 merge_processes(m, l) < 0 ? -1 : 0;
	free(func_of);
	merge_run(m, in, first);
	m->with_paths += in->n_paths > 0;
	m->without_paths += in->n_funcs && !in->n_paths;
	return rc;
}

static void merged_free(struct merged *m)
{
	struct func_entry *f, *ftmp;
	HASH_ITER(hh, m->func_table, f, ftmp) {
		HASH_DEL(m->func_table, f);
		free(f->key);
		free(f);
	}
	pv_pairs_free(&m->arc_table);
	pv_pairs_free(&m->path_table);
	pv_pairs_free(&m->fold_table);
	for (unsigned i = 0; i < m->r.n_processes; i++) {
		free(m->processes[i].program);
		free(m->processes[i].from);
	}
	free(m->processes);
	free((char *)m->r.program);
	pv_report_free(&m->r);
}

int pv_cmd_merge(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *output = NULL;
	int opt, force = 0;
	while ((opt = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'f': force = 1; break;
		case 'h': pv_help_merge(stdout); return 0;
		default: fputs(usage, stderr); return PV_EXIT_TROUBLE;
		}
	}
	if (!output || optind >= argc) {
		fputs(!output && optind < argc ? "profviz merge: -o OUT is required\n" : usage,
		      stderr);
		return PV_EXIT_TROUBLE;
	}
	if (!pv_output_format_of(output)) {
		char known[128];
		pv_output_extensions(known, sizeof(known));
		fprintf(stderr, "profviz merge: -o %s: no format for this name; end it in %s\n",
			output, known);
		return PV_EXIT_TROUBLE;
	}

	/* One input at a time, so that many ranks need the memory of one. */
	struct merged m;
	struct pv_loaded first, l;
	memset(&m, 0, sizeof(m));
	int status = PV_EXIT_TROUBLE;
	if (pv_load(argv[optind], &first) < 0)
		return PV_EXIT_TROUBLE;
	memcpy(m.events, first.events, sizeof(m.events));
	m.r.events = m.events;
	if (!(m.r.program = strdup(first.r.program)) || merge_one(&m, &first, 1) < 0)
		goto out_of_memory;
	for (int i = optind + 1; i < argc; i++) {
		if (pv_load(argv[i], &l) < 0)
			goto out;
		int fits = pv_same_events(&first, &l, "merge");
		const char *other = fits ? other_program(&first, &l) : NULL;
		const char *named = first.r.program ? first.r.program : "";
		if (other && !force) {
			fprintf(stderr, "profviz merge: %s is a profile of %s, %s of %s: the sum "
				"of different programs would be labelled %s; --force merges them "
				"all the same\n", l.path, other, first.path, named, named);
			fits = 0;
		} else if (other && force) {
			fprintf(stderr, "profviz merge: warning: %s is a profile of %s; the merge "
				"is labelled %s, the first's\n", l.path, other, named);
		}
		int rc = fits ? merge_one(&m, &l, 0) : 0;
		pv_loaded_free(&l);
		if (!fits)
			goto out;
		if (rc < 0)
			goto out_of_memory;
	}
	if (m.mixed_compensation)
		fprintf(stderr, "profviz merge: warning: some profiles had the hooks' own cost "
			"taken out and some not; their figures are summed as they are, and the "
			"merge says it is not compensated\n");
	if (m.with_paths && m.without_paths)
		fprintf(stderr, "profviz merge: warning: %d of the profiles have no call paths "
			"(written before JSON revision 2): the merged paths leave them out\n",
			m.without_paths);
	for (unsigned i = 0; i < m.r.n_funcs; i++) /* each input kept its hottest lines */
		pv_lines_keep(&m.r.funcs[i].lines, PV_LINES_KEPT);
	pv_report_sort_folds(&m.r);
	if (pv_report_sort(&m.r) < 0)
		goto out_of_memory;
	status = pv_write_to(output, &m.r) < 0 ? PV_EXIT_TROUBLE : 0;
	goto out;
out_of_memory:
	fprintf(stderr, "profviz merge: out of memory\n");
out:
	pv_loaded_free(&first);
	merged_free(&m);
	return status;
}
