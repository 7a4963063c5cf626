/* SPDX-License-Identifier: MIT */
/*
 * run.c — `profviz run`: the program under the runtime built or installed
 * with this command, its exit status passed through, and where its profile
 * went.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output/config.h"
#include "base/log.h"

/* The runtime's directory as installed, from the command's (the Makefile
 * passes it: "../lib/profviz" for the usual layout). */
#ifndef PV_RUNTIME_FROM_BIN
#error "PV_RUNTIME_FROM_BIN: build with the Makefile, which passes it"
#endif

static const char usage[] =
	"usage: profviz run [-o FILES] [-e EVENTS] [-q] [-v] [--runtime FILE]\n"
	"                   -- PROGRAM [ARGS...]\n"
	"Run PROGRAM with the profviz runtime (profviz.so) preloaded, and say where its\n"
	"profile went. The exit status is the program's; a program killed by a signal\n"
	"has this command killed by the same signal. Signals sent to this command go on\n"
	"to the program: TERM, HUP, USR1, USR2, ALRM, WINCH, CONT and every other whose\n"
	"default action would end it, real-time ones included, as timeout(1) does; ^C\n"
	"and ^\\ are ignored (the terminal sends them, as its other signals, to the\n"
	"program itself). The runtime is the one beside this command (in a build\n"
	"tree), else the one installed with it, in\n"
	PV_RUNTIME_FROM_BIN " from the command's directory.\n"
	"  -o FILES        what to write, as PROFVIZ_OUTPUT: e.g. prof.dot,prof.json\n"
	"  -e EVENTS       what to count, as PROFVIZ_EVENTS: e.g. task-clock,page-faults\n"
	"  -q              no start-up line from the runtime, no line from this command\n"
	"  -v              say which runtime is preloaded, and why that one\n"
	"  --runtime FILE  preload FILE instead (stronger than PROFVIZ_SO)\n";

void pv_help_run(FILE *out)
{
	fputs(usage, out);
}

/* The directory of this executable, as the kernel knows it (so a prefix
 * moved elsewhere, or a symbolic link to the command, still finds it). 0,
 * or -1. */
static int own_directory(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", out, size - 1);
	if (n < 0)
		return -1;
	out[n] = '\0';
	*strrchr(out, '/') = '\0';
	return 0;
}

/* LD_PRELOAD with the runtime first, so its hooks are the ones bound. */
static int preload_runtime(const char *runtime)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;
	if (asprintf(&value, "%s%s%s", runtime, old && *old ? " " : "", old ? old : "") < 0)
		return -1;
	int status = setenv("LD_PRELOAD", value, 1);
	free(value);
	return status;
}

static unsigned config_problems;
static void count_problem(const char *line)
{
	fprintf(stderr, "%s\n", line);
	config_problems++;
}

static const char *from_environment(const char *name)
{
	return getenv(name);
}

/* Each output as the runtime will name it, and what was at that path before
 * the run: the runtime replaces a file by renaming a new one onto it, so a
 * profile of this run is a file that was not there before. */
struct expected {
	char path[PATH_MAX];
	int usable, existed;
	struct stat before;
};

static void note_outputs(const struct pv_config *c, pid_t pid, struct expected *e)
{
	for (unsigned i = 0; i < c->n_outputs; i++) {
		e[i].usable = pv_expand_path(c->outputs[i].path, pid, e[i].path,
					     sizeof(e[i].path)) == 0;
		e[i].existed = e[i].usable && stat(e[i].path, &e[i].before) == 0;
	}
}

static int is_new(const struct expected *e)
{
	struct stat now;
	if (stat(e->path, &now) != 0)
		return 0;
	return !e->existed || now.st_ino != e->before.st_ino || now.st_dev != e->before.st_dev ||
	       now.st_mtim.tv_sec != e->before.st_mtim.tv_sec ||
	       now.st_mtim.tv_nsec != e->before.st_mtim.tv_nsec;
}

