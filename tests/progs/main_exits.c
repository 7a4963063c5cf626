/* SPDX-License-Identifier: MIT */
/* main leaves through pthread_exit: the process lives on in its worker,
 * which waits for main's thread to be gone, then ends the process by
 * returning (exit(0) from the last thread). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void shape_entry(int n); /* libshape.so */

static volatile int sink;

static void leaf(int i)
{
	sink += i;
}

/* Wait until the main thread is a zombie (its stat's state is Z): it has
 * exited, and the process goes on. (Not pthread_join: ThreadSanitizer
 * cannot join the main thread.) */
static void wait_for_main_to_exit(void)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)getpid());
	for (int tries = 0; tries < 10000; tries++) {
		FILE *f = fopen(path, "re");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		const char *after_name = strrchr(buf, ')');
		if (!f || (after_name && after_name[1] == ' ' && after_name[2] == 'Z'))
			return;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	wait_for_main_to_exit();
	for (int i = 0; i < 5; i++)
		leaf(i);
	shape_entry(3);
	printf("worker done\n");
	return NULL;
}

static void before_exit(void)
{
	leaf(100);
}

int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	before_exit();
	pthread_exit(NULL);
}
