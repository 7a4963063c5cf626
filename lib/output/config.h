/* SPDX-License-Identifier: MIT */
/*
 * config.h — the PROFVIZ_* environment, read once at start-up.
 *
 * A bad value is never fatal: it is reported once, naming the variable and
 * the value, and the documented default is used instead.
 */
#ifndef PV_CONFIG_H
#define PV_CONFIG_H

#include <limits.h>

#include "base/compiler.h"
#include "output/file.h"

#define PV_MAX_OUTPUTS 8

struct pv_config {
	int quiet;                  /* PROFVIZ_QUIET=1: no start-up line */
	int disabled;               /* PROFVIZ_DISABLE=1: hooks do nothing */
	unsigned n_outputs;
	struct pv_output outputs[PV_MAX_OUTPUTS];
	double node_threshold;      /* percent of the run below which nodes are hidden */
	double edge_threshold;      /* same for arcs */
	unsigned max_nodes;         /* PROFVIZ_NODES: a graph's boxes at most; 0: no cap */
	char events[1024];          /* PROFVIZ_EVENTS as given, parsed by events.c */
	int children;               /* PROFVIZ_CHILDREN=0: forked children do not profile */
	int compensate;             /* PROFVIZ_COMPENSATE=0: the hooks' cost is left in */
	unsigned progress;          /* PROFVIZ_PROGRESS=N: a line every N s; 0: none */
	unsigned debug;             /* PROFVIZ_DEBUG=1..3: debug lines (base/log.h) */
	int time_from_hooks;        /* PROFVIZ_TIME=hooks: time read per call, no sampler */
	int inlined_as_frames;      /* PROFVIZ_INLINED=frames: inlined bodies pushed as calls */
	unsigned rate_hz;           /* PROFVIZ_RATE: samples per second of CPU */
	int rate_forced;            /* ... given: else a sample's cost sets the rate */
	int waits_inside;           /* PROFVIZ_WAITS=in: the graph's shares hold the waits */
	int window_signal;          /* PROFVIZ_SIGNAL: opens and writes windows; 0: none */
	int start_paused;           /* PROFVIZ_START=paused: nothing written but windows */
	unsigned window_seconds;    /* PROFVIZ_INTERVAL=N: a window written every N s; 0: none */
};

#define PV_DEFAULT_OUTPUT "prof.dot"
#define PV_DEFAULT_NODE_THRESHOLD 0.5
#define PV_DEFAULT_EDGE_THRESHOLD 0.1
/* A graph's boxes at most, the hottest kept, in every graph: the runtime's
 * prof.dot, profviz dot and the page's. pprof's 80 drew real programs 1,700
 * to 4,500 pt wide; 20 keeps each of them within a 1920-pixel screen's width
 * (README, "Reading the graph"). A literal: the commands' usage text says
 * it (PV_TEXT). */
#define PV_DEFAULT_MAX_NODES 20
/* About 1.7 % of one CPU for the sampler on a VM (bench/README.md): a share
 * is good to 1 % after 10 s of CPU. */
#define PV_DEFAULT_RATE_HZ 1000
#define PV_MIN_RATE_HZ 10
#define PV_MAX_RATE_HZ 20000
/* PROFVIZ_PROGRESS: at most a day between lines. */
#define PV_MAX_PROGRESS_SECONDS 86400

/* PROFVIZ_INTERVAL: at most a day a window. */
#define PV_MAX_WINDOW_SECONDS 86400

/* The signal value names ("SIGUSR2", "USR2", "12", "SIGRTMIN+2") that a
 * program may hand to profviz: 1 and *sig set, or 0 (with *why set) for
 * one the program cannot give up (SIGKILL, a fault, job control, one the
 * kernel sends it: SIGPIPE, SIGALRM, ...). */
int pv_config_signal(const char *value, int *sig, const char **why);

/* What PROFVIZ_SIGNAL asks of the runtime (runtime/window.h), in the value
 * sigqueue(3) gives it (profviz dump PID, profviz reset PID); a plain kill
 * asks PV_WINDOW_TOGGLE. */
enum pv_window_ask {
	PV_WINDOW_TOGGLE = 0, /* open one if none is open, else close it */
	PV_WINDOW_OPEN = 1,   /* open one, or start the open one again from now */
	PV_WINDOW_CLOSE = 2,  /* write what ran since the window's start, and close it */
	PV_WINDOW_NEXT = 3,   /* write what ran since the window's start; the next starts now */
	PV_WINDOW_START = 4,  /* open one unless one is open (profviz_start, profviz start) */
	PV_WINDOW_TICK = 5,   /* PROFVIZ_INTERVAL's: NEXT, if a window is open (no signal's) */
};

typedef const char *pv_getenv_fn(const char *name);

/* Fill c from the environment seen through get. secure: ignore path
 * variables, as for setuid programs. Problems go to pv_log. */
void pv_config_load(struct pv_config *c, pv_getenv_fn *get, int secure);

/* Say, a line each, which PROFVIZ_* names in env (an environ-like list) no
 * part of profviz reads, with the variable each may have meant: a
 * misspelled variable is otherwise ignored without a word. */
void pv_config_check_names(char *const *env);

/* Make relative output names relative to dir (the directory the program
 * started in), so that a program that changes directory still writes where
 * it was started. A name that would not fit is left as it was. */
void pv_config_anchor_outputs(struct pv_config *c, const char *dir);

#endif /* PV_CONFIG_H */
