/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "output/config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include "base/log.h"
#include "base/nearest.h"
#include "output/format.h"
#include "output/variables.h"

static int parse_flag(const char *name, const char *value, int fallback)
{
	if (!value || !*value)
		return fallback;
	if (!strcmp(value, "0"))
		return 0;
	if (!strcmp(value, "1"))
		return 1;
	pv_log("%s='%s' is not 0 or 1; using %d", name, value, fallback);
	return fallback;
}

static double parse_percent(const char *name, const char *value, double fallback)
{
	if (!value)
		return fallback;
	char *end;
	errno = 0;
	double d = strtod(value, &end);
	if (end != value && *end == '%')
		end++; /* "0.5%" says what the value is, as the README does */
	if (end == value || *end || errno || !isfinite(d) || d < 0 || d > 100) {
		pv_log("%s='%s' is not a percentage from 0 to 100; using %g", name, value,
		       fallback);
		return fallback;
	}
	return d;
}

/* A whole number from 0 to max; what says what it counts, for the message. */
static unsigned parse_whole(const char *name, const char *value, unsigned long max,
			    const char *what, unsigned fallback)
{
	if (!value || !*value)
		return fallback;
	char *end;
	errno = 0;
	unsigned long v = strtoul(value, &end, 10);
	if (*end || errno || value[0] == '-' || v > max) {
		pv_log("%s='%s' is not %s from 0 to %lu; using %u", name, value, what, max,
		       fallback);
		return fallback;
	}
	return (unsigned)v;
}

/* A variable that names one of two ways: 0 for the default (also when
 * unset or empty), 1 for the other; anything else said, and the default. */
static int parse_either(const char *name, const char *value, const char *fallback,
			const char *other)
{
	if (!value || !*value || !strcmp(value, fallback))
		return 0;
	if (!strcmp(value, other))
		return 1;
	pv_log("%s='%s' is not '%s' or '%s'; using %s", name, value, fallback, other, fallback);
	return 0;
}

/* PROFVIZ_RATE: samples per second of a thread's CPU time, from PV_MIN_RATE_HZ to PV_MAX_RATE_HZ;
 * "1k", "4k" say thousands. *forced: a rate was given and taken. */
static unsigned parse_rate(const char *value, int *forced)
{
	static const char name[] = "PROFVIZ_RATE";
	*forced = 0;
	if (!value || !*value)
		return PV_DEFAULT_RATE_HZ;
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	if (end != value && (*end == 'k' || *end == 'K'))
		v *= 1000, end++;
	if (end == value || *end || errno || !isfinite(v) || v < PV_MIN_RATE_HZ ||
	    v > PV_MAX_RATE_HZ) {
		pv_log("%s='%s' is not a rate from %d to %d (per second); using the rate a "
		       "sample's cost allows", name, value, PV_MIN_RATE_HZ, PV_MAX_RATE_HZ);
		return PV_DEFAULT_RATE_HZ;
	}
	*forced = 1;
	return (unsigned)v;
}

static int template_ok(const char *path)
{
	for (const char *s = path; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (*s != 'p' && *s != 'h' && *s != '%')
			return 0;
	}
	return 1;
}

/* Read one item of PROFVIZ_OUTPUT into o. NULL if it is usable, else why
 * not, as the end of a message that has named the variable and value. */
static const char *parse_output(const char *item, size_t len, struct pv_output *o, char *why,
				size_t why_size)
{
	if (len == 0)
		return " has an empty item";
	if (len >= sizeof(o->path))
		return " has a file name that is too long";
	memcpy(o->path, item, len);
	o->path[len] = '\0';
	snprintf(o->given, sizeof(o->given), "%.*s", (int)sizeof(o->given) - 1, o->path);
	o->format = pv_output_format_of(o->path);
	if (!o->format) {
		char extensions[120];
		pv_output_extensions(extensions, sizeof(extensions));
		snprintf(why, why_size, ": '%.256s' does not end in %s", o->path, extensions);
		return why;
	}
	if (!template_ok(o->path)) {
		snprintf(why, why_size, ": '%.256s' has a %% other than %%p, %%h or %%%%", o->path);
		return why;
	}
	return NULL;
}

