/* SPDX-License-Identifier: MIT */
/* One thread writes the profile over and over (profviz_dump) while main
 * forks: both take the runtime's lock, which is never the program's wait.
 * usage: fork_dump */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int profviz_dump(void) __attribute__((weak));
static volatile int stop;
static void leaf(void) {}
static void *dumper(void *a)
{
	(void)a;
	while (!stop) { leaf(); if (profviz_dump) profviz_dump(); }
	return NULL;
}
static void forker(void)
{
	pid_t p = fork();
	if (p == 0) _exit(0);
	int st; waitpid(p, &st, 0);
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, dumper, NULL);
	for (int i = 0; i < 300; i++) forker();
	stop = 1;
	pthread_join(t, NULL);
	return 0;
}
