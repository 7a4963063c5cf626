/* SPDX-License-Identifier: MIT */
#include "output/format.h"

#include <stdio.h>
#include <string.h>

#include "base/paths.h"

static const struct pv_format formats[] = {
	{ ".dot", pv_write_dot, 0 },
	{ ".json", pv_write_json, 0 },
	{ ".folded", pv_write_folded, 1 },
	{ ".pb.gz", pv_write_pprof, 1 },
	{ ".callgrind", pv_write_callgrind, 0 },
	{ ".speedscope.json", pv_write_speedscope, 1 },
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* An extension is the end of the file's name after a dot: ".pb.gz" has
 * two, so the longest that matches wins. Failing one, a base name like
 * callgrind's own files' (callgrind.out.%p) asks for the callgrind format:
 * KCachegrind offers files by that name. */
const struct pv_format *pv_output_format_of(const char *path)
{
	const char *base = pv_path_base(path);
	size_t len = strlen(base);
	const struct pv_format *best = NULL;
	for (size_t i = 0; i < N_FORMATS; i++) {
		size_t n = strlen(formats[i].extension);
		if (n <= len && !strcmp(base + len - n, formats[i].extension) &&
		    (!best || n > strlen(best->extension)))
			best = &formats[i];
	}
	if (!best && !strncmp(base, "callgrind.out", strlen("callgrind.out")))
		return pv_output_format_of(".callgrind");
	return best;
}

void pv_output_extensions(char *out, size_t size)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < N_FORMATS && n < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 < N_FORMATS ? ", " : " or ";
		n += (size_t)snprintf(out + n, size - n, "%s%s", sep, formats[i].extension);
	}
}
