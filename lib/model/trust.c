/* SPDX-License-Identifier: MIT */
#include "model/trust.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


double pv_hooks_per_call(const struct pv_report *r, unsigned e)
{
	return r->compensated ? r->caller_cost[e] + r->callee_cost[e] : 0;
}

/* What of r's run in e its waits hold, raw or compensated: their self, no
 * hook's work; none when a view took them apart (view.h). */
static uint64_t waits_in_run(const struct pv_report *r, unsigned e, int raw)
{
	uint64_t v = 0;
	if (!r->waits_apart)
		for (unsigned i = 0; i < r->n_funcs; i++)
			if (r->funcs[i].kind == PV_FUNC_WAIT)
				v += raw ? r->funcs[i].raw_self[e] : r->funcs[i].self[e];
	return v;
}

int pv_has_waits(const struct pv_report *r, unsigned e)
{
	return r->waited[e] || waits_in_run(r, e, 1);
}

/* Judged on the work: time blocked in a wait ran no hook, and a threaded
 * program whose threads mostly wait would otherwise hide any share. */
double pv_hooks_share(const struct pv_report *r, unsigned e)
{
	uint64_t raw_waits = waits_in_run(r, e, 1), waits = waits_in_run(r, e, 0);
	if (!r->compensated || r->raw_run_total[e] <= raw_waits)
		return 0;
	double raw = (double)(r->raw_run_total[e] - raw_waits);
	double work = r->run_total[e] > waits ? (double)(r->run_total[e] - waits) : 0;
	return work < raw ? (raw - work) / raw : 0;
}

/* Time (clocks, cycles) is what out-of-order execution overlaps with the
 * hooks; sampled time has no hooks in it, and doubts its samples only. */
int pv_times_doubtful(const struct pv_report *r, unsigned e)
{
	if (pv_sampled(r, e))
		return pv_short_run(r, e);
	return e < r->nev && pv_event_hides_hooks(&r->events[e]) &&
	       pv_hooks_share(r, e) >= PV_HOOKS_SHARE_DOUBTFUL;
}

/* Its calls that had a frame: an inlined body has no time of its own to
 * doubt (its code's is its host's), and its hooks cost less. */
int pv_cheaper_than_hooks(const struct pv_report *r, const struct pv_rfunc *f, unsigned e)
{
	uint64_t framed = f->calls - f->inlined_calls;
	return framed && (double)f->self[e] < pv_hooks_per_call(r, e) * (double)framed;
}

int pv_sampled(const struct pv_report *r, unsigned e)
{
	return e < r->nev && pv_event_is_sampled(&r->events[e]);
}

uint64_t pv_samples_in(const struct pv_report *r)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		n += r->funcs[i].samples;
	return n;
}

uint64_t pv_timed_in(const struct pv_report *r)
{
	uint64_t ns = 0;
	for (unsigned i = 0; i < r->n_funcs; i++)
		ns += r->funcs[i].timed_ns;
	return ns;
}

/* Of r's work in sampled event e (its waits aside, which were measured),
 * the part that was sampled, not timed (timedstart.h): 0 to 1. */
static double sampled_part(const struct pv_report *r, unsigned e)
{
	double work = (double)r->run_total[e] - (double)waits_in_run(r, e, 0);
	double timed = (double)pv_timed_in(r);
	if (work <= 0)
		return 1;
	return timed >= work ? 0 : (work - timed) / work;
}

double pv_share_error(const struct pv_report *r, unsigned e, double share)
{
	uint64_t n = pv_samples_in(r);
	/* Time blocked in libc's waits was measured, not sampled. */
	double run = (double)r->run_total[e], work = run - (double)waits_in_run(r, e, 0);
	double part = sampled_part(r, e);
	if (share <= 0 || part <= 0)
		return 0; /* none of it sampled: all of it timed */
	if (!n || work <= 0)
		return share * part; /* nothing to estimate it from: its sampled part in doubt */
	/* pv_sampling_error of the samples expected behind the share, over the
	 * part of it that was sampled. */
	double behind = share * run / work * (double)n;
	return share * part / sqrt(behind);
}

double pv_self_error(const struct pv_rfunc *f, unsigned e)
{
	if (!f->self[e])
		return 0;
	double self = (double)f->self[e];
	double part = f->timed_ns < f->self[e] ? (self - (double)f->timed_ns) / self : 0;
	return f->samples ? part / sqrt((double)f->samples) : part;
}

