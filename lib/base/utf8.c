/* SPDX-License-Identifier: MIT */
/* utf8.c — well-formed UTF-8, as RFC 3629 defines it. */
#include "base/utf8.h"

static int continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

size_t pv_utf8_sequence(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return continuation(s[1]) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* not overlong (e0 a0..), not a surrogate (ed ..9f) */
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && continuation(s[2]) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && continuation(s[2]) && continuation(s[3]) ? 4 : 0;
	}
	return 0;
}

void pv_json_text(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
		switch (*c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*c < 0x20) {
				fprintf(out, "\\u%04x", *c);
			} else {
				size_t n = pv_utf8_sequence(c);
				if (!n)
					fputs("\\ufffd", out);
				else
					fwrite(c, 1, n, out);
				c += n ? n - 1 : 0;
			}
		}
	}
}
