/* SPDX-License-Identifier: MIT */
/* Work, then a block outside libc's waits (a raw nanosleep system call,
 * which profviz does not wrap): with PROFVIZ_TIME=hooks the block is in
 * the hooks' wall-clock times (t_hooks_clock). usage: offcpu BLOCK_MS */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

void work(void)
{
	for (unsigned long i = 0; i < 20000000; i++)
		sink += i;
}

void block(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	syscall(SYS_nanosleep, &ts, NULL);
}

int main(int argc, char **argv)
{
	work();
	block(argc > 1 ? atol(argv[1]) : 100);
	return 0;
}
