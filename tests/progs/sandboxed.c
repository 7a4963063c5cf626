/* SPDX-License-Identifier: MIT */
/* A program that sandboxes itself as some do: after some work, a seccomp
 * filter whose answer to perf_event_open is to kill the process, then a
 * thread that works too (t_sandboxed.py).
 *
 * usage: sandboxed prctl|tsync|noprctl
 *   prctl:   prctl(PR_SET_SECCOMP), for the calling thread and those it starts;
 *   tsync:   seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC, for every thread;
 *   noprctl: as prctl, and the filter refuses prctl itself (EPERM). */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 200

__attribute__((noinline)) long work(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		s += (long)i * i % 7;
	return s;
}

__attribute__((noinline)) long rec(int d)
{
	return d <= 0 ? work(200) : rec(d - 1) + d;
}

static void *worker(void *arg)
{
	long s = 0;
	for (int i = 0; i < ROUNDS; i++)
		s += rec(4);
	*(long *)arg = s;
	return NULL;
}

static int sandbox(int tsync, int noprctl)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, noprctl ? SECCOMP_RET_ERRNO | EPERM : SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (tsync)
		return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
				    &prog);
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	long before = 0, after = 0;
	for (int i = 0; i < ROUNDS; i++)
		before += rec(4);
	if (sandbox(strcmp(argv[1], "tsync") == 0, strcmp(argv[1], "noprctl") == 0) != 0) {
		perror("seccomp");
		return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, worker, &after) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("before %ld, after %ld\n", before, after);
	return 0;
}