int pv_few_samples(const struct pv_report *r, const struct pv_rfunc *f, unsigned e)
{
	if (!pv_sampled(r, e) || !f->self[e] || f->kind == PV_FUNC_WAIT)
		return 0;
	/* Its sampled part is good to 1/sqrt(samples) of itself: what that is
	 * of the whole self, against what PV_FEW_SAMPLES samples give. */
	double self = (double)f->self[e];
	double sampled = f->timed_ns < f->self[e] ? self - (double)f->timed_ns : 0;
	return (double)f->samples * self * self < PV_FEW_SAMPLES * sampled * sampled;
}

int pv_short_run(const struct pv_report *r, unsigned e)
{
	/* As good as PV_SHORT_RUN_SAMPLES samples over all the work would be. */
	double part = pv_sampled(r, e) ? sampled_part(r, e) : 0;
	return part > 0 && (double)pv_samples_in(r) < PV_SHORT_RUN_SAMPLES * part * part;
}

/* n with a comma every three digits: 12,345. */
static void thousands(uint64_t n, char *out, size_t size)
{
	char digits[32];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n), at = 0;
	for (int i = 0; i < len && (size_t)at + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			out[at++] = ',';
		out[at++] = digits[i];
	}
	out[at] = '\0';
}

/* ns as a person reads it: 750 us, 4.6 ms, 1.2 s. */
static void duration_text(double ns, char *out, size_t size)
{
	if (ns < 1e6)
		snprintf(out, size, "%.3g us", ns * 1e-3);
	else if (ns < 1e9)
		snprintf(out, size, "%.3g ms", ns * 1e-6);
	else
		snprintf(out, size, "%.3g s", ns * 1e-9);
}

/* A short run: how little a function at 1 % of it is good to. */
static int short_run_text(const struct pv_report *r, unsigned e, char *buf, size_t size)
{
	char n[32], under[64];
	thousands(pv_samples_in(r), n, sizeof(n));
	if (pv_timed_in(r))
		snprintf(under, sizeof(under), " for the time not timed");
	else
		snprintf(under, sizeof(under), " (under %d)", PV_SHORT_RUN_SAMPLES);
	snprintf(buf, size,
		 "%sa short run: %s samples%s: a function at 1%% of it is good only "
		 "to \xc2\xb1%.0f%% of itself; profile a longer run",
		 r->view ? "in this view, " : "", n, under, 100 * pv_share_error(r, e, 0.01) / 0.01);
	return 1;
}

int pv_sampling_text(const struct pv_report *r, unsigned e, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (!pv_sampled(r, e))
		return 0;
	const struct pv_sampling *s = &r->sampling;
	char n[32], rate[160] = "", dropped[64] = "", blocked[96] = "", timed[160] = "";
	thousands(pv_samples_in(r), n, sizeof(n));
	/* The rate asked, and the rate the run got: samples over the threads'
	 * CPU time that was not timed (fewer where rings came late or the
	 * kernel dropped some). */
	double cpu = -(double)s->timed_ns * 1e-9;
	for (unsigned i = 0; i < r->n_thread_list; i++)
		cpu += r->thread_list[i].cpu_seconds > 0 ? r->thread_list[i].cpu_seconds : 0;
	char got[32] = "";
	if (cpu >= 0.01 && !r->view) /* over less, the rate got says little */
		thousands((uint64_t)((double)(s->samples + s->own_samples) / cpu + 0.5), got,
			  sizeof(got));
	char cost[64] = "";
	if (s->sample_cost_ns) /* what set the rate (samplecost.h) */
		snprintf(cost, sizeof(cost), ", for a sample's cost of %.1f us", 1e-3 * (double)s->sample_cost_ns);
	if (s->rate_hz > 0)
		snprintf(rate, sizeof(rate), " at %.0f Hz%s%s%s%s", s->rate_hz, cost,
			 got[0] ? " (got " : "", got, got[0] ? " a CPU-second)" : "");
	if (s->samples) /* of none charged, a share dropped says nothing */
		snprintf(dropped, sizeof(dropped), "; %.1f%% dropped as profviz's own",
			 100.0 * (double)s->own_samples / (double)(s->samples + s->own_samples));
	uint64_t waits = waits_in_run(r, e, 0);
	if (waits && r->run_total[e])
		snprintf(blocked, sizeof(blocked),
			 "; %.1f%% of it blocked in libc's waits (measured, not sampled)",
			 100.0 * (double)waits / (double)r->run_total[e]);
	double part = sampled_part(r, e);
	if (part < 1) { /* how much: the timing ends at 50 ms or 25,000 calls (timedstart.h) */
		char how_much[32];
		duration_text((double)pv_timed_in(r), how_much, sizeof(how_much));
		snprintf(timed, sizeof(timed),
			 " timed at its hooks over each thread's first CPU (%s in all, %.0f%% of it), "
			 "then", how_much, 100 * (1 - part));
	}
	char good[96];
	if (part > 0)
		snprintf(good, sizeof(good), "a share of %.0f%% is good to \xc2\xb1%.2g points",
			 100 * PV_QUOTED_SHARE, 100 * pv_share_error(r, e, PV_QUOTED_SHARE));
	else
		snprintf(good, sizeof(good), "all of it timed, none sampled: no sampling error");
	snprintf(buf, size, "%s%s sampled%s: %s samples%s%s%s\n%s", r->events[e].name, timed, rate,
		 n, r->view ? " in this view" : "", dropped, blocked, good);
	return 1;
}

