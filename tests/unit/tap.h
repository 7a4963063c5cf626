/* SPDX-License-Identifier: MIT */
/* tap.h — just enough TAP for the unit tests; prove reads it. */
#ifndef PV_TAP_H
#define PV_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%sok %d - ", cond ? "" : "not ", ++tap_count);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	tap_failed += !cond;
	return cond;
}

#define tap_is(got, want, ...)                                                          \
	do {                                                                            \
		uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);              \
		if (!tap_ok(got_ == want_, __VA_ARGS__))                                \
			printf("#   got %" PRIu64 ", want %" PRIu64 "\n", got_, want_);     \
	} while (0)

static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}

#endif
