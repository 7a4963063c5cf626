/* SPDX-License-Identifier: MIT */
/* Work whose split the program measures itself, for the sampled time to be
 * held to (t_sampled). usage:
 *   sampled_shares split CPU_MS BLOCK_MS   heavy and light work 3:1, and a read
 *                                          blocked BLOCK_MS on a pipe a child
 *                                          feeds late
 *   sampled_shares threads N CPU_MS        N threads (up to 4), each CPU_MS of CPU
 *   sampled_shares masked CPU_MS           a thread that blocks every signal
 *   sampled_shares rate CPU_MS             the other threads' wake-ups per run,
 *                                          and the time they waited for a CPU */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampled_work.h"

#define MS 1000000u

/* ---- split ---- */

static void heavy(uint64_t n)
{
	spin(n);
}

static void light(uint64_t n)
{
	spin(n);
}

/* A plain read, which profviz does not wrap: the thread sleeps in the
 * kernel inside this function, using no CPU. */
static int wait_for_pipe(int fd)
{
	char c;
	return (int)read(fd, &c, 1);
}

/* Rounds of spin per ms of CPU, measured. */
static UNTRACED uint64_t rounds_per_ms(void)
{
	uint64_t t0 = thread_cpu_ns();
	spin(1000000);
	uint64_t ns = thread_cpu_ns() - t0;
	return ns ? 1000000u * (uint64_t)MS / ns : 1000;
}

struct split {
	uint64_t unit, heavy_ns, light_ns;
};

/* Heavy (3 units), then light (1 unit), each call timed from here on the
 * thread's CPU clock. */
static void round_of_work(struct split *s)
{
	uint64_t t0 = thread_cpu_ns();
	heavy(3 * s->unit);
	uint64_t t1 = thread_cpu_ns();
	light(s->unit);
	uint64_t t2 = thread_cpu_ns();
	s->heavy_ns += t1 - t0;
	s->light_ns += t2 - t1;
}

/* Four rounds of CPU_MS/4 each, the blocked read between the second and
 * the third: few boundaries between the functions, where a look's charge
 * can fall on the wrong side of one (t_sampled has the arithmetic). */
static int split(uint64_t cpu_ms, uint64_t block_ms)
{
	struct split s = { cpu_ms * rounds_per_ms() / 16, 0, 0 };
	round_of_work(&s);
	round_of_work(&s);

	int p[2];
	if (pipe(p) != 0)
		return 1;
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		struct timespec late = { (time_t)(block_ms / 1000), (long)(block_ms % 1000) * (long)MS };
		nanosleep(&late, NULL);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	uint64_t w0 = monotonic_ns(), c0 = thread_cpu_ns();
	int got = wait_for_pipe(p[0]);
	uint64_t wait_ns = thread_cpu_ns() - c0, wall_ns = monotonic_ns() - w0;

	round_of_work(&s);
	round_of_work(&s);
	int status;
	waitpid(child, &status, 0);
	printf("heavy_ns %llu light_ns %llu wait_ns %llu wait_wall_ns %llu read %d child %d\n",
	       (unsigned long long)s.heavy_ns, (unsigned long long)s.light_ns,
	       (unsigned long long)wait_ns, (unsigned long long)wall_ns, got,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* ---- threads ---- */

/* One function per thread, so that the profile tells their times apart. */
static void work_0(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void work_1(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void work_2(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void work_3(uint64_t ns)
{
	spin_cpu_ns(ns);
}

struct worker {
	pthread_t thread;
	int index;
	uint64_t ask_ns, used_ns;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	static void (*const work[])(uint64_t) = { work_0, work_1, work_2, work_3 };
	uint64_t t0 = thread_cpu_ns();
	work[w->index](w->ask_ns);
	w->used_ns = thread_cpu_ns() - t0;
	return NULL;
}

static int threads(int n, uint64_t cpu_ms)
{
	struct worker w[4];
	if (n < 1 || n > 4)
		return 2;
	for (int i = 0; i < n; i++) {
		w[i].index = i;
		w[i].ask_ns = cpu_ms * MS;
		pthread_create(&w[i].thread, NULL, worker, &w[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (int i = 0; i < n; i++)
		printf("work_%d %llu\n", i, (unsigned long long)w[i].used_ns);
	return 0;
}

/* ---- masked ---- */

static void masked_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void *masked_thread(void *arg)
{
	uint64_t *ns = arg;
	sigset_t all, now;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	uint64_t t0 = thread_cpu_ns();
	masked_work(*ns);
	*ns = thread_cpu_ns() - t0;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	int kept = 1;
	for (int sig = 1; sig <= SIGRTMAX; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigismember(&all, sig) &&
		    !sigismember(&now, sig))
			kept = 0;
	return (void *)(intptr_t)kept;
}

static int masked(uint64_t cpu_ms)
{
	uint64_t ns = cpu_ms * MS;
	pthread_t t;
	void *kept;
	pthread_create(&t, NULL, masked_thread, &ns);
	pthread_join(t, &kept);
	printf("masked_work %llu mask kept %d\n", (unsigned long long)ns, (int)(intptr_t)kept);
	return 0;
}

/* ---- rate ---- */

static void rate_slice(void)
{
	spin_cpu_ns(MS);
}

/* In 1 ms calls: a thread's first CPU time is timed at its hooks, its
 * samples come after (lib/runtime/timedstart.h). */
static void rate_work(uint64_t ns)
{
	for (uint64_t done = 0; done < ns; done += MS)
		rate_slice();
}

/* The most voluntary context switches of any other thread of the process
 * (a thread that sleeps between looks wakes once a look), and that
 * thread's CPU time and time spent waiting for a CPU once woken, in ns. */
static UNTRACED unsigned long others_wakeups(unsigned long long *cpu_ns,
					     unsigned long long *delay_ns)
{
	char path[300], line[256];
	unsigned long most = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == gettid())
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		unsigned long n = 0;
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "voluntary_ctxt_switches: %lu", &n);
		if (f)
			fclose(f);
		if (n <= most)
			continue;
		most = n;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%llu %llu", cpu_ns, delay_ns) != 2)
			*cpu_ns = *delay_ns = 0;
		if (f)
			fclose(f);
	}
	closedir(d);
	return most;
}

static int rate(uint64_t cpu_ms, uint64_t wall0)
{
	rate_work(cpu_ms * MS);
	unsigned long long sampler_ns = 0, sampler_delay_ns = 0;
	unsigned long looks = others_wakeups(&sampler_ns, &sampler_delay_ns);
	printf("looks %lu sampler_cpu_ns %llu sampler_delay_ns %llu cpu_ns %llu wall_ns %llu\n",
	       looks, sampler_ns, sampler_delay_ns, (unsigned long long)thread_cpu_ns(),
	       (unsigned long long)(monotonic_ns() - wall0));
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t wall0 = monotonic_ns();
	if (argc == 4 && !strcmp(argv[1], "split"))
		return split(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "threads"))
		return threads(atoi(argv[2]), strtoull(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "masked"))
		return masked(strtoull(argv[2], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "rate"))
		return rate(strtoull(argv[2], NULL, 10), wall0);
	fprintf(stderr, "usage: sampled_shares split|threads|masked|rate ...\n");
	return 2;
}
