/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the PROFVIZ_EVENTS parser, against this machine's sysfs
 * (and libpfm4 when installed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/events.h"
#include "base/log.h"

static void quiet(const char *line)
{
	(void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pv_log_set_sink(quiet);
	char *list = malloc(size + 1);
	memcpy(list, data, size);
	list[size] = '\0';
	struct pv_event_set set;
	unsigned n = pv_events_parse(list, PV_SYSFS_ROOT, &set);
	if (n > PV_MAX_EVENTS || n != set.n)
		abort();
	for (unsigned i = 0; i < n; i++)
		if (!memchr(set.ev[i].name, '\0', sizeof(set.ev[i].name)))
			abort();
	free(list);
	return 0;
}
