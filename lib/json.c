/* json.c — the machine-readable profile, schema "profviz-1" (see README). */
#include <inttypes.h>
#include <string.h>

#include "report.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
		switch (*c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*c < 0x20)
				fprintf(out, "\\u%04x", *c);
			else
				fputc(*c, out);
		}
	}
	fputc('"', out);
}

static void json_values(FILE *out, const uint64_t *v, unsigned n)
{
	fputc('[', out);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", v[i]);
	fputc(']', out);
}

int pv_write_json(FILE *out, const struct pv_report *r)
{
	fputs("{\"format\":\"profviz-1\",\"program\":", out);
	json_string(out, r->program);
	fprintf(out, ",\"pid\":%d,\"events\":[", r->pid);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, r->events[i].name);
	}
	fputs("],\"backend\":", out);
	json_string(out, pv_backend_name(r->events[0].backend));
	fputs(",\"backends\":[", out);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, pv_backend_name(r->events[i].backend));
	}
	fputs("],\"units\":[", out);
	for (unsigned i = 0; i < r->nev; i++) {
		fputs(i ? "," : "", out);
		json_string(out, pv_event_unit(&r->events[i]));
	}
	fputs("],\"running_ratio\":[", out);
	for (unsigned i = 0; i < r->nev; i++)
		fprintf(out, "%s%.6g", i ? "," : "", r->multiplexed[i]);
	fputs("],\"run_total\":", out);
	json_values(out, r->run_total, r->nev);
	fprintf(out,
		",\"threads\":%" PRIu64 ",\"wall_seconds\":%.6f,\"stray_exits\":%" PRIu64
		",\"resyncs\":%" PRIu64 ",\n\"functions\":[",
		r->threads, r->wall_seconds, r->stray_exits, r->resyncs);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		fprintf(out, "%s\n{\"id\":%d,\"name\":", i ? "," : "", f->id);
		json_string(out, f->sym.name);
		fputs(",\"module\":", out);
		json_string(out, f->sym.module);
		if (f->sym.file) {
			fputs(",\"file\":", out);
			json_string(out, f->sym.file);
			fprintf(out, ",\"line\":%d", f->sym.line);
		}
		fprintf(out, ",\"calls\":%" PRIu64 ",\"self\":", f->calls);
		json_values(out, f->self, r->nev);
		fputs(",\"total\":", out);
		json_values(out, f->total, r->nev);
		fputc('}', out);
	}
	fputs("],\n\"arcs\":[", out);
	for (unsigned i = 0; i < r->n_arcs; i++) {
		const struct pv_rarc *a = &r->arcs[i];
		fputs(i ? ",\n" : "\n", out);
		if (a->caller < 0)
			fputs("{\"caller\":null", out);
		else
			fprintf(out, "{\"caller\":%d", a->caller);
		fprintf(out, ",\"callee\":%d,\"calls\":%" PRIu64 ",\"total\":", a->callee, a->calls);
		json_values(out, a->total, r->nev);
		fputc('}', out);
	}
	fputs("]}\n", out);
	return ferror(out) ? -1 : 0;
}
