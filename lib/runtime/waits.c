/* SPDX-License-Identifier: MIT */
#include "runtime/waits.h"

const char pv_wait_markers[PV_WAIT_COUNT];

static const char *const wait_names[PV_WAIT_COUNT] = {
#define PV_WAIT_NAME(name) #name,
	PV_WAITS(PV_WAIT_NAME)
#undef PV_WAIT_NAME
};

const char *pv_wait_name(const void *fn)
{
	const char *c = fn;
	return c >= pv_wait_markers && c < pv_wait_markers + PV_WAIT_COUNT
		       ? wait_names[c - pv_wait_markers]
		       : 0;
}
