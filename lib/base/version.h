/* SPDX-License-Identifier: MIT */
/*
 * version.h — profviz's version, one string for the command (--version),
 * the runtime's start-up line, the JSON it writes and the man page.
 */
#ifndef PV_VERSION_H
#define PV_VERSION_H

/* "0.1.0" from a release or a tarball; between releases, git describe's
 * form: "0.1.0-3-g76e33a0", or "0.1.0-g76e33a0" before the first tag,
 * "-dirty" after it when the checkout had changes (the Makefile). */
extern const char pv_version[];

#endif /* PV_VERSION_H */