static void parse_outputs(struct pv_config *c, const char *value)
{
	static const char name[] = "PROFVIZ_OUTPUT";
	/* A bad item's message ends in what is written instead, which is known
	 * only once every item has been read: it waits here until the next. */
	char pending[1024] = "";
	int empty_seen = 0;
	c->n_outputs = 0;
	for (const char *item = value; item;) {
		size_t len = strcspn(item, ",");
		const char *next = item[len] ? item + len + 1 : NULL;
		if (len && c->n_outputs == PV_MAX_OUTPUTS) {
			if (pending[0])
				pv_log("%s; it is ignored", pending);
			pending[0] = '\0';
			pv_log("%s='%.256s' names more than %d files; the rest are ignored", name, value,
			       PV_MAX_OUTPUTS);
			break;
		}
		struct pv_output o;
		char why[400];
		const char *problem = parse_output(item, len, &o, why, sizeof(why));
		item = next;
		if (!problem) {
			c->outputs[c->n_outputs++] = o;
			continue;
		}
		if (len == 0 && empty_seen++)
			continue; /* one message says there are empty items */
		if (pending[0])
			pv_log("%s; it is ignored", pending);
		snprintf(pending, sizeof(pending), "%s='%.256s'%s", name, value, problem);
	}
	if (pending[0])
		pv_log("%s; %s", pending, c->n_outputs ? "it is ignored" : "writing " PV_DEFAULT_OUTPUT);
	if (c->n_outputs == 0) {
		struct pv_output *o = &c->outputs[0];
		strcpy(o->path, PV_DEFAULT_OUTPUT);
		strcpy(o->given, PV_DEFAULT_OUTPUT);
		o->format = pv_output_format_of(PV_DEFAULT_OUTPUT);
		c->n_outputs = 1;
	}
}

int pv_config_signal(const char *value, int *sig, const char **why)
{
	const char *name = strncmp(value, "SIG", 3) ? value : value + 3;
	char *end;
	long n = strtol(value, &end, 10);
	*why = "is not a signal";
	if (end == value || *end) {
		n = 0;
		if (!strncmp(name, "RTMIN+", 6) || !strncmp(name, "RTMAX-", 6)) {
			long k = strtol(name + 6, &end, 10);
			if (end != name + 6 && !*end)
				n = name[2] == 'M' && name[3] == 'I' ? SIGRTMIN + k : SIGRTMAX - k;
		} else if (!strcmp(name, "RTMIN") || !strcmp(name, "RTMAX")) {
			n = name[3] == 'I' ? SIGRTMIN : SIGRTMAX;
		} else {
			for (int s = 1; s < SIGRTMIN && !n; s++)
				if (sigabbrev_np(s) && !strcmp(sigabbrev_np(s), name))
					n = s;
		}
	}
	if (n <= 0 || n > SIGRTMAX || (n >= 32 && n < SIGRTMIN))
		return 0;
	switch (n) {
	case SIGKILL: case SIGSTOP:
		*why = "cannot be caught";
		return 0;
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP: case SIGABRT:
	case SIGSYS:
		*why = "is a fault's, not a message's";
		return 0;
	case SIGCHLD: case SIGCONT: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		*why = "is job control's";
		return 0;
	case SIGPIPE: case SIGXCPU: case SIGXFSZ: case SIGIO: case SIGURG: case SIGWINCH:
	case SIGPROF: case SIGVTALRM: case SIGALRM:
		*why = "is one the kernel sends the program itself";
		return 0;
	}
	*sig = (int)n;
	return 1;
}

static int parse_signal(const char *value)
{
	if (!value || !*value || !strcmp(value, "none"))
		return 0;
	int sig;
	const char *why;
	if (pv_config_signal(value, &sig, &why))
		return sig;
	pv_log("PROFVIZ_SIGNAL='%.64s' %s; no signal opens windows", value, why);
	return 0;
}

