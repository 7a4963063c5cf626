/* SPDX-License-Identifier: MIT */
#include "base/nearest.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int same_letter(const char *a, const char *b)
{
	return !strncasecmp(a, b, 1);
}

size_t pv_edit_distance(const char *a, const char *b, size_t nb, size_t most)
{
	size_t na = strlen(a);
	if ((na > nb ? na - nb : nb - na) > most) /* names can be long, and many */
		return most + 1;
	/* Three rows of the table: the one before last, for swaps. */
	size_t *rows = malloc(3 * (nb + 1) * sizeof(*rows));
	if (!rows)
		return most + 1;
	size_t *before = rows, *last = rows + nb + 1, *row = rows + 2 * (nb + 1);
	for (size_t j = 0; j <= nb; j++)
		last[j] = j;
	for (size_t i = 1; i <= na; i++) {
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t best = last[j - 1] + !same_letter(a + i - 1, b + j - 1);
			if (last[j] + 1 < best)
				best = last[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && same_letter(a + i - 1, b + j - 2) &&
			    same_letter(a + i - 2, b + j - 1) && before[j - 2] + 1 < best)
				best = before[j - 2] + 1;
			row[j] = best;
		}
		size_t *oldest = before;
		before = last;
		last = row;
		row = oldest;
	}
	size_t d = last[nb];
	free(rows);
	return d > most ? most + 1 : d;
}

size_t pv_edits_allowed(const char *typed)
{
	size_t len = strlen(typed);
	return len / 4 > 2 ? len / 4 : 2;
}

const char *pv_nearest_name(const char *typed, const char *const *names, size_t n,
			    size_t most)
{
	size_t best = most + 1;
	const char *nearest = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = pv_edit_distance(typed, names[i], strlen(names[i]), most);
		if (d < best) {
			best = d;
			nearest = names[i];
		}
	}
	return nearest;
}
