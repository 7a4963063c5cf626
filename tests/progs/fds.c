/* SPDX-License-Identifier: MIT */
/* Programs that take descriptors back: a daemon's close loop, closefrom,
 * close_range, and dup2 over every low number. usage: fds MODE
 * On stderr, before's and after's time on the thread's CPU clock and on
 * the monotonic clock, ns: "before_cpu_ns A before_wall_ns B after_cpu_ns C
 * after_wall_ns D". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "own_clocks.h"

static OWN_CLOCK uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A call's time on the CPU clock and the monotonic one: [0] CPU, [1] wall. */
static uint64_t before_ns[2], after_ns[2];

static OWN_CLOCK void timed(void (*fn)(void), uint64_t *ns)
{
	uint64_t w0 = wall_ns(), c0 = own_cpu_ns();
	fn();
	ns[0] = own_cpu_ns() - c0;
	ns[1] = wall_ns() - w0;
}

static volatile double sink;

static void work(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)i;
	sink = x;
}

static void before(void) { work(2000000); }
static void after(void) { work(2000000); }

int main(int argc, char **argv)
{
	const char *mode = argv[1];
	timed(before, before_ns);
	if (!strcmp(mode, "loop"))
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	else if (!strcmp(mode, "closefrom"))
		closefrom(3);
	else if (!strcmp(mode, "close_range"))
		close_range(3, ~0u, 0);
	if (!strcmp(mode, "dup2")) {
		/* Every descriptor from 3 to 299 becomes the data file. */
		int data = open("data.txt", O_RDONLY);
		for (int fd = 3; fd < 300; fd++)
			if (fd != data)
				dup2(data, fd);
		timed(after, after_ns);
		char buf[64] = "";
		ssize_t n = pread(7, buf, sizeof(buf) - 1, 0);
		off_t pos = lseek(7, 0, SEEK_CUR);
		printf("read %zd bytes '%s', offset %ld\n", n, buf, (long)pos);
		return 0;
	}
	int fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("new descriptor %d\n", fd);
	timed(after, after_ns);
	dprintf(fd, "written by the program\n");
	close(fd);
	fprintf(stderr, "before_cpu_ns %llu before_wall_ns %llu after_cpu_ns %llu "
			"after_wall_ns %llu\n",
		(unsigned long long)before_ns[0], (unsigned long long)before_ns[1],
		(unsigned long long)after_ns[0], (unsigned long long)after_ns[1]);
	return 0;
}
