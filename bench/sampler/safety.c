/* SPDX-License-Identifier: MIT */
/* What one sampler candidate can break in a program (linked with timer.c,
 * perf.c, poll.c or none.c). Usage: safety eintr|blocked|fork|exec|threads|threads-noend PERIOD_NS
 * Prints one line of key=value. SMP_RESTART=1 installs the handler with
 * SA_RESTART. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sampler.h"
#include "work.h"

static long per_us;

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	if (!d) return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;   /* the DIR's own descriptor when path is an fd directory */
}

static int count_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;
	if (!f) return -1;
	while (fgets(line, sizeof line, f))
		n += !prefix || !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return n;
}

/* A line of /proc/self/status (or a task's), the value as text. */
static void status_field(const char *path, const char *key, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512];
	snprintf(out, len, "?");
	if (!f) return;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, strlen(key))) {
			char *v = line + strlen(key);
			while (*v == ' ' || *v == '\t') v++;
			v[strcspn(v, "\n")] = 0;
			snprintf(out, len, "%s", v);
		}
	fclose(f);
}

static uint64_t hits(const struct smp_thread *t) { return t->hits[0] + t->hits[1] + t->hits[2]; }

/* Busy work right before each blocking call: a CPU-time sampler fires while
 * the thread runs, and the call is where a late signal lands. */
static void eintr(void)
{
	struct smp_thread t = {0};
	int n = 3000, e_poll = 0, e_select = 0, e_sleep = 0, e_sem = 0, e_many = 0;
	sem_t sem;
	sem_init(&sem, 0, 0);
	/* A poll that spends kernel CPU (on the thread's CPU clock) before it
	 * sleeps: 400 empty pipes. */
	enum { NPIPES = 400 };
	struct pollfd pfd[NPIPES];
	for (int i = 0; i < NPIPES; i++) {
		int p[2];
		if (pipe(p)) { perror("pipe"); exit(1); }
		pfd[i] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	}
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	t.cur = SLOT_A;
	for (int i = 0; i < n; i++) {
		spin(130 * per_us);
		e_poll += poll(0, 0, 1) < 0 && errno == EINTR;
		spin(130 * per_us);
		struct timeval tv = {0, 200};
		e_select += select(0, 0, 0, 0, &tv) < 0 && errno == EINTR;
		spin(130 * per_us);
		struct timespec ts = {0, 200000};
		e_sleep += nanosleep(&ts, 0) < 0 && errno == EINTR;
		spin(130 * per_us);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 200000;
		if (ts.tv_nsec >= 1000000000L) { ts.tv_nsec -= 1000000000L; ts.tv_sec++; }
		e_sem += sem_timedwait(&sem, &ts) < 0 && errno == EINTR;
		spin(130 * per_us);
		e_many += poll(pfd, NPIPES, 1) < 0 && errno == EINTR;
	}
	t.cur = SLOT_NONE;
	smp_thread_end(&t);
	printf("name=%s restart=%s calls_each=%d eintr_poll=%d eintr_select=%d eintr_nanosleep=%d eintr_sem_timedwait=%d eintr_poll_400_fds=%d samples=%llu\n",
	       smp_name, getenv("SMP_RESTART") ? getenv("SMP_RESTART") : "0", n, e_poll, e_select, e_sleep, e_sem, e_many,
	       (unsigned long long)hits(&t));
}

/* A thread that blocks every signal, runs 0.5 s of CPU, then unblocks. */
static void *blocked_thread(void *arg)
{
	struct smp_thread *t = arg;
	sigset_t all;
	char path[64], pnd[64], sigq[64];
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, 0);
	if (smp_thread_begin(t)) { perror("sampler"); exit(1); }
	t->cur = SLOT_A;
	uint64_t t0 = thread_ns();
	while (thread_ns() - t0 < 500000000u)
		spin(100 * per_us);
	uint64_t before = hits(t);
	snprintf(path, sizeof path, "/proc/self/task/%ld/status", (long)syscall(SYS_gettid));
	status_field(path, "SigPnd:", pnd, sizeof pnd);
	status_field("/proc/self/status", "SigQ:", sigq, sizeof sigq);
	sigemptyset(&all);
	pthread_sigmask(SIG_SETMASK, &all, 0);
	uint64_t burst = hits(t) - before;
	t->cur = SLOT_NONE;
	smp_thread_end(t);
	printf("name=%s samples_while_blocked=%llu pending_mask=%s SigQ=%s samples_in_first_instant_after_unblock=%llu\n", smp_name,
	       (unsigned long long)before, pnd, sigq, (unsigned long long)burst);
	return 0;
}

static void blocked(void)
{
	pthread_t th;
	struct smp_thread t = {0};
	pthread_create(&th, 0, blocked_thread, &t);
	pthread_join(th, 0);
}

