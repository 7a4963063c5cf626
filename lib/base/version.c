/* SPDX-License-Identifier: MIT */
#include "base/version.h"

/* The Makefile passes it to this file alone, and rebuilds it when it
 * changes. */
#ifndef PV_VERSION
#error "PV_VERSION: build with the Makefile, which passes it"
#endif

const char pv_version[] = PV_VERSION;
