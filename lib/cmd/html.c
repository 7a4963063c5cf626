/* SPDX-License-Identifier: MIT */
/*
 * html.c — `profviz html`: one offline page to explore a saved profile,
 * for a browser. It holds the call graph as SVG (the dot writer's graph,
 * laid out by graphviz's `dot`, run here as a child), the profile's JSON
 * itself, a map from the graph's boxes to the JSON's function ids, and the
 * page's own CSS and JS from viz/ (built into the command, viz_assets.S).
 * Nothing is fetched when the page is opened.
 *
 * The runtime does not write .html at exit: laying the graph out means
 * running graphviz, and spawning a child from inside a process that is
 * exiting (perhaps from a signal, with its locks in any state) is not safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/part.h"
#include "model/copies.h"
#include "model/view.h"
#include "output/file.h"
#include "output/format.h"
#include "model/trust.h"
#include "base/utf8.h"

extern char **environ;

/* viz_assets.S: each file of viz/ the page is made of, NUL-terminated. */
extern const char pv_viz_page_html[], pv_viz_style_css[], pv_viz_format_js[],
	pv_viz_model_js[], pv_viz_graph_js[], pv_viz_search_js[], pv_viz_table_js[],
	pv_viz_icicle_js[], pv_viz_panel_js[], pv_viz_main_js[];

static const char usage[] =
	"usage: profviz html [-n NODE%] [-e EDGE%] [--nodes N] [--waits HOW] [--thread NAME]\n"
	"                    -o OUT.html PROFILE.json\n"
	"One offline page to explore the profile: the call graph (pan, zoom, focus,\n"
	"hot path), search, a table of every function, and an icicle of the call paths.\n"
	"  -n, --node-threshold P  graph: hide functions under P% of the run (default 0.5)\n"
	"  -e, --edge-threshold P  graph: hide arcs under P% of the run (default 0.1)\n"
	"  --nodes N      graph: at most the N hottest functions (default "
	PV_TEXT(PV_DEFAULT_MAX_NODES) "; 0: no cap)\n"
	PV_WAITS_USAGE
	"  --thread NAME  the threads whose name holds NAME alone (main: the main\n"
	"                 thread)\n"
	"  -o OUT.html    the page (written atomically)\n"
	"The graph is laid out by graphviz's dot, which must be on PATH.\n";

void pv_help_html(FILE *out)
{
	fputs(usage, out);
}

/* What the page is made of besides the report; the writer finds it from the
 * report it is given (pv_output_write_file passes only that). */
struct page {
	struct pv_report r; /* first: the writer's argument */
	const char *json;   /* the profile as shown: the file as it was read, or its view
			     * with the waits apart (view.h) as the JSON writer writes it */
	size_t json_len;
	const char *svg;    /* from its <svg> element on */
	const int *box_of;  /* JSON function id -> the graph's box id */
};

/* Read a whole file into a NUL-terminated buffer. NULL after a message. */
static char *slurp(FILE *f, const char *what, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n + 1 < cap)
			break;
		char *bigger = realloc(buf, cap *= 2);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "profviz html: cannot read %s: %s\n", what,
			buf ? strerror(errno) : "out of memory");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The graph of r as SVG, from `dot -Tsvg` fed through a temporary file (no
 * pipe to deadlock on). NULL after a message. */
