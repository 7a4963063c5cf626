/* SPDX-License-Identifier: MIT */
/* Candidate 2: a perf_event_open software task-clock sampling event per
 * thread, whose overflows raise a real-time signal on that thread
 * (O_ASYNC, F_SETSIG, F_SETOWN_EX F_OWNER_TID).
 *
 * SMP_PERF_MODE chooses how the descriptor is kept:
 *   refresh  the fd stays open; each overflow disables the event
 *            (PERF_EVENT_IOC_REFRESH 1) and the handler re-arms it, so a
 *            thread that does not take the signal holds one pending at most;
 *   nofd     one page is mapped, then the fd is closed: the mapping holds
 *            the event, every overflow signals, nothing to re-arm. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "handler.h"

const char *smp_name = "perf";
static int nofd;

static void rearm(struct smp_thread *t)
{
	if (t->fd >= 0)
		ioctl(t->fd, PERF_EVENT_IOC_REFRESH, 1);
}

int smp_init(long period_ns)
{
	const char *m = getenv("SMP_PERF_MODE");
	nofd = m && !strcmp(m, "nofd");
	smp_name = nofd ? "perf-nofd" : "perf-refresh";
	smp_period_ns = period_ns;
	return smp_install_handler(POLL_IN, nofd ? 0 : rearm);
}

int smp_thread_begin(struct smp_thread *t)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = (uint64_t)smp_period_ns;   /* task-clock counts ns */
	a.exclude_kernel = 1;                         /* perf_event_paranoid=2 */
	a.exclude_hv = 1;
	a.disabled = 1;
	a.wakeup_events = 1;
	t->fd = -1;
	t->ring = 0;
	smp_self = t;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, SMP_SIGNAL) ||
	    fcntl(fd, F_SETOWN_EX, &own)) {
		close(fd);
		return -1;
	}
	t->fd = fd;
	if (nofd) {
		long page = sysconf(_SC_PAGESIZE);
		void *p = mmap(0, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			close(fd);
			t->fd = -1;
			return -1;
		}
		t->ring = p;
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			return -1;
		close(fd);
		t->fd = -1;
		return 0;
	}
	return ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
}

void smp_thread_end(struct smp_thread *t)
{
	smp_self = 0;
	if (t->fd >= 0)
		close(t->fd);
	if (t->ring)
		munmap(t->ring, (size_t)sysconf(_SC_PAGESIZE));
	t->fd = -1;
	t->ring = 0;
}

void smp_flush(void) {}
