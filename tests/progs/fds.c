/* SPDX-License-Identifier: MIT */
/* Programs that take descriptors back: a daemon's close loop, closefrom,
 * close_range, and dup2 over every low number. usage: fds MODE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	before();
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
		after();
		char buf[64] = "";
		ssize_t n = pread(7, buf, sizeof(buf) - 1, 0);
		off_t pos = lseek(7, 0, SEEK_CUR);
		printf("read %zd bytes '%s', offset %ld\n", n, buf, (long)pos);
		return 0;
	}
	int fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("new descriptor %d\n", fd);
	after();
	dprintf(fd, "written by the program\n");
	close(fd);
	return 0;
}
