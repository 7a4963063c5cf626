/* SPDX-License-Identifier: MIT */
/* Shapes for the speedscope file: functions called 3, 5, 7 and 8 times, one
 * reached by several paths, a recursion, one touching fresh pages so that a
 * count event (page-faults) has a cost of its own, and two threads whose
 * paths, merged, are not in depth-first order: the second thread's
 * worker;middle;leaf_b goes under the first's worker;middle, yet is merged
 * after worker;leaf_b (a thread's tree lists the latest callee first). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static volatile double sink;

static void spin(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

static void leaf_a(void)
{
	spin(400000);
}

static void leaf_b(void)
{
	spin(100000);
}

static void middle(int i)
{
	if (i == 1)
		leaf_b();
	else
		leaf_a();
}

static int walk(int depth)
{
	spin(50000);
	return depth ? walk(depth - 1) + 1 : 0;
}

/* Fresh pages each time: a page fault per page. */
static void touch_pages(size_t bytes)
{
	char *p = malloc(bytes);
	if (!p)
		return;
	memset(p, 1, bytes);
	sink = p[bytes / 2];
	free(p);
}

static void *worker(void *kind)
{
	middle(kind ? 1 : 0);
	if (kind)
		leaf_b();
	return NULL;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		middle(i);
	for (int i = 0; i < 5; i++)
		leaf_b();
	walk(6);
	touch_pages(8 << 20);
	for (intptr_t kind = 0; kind < 2; kind++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)kind) == 0)
			pthread_join(t, NULL);
	}
	return 0;
}