static char *layout_svg(const struct pv_report *r)
{
	FILE *in = tmpfile(), *out = tmpfile();
	char *svg = NULL;
	if (!in || !out) {
		fprintf(stderr, "profviz html: cannot make a temporary file: %s\n", strerror(errno));
		goto done;
	}
	if (pv_write_dot(in, r) < 0 || fflush(in) || fseek(in, 0, SEEK_SET)) {
		fprintf(stderr, "profviz html: cannot write the graph for dot\n");
		goto done;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
	posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
	char *argv[] = { "dot", "-Tsvg", NULL };
	pid_t pid;
	int err = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "profviz html: cannot run graphviz's dot (%s): install graphviz, "
			"or put dot on PATH\n", strerror(err));
		goto done;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (status != 0) {
		fprintf(stderr, "profviz html: dot failed (%s %d) on the graph\n",
			WIFSIGNALED(status) ? "signal" : "status",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		goto done;
	}
	size_t len;
	if (fseek(out, 0, SEEK_SET) == 0)
		svg = slurp(out, "dot's output", &len);
	if (svg && !strstr(svg, "<svg")) {
		fprintf(stderr, "profviz html: dot wrote no SVG\n");
		free(svg);
		svg = NULL;
	}
done:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return svg;
}

static int function_order(const void *x, const void *y)
{
	return pv_copies_compare(*(const struct pv_rfunc *const *)x,
				 *(const struct pv_rfunc *const *)y);
}

/* The dot writer merges the copies of a function defined in a header and
 * numbers its boxes afresh: map each of r's functions to its box, from the
 * same merge. (Which boxes the graph shows, the page reads from the SVG.)
 * NULL when memory ran out. */
static int *boxes_of(const struct pv_report *r)
{
	struct pv_report view;
	int *box_of = malloc((r->n_funcs ? r->n_funcs : 1) * sizeof(*box_of));
	if (!box_of || pv_copies_merge(r, &view) < 0) {
		free(box_of);
		return NULL;
	}
	const struct pv_rfunc **boxes = malloc((view.n_funcs + 1) * sizeof(*boxes));
	if (!boxes) {
		free(box_of);
		pv_copies_free(&view);
		return NULL;
	}
	for (unsigned b = 0; b < view.n_funcs; b++)
		boxes[b] = &view.funcs[b];
	qsort(boxes, view.n_funcs, sizeof(*boxes), function_order);
	for (unsigned i = 0; i < r->n_funcs; i++) {
		const struct pv_rfunc *f = &r->funcs[i];
		const struct pv_rfunc **box =
			bsearch(&f, boxes, view.n_funcs, sizeof(*boxes), function_order);
		box_of[i] = box ? (*box)->id : -1;
	}
	free(boxes);
	pv_copies_free(&view);
	return box_of;
}

/* Text inside <script type="application/json">: JSON has '<' only inside
 * strings, where \u003c means the same, so no "</script" or "<!--" can end
 * or confuse the element. */
static void put_script_json(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '<')
			fputs("\\u003c", out);
		else
			fputc(s[i], out);
}

/* A JSON string of text, or null, inside the page's script element. */
static void put_text_or_null(FILE *out, const char *text)
{
	char *json = NULL;
	size_t len = 0;
	FILE *mem = text ? open_memstream(&json, &len) : NULL;
	if (!mem) {
		fputs("null", out);
		return;
	}
	fputc('"', mem);
	pv_json_text(mem, text);
	fputc('"', mem);
	if (fclose(mem) == 0)
		put_script_json(out, json, len);
	else
		fputs("null", out);
	free(json);
}

/* dot's SVG inline: from <svg on (its XML declaration and doctype are not
 * HTML's); graphviz has escaped every text in it as XML. */
static void put_svg(FILE *out, const char *svg)
{
	fputs(strstr(svg, "<svg"), out);
}

static void put_box_map(FILE *out, const struct page *p)
{
	fputc('[', out);
	for (unsigned i = 0; i < p->r.n_funcs; i++)
		fprintf(out, "%s%d", i ? "," : "", p->box_of[i]);
	fputc(']', out);
}


/* The template's placeholders, each a comment alone: what goes there. */
static int put_part(FILE *out, const char *name, size_t len, const struct page *p)
{
	static const struct {
		const char *name;
		const char *text;
	} assets[] = {
		{ "style.css", pv_viz_style_css }, { "format.js", pv_viz_format_js },
		{ "model.js", pv_viz_model_js },   { "graph.js", pv_viz_graph_js },
		{ "search.js", pv_viz_search_js }, { "table.js", pv_viz_table_js },
		{ "icicle.js", pv_viz_icicle_js }, { "panel.js", pv_viz_panel_js },
		{ "main.js", pv_viz_main_js },
	};
	if (len == 3 && !strncmp(name, "svg", 3)) {
		put_svg(out, p->svg);
		return 0;
	}
	if (len == 7 && !strncmp(name, "profile", 7)) {
		put_script_json(out, p->json, p->json_len);
		return 0;
	}
	if (len == 5 && !strncmp(name, "boxes", 5)) {
		put_box_map(out, p);
		return 0;
	}
	if (len == 10 && !strncmp(name, "thresholds", 10)) { /* what was laid out */
		char text[1024];
		fprintf(out, "{\"node\":%.17g,\"arc\":%.17g,\"nodes\":%u,\"few\":%d,\"doubt\":",
			p->r.node_threshold, p->r.edge_threshold, p->r.max_nodes, PV_FEW_SAMPLES);
		put_text_or_null(out, pv_doubt_text(&p->r, 0, text, sizeof(text)) ? text : NULL);
		fputs(",\"sampling\":", out);
		put_text_or_null(out, pv_sampling_text(&p->r, 0, text, sizeof(text)) ? text : NULL);
		fputc('}', out);
		return 0;
	}
	for (size_t i = 0; i < sizeof(assets) / sizeof(assets[0]); i++)
		if (strlen(assets[i].name) == len && !strncmp(name, assets[i].name, len)) {
			fputs(assets[i].text, out);
			return 0;
		}
	return -1;
}

