/* SPDX-License-Identifier: MIT */
/*
 * pprof.c — the profile in pprof's format: a gzipped profile.proto message
 * (.pb.gz), read by `go tool pprof` and pprof, and by the tools that import
 * their profiles.
 *
 * One sample per call path, its stack the path's chain of functions, leaf
 * first. Its values are the path's calls, then its self cost per event: so
 * pprof's flat is the functions' self and its cum their total, and its
 * traces are the call paths. (Recursion is folded as in the paths: in
 * a -> b -> a, the inner a's cost is on a's path, outside b's cum.) Every
 * function has one location (its address) and one Function; each module a
 * mapping marked as already symbolized, so pprof never looks for the
 * binaries. Sampled time reads as pprof's own CPU profiles do: its type is
 * cpu/nanoseconds, a samples/count type follows the events, and the period
 * is the sampler's. No duration: pprof would print the total's ratio to it,
 * which its users read as the CPU the process used, and profviz's time is
 * not that (waits measured in, profviz's own looks left out, threads
 * summed); the first comment says the wall time instead.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/format.h"
#include "output/protobuf.h"
#include "base/htab.h"
#include "model/trust.h"

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,

	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,

	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILENAME = 5,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,

	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,

	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

/* The string table: each distinct string once, "" first (the format wants
 * it at index 0), in a uthash table. The strings are the report's, not
 * copied. */
struct string_entry {
	const char *text;
	UT_hash_handle hh;
};

struct strings {
	struct string_entry *at; /* by index; room for every string asked for */
	unsigned n, max;
	struct string_entry *table;
};

static int strings_init(struct strings *s, unsigned max)
{
	s->at = malloc(max * sizeof(*s->at));
	s->n = 0;
	s->max = max;
	s->table = NULL;
	return s->at ? 0 : -1;
}

static void strings_free(struct strings *s)
{
	HASH_CLEAR(hh, s->table);
	free(s->at);
}

/* str's index, added if new. The array is sized for every string the
 * writer can ask for, so it never fills. */
static uint64_t intern(struct strings *s, const char *str)
{
	if (!str)
		str = "";
	struct string_entry *e;
	HASH_FIND_STR(s->table, str, e);
	if (e)
		return (uint64_t)(e - s->at);
	if (s->n == s->max)
		return 0; /* never: the count above covers every string */
	e = &s->at[s->n++];
	e->text = str;
	/* Should the table have no room, the string is still at its index:
	 * asked for again, it is only written twice. */
	HASH_ADD_KEYPTR(hh, s->table, e->text, strlen(e->text), e);
	return (uint64_t)(e - s->at);
}

static void value_type(struct pv_pb *b, unsigned field, struct strings *s, const char *type,
		       const char *unit)
{
	pv_pb_mark m = pv_pb_begin(b, field);
	pv_pb_uint_opt(b, VALUE_TYPE_TYPE, intern(s, type));
	pv_pb_uint_opt(b, VALUE_TYPE_UNIT, intern(s, unit));
	pv_pb_end(b, m);
}

/* One sample per path: its stack leaf first, its calls and self costs. */
static void write_samples(struct pv_pb *b, const struct pv_report *r)
{
	for (unsigned i = 0; i < r->n_paths; i++) {
		const struct pv_rpath *p = &r->paths[i];
		pv_pb_mark sample = pv_pb_begin(b, PROFILE_SAMPLE);
		pv_pb_mark ids = pv_pb_begin(b, SAMPLE_LOCATION_ID);
		unsigned depth = 0;
		for (int at = (int)i; at >= 0 && depth++ < r->n_paths; at = r->paths[at].parent)
			pv_pb_raw_varint(b, (uint64_t)r->paths[at].func + 1);
		pv_pb_end(b, ids);
		pv_pb_mark values = pv_pb_begin(b, SAMPLE_VALUE);
		pv_pb_raw_varint(b, p->calls);
		for (unsigned e = 0; e < r->nev; e++)
			pv_pb_raw_varint(b, p->self[e]);
		if (pv_sampled(r, 0))
			pv_pb_raw_varint(b, p->samples);
		pv_pb_end(b, values);
		pv_pb_end(b, sample);
	}
}

/* The modules as mappings: each spans the addresses of its functions
 * profiled (what pprof needs to place the locations), with the functions
 * already named. Functions outside any module (blocked waits, signals)
 * have no mapping. mapping_of: the mapping id of each function, or 0. */
