/* SPDX-License-Identifier: MIT */
/*
 * report.c — `profviz report`: the flat profile and the hottest arcs in the
 * terminal, as perf report and gprof show them. Colour only on a terminal.
 * Sampled time gets its samples column, and its few-samples mark. Calls the
 * compiler inlined are said on their functions and arcs (inlined.h). The
 * waits are apart from the work, in a table of their own, unless asked in.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/words.h"
#include "cmd/cmd.h"
#include "cmd/compiler.h"
#include "cmd/hotlines.h"
#include "cmd/part.h"
#include "output/dotstyle.h"
#include "base/paths.h"
#include "model/inlined.h"
#include "model/trust.h"

static const char usage[] =
	"usage: profviz report [--top N] [--sort KEY] [--event NAME] [--exact] [--wide]\n"
	"                      [--focus FUNC | --root FUNC | --lines FUNC] [--waits HOW]\n"
	"                      [--thread NAME] [--color WHEN] PROFILE.json\n"
	"The functions hottest first (self and total share of the run, calls, cost\n"
	"per call, IPC when the run counted instructions and cycles, the samples\n"
	"behind each self when the time was sampled), then the hottest arcs.\n"
	"  --top N       rows of each table (default 25; 0: all)\n"
	"  --sort KEY    self (default), total, calls, per-call or name\n"
	"  --event NAME  the event the tables are in (default: the run's first)\n"
	"  --exact       whole numbers in the event's unit, not 1.23 ms\n"
	"  --wide        whole names: template arguments too, not Map<...>::find(int)\n"
	"  --focus FUNC  FUNC, its callees, and its callers with only what they spend\n"
	"                through it, as profviz dot shows them; shares are of FUNC's total\n"
	"  --root FUNC   FUNC and what runs below it; shares are of FUNC's total\n"
	"  --lines FUNC  where inside FUNC its time went: its hottest source lines,\n"
	"                each with its share of the samples in FUNC's code\n"
	"  --waits HOW   apart (default): shares of the work (the CPU time, when it was\n"
	"                sampled), libc's waits in a table of their own, each with its\n"
	"                share of the wall; in: shares of the work and the waits together\n"
	"  --thread NAME  the threads whose name holds NAME alone (main: the main\n"
	"                thread); the threads table lists the names\n"
	"  --color WHEN  auto (default: on a terminal), always or never\n"
	"FUNC: a function's whole name, its name without parameters, its name as a box\n"
	"shows it (Map<...>::find), a part of one function's name only, or a /regex/\n"
	"(POSIX extended) matching one function;\n"
	"when it finds none or several, the nearest are listed.\n";

void pv_help_report(FILE *out)
{
	fputs(usage, out);
}

enum sort_key { BY_SELF, BY_TOTAL, BY_CALLS, BY_PER_CALL, BY_NAME };

struct view {
	const struct pv_report *r;
	unsigned ev;
	enum sort_key key;
	int exact, colour;
	int ipc_instructions, ipc_cycles; /* event indexes, or -1 */
	const struct pv_report *run; /* the whole run, whatever part r is */
	const struct pv_host *hosts; /* r's, by function id: where inlined calls ran */
	int wide;                    /* whole names, template arguments and all */
	char **names;                /* r's, by function id, as the tables show them */
};


static double per_call(const struct pv_rfunc *f, unsigned ev)
{
	return f->calls ? (double)f->total[ev] / (double)f->calls : 0;
}

static int func_order(const void *a, const void *b, void *view)
{
	const struct view *sorting = view;
	const struct pv_rfunc *x = sorting->r->funcs + *(const int *)a;
	const struct pv_rfunc *y = sorting->r->funcs + *(const int *)b;
	unsigned ev = sorting->ev;
	double dx, dy;
	switch (sorting->key) {
	case BY_NAME: return strcmp(x->sym.name, y->sym.name);
	case BY_TOTAL: dx = (double)x->total[ev], dy = (double)y->total[ev]; break;
	case BY_CALLS: dx = (double)x->calls, dy = (double)y->calls; break;
	case BY_PER_CALL: dx = per_call(x, ev), dy = per_call(y, ev); break;
	default: dx = (double)x->self[ev], dy = (double)y->self[ev]; break;
	}
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->sym.name, y->sym.name);
}

