/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a saved profile as the command reads it, then every
 * writer and every view on what was read, and again with its last event
 * leading. Whatever the file, reading it
 * either fails with a message or gives a report the writers can take. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "model/view.h"
#include "output/format.h"

static const char *const extensions[] = { "x.dot", "x.json", "x.folded", "x.pb.gz",
					  "x.callgrind", "x.speedscope.json" };

static void write_all(const struct pv_report *r)
{
	for (size_t i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++) {
		char *text = NULL;
		size_t size = 0;
		FILE *out = open_memstream(&text, &size);
		if (!out)
			continue;
		pv_output_format_of(extensions[i])->write(out, r);
		fclose(out);
		free(text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pv_loaded l;
	if (pv_load_buffer("fuzz.json", (const char *)data, size, &l) < 0)
		return 0;
	write_all(&l.r);
	/* The last event in front, every figure with it, sorted again. */
	if (l.r.nev > 1 && pv_lead_with_event(&l, l.events[l.r.nev - 1].name) == 0)
		write_all(&l.r);
	char *first = calloc(l.r.n_funcs + 1, 1); /* the view of function 0 */
	if (first)
		first[0] = 1;
	/* Each kind of part, its waits inside and apart. */
	for (int kind = PV_VIEW_WHOLE; kind <= PV_VIEW_ROOT && l.r.n_paths && first; kind++)
		for (int apart = 0; apart < 2; apart++) {
			struct pv_view v = { (enum pv_view_kind)kind, first,
					     kind == PV_VIEW_WHOLE ? 2 : 0, apart };
			struct pv_report part;
			if (l.r.n_funcs && pv_view_build(&part, &l.r, &v) == 0) {
				part.max_nodes = 3;
				write_all(&part);
				pv_report_free(&part);
			}
		}
	free(first);
	pv_loaded_free(&l);
	return 0;
}
