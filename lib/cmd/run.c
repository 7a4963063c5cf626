/*
 * run.c — `profviz run`: the program under the runtime that sits beside this
 * command, its exit status passed through, and where its profile went.
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

static const char usage[] =
	"usage: profviz run [-o FILES] [-e EVENTS] [-q] -- PROGRAM [ARGS...]\n"
	"Run PROGRAM with profviz.so (the one beside this command) preloaded, and\n"
	"say where its profile went. The exit status is the program's; a program\n"
	"killed by a signal has this command killed by the same signal.\n"
	"  -o FILES   what to write, as PROFVIZ_OUTPUT: e.g. prof.dot,prof.json\n"
	"  -e EVENTS  what to count, as PROFVIZ_EVENTS: e.g. task-clock,page-faults\n"
	"  -q         no start-up line from the runtime, no line from this command\n";

/* profviz.so in the directory of this executable. */
static int runtime_beside_me(char *out, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	*slash = '\0';
	if ((size_t)snprintf(out, size, "%s/profviz.so", self) >= size || access(out, R_OK))
		return -1;
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

int pv_cmd_run(int argc, char **argv)
{
	const char *outputs = NULL, *events = NULL;
	int quiet = 0, opt;
	static const struct option longs[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	while ((opt = getopt_long(argc, argv, "+o:e:qh", longs, NULL)) != -1) {
		switch (opt) {
		case 'o': outputs = optarg; break;
		case 'e': events = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return PV_EXIT_TROUBLE;
		}
	}
	if (optind >= argc) {
		fputs("profviz run: no program to run\n", stderr);
		fputs(usage, stderr);
		return PV_EXIT_TROUBLE;
	}
	char runtime[PATH_MAX];
	if (runtime_beside_me(runtime, sizeof(runtime)) < 0) {
		fputs("profviz run: no profviz.so beside this command (run `make`)\n", stderr);
		return PV_EXIT_TROUBLE;
	}
	if (strpbrk(runtime, " :")) { /* LD_PRELOAD splits at both; it has no quoting */
		fprintf(stderr, "profviz run: %s: LD_PRELOAD cannot name a file whose path has a "
			"space or a colon; install profviz elsewhere\n", runtime);
		return PV_EXIT_TROUBLE;
	}
	if ((outputs && setenv("PROFVIZ_OUTPUT", outputs, 1)) ||
	    (events && setenv("PROFVIZ_EVENTS", events, 1)) ||
	    (quiet && setenv("PROFVIZ_QUIET", "1", 1)) || preload_runtime(runtime)) {
		perror("profviz run");
		return PV_EXIT_TROUBLE;
	}

	/* The outputs as the runtime will read them; refused here first, so a
	 * typo costs no run. Relative names are where the program starts. */
	struct pv_config config;
	pv_log_set_sink(count_problem);
	pv_config_load(&config, from_environment, 0);
	pv_log_set_sink(NULL);
	if (config_problems)
		return PV_EXIT_TROUBLE;

	/* Like system(): a ^C at the terminal is the program's to act on. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	/* exec_failed: closed by a successful exec; otherwise it carries exec's
	 * errno. go: the child execs once the parent has closed it, having
	 * noted what the outputs' paths held before. */
	int exec_failed[2], go[2];
	if (pipe2(exec_failed, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		perror("profviz run: pipe");
		return PV_EXIT_TROUBLE;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char ignored;
		close(go[1]);
		while (read(go[0], &ignored, 1) < 0 && errno == EINTR)
			;
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[optind], argv + optind);
		int err = errno;
		fprintf(stderr, "profviz run: cannot run %s: %s\n", argv[optind], strerror(err));
		if (write(exec_failed[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(exec_failed[1]);
	close(go[0]);
	struct expected expect[PV_MAX_OUTPUTS];
	if (pid > 0)
		note_outputs(&config, pid, expect);
	close(go[1]);
	int exec_errno = 0;
	ssize_t got = pid > 0 ? read(exec_failed[0], &exec_errno, sizeof(exec_errno)) : 0;
	close(exec_failed[0]);
	if (pid < 0) {
		perror("profviz run: fork");
		return PV_EXIT_TROUBLE;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("profviz run: waitpid");
			return PV_EXIT_TROUBLE;
		}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (!quiet && got <= 0)
		say_where(&config, expect);
	if (WIFSIGNALED(status)) {
		/* Die the same way, without a core of our own. */
		struct rlimit no_core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &no_core);
		signal(WTERMSIG(status), SIG_DFL);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, WTERMSIG(status));
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
