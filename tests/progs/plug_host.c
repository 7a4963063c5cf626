/* SPDX-License-Identifier: MIT */
/* usage: plug_host PLUG_A.so PLUG_B.so
 * Loads A and calls it from three threads, one of which ends there; unloads
 * A, loads B (where A was), calls B from the two others; unloads B and
 * loads A again (where it was), calls it once more, and prints whether each
 * object did land at the first one's place. A stays loaded to the end. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void entry_fn(int);
static entry_fn *entry;
static pthread_barrier_t step;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&step); /* A loaded */
	entry(1000);
	pthread_barrier_wait(&step); /* called */
	pthread_barrier_wait(&step); /* A unloaded, B loaded */
	entry(400);
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	entry(500);
	return NULL;
}

static void *load(const char *path, const char *name, void **where)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		printf("%s\n", dlerror());
		return NULL;
	}
	entry = (entry_fn *)dlsym(h, name);
	*where = (void *)entry;
	return h;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	void *a_at, *b_at, *again_at;
	pthread_t t;
	pthread_barrier_init(&step, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	void *a = load(argv[1], "plug_a_entry", &a_at);
	if (!a)
		return 1;
	pthread_barrier_wait(&step);
	entry(2000);
	pthread_t ended;
	pthread_create(&ended, NULL, short_lived, NULL);
	pthread_join(ended, NULL);
	pthread_barrier_wait(&step);
	dlclose(a);
	void *b = load(argv[2], "plug_b_entry", &b_at);
	if (!b)
		return 1;
	pthread_barrier_wait(&step);
	entry(600);
	pthread_join(t, NULL);
	dlclose(b);
	if (!load(argv[1], "plug_a_entry", &again_at))
		return 1;
	entry(100);
	printf("B: %s\n", b_at == a_at ? "same place" : "elsewhere");
	printf("A again: %s\n", again_at == a_at ? "same place" : "elsewhere");
	return 0;
}