/* Arcs hottest first in the report's event (the file has them so in its first). */
static int arc_order(const void *a, const void *b, void *view)
{
	const struct view *sorting = view;
	const struct pv_rarc *x = sorting->r->arcs + *(const int *)a;
	const struct pv_rarc *y = sorting->r->arcs + *(const int *)b;
	uint64_t tx = x->total[sorting->ev], ty = y->total[sorting->ev];
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return *(const int *)a - *(const int *)b;
}

static void amount(const struct view *v, double value, int width)
{
	const struct pv_event_desc *e = &v->r->events[v->ev];
	int time = pv_event_is_time(e);
	if (v->exact) {
		printf("%*.0f", width, value);
		return;
	}
	static const struct {
		double size;
		const char *ns, *count;
	} steps[] = { { 1e9, "s ", "G" }, { 1e6, "ms", "M" }, { 1e3, "us", "k" }, { 1, "ns", "" } };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (value >= steps[i].size || i + 1 == sizeof(steps) / sizeof(steps[0])) {
			char text[32];
			int n = snprintf(text, sizeof(text), "%.*f %s", value >= steps[i].size * 100 ? 1 : 2,
					 value / steps[i].size, time ? steps[i].ns : steps[i].count);
			if (!width && n > 0 && text[n - 1] == ' ')
				text[n - 1] = '\0'; /* "s " aligns a column; in a sentence it ends a word */
			printf("%*s", width, text);
			return;
		}
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* A wait whose time is apart from the work: in the waits' table alone. */
static int apart(const struct pv_report *r, int func)
{
	return r->waits_apart && r->funcs[func].kind == PV_FUNC_WAIT;
}

static const char *heat(const struct view *v, double pct)
{
	return pv_heat(v->colour, pct);
}

static const char *plain(const struct view *v)
{
	return pv_plain(v->colour);
}

static void where(const struct pv_rfunc *f)
{
	if (f->sym.file)
		printf("  (%s:%d)", pv_path_base(f->sym.file), f->sym.line);
}

/* "inlined into f", "inlined into f and 2 others": where f's calls ran
 * when the compiler inlined them (their self counts there); "12 calls
 * inlined into f" when only some were. Nothing when none was. */
static void inlined_note(const struct view *v, const struct pv_rfunc *f)
{
	const struct pv_host *h = &v->hosts[f->id];
	if (!f->inlined_calls)
		return;
	if (pv_all_inlined(f))
		printf("  inlined");
	else
		printf("  %" PRIu64 " call%s inlined", f->inlined_calls,
		       f->inlined_calls == 1 ? "" : "s");
	if (h->func >= 0)
		printf(" into %s", v->names[h->func]);
	if (h->others)
		printf(" and %u other%s", h->others, h->others == 1 ? "" : "s");
}

static void heading(const struct view *v)
{
	const struct pv_report *r = v->r;
	printf("%s (pid %d): %u function%s, %u arc%s", r->program, r->pid, r->n_funcs,
	       pv_s(r->n_funcs), r->n_arcs, pv_s(r->n_arcs));
	if (r->threads)
		printf(", %" PRIu64 " thread%s", r->threads, r->threads == 1 ? "" : "s");
	if (r->wall_seconds > 0)
		printf(", %.3f s wall", r->wall_seconds);
	if (r->n_processes > 1)
		printf(", merged from %u processes", r->n_processes);
	printf("\nevents:");
	for (unsigned i = 0; i < r->nev; i++)
		printf(" %s [%s]", r->events[i].name, pv_event_unit(&r->events[i]));
	printf("; this report in %s, %s ", r->events[v->ev].name,
	       r->waits_apart ? "work" : "run total");
	amount(v, (double)r->run_total[v->ev], 0);
	int sampled = pv_sampled(r, v->ev);
	printf("%s", r->compensated && !sampled ? " (the hooks' own cost taken out)" : "");
	if (r->waits_apart) {
		printf("; blocked in libc's waits, apart: ");
		amount(v, (double)r->waited[v->ev], 0);
		printf(" (%.1f%% of the wall: work and waits)",
		       percent(r->waited[v->ev], pv_report_wall(r, v->ev)));
	}
	putchar('\n');
	char text[2048];
	if (pv_sampling_text(r, v->ev, text, sizeof(text)))
		printf("%s\n", text);
	if (pv_totals_text(r, v->ev, text, sizeof(text)))
		printf("%s\n", text);
	if (pv_report_losses_text(r, text, sizeof(text)))
		printf("%s\n", text);
	if (pv_inlined_text(r, NULL, text, sizeof(text)))
		printf("%s\n", text);
	if (r->view)
		printf("%s\n", r->view);
}

static void flat(const struct view *v, unsigned top)
{
	const struct pv_report *r = v->r;
	int *order = malloc((r->n_funcs + 1) * sizeof(int));
	if (!order)
		return;
	unsigned listed = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (!apart(r, (int)i))
			order[listed++] = (int)i;
	qsort_r(order, listed, sizeof(int), func_order, (void *)v);
	unsigned rows = top && top < listed ? top : listed;
	int ipc = v->ipc_instructions >= 0 && v->ipc_cycles >= 0;
	int sampled = pv_sampled(r, v->ev);
	unsigned few = 0, inlined = 0;
	printf("\n%7s %7s %12s %12s %12s %12s%s%s  function\n", "self%", "total%", "self", "total",
	       "calls", "per call", ipc ? "   IPC" : "", sampled ? "   samples" : "");
	for (unsigned n = 0; n < rows; n++) {
		const struct pv_rfunc *f = &r->funcs[order[n]];
		double self_pct = percent(f->self[v->ev], r->run_total[v->ev]);
		printf("%s%6.2f%% %6.2f%% ", heat(v, self_pct), self_pct,
		       percent(f->total[v->ev], r->run_total[v->ev]));
		amount(v, (double)f->self[v->ev], 12);
		putchar(' ');
		amount(v, (double)f->total[v->ev], 12);
		printf(" %12" PRIu64 " ", f->calls);
		amount(v, per_call(f, v->ev), 12);
		if (ipc) {
			uint64_t cycles = f->self[v->ipc_cycles];
			if (cycles)
				printf(" %5.2f", (double)f->self[v->ipc_instructions] / (double)cycles);
			else
				printf(" %5s", "-");
		}
		if (sampled) {
			int marked = pv_few_samples(r, f, v->ev);
			printf(" %8" PRIu64 " %s", f->samples, marked ? "?" : " ");
			few += marked;
		}
		printf("  %s", v->names[order[n]]);
		where(f);
		inlined_note(v, f);
		inlined += f->inlined_calls > 0;
		printf("%s\n", plain(v));
	}
	if (rows < listed)
		printf("... %u more function%s (--top 0 for all)\n", listed - rows,
		       pv_s(listed - rows));
	if (few)
		printf("? its self rests on fewer than %d samples (worse than \xc2\xb1%.0f%% of itself)\n",
		       PV_FEW_SAMPLES, 100 * pv_sampling_error(PV_FEW_SAMPLES));
	if (inlined)
		printf("inlined into F: the compiler inlined those calls into F (their hooks stay,\n"
		       "and count them); their self is counted in F's, the code they ran in\n");
	free(order);
}

/* Into order, hottest first, the arcs into a wait apart (waits) or the
 * others: how many. */
static unsigned arcs_in_order(const struct view *v, int waits, int *order)
{
	const struct pv_report *r = v->r;
	unsigned listed = 0;
	for (unsigned i = 0; i < r->n_arcs; i++)
		if (apart(r, r->arcs[i].callee) == waits)
			order[listed++] = (int)i;
	qsort_r(order, listed, sizeof(int), arc_order, (void *)v);
	return listed;
}

static void arcs(const struct view *v, unsigned top)
{
	const struct pv_report *r = v->r;
	int *order = malloc((r->n_arcs + 1) * sizeof(int));
	if (!order)
		return;
	unsigned listed = arcs_in_order(v, 0, order);
	unsigned rows = top && top < listed ? top : listed;
	printf("\n%7s %9s %12s  caller -> callee\n", "total%", "of caller", "calls");
	unsigned shown = 0;
	for (unsigned i = 0; i < listed && shown < rows; i++) {
		const struct pv_rarc *a = &r->arcs[order[i]];
		double pct = percent(a->total[v->ev], r->run_total[v->ev]);
		printf("%s%6.2f%% ", heat(v, pct), pct);
		if (a->caller >= 0)
			printf("%8.2f%% ", percent(a->total[v->ev], r->funcs[a->caller].total[v->ev]));
		else
			printf("%9s ", "-");
		printf("%12" PRIu64 "  %s -> %s", a->calls,
		       a->caller >= 0 ? v->names[a->caller] : "<uninstrumented>",
		       v->names[a->callee]);
		if (pv_arc_all_inlined(a))
			printf("  (inlined)");
		else if (a->inlined_calls)
			printf("  (%" PRIu64 " inlined)", a->inlined_calls);
		printf("%s\n", plain(v));
		shown++;
	}
	if (rows < listed)
		printf("... %u more arc%s (--top 0 for all)\n", listed - rows, pv_s(listed - rows));
	free(order);
}

/* With the waits apart: each call into a wait, the longest first, with its
 * share of the wall and who waited. */
static void waits(const struct view *v, unsigned top)
{
	const struct pv_report *r = v->r;
	int *order = malloc((r->n_arcs + 1) * sizeof(int));
	if (!order)
		return;
	unsigned listed = arcs_in_order(v, 1, order);
	unsigned rows = top && top < listed ? top : listed;
	if (listed)
		printf("\nBlocked in libc's waits, apart from the work above (shares of the wall: "
		       "work and waits):\n%7s %12s %12s  caller -> wait\n", "wall%", "blocked",
		       "calls");
	for (unsigned i = 0; i < rows; i++) {
		const struct pv_rarc *a = &r->arcs[order[i]];
		printf("%6.2f%% ", percent(a->total[v->ev], pv_report_wall(r, v->ev)));
		amount(v, (double)a->total[v->ev], 12);
		printf(" %12" PRIu64 "  %s -> %s\n", a->calls,
		       a->caller >= 0 ? v->names[a->caller] : "<uninstrumented>",
		       v->names[a->callee]);
	}
	if (rows < listed)
		printf("... %u more wait%s (--top 0 for all)\n", listed - rows, pv_s(listed - rows));
	free(order);
}

/* What gcc's -finstrument-functions-exclude-function-list matches a
 * function by: its qualified name without parameters (checked with gcc 12).
 * 0 when that name holds a comma (template arguments), which would split the
 * list, a space ("operator new"), which the shell would, or is too long. */
static int exclude_name(const char *name, char *out, size_t size)
{
	int n = (int)(pv_name_params(name) - name);
	if ((size_t)n >= size || memchr(name, ',', (size_t)n) || memchr(name, ' ', (size_t)n))
		return 0; /* cut short, it would leave out more than it names */
	snprintf(out, size, "%.*s", n, name);
	return 1;
}

/* Another function of the run whose name gcc would match by name, which
 * the flag would leave out as well (it matches substrings: "match" leaves
 * out "str_match" too); NULL when there is none. */
static const char *also_matched(const struct pv_report *r, const char *name)
{
	size_t len = strlen(name);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const char *other = r->funcs[i].sym.name;
		size_t n = (size_t)(pv_name_params(other) - other);
		if (n == len && !strncmp(other, name, n))
			continue; /* the same name (an overload, a copy) */
		const char *at = strstr(other, name);
		if (at && at + len <= other + n)
			return other;
	}
	return NULL;
}

