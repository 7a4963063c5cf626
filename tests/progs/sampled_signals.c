/* SPDX-License-Identifier: MIT */
/* A program's own signals beside the sampler (t_sampled). usage:
 *   sampled_signals timers CPU_MS        its SIGPROF (setitimer ITIMER_PROF) and a
 *                                        CPU-time timer_create with a real-time
 *                                        signal, while it works CPU_MS; each
 *                                        expiry's count held to the thread's
 *                                        CPU clock as it is handled
 *   sampled_signals eintr N HANDLERS     N rounds of waits, each after a burst of
 *                                        CPU; HANDLERS: none, plain, restart
 *                                        (SA_RESTART) or control (plain, and a
 *                                        wall-clock timer that must interrupt)
 *   sampled_signals altstack N           N rounds of a handler on its sigaltstack
 *                                        and a burst of queued real-time signals */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

#include "sampled_work.h"

#define US 1000u
#define MS 1000000u

/* Deliveries of a signal the program did not ask for, by number. */
static volatile sig_atomic_t unasked[_NSIG];
static volatile sig_atomic_t delivered;

static void on_unasked(int sig)
{
	unasked[sig]++;
	delivered++;
}

/* A handler on every signal that can have one, but those in keep: any
 * delivery is then counted, and interrupts a wait as a handled signal does. */
static UNTRACED void catch_all(const sigset_t *keep, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_unasked;
	sa.sa_flags = flags;
	for (int sig = 1; sig < _NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && !sigismember(keep, sig))
			sigaction(sig, &sa, NULL); /* fails for glibc's own: left */
}

static UNTRACED int unasked_total(void)
{
	int n = 0;
	for (int sig = 1; sig < _NSIG; sig++)
		n += unasked[sig];
	return n;
}

/* ---- timers ---- */

#define TIMER_VALUE 4242
#define TIMER_NS (10 * MS)

static volatile sig_atomic_t profs, expiries, bad_timer_info, deliveries, early, late;
static uint64_t timer_armed_cpu; /* the thread's CPU clock as its timer was set */

static void on_prof(int sig)
{
	(void)sig;
	profs++;
}

/* The clock ITIMER_PROF counts on: the process's user and system time as
 * the scheduler tick charges it (the kernel's CPUCLOCK_PROF of this process,
 * clock id ~0 << 3), ns. */
static UNTRACED uint64_t prof_clock_ns(void)
{
	struct timespec ts;
	if (clock_gettime((clockid_t)(~0u << 3), &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A delivery of the thread-CPU timer. The kernel re-arms the timer as it
 * delivers the signal, counting in si_overrun the periods that passed
 * beyond the one signalled (however late it saw the expiry: at a tick), so
 * that the expiries counted so far are the periods the thread's CPU clock
 * had run when it was re-armed, just before this handler: that is, those
 * it has run now, or one fewer if a period ended in between. More would be
 * expiries the clock never made; fewer, deliveries lost. Read on this
 * thread's clock: a delivery to another thread fails it too. */
static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != SI_TIMER || si->si_value.sival_int != TIMER_VALUE)
		bad_timer_info++;
	expiries += 1 + si->si_overrun;
	deliveries++;
	uint64_t periods = (thread_cpu_ns() - timer_armed_cpu) / TIMER_NS;
	if ((uint64_t)expiries > periods)
		early++;
	else if ((uint64_t)expiries + 1 < periods)
		late++;
}

static void timed_work(uint64_t ns)
{
	spin_cpu_ns(ns);
}

static int timers(uint64_t cpu_ms)
{
	int timer_sig = SIGRTMIN + 1;
	sigset_t keep;
	sigemptyset(&keep);
	sigaddset(&keep, SIGPROF);
	sigaddset(&keep, timer_sig);
	catch_all(&keep, 0);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO;
	sigaction(timer_sig, &sa, NULL);

	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = timer_sig;
	ev.sigev_value.sival_int = TIMER_VALUE;
	timer_t timer;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0)
		return 1;
	struct itimerspec every = { { 0, TIMER_NS }, { 0, TIMER_NS } };
	timer_armed_cpu = thread_cpu_ns(); /* before: the timer's start is no earlier */
	timer_settime(timer, 0, &every, NULL);
	struct itimerval prof = { { 0, 10000 }, { 0, 10000 } };
	uint64_t prof0 = prof_clock_ns();
	setitimer(ITIMER_PROF, &prof, NULL);

	timed_work(cpu_ms * MS);

	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	uint64_t prof1 = prof_clock_ns();
	timer_delete(timer);
	uint64_t armed = thread_cpu_ns() - timer_armed_cpu;
	printf("sigprof %d timer %d bad_info %d unasked %d deliveries %d early %d late %d "
	       "armed_periods %d prof_periods %d\n",
	       (int)profs, (int)expiries, (int)bad_timer_info, unasked_total(), (int)deliveries,
	       (int)early, (int)late, (int)(armed / TIMER_NS), (int)((prof1 - prof0) / TIMER_NS));
	return 0;
}