void pv_config_load(struct pv_config *c, pv_getenv_fn *get, int secure)
{
	memset(c, 0, sizeof(*c));
	c->quiet = parse_flag("PROFVIZ_QUIET", get("PROFVIZ_QUIET"), 0);
	c->disabled = parse_flag("PROFVIZ_DISABLE", get("PROFVIZ_DISABLE"), 0);
	c->children = parse_flag("PROFVIZ_CHILDREN", get("PROFVIZ_CHILDREN"), 1);
	c->compensate = parse_flag("PROFVIZ_COMPENSATE", get("PROFVIZ_COMPENSATE"), 1);
	c->progress = parse_whole("PROFVIZ_PROGRESS", get("PROFVIZ_PROGRESS"),
				  PV_MAX_PROGRESS_SECONDS, "a number of seconds", 0);
	c->debug = parse_whole("PROFVIZ_DEBUG", get("PROFVIZ_DEBUG"), PV_DEBUG_MAX,
			       "a debug level", 0);
	c->node_threshold = parse_percent("PROFVIZ_NODE_THRESHOLD",
					  get("PROFVIZ_NODE_THRESHOLD"),
					  PV_DEFAULT_NODE_THRESHOLD);
	c->edge_threshold = parse_percent("PROFVIZ_EDGE_THRESHOLD",
					  get("PROFVIZ_EDGE_THRESHOLD"),
					  PV_DEFAULT_EDGE_THRESHOLD);
	c->max_nodes = parse_whole("PROFVIZ_NODES", get("PROFVIZ_NODES"), UINT_MAX,
				   "a number of boxes", PV_DEFAULT_MAX_NODES);
	/* PROFVIZ_TIME: sampled, or read per call by the hooks. */
	c->time_from_hooks = parse_either("PROFVIZ_TIME", get("PROFVIZ_TIME"), "sampled", "hooks");
	c->rate_hz = parse_rate(get("PROFVIZ_RATE"), &c->rate_forced);
	/* PROFVIZ_INLINED: a body the compiler inlined counted in its host,
	 * or each a function of its own. */
	c->inlined_as_frames = parse_either("PROFVIZ_INLINED", get("PROFVIZ_INLINED"), "host",
					    "frames");
	/* PROFVIZ_WAITS: the graph's shares of the work, the waits apart with
	 * their share of the wall; or of everything, the waits inside. */
	c->waits_inside = parse_either("PROFVIZ_WAITS", get("PROFVIZ_WAITS"), "apart", "in");
	/* Windows of the run: by a signal, every N s, the first one when asked. */
	c->window_signal = parse_signal(get("PROFVIZ_SIGNAL"));
	c->start_paused = parse_either("PROFVIZ_START", get("PROFVIZ_START"), "running", "paused");
	c->window_seconds = parse_whole("PROFVIZ_INTERVAL", get("PROFVIZ_INTERVAL"),
					PV_MAX_WINDOW_SECONDS, "a number of seconds", 0);
	const char *output = get("PROFVIZ_OUTPUT");
	if (secure && output) {
		pv_log("PROFVIZ_OUTPUT is ignored in a setuid/setgid program; writing %s",
		       PV_DEFAULT_OUTPUT);
		output = NULL;
	}
	parse_outputs(c, output);
	const char *events = get("PROFVIZ_EVENTS");
	if (events && strlen(events) >= sizeof(c->events)) {
		pv_log("PROFVIZ_EVENTS is longer than %zu characters; using the default",
		       sizeof(c->events) - 1);
		events = NULL;
	}
	if (events)
		strcpy(c->events, events);
}

void pv_config_anchor_outputs(struct pv_config *c, const char *dir)
{
	for (unsigned i = 0; i < c->n_outputs; i++) {
		struct pv_output *o = &c->outputs[i];
		char joined[PATH_MAX];
		if (o->path[0] == '/')
			continue;
		/* A literal % in the directory must not read as %p or %h. */
		size_t n = 0;
		for (const char *d = dir; *d && n + 2 < sizeof(joined); d++) {
			if (*d == '%')
				joined[n++] = '%';
			joined[n++] = *d;
		}
		if (n + 1 + strlen(o->path) + 1 > sizeof(joined))
			continue;
		joined[n++] = '/';
		strcpy(joined + n, o->path);
		strcpy(o->path, joined);
	}
}

void pv_config_check_names(char *const *env)
{
	const char *known[64];
	size_t n = 0;
	for (unsigned i = 0; i < pv_n_variables && n < 63; i++)
		known[n++] = pv_variables[i].name;
	known[n++] = pv_command_variable.name;
	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');
		if (strncmp(*env, "PROFVIZ_", 8) || !eq)
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
		int found = 0;
		for (size_t i = 0; i < n && !found; i++)
			found = !strcmp(name, known[i]);
		if (found)
			continue;
		/* The edits allowed go by the part after PROFVIZ_, which
		 * every name shares. */
		size_t own = strlen(name) - 8;
		const char *meant = pv_nearest_name(name, known, n, own / 4 > 1 ? own / 4 : 1);
		if (meant)
			pv_log("%.128s is ignored: profviz has no variable %s; did you mean %s?",
			       *env, name, meant);
		else
			pv_log("%.128s is ignored: profviz has no variable %s (profviz help "
			       "variables lists them)", *env, name);
	}
}
