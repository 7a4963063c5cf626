/* SPDX-License-Identifier: MIT */
/* Linked into a native twin (bench/realprogs.py, threaded_twin): one thread
 * that sleeps for the whole run, started before main, as profviz's sampler
 * thread is. glibc then takes its multi-threaded paths (malloc's locks,
 * stdio's): what any second thread, doing nothing, costs the program. */
#include <pthread.h>
#include <unistd.h>

static void *sleep_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

__attribute__((constructor)) static void start_idle_thread(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, sleep_forever, NULL) == 0)
		pthread_detach(t);
}
