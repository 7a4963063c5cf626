/* SPDX-License-Identifier: MIT */
/* Processes and threads coming and going beside the sampler (t_sampled).
 * usage:
 *   sampled_procs fork CPU_MS         a child whose own thread works CPU_MS
 *   sampled_procs exec N CPU_MS       a chain of N more images, each working CPU_MS
 *   sampled_procs vfork CPU_MS        a vfork child that execs a one-image chain,
 *                                     its profile named vchild.json
 *   sampled_procs churn N FILE        N short-lived threads; what the process holds
 *                                     before and after them on stdout, its threads
 *                                     in FILE */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampled_work.h"

#define MS 1000000u

extern char **environ;

/* ---- fork ---- */

static void parent_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void child_main_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void child_thread_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static void *child_thread(void *arg)
{
	uint64_t *ns = arg;
	uint64_t t0 = thread_cpu_ns();
	child_thread_work(*ns);
	*ns = thread_cpu_ns() - t0;
	return NULL;
}

static int fork_child(uint64_t cpu_ms)
{
	parent_work(cpu_ms * MS);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t ns = cpu_ms * MS;
		pthread_t t;
		pthread_create(&t, NULL, child_thread, &ns);
		child_main_work(cpu_ms * MS / 2);
		pthread_join(t, NULL);
		printf("child_thread_work %llu\n", (unsigned long long)ns);
		exit(0);
	}
	parent_work(cpu_ms * MS);
	int status;
	waitpid(pid, &status, 0);
	printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* ---- exec, vfork ---- */

static void image_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static int exec_chain(int left, uint64_t cpu_ms)
{
	image_work(cpu_ms * MS);
	printf("image %d\n", left);
	fflush(stdout);
	if (left == 0)
		return 0;
	char n[16], ms[24];
	snprintf(n, sizeof(n), "%d", left - 1);
	snprintf(ms, sizeof(ms), "%llu", (unsigned long long)cpu_ms);
	char *argv[] = { "sampled_procs", "exec", n, ms, NULL };
	execv("/proc/self/exe", argv);
	perror("execv");
	return 1;
}

/* The environment with PROFVIZ_OUTPUT (if set) naming vchild.json: the
 * exec'd image writes its own profile beside the parent's. */
static char **child_environment(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		env[i] = strncmp(environ[i], "PROFVIZ_OUTPUT=", 15) ? environ[i]
								     : "PROFVIZ_OUTPUT=vchild.json";
	return env;
}

static void child_exec(char *const argv[], char *const env[])
{
	execve("/proc/self/exe", argv, env);
	_exit(127);
}

static int vfork_child(uint64_t cpu_ms)
{
	char ms[24];
	snprintf(ms, sizeof(ms), "%llu", (unsigned long long)cpu_ms);
	char *argv[] = { "sampled_procs", "exec", "0", ms, NULL };
	char **env = child_environment();
	parent_work(cpu_ms * MS);
	fflush(stdout);
	pid_t pid = vfork();
	if (pid == 0)
		child_exec(argv, env);
	parent_work(cpu_ms * MS);
	int status;
	waitpid(pid, &status, 0);
	printf("vfork child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	free(env);
	return 0;
}

/* ---- churn ---- */

static void short_task(void)
{
	spin(20000);
}

static void *short_lived(void *arg)
{
	(void)arg;
	short_task();
	return NULL;
}

/* Entries of a /proc directory (an fd directory counts the DIR's own). */
static UNTRACED int entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Lines of path that begin with prefix. */
static UNTRACED int lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;
	while (f && fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	if (f)
		fclose(f);
	return n;
}

/* A field of /proc/self/status, as text. */
static UNTRACED void status_field(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[512];
	snprintf(out, size, "?");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':') {
			char *v = line + strlen(key) + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, size, "%s", v);
		}
	if (f)
		fclose(f);
}

struct holdings {
	int fds, timers, tasks;
	char shd_pnd[32], sig_pnd[32], sig_q[32];
};

static UNTRACED void holdings(struct holdings *h)
{
	h->fds = entries("/proc/self/fd") - 1;
	h->timers = lines("/proc/self/timers", "ID:");
	h->tasks = entries("/proc/self/task");
	status_field("ShdPnd", h->shd_pnd, sizeof(h->shd_pnd));
	status_field("SigPnd", h->sig_pnd, sizeof(h->sig_pnd));
	status_field("SigQ", h->sig_q, sizeof(h->sig_q));
}

static int churn(int n, const char *file)
{
	struct holdings before, after;
	holdings(&before);
	enum { BATCH = 4 };
	for (int i = 0; i < n; i += BATCH) {
		pthread_t t[BATCH];
		int k = n - i < BATCH ? n - i : BATCH;
		for (int j = 0; j < k; j++)
			pthread_create(&t[j], NULL, short_lived, NULL);
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	/* A joined thread's task leaves the listing a moment after the join
	 * returns (the kernel wakes the joiner before it releases the task):
	 * a task that stays is one that stays. */
	holdings(&after);
	for (int tries = 0; after.tasks > before.tasks && tries < 200; tries++) {
		struct timespec a_moment = { 0, 1000000 };
		nanosleep(&a_moment, NULL);
		holdings(&after);
	}
	/* Descriptors as a difference: profviz keeps one of its own from
	 * start-up, the stderr it writes to. */
	printf("fds %+d, timers %d -> %d, pending %s %s -> %s %s\n", after.fds - before.fds,
	       before.timers, after.timers, before.shd_pnd, before.sig_pnd, after.shd_pnd,
	       after.sig_pnd);
	/* SigQ counts the signals queued for the user, in every process. */
	FILE *f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "tasks %d %d sigq %s %s\n", before.tasks, after.tasks, before.sig_q, after.sig_q);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return fork_child(strtoull(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "exec"))
		return exec_chain(atoi(argv[2]), strtoull(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "vfork"))
		return vfork_child(strtoull(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "churn"))
		return churn(atoi(argv[2]), argv[3]);
	fprintf(stderr, "usage: sampled_procs fork|exec|vfork|churn ...\n");
	return 2;
}
