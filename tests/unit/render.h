/* SPDX-License-Identifier: MIT */
/* render.h — a writer's output on a report, in memory, for the unit tests
 * that read what it wrote. */
#ifndef PV_TEST_RENDER_H
#define PV_TEST_RENDER_H

#include <stdio.h>
#include <stdlib.h>

#include "output/format.h"

/* What writer wrote of r (malloc'd), or NULL if it failed. */
static char *render(pv_writer_fn *writer, const struct pv_report *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	int rc = writer(out, r);
	fclose(out);
	if (rc != 0) {
		free(text);
		return NULL;
	}
	return text;
}

#endif