/* The parent samples its thread; the child runs 0.3 s of CPU. */
static void forked(void)
{
	struct smp_thread t = {0};
	int fds_before = count_dir("/proc/self/fd");
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	t.cur = SLOT_A;
	spin(20000 * per_us);
	int fds_parent = count_dir("/proc/self/fd");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t before = hits(&t);
		uint64_t t0 = thread_ns();
		while (thread_ns() - t0 < 300000000u)
			spin(100 * per_us);
		printf("name=%s fds_before_sampler=%d fds_parent=%d fds_child=%d child_samples_in_0.3s=%llu\n", smp_name,
		       fds_before, fds_parent, count_dir("/proc/self/fd"), (unsigned long long)(hits(&t) - before));
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st))
		printf("name=%s child killed by signal %d\n", smp_name, WTERMSIG(st));
	t.cur = SLOT_NONE;
	smp_thread_end(&t);
}

/* Each image samples, runs 1 ms of CPU and execs the next without stopping
 * its sampler (as a program that calls execve does); a signal left pending
 * across the exec meets the new image's default action. */
static void exec_chain(char *self, long period, int left)
{
	struct smp_thread t = {0};
	if (left == 0) {
		printf("name=%s exec_chain=survived\n", smp_name);
		return;
	}
	if (smp_thread_begin(&t)) { perror("sampler"); exit(1); }
	t.cur = SLOT_A;
	spin(1000 * per_us);
	char p[32], l[32];
	snprintf(p, sizeof p, "%ld", period);
	snprintf(l, sizeof l, "%d", left - 1);
	char *argv[] = { self, "exec", p, l, 0 };
	fflush(stdout);
	execv(self, argv);
	perror("execv");
	exit(1);
}

static void exec_driver(char *self, long period)
{
	int n = 300;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char p[32], l[32];
		snprintf(p, sizeof p, "%ld", period);
		snprintf(l, sizeof l, "%d", n);
		char *argv[] = { self, "exec", p, l, 0 };
		execv(self, argv);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("name=%s execs=%d killed_by_signal=%d (SIGRTMIN+%d)\n", smp_name, n, WTERMSIG(st),
		       WTERMSIG(st) - SIGRTMIN);
}

/* 2000 short-lived threads, each sampled for about 1 ms of CPU. */
static int end_threads = 1;
static uint64_t total_hits;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static void *short_thread(void *arg)
{
	(void)arg;
	struct smp_thread *t = calloc(1, sizeof *t);   /* may outlive the thread */
	if (smp_thread_begin(t)) { perror("sampler"); exit(1); }
	t->cur = SLOT_A;
	spin(1000 * per_us);
	t->cur = SLOT_NONE;
	pthread_mutex_lock(&total_lock);
	total_hits += hits(t);
	pthread_mutex_unlock(&total_lock);
	if (end_threads) {
		smp_thread_end(t);
		free(t);
	}
	return 0;
}

static void many_threads(void)
{
	int fds0 = count_dir("/proc/self/fd");
	int timers0 = count_lines("/proc/self/timers", "ID:");
	int maps0 = count_lines("/proc/self/maps", 0);
	for (int i = 0; i < 2000; i++) {
		pthread_t th;
		if (pthread_create(&th, 0, short_thread, 0)) { perror("pthread_create"); exit(1); }
		pthread_join(th, 0);
	}
	char sigq[64];
	status_field("/proc/self/status", "SigQ:", sigq, sizeof sigq);
	printf("name=%s threads=2000 end_called=%d samples=%llu fds=%d->%d posix_timers=%d->%d maps=%d->%d SigQ=%s\n",
	       smp_name, end_threads, (unsigned long long)total_hits, fds0, count_dir("/proc/self/fd"), timers0,
	       count_lines("/proc/self/timers", "ID:"), maps0, count_lines("/proc/self/maps", 0), sigq);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s eintr|blocked|fork|exec|threads|threads-noend PERIOD_NS\n", argv[0]);
		return 2;
	}
	per_us = spin_per_us();
	long period = atol(argv[2]);
	if (smp_init(period)) { perror("smp_init"); return 1; }
	if (!strcmp(argv[1], "eintr")) eintr();
	else if (!strcmp(argv[1], "blocked")) blocked();
	else if (!strcmp(argv[1], "fork")) forked();
	else if (!strcmp(argv[1], "exec") && argc == 4) exec_chain(argv[0], period, atoi(argv[3]));
	else if (!strcmp(argv[1], "exec")) exec_driver(argv[0], period);
	else if (!strcmp(argv[1], "threads")) many_threads();
	else if (!strcmp(argv[1], "threads-noend")) { end_threads = 0; many_threads(); }
	else return 2;
	return 0;
}