static int write_mappings(struct pv_pb *b, const struct pv_report *r, struct strings *s,
			  unsigned *mapping_of)
{
	unsigned n = 0;
	unsigned *module_of = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*module_of));
	unsigned *by_string = calloc(s->max, sizeof(*by_string));
	uintptr_t *lo = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*lo));
	uintptr_t *hi = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*hi));
	int *with_lines = calloc(r->n_funcs ? r->n_funcs : 1, sizeof(*with_lines));
	int status = -1;
	if (!module_of || !by_string || !lo || !hi || !with_lines)
		goto out;
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		uintptr_t addr = (uintptr_t)f->fn;
		mapping_of[i] = 0;
		if (!f->sym.module || !*f->sym.module)
			continue;
		uint64_t name = intern(s, f->sym.module);
		unsigned m = by_string[name];
		if (!m) {
			m = by_string[name] = ++n;
			module_of[m - 1] = (unsigned)name;
			lo[m - 1] = hi[m - 1] = addr;
		}
		if (addr < lo[m - 1])
			lo[m - 1] = addr;
		if (addr > hi[m - 1])
			hi[m - 1] = addr;
		with_lines[m - 1] |= f->sym.file != NULL;
		mapping_of[i] = m;
	}
	for (unsigned m = 0; m < n; m++) {
		pv_pb_mark mark = pv_pb_begin(b, PROFILE_MAPPING);
		pv_pb_uint(b, MAPPING_ID, m + 1);
		pv_pb_uint_opt(b, MAPPING_MEMORY_START, lo[m]);
		pv_pb_uint(b, MAPPING_MEMORY_LIMIT, (uint64_t)hi[m] + 1);
		pv_pb_uint(b, MAPPING_FILENAME, module_of[m]);
		pv_pb_uint(b, MAPPING_HAS_FUNCTIONS, 1);
		pv_pb_uint_opt(b, MAPPING_HAS_FILENAMES, with_lines[m] != 0);
		pv_pb_uint_opt(b, MAPPING_HAS_LINE_NUMBERS, with_lines[m] != 0);
		pv_pb_end(b, mark);
	}
	status = 0;
out:
	free(module_of);
	free(by_string);
	free(lo);
	free(hi);
	free(with_lines);
	return status;
}

/* Function i has Function and Location id i + 1. */
static void write_functions(struct pv_pb *b, const struct pv_report *r, struct strings *s,
			    const unsigned *mapping_of)
{
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		int line = f->sym.file ? f->sym.line : 0;
		pv_pb_mark fm = pv_pb_begin(b, PROFILE_FUNCTION);
		pv_pb_uint(b, FUNCTION_ID, i + 1);
		/* Demangled at look-up, the mangled name is gone: system_name
		 * stays empty. That also tells pprof the name needs no more
		 * work; given the same name twice, it would cut anything
		 * between <> or () out of it, "<blocked: nanosleep>" whole. */
		pv_pb_uint_opt(b, FUNCTION_NAME, intern(s, f->sym.name));
		pv_pb_uint_opt(b, FUNCTION_FILENAME, intern(s, f->sym.file));
		pv_pb_uint_opt(b, FUNCTION_START_LINE, line > 0 ? (uint64_t)line : 0);
		pv_pb_end(b, fm);

		pv_pb_mark lm = pv_pb_begin(b, PROFILE_LOCATION);
		pv_pb_uint(b, LOCATION_ID, i + 1);
		pv_pb_uint_opt(b, LOCATION_MAPPING_ID, mapping_of[i]);
		pv_pb_uint_opt(b, LOCATION_ADDRESS, (uintptr_t)f->fn);
		pv_pb_mark ln = pv_pb_begin(b, LOCATION_LINE);
		pv_pb_uint(b, LINE_FUNCTION_ID, i + 1);
		pv_pb_uint_opt(b, LINE_LINE, line > 0 ? (uint64_t)line : 0);
		pv_pb_end(b, ln);
		pv_pb_end(b, lm);
	}
}

/* The comments' room: the program and pid, then how time was sampled. */
#define PV_PPROF_RUN_MAX 4096
#define PV_PPROF_SAMPLING_MAX 1024

static void write_comments(struct pv_pb *b, const struct pv_report *r, struct strings *s,
			   char *text)
{
	snprintf(text, PV_PPROF_RUN_MAX, "profviz: %s, pid %d: %.3f s wall, %llu thread%s",
		 r->program ? r->program : "?", r->pid, r->wall_seconds,
		 (unsigned long long)r->threads, r->threads == 1 ? "" : "s");
	pv_pb_uint(b, PROFILE_COMMENT, intern(s, text));
	char *sampling = text + PV_PPROF_RUN_MAX; /* interned: it must outlive the call */
	if (pv_sampling_text(r, 0, sampling, PV_PPROF_SAMPLING_MAX)) {
		char *precision = strchr(sampling, '\n'); /* a comment a line */
		if (precision)
			*precision++ = '\0';
		pv_pb_uint(b, PROFILE_COMMENT, intern(s, sampling));
		if (precision)
			pv_pb_uint(b, PROFILE_COMMENT, intern(s, precision));
		if (r->compensated && r->nev > 1)
			pv_pb_uint(b, PROFILE_COMMENT,
				   intern(s, "profviz: the hooks' own cost is taken out of the "
					  "other events' values"));
	} else if (r->compensated) {
		pv_pb_uint(b, PROFILE_COMMENT,
			   intern(s, "profviz: the hooks' own cost is taken out of every value"));
	}
}

