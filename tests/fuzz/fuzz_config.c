/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the PROFVIZ_* parser. The input is split at newlines
 * into the values of the variables, in the order of names[]; the first byte
 * also picks whether the program is setuid. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/config.h"
#include "base/log.h"

static const char *names[] = { "PROFVIZ_OUTPUT", "PROFVIZ_QUIET", "PROFVIZ_NODE_THRESHOLD",
			       "PROFVIZ_EDGE_THRESHOLD", "PROFVIZ_EVENTS", "PROFVIZ_DISABLE",
			       "PROFVIZ_CHILDREN" };
#define NVARS (sizeof(names) / sizeof(names[0]))
static char *values[NVARS];

static const char *fake_getenv(const char *name)
{
	for (size_t i = 0; i < NVARS; i++)
		if (!strcmp(names[i], name))
			return values[i];
	return NULL;
}

static void quiet(const char *line)
{
	(void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pv_log_set_sink(quiet);
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	char *p = copy;
	for (size_t i = 0; i < NVARS; i++) {
		values[i] = p;
		if (!p)
			continue;
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		p = nl ? nl + 1 : NULL;
	}
	struct pv_config c;
	pv_config_load(&c, fake_getenv, size && (data[0] & 1));
	if (c.n_outputs < 1 || c.n_outputs > PV_MAX_OUTPUTS)
		abort();
	if (!(c.node_threshold >= 0 && c.node_threshold <= 100))
		abort();
	for (unsigned i = 0; i < c.n_outputs; i++) {
		if (!c.outputs[i].format)
			abort(); /* every output kept has a writer */
		char out[64];
		pv_expand_path(c.outputs[i].path, 1234, out, sizeof(out));
	}
	free(copy);
	return 0;
}
