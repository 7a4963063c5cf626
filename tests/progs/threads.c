/* SPDX-License-Identifier: MIT */
/* Threads: joined workers, a detached one still running at exit, and churn.
 * usage: threads WORKERS CALLS CHURN [rss-file] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile long sink;
static volatile int spinner_calls;

static void unit_of_work(long i)
{
	sink += i;
}

static void *worker(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < n; i++)
		unit_of_work(i);
	return NULL;
}

static void spin_step(void)
{
	__atomic_add_fetch(&spinner_calls, 1, __ATOMIC_SEQ_CST);
	usleep(100);
}

static void *spinner(void *arg)
{
	(void)arg;
	for (;;)
		spin_step();
	return NULL;
}

static void short_task(void)
{
	sink++;
}

static void *short_lived(void *arg)
{
	(void)arg;
	short_task();
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = atoi(argv[1]);
	long calls = atol(argv[2]);
	int churn = atoi(argv[3]);
	pthread_t tid[64];
	for (int i = 0; i < workers; i++)
		pthread_create(&tid[i], NULL, worker, (void *)calls);
	for (int i = 0; i < workers; i++)
		pthread_join(tid[i], NULL);

	long rss_before = 0;
	struct rusage ru;
	for (int i = 0; i < churn; i++) {
		pthread_t t;
		pthread_create(&t, NULL, short_lived, NULL);
		pthread_join(t, NULL);
		if (i == churn / 10) {
			getrusage(RUSAGE_SELF, &ru);
			rss_before = ru.ru_maxrss;
		}
	}
	getrusage(RUSAGE_SELF, &ru);
	if (argc > 4) {
		FILE *f = fopen(argv[4], "w");
		fprintf(f, "%ld %ld\n", rss_before, ru.ru_maxrss);
		fclose(f);
	}

	pthread_t detached;
	pthread_create(&detached, NULL, spinner, NULL);
	pthread_detach(detached);
	while (__atomic_load_n(&spinner_calls, __ATOMIC_SEQ_CST) < 20)
		usleep(100);
	printf("done\n");
	return 0;
}