/* A sample type's name: a sampled time is pprof's "cpu", unless libc's
 * waits hold some of it (measured, not sampled): then it is "time". */
static const char *type_name(const struct pv_report *r, unsigned e)
{
	if (!pv_sampled(r, e))
		return r->events[e].name;
	for (unsigned i = 0; i < r->n_funcs; i++)
		if (r->funcs[i].kind == PV_FUNC_WAIT && r->funcs[i].self[e])
			return "time";
	return "cpu";
}

/* The string table goes last: only then is every string known. */
static void write_strings(struct pv_pb *b, const struct strings *s)
{
	for (unsigned i = 0; i < s->n; i++)
		pv_pb_string(b, PROFILE_STRING_TABLE, s->at[i].text);
}

static int write_gzip(FILE *out, const uint8_t *data, size_t len)
{
	enum { CHUNK = 64 * 1024 };
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	/* 16 + the largest window: a gzip header and trailer around deflate. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -1;
	unsigned char *chunk = malloc(CHUNK);
	int status = chunk ? 0 : -1;
	zs.next_in = (Bytef *)data;
	for (int done = 0; !done && status == 0;) {
		/* avail_in is an unsigned int: a large profile goes in pieces. */
		if (zs.avail_in == 0) {
			size_t piece = len < (1u << 30) ? len : (1u << 30);
			zs.avail_in = (uInt)piece;
			len -= piece;
		}
		zs.next_out = chunk;
		zs.avail_out = CHUNK;
		int z = deflate(&zs, len == 0 ? Z_FINISH : Z_NO_FLUSH);
		if (z == Z_STREAM_ERROR)
			status = -1;
		size_t have = CHUNK - zs.avail_out;
		if (have && fwrite(chunk, 1, have, out) != have)
			status = -1;
		done = z == Z_STREAM_END;
	}
	deflateEnd(&zs);
	free(chunk);
	return status;
}

int pv_write_pprof(FILE *out, const struct pv_report *r)
{
	/* "", the comments, calls and count, nanoseconds, cpu and samples, per
	 * event its name, per function its name, file and module. */
	unsigned max_strings = 12 + r->nev + 3 * r->n_funcs;
	struct strings s;
	struct pv_pb b;
	pv_pb_init(&b);
	unsigned *mapping_of = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*mapping_of));
	char *comment = malloc(PV_PPROF_RUN_MAX + PV_PPROF_SAMPLING_MAX);
	int status = -1;
	if (strings_init(&s, max_strings) < 0 || !mapping_of || !comment)
		goto out;

	intern(&s, "");
	value_type(&b, PROFILE_SAMPLE_TYPE, &s, "calls", "count");
	for (unsigned e = 0; e < r->nev; e++)
		value_type(&b, PROFILE_SAMPLE_TYPE, &s, type_name(r, e),
			   pv_event_is_time(&r->events[e]) ? "nanoseconds" : "count");
	if (pv_sampled(r, 0)) {
		value_type(&b, PROFILE_SAMPLE_TYPE, &s, "samples", "count");
		value_type(&b, PROFILE_PERIOD_TYPE, &s, "cpu", "nanoseconds");
		/* ns a look; none for a rate too low to give a number */
		double period = r->sampling.rate_hz > 0 ? 1e9 / r->sampling.rate_hz + 0.5 : 0;
		pv_pb_uint_opt(&b, PROFILE_PERIOD, period < 1e18 ? (uint64_t)period : 0);
	}
	if (r->nev)
		pv_pb_uint(&b, PROFILE_DEFAULT_SAMPLE_TYPE, intern(&s, type_name(r, 0)));
	write_comments(&b, r, &s, comment);
	write_samples(&b, r);
	if (write_mappings(&b, r, &s, mapping_of) < 0)
		goto out;
	write_functions(&b, r, &s, mapping_of);
	write_strings(&b, &s);
	if (b.failed)
		goto out;
	status = write_gzip(out, b.data, b.len);
out:
	pv_pb_free(&b);
	strings_free(&s);
	free(mapping_of);
	free(comment);
	return status == 0 && !ferror(out) ? 0 : -1;
}