/* After the run: where each output went, or that it was not written. */
static void say_where(const struct pv_config *c, const struct expected *e)
{
	for (unsigned i = 0; i < c->n_outputs; i++) {
		if (!e[i].usable)
			continue;
		if (is_new(&e[i]))
			fprintf(stderr, "profviz: profile in %s\n", e[i].path);
		else
			fprintf(stderr, "profviz: %s was not written by this run (was the program "
				"built with -finstrument-functions?)\n", e[i].path);
	}
}

struct run_options {
	const char *outputs, *events; /* as PROFVIZ_OUTPUT and PROFVIZ_EVENTS, or NULL */
	const char *runtime;          /* --runtime, or NULL */
	int quiet, verbose;
	char **program; /* and its arguments, NULL-terminated */
};

static enum pv_parsed parse_options(int argc, char **argv, struct run_options *o)
{
	enum { RUNTIME = 256 };
	static const struct option longs[] = { { "help", no_argument, NULL, 'h' },
					       { "runtime", required_argument, NULL, RUNTIME },
					       { 0 } };
	*o = (struct run_options){ NULL };
	int opt;
	while ((opt = getopt_long(argc, argv, "+o:e:qvh", longs, NULL)) != -1) {
		switch (opt) {
		case 'o': o->outputs = optarg; break;
		case 'e': o->events = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'v': o->verbose = 1; break;
		case RUNTIME: o->runtime = optarg; break;
		case 'h': pv_help_run(stdout); return PV_HELPED;
		default: fputs(usage, stderr); return PV_BAD_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("profviz run: no program to run\n", stderr);
		fputs(usage, stderr);
		return PV_BAD_USAGE;
	}
	o->program = argv + optind;
	return PV_PARSED;
}

/* The runtime to preload, as an absolute path LD_PRELOAD can name, and
 * why that one: --runtime, else PROFVIZ_SO, else the one beside this
 * command, else the one installed with it. 0, or -1 after a message. */
static int find_runtime(const char *flag, char *out, const char **why)
{
	const char *given = flag;
	*why = "--runtime";
	if (!given && (given = getenv("PROFVIZ_SO")) && *given)
		*why = "PROFVIZ_SO";
	if (given && *given) {
		if (!realpath(given, out) || access(out, R_OK)) {
			fprintf(stderr, "profviz run: %s %s: %s\n", *why, given, strerror(errno));
			return -1;
		}
	} else {
		char dir[PATH_MAX], beside[PATH_MAX + 16], installed[2 * PATH_MAX];
		if (own_directory(dir, sizeof(dir)) < 0) {
			perror("profviz run: /proc/self/exe");
			return -1;
		}
		snprintf(beside, sizeof(beside), "%s/profviz.so", dir);
		snprintf(installed, sizeof(installed), "%s/%s/profviz.so", dir, PV_RUNTIME_FROM_BIN);
		if (realpath(beside, out) && !access(out, R_OK)) {
			*why = "beside this command";
		} else if (realpath(installed, out) && !access(out, R_OK)) {
			*why = "installed with this command";
		} else {
			fprintf(stderr, "profviz run: no profviz.so beside this command (%s) nor where "
				"it installs it (%s): run `make`, or name one with PROFVIZ_SO\n",
				beside, installed);
			return -1;
		}
	}
	if (strpbrk(out, " :")) { /* LD_PRELOAD splits at both; it has no quoting */
		fprintf(stderr, "profviz run: %s: LD_PRELOAD cannot name a file whose path has a "
			"space or a colon; install profviz elsewhere\n", out);
		return -1;
	}
	return 0;
}

/* The environment the program runs in: the runtime preloaded, the options
 * as its variables. 0, or -1 after a message. */
static int set_environment(const struct run_options *o, const char *runtime)
{
	if ((o->outputs && setenv("PROFVIZ_OUTPUT", o->outputs, 1)) ||
	    (o->events && setenv("PROFVIZ_EVENTS", o->events, 1)) ||
	    (o->quiet && setenv("PROFVIZ_QUIET", "1", 1)) || preload_runtime(runtime)) {
		perror("profviz run");
		return -1;
	}
	return 0;
}

/* The outputs as the runtime will read them; refused here first, so a
 * typo costs no run. Relative names are where the program starts. 0, or
 * -1 after a message per problem. */
static int load_config(struct pv_config *config)
{
	pv_log_set_sink(count_problem);
	pv_config_load(config, from_environment, 0);
	pv_log_set_sink(NULL);
	return config_problems ? -1 : 0;
}

/* Signals while the program runs.
 *
 * Like system(), this command ignores ^C and ^\: the terminal sends them to
 * its whole foreground process group, and the program is in this
 * command's group (it gets no group of its own, so that the terminal's
 * job control treats the two as one job), so they are the program's to
 * act on.
 *
 * Every other signal whose default action would end this command, and
 * SIGWINCH and SIGCONT, is passed on to the program when another process
 * sends it (a service manager's or a script's kill, timeout(1)'s): the
 * program is not left running without this command, and the command's
 * status is then the program's as ever. The list is what GNU timeout
 * passes on since coreutils 9.10 (every signal whose default action ends
 * the process, real-time ones included; timeout's SIGINT and SIGQUIT
 * aside), with SIGWINCH and SIGCONT, which service managers and terminals
 * send besides. A signal is not passed on when:
 * - it was ignored when this command started (nohup, a background job):
 *   it stays ignored, for the program too;
 * - the kernel sent it (si_code > 0), for the terminal: its SIGHUP,
 *   SIGWINCH and SIGCONT go to the whole foreground group, the program
 *   too. But when this command leads its session, a hangup's SIGHUP and
 *   SIGCONT come to it alone: they are passed on. So is the SIGALRM of an
 *   alarm set before this command was exec'd (`alarm 10; exec ...`), which
 *   the program would have had. The kernel's other signals are this
 *   command's own (a fault, SIGPIPE on its stderr, a resource limit): they
 *   act as they did before the run, through the disposition it had;
 * - the program sent it (to its group, or to its parent);
 * - it is a stop: SIGTSTP, SIGTTIN and SIGTTOU keep their defaults, so that
 *   a ^Z stops this command with the program (the terminal sends it to
 *   both), and the shell's SIGCONT of the group continues both.
 * A signal sent to the whole process group (kill -TERM -PGID, a shell's
 * kill %1) reaches the program directly and again through this command:
 * the two cannot be told apart, as for timeout(1).
 *
 * The signals passed on are blocked from before the fork until the
 * program's pid is known; the child gives back the dispositions and the
 * mask this command started with before it execs. The program's pid stays
 * in program_pid until it is reaped, so a late signal reaches a zombie,
 * never a pid used again. */
static const int passed_on[] = {
	SIGHUP, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGWINCH, SIGCONT,
	SIGABRT, SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static volatile sig_atomic_t program_pid; /* 0 while there is none */
static volatile sig_atomic_t leads_session;

/* What this command's signals were before the run. */
struct signal_state {
	struct sigaction before[NSIG];
	sigset_t changed; /* the signals whose disposition the run changed */
	sigset_t mask;    /* the mask this command started with */
	sigset_t handled; /* the signals passed on */
};
static struct signal_state original;

/* Sent by another process: by kill(), sigqueue() or tgkill(). */
static int sent_by_another(const siginfo_t *info)
{
	return (info->si_code == SI_USER || info->si_code == SI_QUEUE ||
		info->si_code == SI_TKILL) && info->si_pid != getpid();
}

/* One of this command's own signals: it acts as it did before the run, the
 * disposition given back; a fault comes again when the handler returns. */
static void as_before(int sig, const siginfo_t *info)
{
	sigaction(sig, &original.before[sig], NULL);
	int fault = info->si_code > 0 &&
		    (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
	if (!fault)
		raise(sig);
}

static void send_to(pid_t pid, int sig, const siginfo_t *info)
{
	if (pid <= 0)
		return;
	if (info->si_code == SI_QUEUE) /* with its value */
		sigqueue(pid, sig, info->si_value);
	else
		kill(pid, sig);
}

/* Async-signal-safe: kill(), sigqueue(), raise(), sigaction(). */
static void pass_on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	int saved_errno = errno;
	pid_t pid = program_pid;
	if (sent_by_another(info)) {
		if (info->si_pid != pid)
			send_to(pid, sig, info);
	} else if (sig == SIGALRM || (leads_session && (sig == SIGHUP || sig == SIGCONT))) {
		send_to(pid, sig, info);
	} else if (sig != SIGHUP && sig != SIGCONT && sig != SIGWINCH) {
		as_before(sig, info);
	}
	errno = saved_errno;
}

/* The signals passed on, but those ignored when this command started. */
static void signals_to_pass_on(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(passed_on) / sizeof(passed_on[0]); i++)
		sigaddset(set, passed_on[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;
		if (sigismember(set, sig) == 1 && sigaction(sig, NULL, &now) == 0 &&
		    !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN)
			sigdelset(set, sig);
	}
}

/* From before the fork: ^C and ^\ ignored, SIGCHLD the default (ignored,
 * it would reap the program unseen), the others' handler in place, blocked
 * until the program's pid is known. */
static void take_signals(void)
{
	leads_session = getsid(0) == getpid();
	signals_to_pass_on(&original.handled);
	sigprocmask(SIG_BLOCK, &original.handled, &original.mask);
	struct sigaction ignore = { .sa_handler = SIG_IGN }, waitable = { .sa_handler = SIG_DFL };
	sigaction(SIGINT, &ignore, &original.before[SIGINT]);
	sigaction(SIGQUIT, &ignore, &original.before[SIGQUIT]);
	sigaction(SIGCHLD, &waitable, &original.before[SIGCHLD]);
	original.changed = original.handled;
	sigaddset(&original.changed, SIGINT);
	sigaddset(&original.changed, SIGQUIT);
	sigaddset(&original.changed, SIGCHLD);
	/* One at a time: of several pending, the lowest number first, as the
	 * kernel would give them to the program. */
	struct sigaction pass = { .sa_sigaction = pass_on_signal,
				  .sa_mask = original.handled,
				  .sa_flags = SA_SIGINFO | SA_RESTART };
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&original.handled, sig) == 1)
			sigaction(sig, &pass, &original.before[sig]);
}

