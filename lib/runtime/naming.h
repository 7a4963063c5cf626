/* SPDX-License-Identifier: MIT */
/*
 * naming.h — how the runtime names what its profile holds: the process's
 * own functions through libdw (symbols.h), and its stand-in addresses for
 * signal deliveries and libc's waits.
 */
#ifndef PV_RUNTIME_NAMING_H
#define PV_RUNTIME_NAMING_H

#include "model/report.h"
#include "runtime/symbols.h"

/* What the function at fn stands for: a signal's delivery, a libc wait (the
 * runtime's stand-in addresses), or a function of the program. */
enum pv_func_kind pv_runtime_kind_of(const void *fn);

/* A namer for pv_report_build over s (NULL: addresses stay unnamed, as
 * "module+0xoffset" or raw). */
struct pv_namer pv_runtime_namer(struct pv_symbolizer *s);

#endif /* PV_RUNTIME_NAMING_H */
