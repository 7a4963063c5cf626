/* SPDX-License-Identifier: MIT */
/* creds.c — a program that changes what its threads may do, as daemons and
 * container tools do, then says what its tasks are (run as root).
 *   creds drop     setgroups, setresgid and setresuid to 65534, then
 *                  counts the tasks in /proc/self/task still at another uid
 *                  or with a capability left
 *   creds unshare  unshare(CLONE_NEWUSER) here and in a forked child
 * Instrumented work before and after, so that profviz samples throughout. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(void)
{
	struct timespec ts, now;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	do {
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((now.tv_sec - ts.tv_sec) * 1000000000L + now.tv_nsec - ts.tv_nsec < 30000000L);
}

/* Does a task's status say it is still privileged: a uid other than
 * 65534, or an effective capability? */
static int privileged(const char *task)
{
	char path[300], line[256];
	snprintf(path, sizeof(path), "/proc/self/task/%s/status", task);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0; /* ended meanwhile */
	int kept = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned a, b, c, d;
		unsigned long long caps;
		if (sscanf(line, "Uid: %u %u %u %u", &a, &b, &c, &d) == 4)
			kept |= a != 65534 || b != 65534 || c != 65534 || d != 65534;
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			kept |= caps != 0;
	}
	fclose(f);
	return kept;
}

static int drop(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534)) {
		printf("could not drop: %s\n", strerror(errno));
		return 1;
	}
	work();
	DIR *d = opendir("/proc/self/task");
	int kept = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.')
			kept += privileged(e->d_name);
	if (d)
		closedir(d);
	printf("tasks still privileged after the drop: %d\n", kept);
	return 0;
}

static void try_unshare(const char *who)
{
	int rc = unshare(CLONE_NEWUSER);
	printf("%s: unshare(CLONE_NEWUSER) %d%s%s\n", who, rc, rc ? " " : "",
	       rc ? strerror(errno) : "");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	work();
	if (argc == 2 && !strcmp(argv[1], "drop"))
		return drop();
	if (argc == 2 && !strcmp(argv[1], "unshare")) {
		pid_t child = fork();
		if (child == 0) {
			work();
			try_unshare("child");
			work();
			_exit(0);
		}
		waitpid(child, NULL, 0);
		try_unshare("parent");
		work();
		return 0;
	}
	fprintf(stderr, "usage: creds drop|unshare\n");
	return 2;
}
