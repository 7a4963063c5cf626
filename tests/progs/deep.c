/* SPDX-License-Identifier: MIT */
/* Deep recursion on a thread with a large stack. usage: deep FRAMES */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long descend(long n)
{
	if (n == 0)
		return 0;
	return 1 + descend(n - 1);
}

static void *run(void *arg)
{
	long n = (long)arg;
	printf("%ld\n", descend(n));
	return NULL;
}

int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)n * 128 + (1 << 20));
	pthread_t t;
	pthread_create(&t, &attr, run, (void *)n);
	pthread_join(t, NULL);
	return 0;
}
