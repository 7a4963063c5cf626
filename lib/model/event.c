/* SPDX-License-Identifier: MIT */
#include "model/event.h"

#include <stdio.h>
#include <string.h>

#include "base/compiler.h"
#include "base/nametable.h"

static const char *const kind_names[] = {
	[PV_EVENT_COUNT] = "count",
	[PV_EVENT_TIME] = "time",
	[PV_EVENT_CYCLES] = "cycles",
	[PV_EVENT_SAMPLED] = "sampled",
};

const char *pv_event_kind_name(enum pv_event_kind k)
{
	return pv_name_of(kind_names, PV_ARRAY_SIZE(kind_names), (unsigned)k, "count");
}

int pv_event_kind_named(const char *name, enum pv_event_kind *k)
{
	int v = pv_value_named(kind_names, PV_ARRAY_SIZE(kind_names), name);
	if (v >= 0)
		*k = (enum pv_event_kind)v;
	return v >= 0;
}

enum pv_event_kind pv_event_kind_of(const char *name, const char *unit)
{
	/* perf's generic names for cycles, as PROFVIZ_EVENTS accepts them. */
	static const char *const cycles[] = { "cycles", "cpu-cycles", "ref-cycles" };
	if (!strcmp(unit, "ns"))
		return PV_EVENT_TIME;
	for (unsigned i = 0; i < PV_ARRAY_SIZE(cycles); i++)
		if (!strcmp(name, cycles[i]))
			return PV_EVENT_CYCLES;
	return PV_EVENT_COUNT;
}

void pv_event_describe(struct pv_event_desc *d, const char *name, enum pv_event_kind kind,
		       const char *backend)
{
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->kind = kind;
	snprintf(d->backend, sizeof(d->backend), "%s", backend);
}
