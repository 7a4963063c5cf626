/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "runtime/events.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* events.h brings <linux/perf_event.h> first: libpfm4's own copy of it then
 * stands aside (that copy is older, and names cap_user_rdpmc cap_usr_rdpmc). */
#include <perfmon/pfmlib_perf_event.h>

#include "base/compiler.h"
#include "base/log.h"
#include "base/nearest.h"
#include "runtime/smallfile.h"

#define VAR "PROFVIZ_EVENTS"

struct named {
	const char *name;
	uint64_t config;
};

static const struct named hardware[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named software[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
};

static const struct named caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },         { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },      { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

/* "-loads", "-load-misses", ... as perf lists them: op and result. */
static const struct {
	const char *suffix;
	unsigned op, result;
} cache_ops[] = {
	{ "-loads", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "-load-misses", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "-stores", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "-store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "-prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "-prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS },
};

static int lookup(const struct named *table, size_t n, const char *name, uint64_t *config)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name)) {
			*config = table[i].config;
			return 1;
		}
	return 0;
}

static int parse_cache(const char *name, uint64_t *config)
{
	for (size_t c = 0; c < PV_ARRAY_SIZE(caches); c++) {
		size_t len = strlen(caches[c].name);
		if (strncmp(name, caches[c].name, len))
			continue;
		for (size_t o = 0; o < PV_ARRAY_SIZE(cache_ops); o++)
			if (!strcmp(name + len, cache_ops[o].suffix)) {
				*config = caches[c].config | cache_ops[o].op << 8 |
					  cache_ops[o].result << 16;
				return 1;
			}
	}
	return 0;
}

/* The identity (the TSC as its backend, or type and config) of an event perf
 * names without a PMU: "tsc", "cycles", "task-clock", "L1-dcache-load-misses".
 * 1, or 0 for any other name, e untouched. */
static int pv_event_named(const char *name, struct pv_event *e)
{
	if (!strcmp(name, "tsc")) {
		e->backend = PV_BACKEND_TSC;
		return 1;
	}
	if (lookup(hardware, PV_ARRAY_SIZE(hardware), name, &e->config)) {
		e->type = PERF_TYPE_HARDWARE;
		return 1;
	}
	if (lookup(software, PV_ARRAY_SIZE(software), name, &e->config)) {
		e->type = PERF_TYPE_SOFTWARE;
		return 1;
	}
	if (parse_cache(name, &e->config)) {
		e->type = PERF_TYPE_HW_CACHE;
		return 1;
	}
	return 0;
}

static int parse_hex(const char *s, uint64_t *out)
{
	if (!*s)
		return 0;
	for (const char *c = s; *c; c++)
		if (!isxdigit((unsigned char)*c))
			return 0;
	if (strlen(s) > 16)
		return 0;
	*out = strtoull(s, NULL, 16);
	return 1;
}

static int parse_number(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return 0;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !*end && !errno;
}

