/* SPDX-License-Identifier: MIT */
/* A program that becomes a daemon (t_daemon.py): the process its starter
 * waits for ends at once, and the daemon goes on with its fds 0-2 on
 * /dev/null, as daemons do.
 * usage: daemonize daemon|setsid|kept RESULT
 *   daemon: daemon(3);
 *   setsid: fork, setsid, fork again, then dup2 /dev/null onto 0-2;
 *   kept:   dup2 /dev/null onto 0-2 first (profviz keeps a copy of the
 *           stderr it replaces), then fork and setsid.
 * The daemon works, waits for RESULT.go to be there (its starter's stderr
 * has ended by then, unless something holds it), then writes to RESULT
 * where each of its descriptors leads (readlink of /proc/self/fd), one a
 * line, and "done". */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}

static void report(const char *path)
{
	FILE *out = fopen(path, "w");
	DIR *d = opendir("/proc/self/fd");
	if (!out || !d)
		exit(1);
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[64], to[256];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, to, sizeof(to) - 1);
		if (n > 0 && e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) {
			to[n] = '\0';
			fprintf(out, "%s %s\n", e->d_name, to);
		}
	}
	closedir(d);
	fprintf(out, "done\n");
	fclose(out);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	work(1000);
	if (!strcmp(argv[1], "daemon")) {
		if (daemon(1, 0) != 0)
			return 1;
	} else if (!strcmp(argv[1], "kept")) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
		if (fork() != 0)
			_exit(0);
		setsid();
	} else {
		if (fork() != 0)
			_exit(0);
		setsid();
		if (fork() != 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close(null);
	}
	work(100000);
	char go[4096];
	snprintf(go, sizeof(go), "%s.go", argv[2]);
	for (int i = 0; i < 60000 && access(go, F_OK) != 0; i++)
		usleep(1000);
	report(argv[2]);
	return 0;
}
