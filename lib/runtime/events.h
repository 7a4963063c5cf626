/* SPDX-License-Identifier: MIT */
/*
 * events.h — PROFVIZ_EVENTS: event names as perf spells them, to perf attrs.
 *
 * Accepted, comma-separated:
 *   tsc                                  the time-stamp counter, in ns
 *   cycles, instructions, ...            generic hardware events
 *   task-clock, page-faults, ...         software events
 *   L1-dcache-load-misses, LLC-loads ... hardware cache events
 *   r1a8                                 raw event, hex
 *   cpu/event=0x3c,umask=0x0/            a PMU with terms from sysfs formats
 *   cpu/mem-loads/                       a PMU's sysfs event alias
 *   INST_RETIRED:ANY_P, perf::...        libpfm4 names, where libpfm4 is installed
 * Bad items are reported (naming the item and why) and left out.
 */
#ifndef PV_EVENTS_H
#define PV_EVENTS_H

#include "runtime/counters.h"

#define PV_SYSFS_ROOT "/sys"

/* Parse list into out, reporting each bad item through pv_log. sysfs is the
 * root to find PMUs under (PV_SYSFS_ROOT but in tests). Returns out->n. */
unsigned pv_events_parse(const char *list, const char *sysfs, struct pv_event_set *out);

#endif /* PV_EVENTS_H */
