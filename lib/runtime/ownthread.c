/* SPDX-License-Identifier: MIT */
#include "runtime/ownthread.h"

#include <pthread.h>
#include <signal.h>

int pv_own_thread_start(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);
	if (rc != 0)
		return rc;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigset_t all, saved;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	pthread_t thread;
	rc = pthread_create(&thread, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	return rc;
}