/* In the child, before exec: the dispositions and mask this command
 * started with, so that the program starts with what it was given. */
static void give_back_signals(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&original.changed, sig) == 1)
			sigaction(sig, &original.before[sig], NULL);
	sigprocmask(SIG_SETMASK, &original.mask, NULL);
}

/* In this command, once the program's pid is known (or there is none):
 * the signals passed on come through, whatever the mask was. */
static void open_signals(pid_t pid)
{
	program_pid = pid > 0 ? pid : 0;
	sigset_t mask = original.mask;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&original.handled, sig) == 1)
			sigdelset(&mask, sig);
	sigprocmask(SIG_SETMASK, &mask, NULL);
}

/* The program has ended: nothing more is passed on. What comes now is
 * held until this command ends as the program did. */
static void close_signals(void)
{
	sigprocmask(SIG_BLOCK, &original.handled, NULL);
	program_pid = 0;
}

/* In the child: once go is closed, the program in place of this command,
 * or exec's errno down exec_failed and the shell's status for it. */
static _Noreturn void exec_when_told(char **program, const int go[2], const int exec_failed[2])
{
	char ignored;
	close(go[1]);
	while (read(go[0], &ignored, 1) < 0 && errno == EINTR)
		;
	give_back_signals();
	execvp(program[0], program);
	int err = errno;
	fprintf(stderr, "profviz run: cannot run %s: %s\n", program[0], strerror(err));
	if (write(exec_failed[1], &err, sizeof(err)) < 0)
		_exit(126);
	_exit(err == ENOENT ? 127 : 126);
}