#define PV_DOUBTS_SHOWN 12

/* Which compiler built the modules of the functions listed (their ids in
 * order[0..n)): one, or PV_BUILT_UNKNOWN when they differ or a module
 * cannot be told. */
static enum pv_compiler built_by(const struct pv_report *r, const int *order, unsigned n)
{
	enum pv_compiler built = PV_BUILT_UNKNOWN;
	for (unsigned i = 0; i < n; i++) {
		const char *module = r->funcs[order[i]].sym.module;
		unsigned j = 0;
		while (j < i && strcmp(r->funcs[order[j]].sym.module, module))
			j++;
		if (j < i)
			continue; /* told already */
		enum pv_compiler this = pv_module_compiler(module);
		if (this == PV_BUILT_UNKNOWN || (i && this != built))
			return PV_BUILT_UNKNOWN;
		built = this;
	}
	return built;
}

/* gcc's flag that leaves the listed names out of instrumentation, inlined
 * bodies included; a name that would leave out another function of the
 * build too is said apart, to be marked instead. */
static void gcc_exclusion(const struct view *v, char names[][256], unsigned listed)
{
	/* gcc leaves out every function whose name contains a listed one: a
	 * name that another function of this run contains is not listed. */
	unsigned exact = 0;
	const char *over[PV_DOUBTS_SHOWN];
	for (unsigned i = 0; i < listed; i++) {
		over[i] = also_matched(v->run, names[i]); /* the flag applies to the build */
		exact += !over[i];
	}
	if (exact) {
		printf(", or with\ngcc add (it leaves out every function whose name contains one of "
		       "these;\nnone of this run's other functions does)\n"
		       "  -finstrument-functions-exclude-function-list=");
		for (unsigned i = 0, n = 0; i < listed; i++)
			if (!over[i])
				printf("%s%s", n++ ? "," : "", names[i]);
	}
	printf("\n");
	for (unsigned i = 0; i < listed; i++)
		if (over[i])
			printf("  %s: not in the flag, which would leave out %s too: mark it instead\n",
			       names[i], over[i]);
}

