/* SPDX-License-Identifier: MIT */
/*
 * words.h — counts in the words a user reads: "1 function", "2 functions".
 */
#ifndef PV_BASE_WORDS_H
#define PV_BASE_WORDS_H

/* The "s" after a noun counted n times: "%u function%s", n, pv_s(n). */
static inline const char *pv_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

#endif /* PV_BASE_WORDS_H */
