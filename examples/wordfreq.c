/* SPDX-License-Identifier: MIT */
/*
 * wordfreq — the demo: count words in generated text and print the top ten.
 *
 *   gcc -O2 -g -finstrument-functions \
 *       -finstrument-functions-exclude-file-list=.h,/usr/include/ wordfreq.c -o wordfreq
 *   LD_PRELOAD=../profviz.so ./wordfreq
 *   dot -Tsvg prof.dot -o prof.svg
 *
 * Tokenising, hashing, table look-ups and sorting each show up in the graph
 * with their share of the time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char word[32];
	unsigned count;
	struct entry *next;
};

#define BUCKETS 4096
static struct entry *table[BUCKETS];
static struct entry pool[65536];
static unsigned used;

static unsigned long next_random(unsigned long *state)
{
	*state = *state * 6364136223846793005ul + 1442695040888963407ul;
	return *state >> 33;
}

static size_t make_text(char *buf, size_t size, unsigned long seed)
{
	static const char *syllables[] = { "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo" };
	size_t n = 0;
	while (n + 16 < size) {
		/* Zipf-like: short words are far more frequent. */
		int len = 1 + (int)(next_random(&seed) % 3) * (int)(next_random(&seed) % 2);
		for (int i = 0; i < len; i++) {
			const char *s = syllables[next_random(&seed) % 8];
			buf[n++] = s[0];
			buf[n++] = s[1];
		}
		buf[n++] = ' ';
	}
	buf[n] = '\0';
	return n;
}

static unsigned hash_word(const char *w)
{
	unsigned h = 2166136261u;
	while (*w)
		h = (h ^ (unsigned char)*w++) * 16777619u;
	return h;
}

static struct entry *lookup(const char *w)
{
	unsigned b = hash_word(w) % BUCKETS;
	for (struct entry *e = table[b]; e; e = e->next)
		if (!strcmp(e->word, w))
			return e;
	if (used == sizeof(pool) / sizeof(pool[0]))
		return NULL;
	struct entry *e = &pool[used++];
	strncpy(e->word, w, sizeof(e->word) - 1);
	e->next = table[b];
	table[b] = e;
	return e;
}

static void count_words(char *text)
{
	for (char *w = strtok(text, " "); w; w = strtok(NULL, " ")) {
		struct entry *e = lookup(w);
		if (e)
			e->count++;
	}
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a;
	const struct entry *y = *(const struct entry *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->word, y->word);
}

static void report(void)
{
	struct entry **all = malloc(used * sizeof(*all));
	for (unsigned i = 0; i < used; i++)
		all[i] = &pool[i];
	qsort(all, used, sizeof(*all), by_count);
	for (unsigned i = 0; i < 10 && i < used; i++)
		printf("%8u %s\n", all[i]->count, all[i]->word);
	free(all);
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
	/* Counted again and again: a profile of sampled time wants a second or
	 * two of CPU for its shares to be good to a point or so. */
	unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1;
	char *text = malloc(size);
	for (unsigned r = 0; r < rounds; r++) {
		make_text(text, size, 42 + r); /* strtok cuts the text up */
		count_words(text);
	}
	report();
	free(text);
	return 0;
}