/* clang has no flag to leave functions out by name (it rejects gcc's);
 * it can instrument after inlining, which leaves out the hooks of every
 * body it inlined, those listed as inlined among them. */
static void clang_exclusion(enum pv_compiler built, unsigned inlined)
{
	if (built == PV_BUILT_UNKNOWN)
		printf("Whether gcc or clang built them is not known here (their files cannot be\n"
		       "read, or differ); if clang did: it has no flag to leave functions out by name");
	else
		printf("clang built them: it has no flag to leave functions out by name");
	if (!inlined) {
		printf(".\n");
		return;
	}
	printf(";\nthose inlined lose their hooks with clang's\n"
	       "  -finstrument-functions-after-inlining\n"
	       "in place of -finstrument-functions (the calls left after inlining keep theirs).\n");
}

/* A function is listed when its hooks cost this share of the raw run or
 * more: one called a few times is cheaper than its hooks too, and its
 * hooks do not matter. */
#define PV_DOUBTS_MIN_SHARE 0.001

/* When the hooks took much of the raw run, the times of functions cheaper
 * than their hooks are uncertain (trust.h): the busiest of them, and how to
 * leave them out of instrumentation. That cuts the hooks' cost; it does not
 * make the rest truer where most functions are short (README). */
static void doubts(const struct view *v)
{
	const struct pv_report *r = v->r;
	unsigned ev = v->ev;
	if (!pv_times_doubtful(r, ev))
		return;
	char text[1024];
	if (pv_sampled(r, ev) && pv_doubt_text(r, ev, text, sizeof(text))) {
		/* no hooks in sampled time: the doubt is a short run's */
		text[0] = (char)toupper((unsigned char)text[0]);
		printf("\n%s.\n", text);
		return;
	}
	int *order = malloc((r->n_funcs + 1) * sizeof(int));
	if (!order)
		return;
	double hooks = pv_hooks_per_call(r, ev);
	unsigned cheaper = 0, busy = 0;
	uint64_t calls = 0, all_calls = 0;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		all_calls += f->calls;
		if (!pv_cheaper_than_hooks(r, f, ev))
			continue;
		cheaper++;
		calls += f->calls;
		if ((double)f->calls * hooks >= PV_DOUBTS_MIN_SHARE * (double)r->raw_run_total[ev])
			order[busy++] = (int)i;
	}
	struct view by_calls = *v;
	by_calls.key = BY_CALLS;
	qsort_r(order, busy, sizeof(int), func_order, &by_calls);
	printf("\n%s took %.0f%% of the raw %s: the times of functions that cost less than\n"
	       "their hooks (", r->view ? "In this view, the hooks" : "The hooks",
	       100 * pv_hooks_share(r, ev), pv_has_waits(r, ev) ? "work (waits aside)" : "run");
	amount(v, hooks, 0);
	printf(" a call) are uncertain. %u function%s, with %.0f%% of the calls",
	       cheaper, cheaper == 1 ? " does" : "s do", percent(calls, all_calls));
	if (!busy) {
		printf(".\n");
		free(order);
		return;
	}
	printf("; the busiest:\n%12s %12s  function\n", "calls", "self a call");
	unsigned rows = busy < PV_DOUBTS_SHOWN ? busy : PV_DOUBTS_SHOWN;
	char names[PV_DOUBTS_SHOWN][256];
	unsigned listed = 0, inlined = 0;
	for (unsigned i = 0; i < rows; i++) {
		const struct pv_rfunc *f = &r->funcs[order[i]];
		printf("%12" PRIu64 " ", f->calls);
		if (pv_all_inlined(f)) /* its self is its host's */
			printf("%12s", "-");
		else
			amount(v, (double)f->self[ev] / (double)f->calls, 12);
		printf("  %s", f->sym.name);
		inlined_note(v, f);
		printf("\n");
		inlined += f->inlined_calls > 0;
		char *name = names[listed];
		if (!exclude_name(f->sym.name, name, sizeof(names[0])))
			continue; /* the attribute only */
		unsigned j = 0;
		while (j < listed && strcmp(names[j], name))
			j++;
		listed += j == listed; /* overloads share a name */
	}
	enum pv_compiler built = built_by(r, order, rows);
	printf("To cut the hooks' cost, build them without hooks (their time then counts\n"
	       "in their callers'): mark them PROFVIZ_NO_INSTRUMENT (profviz.h; gcc's and\n"
	       "clang's __attribute__((no_instrument_function)))");
	if (built != PV_BUILT_CLANG)
		gcc_exclusion(v, names, listed);
	else
		printf("\n");
	if (built != PV_BUILT_GCC)
		clang_exclusion(built, inlined);
	free(order);
}

