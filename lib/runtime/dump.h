/* SPDX-License-Identifier: MIT */
/*
 * dump.h — the profile as it stands, taken and written (dump.c): what the
 * exit, an exec, profviz_dump and a window (window.h) write.
 */
#ifndef PV_DUMP_H
#define PV_DUMP_H

#include <stddef.h>

#include "base/compiler.h"
#include "model/profile.h"
#include "output/file.h"
#include "runtime/hotpcs.h"

/* The profile at an instant: the ended threads' and the live ones' as they
 * stand, with the hot PCs sampled so far. */
struct pv_snapshot {
	struct pv_profile profile;
	struct pv_hotpc *pcs; /* malloc'd, n_pcs of them, in no order */
	size_t n_pcs;
	struct pv_hotpcs_account pcs_read;
	double wall_seconds; /* a window's length (window.c); 0: the run's, from its start */
};

/* Take it (at_exit: the process ends, so this thread's open frames are
 * closed and nothing more is recorded), under the runtime's lock with
 * signals blocked. */
PV_HIDDEN void pv_snapshot_take(struct pv_snapshot *s, int at_exit);
PV_HIDDEN void pv_snapshot_free(struct pv_snapshot *s);

/* pv_snapshot_write found nothing to write: no file was touched. */
#define PV_NOTHING_WRITTEN 1

/* Write s to every configured output, named as tag says. 0, -1 if a file
 * could not be written, or PV_NOTHING_WRITTEN when s holds no function. */
PV_HIDDEN int pv_snapshot_write(struct pv_snapshot *s, struct pv_output_tag tag);

#endif /* PV_DUMP_H */