/* ---- eintr ---- */

struct interrupted {
	int poll, select, nanosleep, sem_timedwait, epoll_wait;
};

static void burst(void)
{
	spin_cpu_ns(100 * US);
}

static UNTRACED int eintr_of(int rc)
{
	return rc < 0 && errno == EINTR;
}

/* One wait of each kind, each after a burst of CPU: a CPU-time signal
 * falls due in the burst and is delivered where the next call sleeps. */
static void waits_round(struct interrupted *n, int fd, int ep, sem_t *sem)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	burst();
	n->poll += eintr_of(poll(&pfd, 1, 1));

	burst();
	fd_set set;
	FD_ZERO(&set);
	FD_SET(fd, &set);
	struct timeval tv = { 0, 300 };
	n->select += eintr_of(select(fd + 1, &set, NULL, NULL, &tv));

	burst();
	struct timespec nap = { 0, 300 * US };
	n->nanosleep += eintr_of(nanosleep(&nap, NULL));

	burst();
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 300 * US;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	n->sem_timedwait += eintr_of(sem_timedwait(sem, &until));

	burst();
	struct epoll_event ev;
	n->epoll_wait += eintr_of(epoll_wait(ep, &ev, 1, 1));
}

static int eintr(int rounds, const char *handlers)
{
	sigset_t keep;
	sigemptyset(&keep);
	if (!strcmp(handlers, "plain") || !strcmp(handlers, "control"))
		catch_all(&keep, 0);
	else if (!strcmp(handlers, "restart"))
		catch_all(&keep, SA_RESTART);
	else if (strcmp(handlers, "none"))
		return 2;
	if (!strcmp(handlers, "control")) {
		/* A wall-clock timer, as a sampler on CLOCK_MONOTONIC would be:
		 * it falls due in the waits, and interrupts them. */
		struct itimerval every = { { 0, 500 }, { 0, 500 } };
		setitimer(ITIMER_REAL, &every, NULL);
	}

	int p[2];
	if (pipe(p) != 0)
		return 1;
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = p[0] };
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	sem_t sem;
	sem_init(&sem, 0, 0);
	struct interrupted n = { 0, 0, 0, 0, 0 };
	for (int i = 0; i < rounds; i++)
		waits_round(&n, p[0], ep, &sem);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);

	printf("EINTR: poll %d select %d nanosleep %d sem_timedwait %d epoll_wait %d\n", n.poll,
	       n.select, n.nanosleep, n.sem_timedwait, n.epoll_wait);
	printf("signals delivered: %s\n", delivered ? "some" : "none");
	return 0;
}

/* ---- altstack ---- */

#define ALT_SIZE (64 * 1024)
#define QUEUED 8

static char *alt;
static volatile sig_atomic_t on_alt, off_alt, queued_seen, queued_in_order, next_value;

static void handler_work(void)
{
	spin(100);
}

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	char here;
	if (&here >= alt && &here < alt + ALT_SIZE)
		on_alt++;
	else
		off_alt++;
	handler_work();
}

static void on_queued(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	queued_seen++;
	queued_in_order += si->si_code == SI_QUEUE && si->si_value.sival_int == next_value;
	next_value++;
	handler_work();
}

static void between(void)
{
	spin_cpu_ns(1 * MS);
}

static int altstack(int rounds)
{
	int rt = SIGRTMIN + 2;
	alt = malloc(ALT_SIZE);
	stack_t ss = { .ss_sp = alt, .ss_flags = 0, .ss_size = ALT_SIZE };
	if (!alt || sigaltstack(&ss, NULL) != 0)
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_queued;
	sa.sa_flags = SA_SIGINFO;
	sigaction(rt, &sa, NULL);

	sigset_t only_rt;
	sigemptyset(&only_rt);
	sigaddset(&only_rt, rt);
	int value = 0;
	for (int i = 0; i < rounds; i++) {
		between();
		raise(SIGUSR1);
		/* Queued while blocked: delivered in order when unblocked. */
		sigprocmask(SIG_BLOCK, &only_rt, NULL);
		for (int k = 0; k < QUEUED; k++)
			sigqueue(getpid(), rt, (union sigval){ .sival_int = value++ });
		sigprocmask(SIG_UNBLOCK, &only_rt, NULL);
	}
	stack_t now;
	sigaltstack(NULL, &now);
	int kept = now.ss_sp == alt && now.ss_size == ALT_SIZE && !(now.ss_flags & SS_ONSTACK);
	printf("SIGUSR1 %d on its altstack, %d off it; queued %d seen, %d in order of %d; "
	       "altstack kept %d\n",
	       (int)on_alt, (int)off_alt, (int)queued_seen, (int)queued_in_order, value, kept);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "timers"))
		return timers(strtoull(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "eintr"))
		return eintr(atoi(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "altstack"))
		return altstack(atoi(argv[2]));
	fprintf(stderr, "usage: sampled_signals timers|eintr|altstack ...\n");
	return 2;
}
