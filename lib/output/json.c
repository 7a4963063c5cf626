/* SPDX-License-Identifier: MIT */
/* json.c — the machine-readable profile, schema "profviz-1", described field
 * by field in profviz-1.schema.json beside this file. "revision" says which
 * fields to expect: revisions add fields, except revision 3, which dropped
 * "backend" (the same as "backends"[0]). Revision 4 adds what sampled time
 * needs to be read honestly: how it was sampled, and the samples behind each
 * self. Revision 5 says which profviz wrote the file. */
#include <inttypes.h>
#include <string.h>

#include "output/format.h"
#include "base/utf8.h"
#include "base/version.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	pv_json_text(out, s);
	fputc('"', out);
}

/* prefix (the field's name, with its comma), then one number per event. */
static void json_values(FILE *out, const char *prefix, const uint64_t *v, unsigned n)
{
	fputs(prefix, out);
	fputc('[', out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
	fputc(']', out);
}

static void json_reals(FILE *out, const char *prefix, const double *v, unsigned n)
{
	fputs(prefix, out);
	fputc('[', out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s%.4f", i ? "," : "", v[i]);
	fputc(']', out);
}

/* Whether the hooks' cost was taken out, and the figures it was done with. */
static void json_compensation(FILE *out, const struct pv_report *r)
{
	fprintf(out, ",\"compensated\":%s", r->compensated ? "true" : "false");
	json_values(out, ",\"raw_run_total\":", r->raw_run_total, r->nev);
	if (!r->compensated)
		return;
	json_reals(out, ",\"overhead\":{\"caller\":", r->caller_cost, r->nev);
	json_reals(out, ",\"caller_miss\":", r->caller_miss_cost, r->nev);
	json_reals(out, ",\"callee\":", r->callee_cost, r->nev);
	json_reals(out, ",\"callee_span\":", r->callee_span, r->nev);
	int inlined = 0; /* newer than the others, and absent when 0 */
	for (unsigned e = 0; e < r->nev; e++)
		inlined |= r->inlined_cost[e] != 0;
	if (inlined)
		json_reals(out, ",\"inlined\":", r->inlined_cost, r->nev);
	json_values(out, "},\"clamped\":", r->clamped, r->nev);
}

/* The calling-context tree, each path after its parent (revision 2). */
/* Of a record's calls, those that ran inlined (none: nothing written). */
static void write_inlined(FILE *out, uint64_t calls)
{
	if (calls)
		fprintf(out, ",\"inlined_calls\":%" PRIu64, calls);
}

/* Of a sampled self, what was timed instead (timedstart.h): only if any. */
static void write_timed(FILE *out, uint64_t ns)
{
	if (ns)
		fprintf(out, ",\"timed_ns\":%" PRIu64, ns);
}

/* What a view with the waits apart took from a total (view.h): written by
 * such a view alone (profviz html's page), and only where it took some. */
static void write_waited(FILE *out, const struct pv_report *r, const uint64_t *waited)
{
	for (unsigned e = 0; r->waits_apart && e < r->nev; e++)
		if (waited[e]) {
			json_values(out, ",\"waited\":", waited, r->nev);
			return;
		}
}

/* Path i's folds, [into, calls] each (r->folds is by from): the next fold
 * to write is *next. */
static void write_folds(FILE *out, const struct pv_report *r, unsigned i, unsigned *next)
{
	if (*next >= r->n_folds || r->folds[*next].from != (int)i)
		return;
	fputs(",\"folds\":[", out);
	for (int first = 1; *next < r->n_folds && r->folds[*next].from == (int)i; ++*next) {
		fprintf(out, "%s[%d,%" PRIu64 "]", first ? "" : ",", r->folds[*next].into,
			r->folds[*next].calls);
		first = 0;
	}
	fputc(']', out);
}

static void write_paths(FILE *out, const struct pv_report *r)
{
	fputs("],\n\"paths\":[", out);
	unsigned next_fold = 0;
	for (unsigned i = 0; i < r->n_paths; i++) {
		const struct pv_rpath *p = &r->paths[i];
		fputs(i ? ",\n" : "\n", out);
		if (p->parent < 0)
			fputs("{\"parent\":null", out);
		else
			fprintf(out, "{\"parent\":%d", p->parent);
		fprintf(out, ",\"function\":%d,\"calls\":%" PRIu64 ",\"samples\":%" PRIu64, p->func,
			p->calls, p->samples);
		if (p->parent < 0 && p->group) /* the threads it ran in */
			fprintf(out, ",\"threads\":%u", p->group - 1);
		write_inlined(out, p->inlined_calls);
		write_timed(out, p->timed_ns);
		write_folds(out, r, i, &next_fold);
		json_values(out, ",\"self\":", p->self, r->nev);
		json_values(out, ",\"total\":", p->total, r->nev);
		json_values(out, ",\"raw_self\":", p->raw_self, r->nev);
		fputc('}', out);
	}
	fputc(']', out);
}

/* How event 0 was sampled (revision 4): all zero when it was not. */
static void write_sampling(FILE *out, const struct pv_sampling *s)
{
	fprintf(out,
		",\n\"sampling\":{\"rate_hz\":%.6g,\"wall_seconds\":%.9f,\"looks\":%" PRIu64
		",\"samples\":%" PRIu64 ",\"own_samples\":%" PRIu64 ",\"own_ns\":%" PRIu64
		",\"unsampled_ns\":%" PRIu64 ",\"blocked_ns\":%" PRIu64 ",\"sampler_ns\":%" PRIu64,
		s->rate_hz, s->wall_seconds, s->looks, s->samples, s->own_samples, s->own_ns,
		s->unsampled_ns, s->blocked_ns, s->sampler_ns);
	/* A run whose threads' first CPU time was timed (timedstart.h). */
	if (s->timed_start_ns)
		fprintf(out, ",\"timed_ns\":%" PRIu64 ",\"timed_start_ns\":%" PRIu64, s->timed_ns,
			s->timed_start_ns);
	if (s->sample_cost_ns) /* the rate was set by it (samplecost.h) */
		fprintf(out, ",\"sample_cost_ns\":%" PRIu64, s->sample_cost_ns);
	fputc('}', out);
}

/* A function's hot lines, hottest first, the rest of its samples last with
 * a null file; none when no PC was sampled in its code. */
static void write_lines(FILE *out, const struct pv_lines *l)
{
	if (!l->n)
		return;
	fputs(",\"lines\":[", out);
	for (unsigned i = 0; i < l->n; i++) {
		const struct pv_rline *x = &l->v[i];
		fputs(i ? ",{\"file\":" : "{\"file\":", out);
		if (x->file)
			json_string(out, x->file);
		else
			fputs("null", out);
		fprintf(out, ",\"line\":%d,\"samples\":%" PRIu64 "}", x->line, x->samples);
	}
	fputc(']', out);
}

/* A merged profile's sources (revision 2); one run's has none. */
static void write_processes(FILE *out, const struct pv_report *r)
{
	if (!r->n_processes)
		return;
	fputs(",\n\"processes\":[", out);
	for (unsigned i = 0; i < r->n_processes; i++) {
		const struct pv_rprocess *p = &r->processes[i];
		fputs(i ? ",\n{\"program\":" : "\n{\"program\":", out);
		json_string(out, p->program);
		fprintf(out, ",\"pid\":%d", p->pid);
		if (p->from) {
			fputs(",\"from\":", out);
			json_string(out, p->from);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

int pv_write_json(FILE *out, const struct pv_report *r)
{
	fprintf(out, "{\"format\":\"profviz-1\",\"revision\":%d,\"profviz_version\":",
		PV_JSON_REVISION);
	json_string(out, pv_version);
	fputs(",\"program\":", out);
	json_string(out, r->program);
	fprintf(out, ",\"pid\":%d,\"events\":[", r->pid);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, r->events[i].name);
	}
	fputs("],\"backends\":[", out);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, r->events[i].backend);
	}
	fputs("],\"units\":[", out);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, pv_event_unit(&r->events[i]));
	}
	fputs("],\"kinds\":[", out);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, pv_event_kind_name(r->events[i].kind));
	}
	fputs("],\"running_ratio\":[", out);
	for (unsigned i = 0; i < r->nev; i++)
		fprintf(out, "%s%.6g", i ? "," : "", r->multiplexed[i]);
	json_values(out, "],\"run_total\":", r->run_total, r->nev);
	if (r->waits_apart) /* run_total is the work's alone */
		json_values(out, ",\"waited\":", r->waited, r->nev);
	json_compensation(out, r);
	fprintf(out,
		",\"threads\":%" PRIu64 ",\"wall_seconds\":%.9f,\"stray_exits\":%" PRIu64
		",\"resyncs\":%" PRIu64 ",\"losses\":{\"unrecorded_calls\":%" PRIu64
		",\"merge_failures\":%" PRIu64 ",\"lost_records\":%" PRIu64
		",\"counters_lost\":%" PRIu64 ",\"rekeys_incomplete\":%" PRIu64
		",\"threads_cut_short\":%" PRIu64 ",\"threads_shared\":%" PRIu64
		",\"contexts_unplaced\":%" PRIu64 ",\"catches_in_bodies\":%" PRIu64 "}",
		r->threads, r->wall_seconds, r->stray_exits, r->resyncs, r->losses.unrecorded_calls,
		r->losses.merge_failures, r->lost_records, r->losses.counters_lost,
		r->losses.rekeys_incomplete, r->losses.threads_cut_short, r->losses.threads_shared,
		r->losses.contexts_unplaced, r->losses.catches_in_bodies);
	write_sampling(out, &r->sampling);
	fputs(",\n\"functions\":[", out);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		fprintf(out, "%s\n{\"id\":%d,\"name\":", i ? "," : "", f->id);
		json_string(out, f->sym.name);
		fputs(",\"module\":", out);
		json_string(out, f->sym.module);
		/* Where it ran: copies of one header function share name and line. */
		fprintf(out, ",\"address\":\"0x%" PRIxPTR "\"", (uintptr_t)f->fn);
		if (f->sym.file) {
			fputs(",\"file\":", out);
			json_string(out, f->sym.file);
			fprintf(out, ",\"line\":%d", f->sym.line);
		}
		fprintf(out, ",\"kind\":\"%s\",\"calls\":%" PRIu64 ",\"samples\":%" PRIu64,
			pv_func_kind_name(f->kind), f->calls, f->samples);
		write_inlined(out, f->inlined_calls);
		write_timed(out, f->timed_ns);
		json_values(out, ",\"self\":", f->self, r->nev);
		json_values(out, ",\"total\":", f->total, r->nev);
		json_values(out, ",\"raw_self\":", f->raw_self, r->nev);
		json_values(out, ",\"raw_total\":", f->raw_total, r->nev);
		write_waited(out, r, f->waited);
		write_lines(out, &f->lines);
		fputc('}', out);
	}
	fputs("],\n\"per_thread\":[", out);
	for (unsigned i = 0; i < r->n_thread_list; i++) {
		const struct pv_rthread *t = &r->thread_list[i];
		fprintf(out, "%s\n{\"tid\":%d", i ? "," : "", (int)t->tid);
		if (t->name[0]) {
			fputs(",\"name\":", out);
			json_string(out, t->name);
		}
		fprintf(out, "%s,\"calls\":%" PRIu64, t->main_thread ? ",\"main\":true" : "",
			t->calls);
		json_values(out, ",\"total\":", t->total, r->nev);
		json_values(out, ",\"raw_total\":", t->raw_total, r->nev);
		if (t->cpu_seconds >= 0)
			fprintf(out, ",\"cpu_seconds\":%.6f", t->cpu_seconds);
		else
			fputs(",\"cpu_seconds\":null", out);
		fprintf(out, ",\"wall_seconds\":%.6f", t->wall_seconds);
		fputs(t->cut_short ? ",\"cut_short\":true}" : "}", out);
	}
	fputc(']', out);
	/* The threads of each name, whose call paths are kept apart. */
	if (r->n_groups) {
		fputs(",\n\"thread_groups\":[", out);
		for (unsigned g = 0; g < r->n_groups; g++) {
			fputs(g ? ",{\"name\":" : "{\"name\":", out);
			json_string(out, r->groups[g].name);
			fputs(r->groups[g].main_thread ? ",\"main\":true}" : "}", out);
		}
		fputc(']', out);
	}
	fputs(",\n\"arcs\":[", out);
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		fputs(i ? ",\n" : "\n", out);
		if (a->caller < 0)
			fputs("{\"caller\":null", out);
		else
			fprintf(out, "{\"caller\":%d", a->caller);
		fprintf(out, ",\"callee\":%d,\"calls\":%" PRIu64 ",\"nested_calls\":%" PRIu64,
			a->callee, a->calls, a->nested_calls);
		write_inlined(out, a->inlined_calls);
		json_values(out, ",\"total\":", a->total, r->nev);
		json_values(out, ",\"raw_total\":", a->raw_total, r->nev);
		write_waited(out, r, a->waited);
		fputc('}', out);
	}
	write_paths(out, r);
	write_processes(out, r);
	fputs("}\n", out);
	return ferror(out) ? -1 : 0;
}
