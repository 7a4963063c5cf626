/* SPDX-License-Identifier: MIT */
/* The table of formats: which writer each file name gets, and the list of
 * extensions that messages quote. */
#include <string.h>

#include "output/file.h"
#include "tap.h"

static int writes_with(const char *path, pv_writer_fn *writer)
{
	const struct pv_format *f = pv_output_format_of(path);
	return f && f->write == writer;
}

/* Where one output goes, for a process told apart by tag. */
static const char *path_for(const char *template, int pid, struct pv_output_tag tag)
{
	static char out[256];
	struct pv_output o;
	memset(&o, 0, sizeof(o));
	strcpy(o.path, template);
	if (pv_output_path(&o, pid, tag, out, sizeof(out)) < 0)
		return "(too long)";
	return out;
}

static void test_paths(void)
{
	struct pv_output_tag plain = { 0 }, child = { .child_pid = 77 },
			     exec2 = { .exec_n = 2 }, both = { .child_pid = 77, .exec_n = 1 };
	tap_ok(!strcmp(path_for("/d/prof.dot", 5, plain), "/d/prof.dot"), "path: as given");
	tap_ok(!strcmp(path_for("/d/prof.%p.json", 5, plain), "/d/prof.5.json"), "path: %%p expanded");
	tap_ok(!strcmp(path_for("/d/a%%b.dot", 5, plain), "/d/a%b.dot"), "path: %%%% is a %%");
	tap_ok(!strcmp(path_for("/d/prof.dot", 5, child), "/d/prof.77.dot"),
	       "path: a forked child's .PID before the extension");
	tap_ok(!strcmp(path_for("/d/prof.%p.dot", 77, child), "/d/prof.77.dot"),
	       "path: no .PID added when the name has %%p");
	tap_ok(!strcmp(path_for("/d/prof.json", 5, exec2), "/d/prof.exec2.json"),
	       "path: .execN before the extension");
	tap_ok(!strcmp(path_for("/d.x/prof.folded", 5, both), "/d.x/prof.77.exec1.folded"),
	       "path: both tags, before the file's own extension");
	char name[300];
	memset(name, 'a', sizeof(name));
	strcpy(name + 246, ".dot"); /* 250 characters: 9 more do not fit in 256 */
	tap_ok(!strcmp(path_for(name, 5, plain), name), "path: a long name that fits is kept");
	tap_ok(!strcmp(path_for(name, 5, both), "(too long)"),
	       "path: a name that no longer fits with its tags is refused, not cut");
}

int main(void)
{
	test_paths();
	tap_ok(writes_with("prof.dot", pv_write_dot), ".dot: the graphviz writer");
	tap_ok(writes_with("out/prof.%p.json", pv_write_json), ".json: the JSON writer");
	tap_ok(writes_with("/tmp/a.b/prof.folded", pv_write_folded), ".folded: the folded writer");
	tap_ok(!strcmp(pv_output_format_of("x.json")->extension, ".json"), "the extension kept");
	tap_ok(!pv_output_format_of("prof.txt"), "an unknown extension has no format");
	tap_ok(!pv_output_format_of("prof.dot.bak"), "only the last extension counts");
	tap_ok(!pv_output_format_of("dir.dot/prof"), "a dot in a directory is no extension");
	tap_ok(!pv_output_format_of("prof") && !pv_output_format_of(""), "no extension at all");
	tap_ok(!pv_output_format_of("prof.DOT"), "extensions are matched exactly");

	char list[64];
	pv_output_extensions(list, sizeof(list));
	if (!tap_ok(!strcmp(list, ".dot, .json, .folded, .pb.gz, .callgrind or .speedscope.json"), "the extensions, as a message says them"))
		printf("#   got '%s'\n", list);
	char shorter[8];
	pv_output_extensions(shorter, sizeof(shorter));
	tap_ok(!strcmp(shorter, ".dot, ."), "a short buffer gets a cut, terminated list");
	return tap_done();
}