/* What profviz report was asked. */
struct report_options {
	struct pv_view_asked asked;
	unsigned long top;
	const char *event, *path;
	const char *lines; /* --lines FUNC, or NULL */
	enum sort_key key;
	int exact, colour, wide;
};

static enum pv_parsed parse_options(int argc, char **argv, struct report_options *o)
{
	static const struct option longs[] = {
		{ "top", required_argument, NULL, 't' },   { "sort", required_argument, NULL, 's' },
		{ "event", required_argument, NULL, 'e' }, { "exact", no_argument, NULL, 'x' },
		{ "color", required_argument, NULL, 'c' }, { "colour", required_argument, NULL, 'c' },
		{ "focus", required_argument, NULL, 'f' }, { "root", required_argument, NULL, 'r' },
		{ "lines", required_argument, NULL, 'l' }, { "waits", required_argument, NULL, 'w' },
		{ "wide", no_argument, NULL, 'W' },        { "help", no_argument, NULL, 'h' },
		{ "thread", required_argument, NULL, 'T' },
		{ 0 }
	};
	*o = (struct report_options){ .top = 25 };
	const char *sort = "self", *colour = "auto";
	int opt;
	while ((opt = getopt_long(argc, argv, "n:e:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'n':
		case 't':
			if (pv_arg_count("--top", optarg, &o->top) < 0)
				return PV_BAD_USAGE;
			break;
		case 's': sort = optarg; break;
		case 'e': o->event = optarg; break;
		case 'x': o->exact = 1; break;
		case 'W': o->wide = 1; break;
		case 'T': o->asked.thread = optarg; break;
		case 'c': colour = optarg; break;
		case 'f': o->asked.focus = optarg; break;
		case 'r': o->asked.root = optarg; break;
		case 'l': o->lines = optarg; break;
		case 'w':
			if (pv_arg_waits(optarg, &o->asked.waits_inside) < 0)
				return PV_BAD_USAGE;
			break;
		case 'h': pv_help_report(stdout); return PV_HELPED;
		default: fputs(usage, stderr); return PV_BAD_USAGE;
		}
	}
	static const char *const keys[] = { "self", "total", "calls", "per-call", "name" };
	int key = -1;
	for (int i = 0; i < 5; i++)
		if (!strcmp(sort, keys[i]))
			key = i;
	o->colour = !strcmp(colour, "always") ? 1 : !strcmp(colour, "never") ? 0
		  : !strcmp(colour, "auto") ? isatty(STDOUT_FILENO) : -1;
	int parts = !!o->asked.focus + !!o->asked.root + !!o->lines;
	if (key < 0 || o->colour < 0 || optind + 1 != argc || parts > 1) {
		if (o->asked.focus && o->asked.root)
			fputs("profviz report: --focus or --root, not both\n", stderr);
		else if (parts > 1)
			fputs("profviz report: --lines is of the whole run: not with --focus or "
			      "--root\n", stderr);
		else if (key < 0)
			fprintf(stderr, "profviz report: --sort %s: use self, total, calls, per-call "
				"or name\n", sort);
		else if (o->colour < 0)
			fprintf(stderr, "profviz report: --color %s: use auto, always or never\n",
				colour);
		else
			fputs(usage, stderr);
		return PV_BAD_USAGE;
	}
	o->key = (enum sort_key)key;
	o->path = argv[optind];
	return PV_PARSED;
}

/* With several threads: each one, by name, with its calls and times. */
static void threads(const struct view *v)
{
	const struct pv_report *r = v->r;
	if (r->n_thread_list < 2)
		return;
	printf("\n%12s %10s %10s  thread\n", "calls", "CPU", "wall");
	for (unsigned i = 0; i < r->n_thread_list; i++) {
		const struct pv_rthread *t = &r->thread_list[i];
		char label[64], cpu[16] = "-";
		pv_report_thread_label(t, label, sizeof(label));
		if (t->cpu_seconds >= 0)
			snprintf(cpu, sizeof(cpu), "%.3f s", t->cpu_seconds);
		printf("%12" PRIu64 " %10s %8.3f s  %s%s\n", t->calls, cpu, t->wall_seconds, label,
		       t->cut_short ? " (cut short)" : "");
	}
}

/* Each function's name as the tables show it: whole with --wide, else its
 * template arguments elided (a std::map's run to a thousand characters).
 * NULL when memory ran out. */
static char **table_names(const struct pv_report *r, int wide)
{
	char **names = calloc(r->n_funcs + 1, sizeof(*names));
	for (unsigned i = 0; names && i < r->n_funcs; i++) {
		const char *name = r->funcs[i].sym.name;
		if (!(names[i] = wide ? strdup(name) : pv_elided_name(name))) {
			while (i--)
				free(names[i]);
			free(names);
			return NULL;
		}
	}
	return names;
}

/* The tables, then what is in doubt. */
static int print_report(struct view *v, unsigned long top)
{
	struct pv_host *hosts = pv_inlined_hosts(v->r);
	char **names = table_names(v->r, v->wide);
	if (!hosts || !names) {
		free(hosts);
		free(names);
		fputs("profviz report: out of memory\n", stderr);
		return PV_EXIT_TROUBLE;
	}
	v->hosts = hosts;
	v->names = names;
	heading(v);
	flat(v, (unsigned)top);
	arcs(v, (unsigned)top);
	waits(v, (unsigned)top);
	threads(v);
	doubts(v);
	for (unsigned i = 0; i < v->r->n_funcs; i++)
		free(names[i]);
	free(names);
	free(hosts);
	return fflush(stdout) == 0 ? 0 : PV_EXIT_TROUBLE;
}

int pv_cmd_report(int argc, char **argv)
{
	struct report_options o;
	enum pv_parsed parsed = parse_options(argc, argv, &o);
	if (parsed != PV_PARSED)
		return parsed == PV_HELPED ? 0 : PV_EXIT_TROUBLE;
	struct pv_loaded l;
	if (pv_load(o.path, &l) < 0)
		return PV_EXIT_TROUBLE;
	if (o.lines) {
		int shown = pv_print_hot_lines(&l, o.lines, o.colour) == 0 && fflush(stdout) == 0;
		pv_loaded_free(&l);
		return shown ? 0 : PV_EXIT_TROUBLE;
	}
	struct view v = { &l.r, 0, o.key, o.exact, o.colour,
			  pv_report_event(&l.r, "instructions"), pv_report_event(&l.r, "cycles"),
			  &l.r, NULL, o.wide, NULL };
	int status = PV_EXIT_TROUBLE;
	struct pv_report part;
	int ev = o.event ? pv_report_event(&l.r, o.event) : 0;
	if (ev < 0) {
		fprintf(stderr, "profviz report: %s has no event '%s'\n", o.path, o.event);
		goto out;
	}
	v.ev = (unsigned)ev;
	struct pv_report *shown;
	if (pv_view_asked_show(&part, &l, &o.asked, "report", &shown) < 0)
		goto out;
	v.r = shown;
	status = print_report(&v, o.top);
	pv_view_asked_free(&part, shown);
out:
	pv_loaded_free(&l);
	return status;
}
