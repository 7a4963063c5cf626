/* SPDX-License-Identifier: MIT */
/*
 * utf8.h — text from the program (paths, names) may hold any bytes; the
 * formats that carry it (JSON, dot) must hold UTF-8. Sequences are checked
 * here, once (utf8.c).
 */
#ifndef PV_UTF8_H
#define PV_UTF8_H

#include <stddef.h>
#include <stdio.h>

/* The length of the well-formed UTF-8 sequence at s (1-4), or 0 when the
 * bytes there are not one (a stray or overlong byte, a cut sequence). */
size_t pv_utf8_sequence(const unsigned char *s);

/* s as the inside of a JSON string: escaped, and a byte that is not part
 * of a well-formed sequence written as U+FFFD. */
void pv_json_text(FILE *out, const char *s);

#endif /* PV_UTF8_H */
