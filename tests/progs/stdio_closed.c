/* SPDX-License-Identifier: MIT */
/* A program that closes its standard descriptors and opens data files in
 * their place, as daemons do. usage: stdio_closed close|closefrom|freopen
 * close: closes 0, 1 and 2; closefrom: every descriptor (closefrom(0));
 * freopen: freopen's stdin, stdout and stderr (libc closes and opens).
 * Then in.txt, out.txt and err.txt take 0, 1 and 2, and the numbers it got
 * are written to out.txt, its own message to err.txt. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile double sink;

static void work(void)
{
	double x = 0;
	for (int i = 0; i < 100000; i++)
		x += i;
	sink = x;
}

static void put(int fd, const char *s)
{
	ssize_t ignored = write(fd, s, strlen(s));
	(void)ignored;
}

int main(int argc, char **argv)
{
	int in, out, err;
	if (argc > 1 && !strcmp(argv[1], "freopen")) {
		in = fileno(freopen("in.txt", "w+", stdin));
		out = fileno(freopen("out.txt", "w", stdout));
		err = fileno(freopen("err.txt", "w", stderr));
	} else {
		if (argc > 1 && !strcmp(argv[1], "closefrom")) {
			closefrom(0);
		} else {
			close(0);
			close(1);
			close(2);
		}
		in = open("in.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
		out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	}
	int next = open("in.txt", O_RDONLY);
	work();
	char line[128];
	snprintf(line, sizeof(line), "descriptors %d %d %d %d\n", in, out, err, next);
	put(1, line);
	put(2, "the program's own message\n");
	return 0;
}
