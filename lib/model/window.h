/* SPDX-License-Identifier: MIT */
/*
 * window.h — the profile of a window of the run: what a profile taken at
 * its end holds beyond one taken at its start.
 *
 * Every figure of a profile only grows while the run goes on (calls,
 * samples, costs; an open call's cost counted as if it returned at the
 * snapshot), so the window's is the difference, record by record. A call
 * open across the window's start is counted before it, and its cost
 * within the window is the window's: the call paths stay whole, and a
 * window that opens in the middle of a path charges the right one.
 */
#ifndef PV_WINDOW_H
#define PV_WINDOW_H

#include "model/profile.h"

/* Take from now (a profile taken later) everything then holds, leaving the
 * window between them; drop what the window did not touch (start-up's
 * functions). The threads of the window are those that ran in it. */
void pv_profile_since(struct pv_profile *now, const struct pv_profile *then);

#endif /* PV_WINDOW_H */