/* A small file's first line, without its newline; 0 if unreadable. */
static int read_line(const char *path, char *buf, size_t size)
{
	if (pv_read_small_file(path, buf, size) <= 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return 1;
}

/* Write why a part of an event name is refused: the return value of every
 * step of parsing one (0 when it succeeds). */
static int fail(char *why, size_t why_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Put value into the bits a sysfs format names ("config:0-7,32-35"). */
static int apply_format(struct pv_event *e, const char *format, uint64_t value, char *why,
			size_t why_size)
{
	uint64_t *field;
	const char *bits;
	if (!strncmp(format, "config:", 7))
		field = &e->config, bits = format + 7;
	else if (!strncmp(format, "config1:", 8))
		field = &e->config1, bits = format + 8;
	else if (!strncmp(format, "config2:", 8))
		field = &e->config2, bits = format + 8;
	else
		return fail(why, why_size, "format '%.64s' is not understood", format);
	unsigned shift = 0;
	while (*bits) {
		char *end;
		unsigned lo = (unsigned)strtoul(bits, &end, 10), hi = lo;
		if (*end == '-')
			hi = (unsigned)strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return fail(why, why_size, "format '%.64s' is not understood", format);
		unsigned width = hi - lo + 1;
		uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
		*field |= ((value >> shift) & mask) << lo;
		shift += width;
		bits = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return fail(why, why_size, "format '%.64s' is not understood", format);
	}
	if (shift < 64 && value >> shift)
		return fail(why, why_size, "value 0x%llx does not fit %.64s",
				(unsigned long long)value, format);
	return 0;
}

static int apply_terms(struct pv_event *e, const char *sysfs, const char *pmu, char *terms,
		       int depth, char *why, size_t why_size);

static int apply_term(struct pv_event *e, const char *sysfs, const char *pmu, char *term,
		      int depth, char *why, size_t why_size)
{
	char path[1024], line[512];
	char *eq = strchr(term, '=');
	if (!eq) {
		/* An alias: the PMU's events/<name> holds its terms. */
		snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/events/%s", sysfs, pmu,
			 term);
		if (depth > 0 || !read_line(path, line, sizeof(line)))
			return fail(why, why_size, "PMU '%.64s' has no event '%.64s'", pmu, term);
		return apply_terms(e, sysfs, pmu, line, depth + 1, why, why_size);
	}
	*eq = '\0';
	const char *name = term, *text = eq + 1;
	uint64_t value;
	if (!parse_number(text, &value))
		return fail(why, why_size, "'%.64s=%.64s' is not a number", name, text);
	if (!strcmp(name, "config") || !strcmp(name, "config1") || !strcmp(name, "config2")) {
		uint64_t *field = name[6] == '1' ? &e->config1 : name[6] == '2' ? &e->config2
										 : &e->config;
		*field |= value;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/format/%s", sysfs, pmu, name);
	if (!read_line(path, line, sizeof(line)))
		return fail(why, why_size, "PMU '%.64s' has no term '%.64s'", pmu, name);
	return apply_format(e, line, value, why, why_size);
}

static int apply_terms(struct pv_event *e, const char *sysfs, const char *pmu, char *terms,
		       int depth, char *why, size_t why_size)
{
	for (char *save = NULL, *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (apply_term(e, sysfs, pmu, t, depth, why, why_size) < 0)
			return -1;
	return 0;
}

/* "pmu/terms/" with an optional ":u" (user-only is what is counted anyway). */
static int parse_pmu(struct pv_event *e, const char *item, const char *sysfs, char *why,
		     size_t why_size)
{
	char buf[sizeof(e->name)];
	snprintf(buf, sizeof(buf), "%s", item);
	char *slash = strchr(buf, '/');
	char *last = strrchr(buf, '/');
	if (slash == last || (last[1] && strcmp(last + 1, ":u")))
		return fail(why, why_size, "not of the form pmu/term=value,.../");
	*slash = *last = '\0';
	const char *pmu = buf;
	char path[1024], line[64];
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type", sysfs, pmu);
	uint64_t type;
	if (!*pmu || strchr(pmu, '.') || !read_line(path, line, sizeof(line)) ||
	    !parse_number(line, &type))
		return fail(why, why_size, "no PMU '%.64s' in %.64s/bus/event_source/devices", pmu,
				sysfs);
	e->type = (uint32_t)type;
	if (!slash[1])
		return fail(why, why_size, "no terms between the slashes");
	return apply_terms(e, sysfs, pmu, slash + 1, 0, why, why_size);
}

/* libpfm4 is loaded only when a name needs it, so that the runtime does not
 * depend on it: its header gives the types, dlsym the functions. */
static int parse_libpfm(struct pv_event *e, const char *name, char *why, size_t why_size)
{
	static typeof(pfm_get_os_event_encoding) *encode;
	static typeof(pfm_strerror) *strerror_pfm;
	static int tried;
	if (!tried) {
		tried = 1;
		void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
		typeof(pfm_initialize) *init = h ? dlsym(h, "pfm_initialize") : NULL;
		if (init && init() == PFM_SUCCESS) {
			encode = dlsym(h, "pfm_get_os_event_encoding");
			strerror_pfm = dlsym(h, "pfm_strerror");
		}
	}
	if (!encode)
		return fail(why, why_size, "unknown event (and libpfm4 is not installed)");
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	pfm_perf_encode_arg_t arg = { .attr = &attr, .size = sizeof(arg) };
	int rc = encode(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS)
		return fail(why, why_size, "unknown event (libpfm4: %s)",
				strerror_pfm ? strerror_pfm(rc) : "not found");
	/* Only the event's identity is taken: libpfm4 leaves attr.size at 0,
	 * and counters.c sets the rest of the attr itself. */
	e->type = attr.type;
	e->config = attr.config;
	e->config1 = attr.config1;
	e->config2 = attr.config2;
	return 0;
}

/* why says which name of perf's item may have meant, when one is a few
 * edits from it. */
static void add_nearest_name(const char *item, char *why, size_t why_size)
{
	char spelled[PV_ARRAY_SIZE(caches) * PV_ARRAY_SIZE(cache_ops)][40];
	const char *names[1 + PV_ARRAY_SIZE(hardware) + PV_ARRAY_SIZE(software) +
			  PV_ARRAY_SIZE(spelled)];
	size_t n = 0;
	names[n++] = "tsc";
	for (size_t i = 0; i < PV_ARRAY_SIZE(hardware); i++)
		names[n++] = hardware[i].name;
	for (size_t i = 0; i < PV_ARRAY_SIZE(software); i++)
		names[n++] = software[i].name;
	size_t k = 0;
	for (size_t c = 0; c < PV_ARRAY_SIZE(caches); c++)
		for (size_t o = 0; o < PV_ARRAY_SIZE(cache_ops); o++, k++) {
			snprintf(spelled[k], sizeof(spelled[k]), "%s%s", caches[c].name,
				 cache_ops[o].suffix);
			names[n++] = spelled[k];
		}
	size_t len = strlen(item);
	const char *meant = pv_nearest_name(item, names, n, len / 4 > 1 ? len / 4 : 1);
	if (meant) /* more use than libpfm4's "not found" */
		snprintf(why, why_size, "unknown event (did you mean '%s'?)", meant);
}

static int parse_one(struct pv_event *e, const char *item, const char *sysfs, char *why,
		     size_t why_size)
{
	memset(e, 0, sizeof(*e));
	e->backend = PV_BACKEND_READ; /* always correct; start-up may choose rdpmc */
	if (strlen(item) >= sizeof(e->name))
		return fail(why, why_size, "name too long");
	strcpy(e->name, item);
	if (pv_event_named(item, e))
		return 0;
	if (strchr(item, '/'))
		return parse_pmu(e, item, sysfs, why, why_size);
	if (item[0] == 'r' && isxdigit((unsigned char)item[1])) {
		e->type = PERF_TYPE_RAW;
		if (parse_hex(item + 1, &e->config))
			return 0;
		return fail(why, why_size, "not a raw event (r followed by up to 16 hex digits)");
	}
	if (parse_libpfm(e, item, why, why_size) == 0)
		return 0;
	add_nearest_name(item, why, why_size);
	return -1;
}

static int same_event(const struct pv_event *a, const struct pv_event *b)
{
	return pv_event_is_tsc(a) == pv_event_is_tsc(b) && a->type == b->type &&
	       a->config == b->config && a->config1 == b->config1 && a->config2 == b->config2;
}

/* Split at commas that are not inside a pmu/.../ term list. */
static size_t item_length(const char *s)
{
	int in_terms = 0;
	size_t i;
	for (i = 0; s[i]; i++) {
		if (s[i] == '/')
			in_terms = !in_terms;
		else if (s[i] == ',' && !in_terms)
			break;
	}
	return i;
}

unsigned pv_events_parse(const char *list, const char *sysfs, struct pv_event_set *out)
{
	int empty_reported = 0;
	out->n = 0;
	for (const char *s = list;;) {
		size_t len = item_length(s);
		char item[256];
		char why[256] = "";
		if (len == 0) {
			if (!empty_reported++)
				pv_log(VAR "='%s' has an empty item; it is ignored", list);
		} else if (len >= sizeof(item)) {
			pv_log(VAR ": an event name is longer than %zu characters; it is ignored",
			       sizeof(item) - 1);
		} else {
			memcpy(item, s, len);
			item[len] = '\0';
			struct pv_event e;
			if (out->n == PV_MAX_EVENTS) {
				pv_log(VAR ": more than %d events; '%s' is ignored", PV_MAX_EVENTS, item);
			} else if (parse_one(&e, item, sysfs, why, sizeof(why)) < 0) {
				pv_log(VAR ": '%s': %s; it is ignored", item, why);
			} else {
				int dup = 0;
				for (unsigned i = 0; i < out->n; i++)
					dup |= same_event(&out->ev[i], &e);
				if (dup)
					pv_log(VAR ": '%s' is listed twice; counted once", item);
				else
					out->ev[out->n++] = e;
			}
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	return out->n;
}