struct outcome {
	int wait_status;
	int exec_failed; /* the program never ran */
};

/* The program started as a child, once expect notes what the outputs'
 * paths held before it ran. Its pid, or -1 after a message; *exec_failed:
 * it never ran. */
static pid_t start_program(char **program, const struct pv_config *config,
			   struct expected *expect, int *exec_failed)
{
	/* exec_failed: closed by a successful exec; otherwise it carries exec's
	 * errno. go: the child execs once the parent has closed it, having
	 * noted what the outputs' paths held before. */
	take_signals();
	int exec_failed_pipe[2], go[2];
	if (pipe2(exec_failed_pipe, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		perror("profviz run: pipe");
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0)
		exec_when_told(program, go, exec_failed_pipe);
	open_signals(pid);
	close(exec_failed_pipe[1]);
	close(go[0]);
	if (pid > 0)
		note_outputs(config, pid, expect);
	close(go[1]);
	int exec_errno = 0;
	ssize_t got = pid > 0 ? read(exec_failed_pipe[0], &exec_errno, sizeof(exec_errno)) : 0;
	close(exec_failed_pipe[0]);
	if (pid < 0)
		perror("profviz run: fork");
	*exec_failed = got > 0;
	return pid;
}

/* The program's end, leaving it a zombie (WNOWAIT) so that its pid is not
 * used again while a signal may still be passed on; then reaped. */
static int wait_for(pid_t pid, int *wait_status)
{
	siginfo_t info;
	while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			perror("profviz run: waitid");
			return -1;
		}
	close_signals();
	while (waitpid(pid, wait_status, 0) < 0)
		if (errno != EINTR) {
			perror("profviz run: waitpid");
			return -1;
		}
	return 0;
}