int pv_doubt_text(const struct pv_report *r, unsigned e, char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	if (!pv_times_doubtful(r, e))
		return 0;
	if (pv_sampled(r, e))
		return short_run_text(r, e, buf, size);
	int time = pv_event_is_time(&r->events[e]);
	/* A part is judged on its own: the whole run's report may not doubt it. */
	const char *same = r->view_options;
	snprintf(buf, size,
		 "%sthe hooks took %.0f%% of the raw %s: the times of functions that cost less than "
		 "their hooks (%.1f%s a call) are uncertain; profviz report%s%s lists them",
		 r->view ? "in this view, " : "", 100 * pv_hooks_share(r, e),
		 pv_has_waits(r, e) ? "work (waits aside)" : "run", pv_hooks_per_call(r, e),
		 time ? " ns" : "", same ? " " : "", same ? same : "");
	return 1;
}

/* Event e is the hooks' clock (the TSC, PROFVIZ_TIME=hooks): wall time.
 * The threads' time outside libc's waits, in ns, against the CPU they ran:
 * how much of it they spent off their CPU (preempted, or blocked outside
 * the waits), when that is more than the clocks' own disagreement. */
static uint64_t time_off_cpu(const struct pv_report *r, unsigned e, uint64_t *cpu_ns)
{
	if (e >= r->nev || r->events[e].kind != PV_EVENT_TIME || !r->n_thread_list)
		return 0;
	double timed = 0, cpu = 0;
	for (unsigned i = 0; i < r->n_thread_list; i++) {
		const struct pv_rthread *t = &r->thread_list[i];
		if (t->cpu_seconds < 0)
			return 0; /* a thread whose CPU is not known */
		timed += (double)t->raw_total[e]; /* the hooks' own cost is CPU too */
		cpu += t->cpu_seconds * 1e9;
	}
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (r->funcs[i].kind == PV_FUNC_WAIT)
			timed -= (double)r->funcs[i].raw_self[e];
	*cpu_ns = (uint64_t)cpu;
	double off = timed - cpu;
	return off > 1e6 && off > 0.05 * cpu ? (uint64_t)off : 0;
}

int pv_totals_text(const struct pv_report *r, unsigned e, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	uint64_t cpu_ns = 0, off = time_off_cpu(r, e, &cpu_ns);
	if (off)
		used += (size_t)snprintf(buf, size,
					 "the hooks' clock is the wall's: the threads' work took %.1f ms "
					 "where they ran %.1f ms of CPU, so %.1f ms of these times is time "
					 "off their CPU (preempted, or blocked outside libc's waits); "
					 "sampled time, the default, counts only CPU",
					 (double)(cpu_ns + off) / 1e6, (double)cpu_ns / 1e6,
					 (double)off / 1e6);
	if (used >= size)
		used = size - 1;
	uint64_t cut = r->losses.threads_cut_short;
	if (cut && used < size)
		used += (size_t)snprintf(buf + used, size - used, "%s", used ? "; " : "");
	if (cut && used < size)
		used += (size_t)snprintf(buf + used, size - used,
					 "%" PRIu64 " thread%s still running at the end could not be "
					 "read then: %s open calls' costs stop at %s last hook",
					 cut, cut == 1 ? "" : "s", cut == 1 ? "its" : "their",
					 cut == 1 ? "its" : "their");
	if (e < r->nev && r->run_total_raised[e] && used < size) {
		uint64_t run = r->run_total[e], was = run - r->run_total_raised[e];
		snprintf(buf + used, size - used,
			 "%sthe run's total was %.3g%% of its functions' selves, which add up to it: "
			 "some open calls' costs are in no total, and shares are of the selves' sum",
			 used ? "; " : "", run ? 100.0 * (double)was / (double)run : 0.0);
	}
	return buf[0] != '\0';
}
