/* SPDX-License-Identifier: MIT */
/*
 * hotlines.h — `profviz report --lines FUNC`: where inside one function its
 * sampled time went, line by line, as perf annotate's summary shows it.
 */
#ifndef PV_CMD_HOTLINES_H
#define PV_CMD_HOTLINES_H

#include "cmd/cmd.h"

/* Print the hot lines of the function of l named func (all its copies
 * together): each line's share of the samples in its code, hottest first,
 * with the line's text when its file can be read here; colour when asked.
 * 0; -1 after a message when there is no such function, or the run sampled
 * no program counters. */
int pv_print_hot_lines(const struct pv_loaded *l, const char *func, int colour);

#endif /* PV_CMD_HOTLINES_H */
