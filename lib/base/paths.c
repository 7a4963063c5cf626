/* SPDX-License-Identifier: MIT */
#include "base/paths.h"

#include <string.h>

void pv_path_normalise(char *path)
{
	int absolute = path[0] == '/';
	char *out = path + absolute; /* where the next kept component goes */
	char *floor = out;           /* ".." may not remove what lies before here */
	const char *in = out;
	for (int last = !*in; !last;) {
		const char *end = strchr(in, '/');
		size_t n = end ? (size_t)(end - in) : strlen(in);
		/* Writing may overwrite in's terminator: decide the end first. */
		last = end == NULL;
		if (n == 0 || (n == 1 && in[0] == '.')) {
			/* an empty or "." component: nothing to keep */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			if (out > floor) {
				/* Drop the last kept component (and its slash). */
				out--; /* past the slash after it */
				while (out > floor && out[-1] != '/')
					out--;
			} else if (!absolute) {
				memmove(out, "../", 3);
				out += 3;
				floor = out; /* a leading ".." is never removed */
			}
		} else {
			memmove(out, in, n);
			out += n;
			*out++ = '/';
		}
		if (!last)
			in = end + 1;
	}
	if (out > path + absolute && out[-1] == '/')
		out--; /* no trailing slash */
	if (out == path) /* nothing left of a relative path */
		*out++ = '.';
	*out = '\0';
}

const char *pv_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}
