/* SPDX-License-Identifier: MIT */
/* alltasks.c — a "dump every thread" command's way: list /proc/self/task,
 * send each task SIGUSR1 with tgkill, and wait until each has answered
 * (its handler notes its tid). Three workers run instrumented code and
 * sleep meanwhile. Prints "answered N of N", or which did not within 5 s. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_TASKS 64
static volatile int answered[MAX_TASKS]; /* tids whose handler ran */
static volatile unsigned long sink;

static void on_usr1(int sig)
{
	(void)sig;
	int tid = (int)syscall(SYS_gettid);
	for (int i = 0; i < MAX_TASKS; i++) {
		int none = 0;
		if (__atomic_compare_exchange_n(&answered[i], &none, tid, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST) || answered[i] == tid)
			return;
	}
}

__attribute__((noinline)) void busy(void)
{
	for (int i = 0; i < 100000; i++)
		sink += (unsigned long)i;
}

static int stop;

static void *worker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		busy();
		usleep(1000);
	}
	return NULL;
}

static int has_answered(int tid)
{
	for (int i = 0; i < MAX_TASKS; i++)
		if (answered[i] == tid)
			return 1;
	return 0;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	pthread_t w[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	busy();
	usleep(20000);
	int tids[MAX_TASKS], n = 0;
	DIR *d = opendir("/proc/self/task");
	for (struct dirent *e; d && (e = readdir(d)) && n < MAX_TASKS;)
		if (e->d_name[0] != '.')
			tids[n++] = atoi(e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		syscall(SYS_tgkill, (int)getpid(), tids[i], SIGUSR1);
	int waiting = n;
	for (int tries = 0; tries < 500 && waiting; tries++) {
		usleep(10000);
		waiting = 0;
		for (int i = 0; i < n; i++)
			waiting += !has_answered(tids[i]);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	if (waiting)
		printf("%d of the tasks listed did not answer within 5 s\n", waiting);
	else
		printf("answered %d of %d\n", n, n);
	return 0;
}
