/* SPDX-License-Identifier: MIT */
/* A program with its own allocator, built instrumented like the rest of it:
 * a bump allocator that is only set up by the program's constructor, and a
 * constructor that allocates before main. It counts every call it serves and
 * says how many came before its constructor: the same numbers with and
 * without the preload mean the runtime never called into it. Messages go
 * out with write(2), so that stdio allocates nothing of its own. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char arena[64 << 20];
static size_t used;
static int ready; /* set by the program's constructor */
static unsigned long early, n_malloc, n_calloc, n_realloc, n_free;

static void *bump(size_t size)
{
	size_t start = (used + 15) & ~(size_t)15;
	if (size > sizeof(arena) - start - 16) {
		errno = ENOMEM;
		return NULL;
	}
	used = start + 16 + size;
	memcpy(arena + start, &size, sizeof(size)); /* realloc needs the old size */
	return arena + start + 16;
}

void *malloc(size_t size)
{
	n_malloc++;
	early += !ready;
	return bump(size);
}

void free(void *p)
{
	n_free++;
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	n_calloc++;
	early += !ready;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return bump(n * size); /* the arena is never reused: already zero */
}

void *realloc(void *old, size_t size)
{
	n_realloc++;
	early += !ready;
	char *p = bump(size);
	if (p && old) {
		size_t was;
		memcpy(&was, (char *)old - 16, sizeof(was));
		memcpy(p, old, was < size ? was : size);
	}
	return p;
}

static char *kept;

__attribute__((constructor)) static void set_up(void)
{
	ready = 1;
	kept = malloc(32);
	strcpy(kept, "allocated before main");
}

static int *grow(int *v, int n)
{
	v = realloc(v, (size_t)n * sizeof(*v));
	v[n - 1] = n;
	return v;
}

static void say(const char *s)
{
	ssize_t ignored = write(1, s, strlen(s));
	(void)ignored;
}

int main(void)
{
	int *v = calloc(1, sizeof(*v));
	for (int n = 2; n <= 5; n++)
		v = grow(v, n);
	for (int i = 0; i < 3; i++)
		free(malloc(100));
	free(v);
	char line[256];
	snprintf(line, sizeof(line),
		 "%s; before the constructor %lu, malloc %lu, calloc %lu, realloc %lu, free %lu\n",
		 kept, early, n_malloc, n_calloc, n_realloc, n_free);
	say(line);
	return 0;
}
