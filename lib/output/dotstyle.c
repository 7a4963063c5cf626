/* SPDX-License-Identifier: MIT */
/* dotstyle.c — how profviz's graphs look, shared by the runtime's graph
 * (dot.c) and the command's change graph (cmd/diff.c). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "output/dotstyle.h"
#include "base/utf8.h"

/* Write s as the inside of a dot string, cut at max bytes with "...".
 * graphviz wants UTF-8: a byte that is not part of a well-formed sequence
 * shows as '?', and the cut never splits a sequence. */
void pv_dot_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *c = (const unsigned char *)(s ? s : "");
	size_t used = 0;
	while (*c) {
		size_t n = pv_utf8_sequence(c);
		if (used + (n ? n : 1) > max) {
			fputs("...", out);
			return;
		}
		if (*c == '"' || *c == '\\')
			fputc('\\', out), fputc(*c, out);
		else if (!n || *c < 0x20 || *c == 0x7f)
			fputc('?', out);
		else
			fwrite(c, 1, n, out);
		used += n ? n : 1;
		c += n ? n : 1;
	}
}

void pv_hsl_to_hex(double h, double s, double l, char hex[8])
{
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s;
	double p = 2 * l - q;
	double rgb[3];
	for (int i = 0; i < 3; i++) {
		double t = h + (1 - i) / 3.0;
		t -= floor(t);
		double v;
		if (t < 1 / 6.0)
			v = p + (q - p) * 6 * t;
		else if (t < 0.5)
			v = q;
		else if (t < 2 / 3.0)
			v = p + (q - p) * (2 / 3.0 - t) * 6;
		else
			v = p;
		rgb[i] = v;
	}
	snprintf(hex, 8, "#%02x%02x%02x", (int)lround(rgb[0] * 255), (int)lround(rgb[1] * 255),
		 (int)lround(rgb[2] * 255));
}

/* Black text on light fills, white on dark (WCAG relative luminance). */
const char *pv_text_colour(const char hex[8])
{
	unsigned r, g, b;
	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return "white";
	double lum = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255.0;
	return lum > 0.5 ? "black" : "white";
}

/* An amount of event e, scaled to be read at a glance. Only the event's
 * unit decides how: a perf clock is as much a time as the TSC. */
void pv_dot_amount(FILE *out, double v, const struct pv_event_desc *e)
{
	static const struct {
		double size;
		const char *ns, *count;
	} steps[] = { { 1e9, "s", "G" }, { 1e6, "ms", "M" }, { 1e3, "us", "k" } };
	int time = pv_event_is_time(e);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (fabs(v) >= steps[i].size) {
			fprintf(out, "%.3f %s", v / steps[i].size, time ? steps[i].ns : steps[i].count);
			return;
		}
	fprintf(out, time ? "%.0f ns" : "%.0f", v);
}

const char *pv_name_params(const char *name)
{
	/* The balanced (...) that ends the name, before any qualifiers
	 * ("const", "&&"); "(anonymous namespace)" at the start is not one, nor
	 * is "(int)" inside template arguments of a name without parameters. */
	const char *end = name + strlen(name);
	const char *close = strrchr(name, ')');
	if (close && !strchr(close, '>')) {
		int depth = 0;
		for (const char *c = close; c >= name; c--) {
			depth += *c == ')' ? 1 : *c == '(' ? -1 : 0;
			if (depth == 0) {
				if (c > name)
					end = c;
				break;
			}
		}
	}
	return end;
}

/* name[0..end) with template arguments elided, into out (room for
 * 3 * strlen(name) + 1 bytes: "<>" becomes "<...>"). A name that starts
 * with '<' is one of the runtime's own ("<blocked: pthread_cond_wait>",
 * "<signal SIGALRM>"), kept whole: a C++ name never starts with one, its
 * template arguments follow a name. */
static void elide_templates(const char *name, const char *end, char *out)
{
	if (name[0] == '<') {
		strcpy(out, name);
		return;
	}
	size_t len = 0;
	int depth = 0;
	for (const char *c = name; c < end; c++) {
		if (c - name >= 8 && !strncmp(c - 8, "operator", 8) && strchr("<>", *c)) {
			/* operator<, operator<<=, operator->: the name's own */
			while (c < end && strchr("<>=-", *c))
				out[len++] = *c++;
			c--;
			continue;
		}
		if (*c == '<') {
			if (depth++ == 0) {
				memcpy(out + len, "<...", 4);
				len += 4;
			}
		} else if (*c == '>' && depth > 0) {
			if (--depth == 0)
				out[len++] = '>';
		} else if (depth == 0) {
			out[len++] = *c;
		}
	}
	out[len] = '\0';
}

char *pv_short_name(const char *name)
{
	char *out = malloc(3 * strlen(name) + 1);
	if (out)
		elide_templates(name, pv_name_params(name), out);
	return out;
}

char *pv_elided_name(const char *name)
{
	char *out = malloc(3 * strlen(name) + 1);
	if (out)
		elide_templates(name, name + strlen(name), out);
	return out;
}

void pv_dot_short_name(FILE *out, const char *name, size_t max)
{
	char *shown = pv_short_name(name);
	pv_dot_text(out, shown ? shown : name, max);
	free(shown);
}

void pv_dot_definition(FILE *out, const struct pv_symbol *sym, size_t name_max)
{
	pv_dot_text(out, sym->name, name_max);
	if (sym->file) {
		fputs("\\n", out);
		pv_dot_text(out, sym->file, 512);
		fprintf(out, ":%d", sym->line);
	}
	fputs("\\n", out);
	pv_dot_text(out, sym->module, 512);
}