/* The template with its placeholders, "<!--@NAME-->", filled in. */
static int write_page(FILE *out, const struct pv_report *r)
{
	const struct page *p = (const struct page *)r; /* r is page.r, its first member */
	const char *t = pv_viz_page_html;
	for (;;) {
		const char *mark = strstr(t, "<!--@");
		if (!mark) {
			fputs(t, out);
			break;
		}
		fwrite(t, 1, (size_t)(mark - t), out);
		const char *name = mark + 5, *end = strstr(name, "-->");
		if (!end || put_part(out, name, (size_t)(end - name), p) < 0)
			return -1; /* a template that names no part: a build fault */
		t = end + 3;
	}
	return ferror(out) ? -1 : 0;
}

/* The JSON of r, the view the page shows, into *json. 0, or -1 after a
 * message. */
static int view_json(const struct pv_report *r, char **json, size_t *len)
{
	FILE *mem = open_memstream(json, len);
	if (!mem || pv_write_json(mem, r) < 0 || fclose(mem)) {
		fprintf(stderr, "profviz html: out of memory\n");
		return -1;
	}
	return 0;
}

int pv_cmd_html(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "node-threshold", required_argument, NULL, 'n' },
		{ "edge-threshold", required_argument, NULL, 'e' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "waits", required_argument, NULL, 'w' },
		{ "thread", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *thread = NULL;
	double node = PV_DEFAULT_NODE_THRESHOLD, edge = PV_DEFAULT_EDGE_THRESHOLD;
	unsigned long nodes = PV_DEFAULT_MAX_NODES;
	const char *output = NULL;
	int opt, inside = 0;
	while ((opt = getopt_long(argc, argv, "n:e:o:h", longs, NULL)) != -1) {
		int bad = 0;
		switch (opt) {
		case 'n': bad = pv_arg_percent("-n", optarg, &node); break;
		case 'e': bad = pv_arg_percent("-e", optarg, &edge); break;
		case 'N': bad = pv_arg_count("--nodes", optarg, &nodes); break;
		case 'w': bad = pv_arg_waits(optarg, &inside); break;
		case 'T': thread = optarg; break;
		case 'o': output = optarg; break;
		case 'h': pv_help_html(stdout); return 0;
		default: bad = 1; fputs(usage, stderr); break;
		}
		if (bad)
			return PV_EXIT_TROUBLE;
	}
	if (optind + 1 != argc || !output) {
		fputs(usage, stderr);
		return PV_EXIT_TROUBLE;
	}
	const char *path = argv[optind];
	/* Read once: the page embeds exactly the text the graph is made from
	 * (and a pipe can be read only once). */
	size_t json_len = 0;
	FILE *f = fopen(path, "r");
	char *json = f ? slurp(f, path, &json_len) : NULL;
	if (!f)
		fprintf(stderr, "profviz: %s: %s\n", path, strerror(errno));
	else
		fclose(f);
	struct pv_loaded l;
	if (!json || pv_load_buffer(path, json, json_len, &l) < 0) {
		free(json);
		return PV_EXIT_TROUBLE;
	}

	int status = PV_EXIT_TROUBLE, work = 0; /* work: p.r is a view of l's, to free */
	struct page p = { .r = l.r, .json = json, .json_len = json_len };
	char *svg = NULL, *shown_json = NULL;
	int *box_of = NULL;
	/* The page shows one view throughout, graph, table and all: the whole
	 * run's (or --thread's threads'), its waits apart unless asked inside. */
	struct pv_view_asked asked = { .waits_inside = inside, .thread = thread };
	struct pv_report *shown;
	if (pv_view_asked_show(&p.r, &l, &asked, "html", &shown) < 0)
		goto out;
	work = shown == &p.r;
	if (!work)
		p.r = l.r;
	if (work && view_json(&p.r, &shown_json, &p.json_len) < 0)
		goto out;
	if (work)
		p.json = shown_json;
	p.r.node_threshold = node;
	p.r.edge_threshold = edge;
	p.r.max_nodes = (unsigned)nodes;
	if (!(svg = layout_svg(&p.r)))
		goto out;
	if (!(box_of = boxes_of(&p.r))) {
		fprintf(stderr, "profviz html: out of memory\n");
		goto out;
	}
	p.svg = svg;
	p.box_of = box_of;
	status = pv_output_write_file(output, write_page, &p.r) < 0 ? PV_EXIT_TROUBLE : 0;
out:
	if (work > 0)
		pv_report_free(&p.r);
	free(json);
	free(shown_json);
	free(svg);
	free(box_of);
	pv_loaded_free(&l);
	return status;
}