/* Run the program and wait for it, noting first in expect what the
 * outputs' paths held before it ran. 0, or -1 after a message. */
static int run_program(char **program, const struct pv_config *config,
		       struct expected *expect, struct outcome *out)
{
	pid_t pid = start_program(program, config, expect, &out->exec_failed);
	if (pid < 0) {
		give_back_signals();
		return -1;
	}
	return wait_for(pid, &out->wait_status);
}

/* The program's exit status as this command's; killed by a signal, this
 * command dies the same way, without a core of its own. */
static int pass_on(int wait_status)
{
	if (!WIFSIGNALED(wait_status))
		return WEXITSTATUS(wait_status);
	int sig = WTERMSIG(wait_status);
	struct rlimit no_core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

int pv_cmd_run(int argc, char **argv)
{
	struct run_options o;
	enum pv_parsed parsed = parse_options(argc, argv, &o);
	if (parsed != PV_PARSED)
		return parsed == PV_HELPED ? 0 : PV_EXIT_TROUBLE;
	char runtime[PATH_MAX];
	const char *why;
	struct pv_config config;
	if (find_runtime(o.runtime, runtime, &why) < 0)
		return PV_EXIT_TROUBLE;
	if (o.verbose)
		fprintf(stderr, "profviz run: preloading %s (%s)\n", runtime, why);
	if (set_environment(&o, runtime) < 0 || load_config(&config) < 0)
		return PV_EXIT_TROUBLE;
	struct expected expect[PV_MAX_OUTPUTS];
	struct outcome run;
	if (run_program(o.program, &config, expect, &run) < 0)
		return PV_EXIT_TROUBLE;
	if (!o.quiet && !run.exec_failed)
		say_where(&config, expect);
	return pass_on(run.wait_status);
}
