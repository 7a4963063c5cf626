/* SPDX-License-Identifier: MIT */
#include "output/variables.h"

#include "base/log.h"
#include "model/event.h"
#include "output/config.h"

/* A number the parsers use, as the text that documents it. */
#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

/* In the order of the README's table. */
const struct pv_variable pv_variables[] = {
	{ "PROFVIZ_OUTPUT",
	  "up to " NUMBER(PV_MAX_OUTPUTS) " comma-separated files, each written in the format "
	  "its extension names (those of profviz convert); in a name, %p is the pid, %h the "
	  "host name, %% a %",
	  PV_DEFAULT_OUTPUT },
	{ "PROFVIZ_TIME",
	  "sampled: each thread's CPU time sampled by the kernel, charged where it ran; hooks: "
	  "from a clock read in every hook",
	  "sampled" },
	{ "PROFVIZ_RATE",
	  "CPU samples per second of each thread's CPU time, " NUMBER(PV_MIN_RATE_HZ) " to "
	  NUMBER(PV_MAX_RATE_HZ) " (4k for 4000)",
	  "what 3% of the CPU buys at a sample's cost, 250 to 2000 (" NUMBER(PV_DEFAULT_RATE_HZ)
	  " unmeasured)" },
	{ "PROFVIZ_INLINED",
	  "host: a body the compiler inlined is counted as an inlined call, and its time is its "
	  "host's; frames: each inlined body is a function of its own",
	  "host" },
	{ "PROFVIZ_WAITS",
	  "apart, or in: the graph's shares are of the work, libc's waits apart with their "
	  "share of the wall; in: of the work and the waits together",
	  "apart" },
	{ "PROFVIZ_EVENTS",
	  "up to " NUMBER(PV_MAX_EVENTS) " comma-separated events read in every hook, 1023 "
	  "characters at most: tsc, perf's names (cycles, instructions, cache-misses, "
	  "task-clock, page-faults, L1-dcache-load-misses, ...), raw events (r1a8), PMU terms "
	  "(cpu/event=0x3c,umask=0x0/), libpfm4's names where it is installed; with "
	  "PROFVIZ_TIME=hooks the first colours the graph",
	  "none (time is sampled); with PROFVIZ_TIME=hooks: cycles, else tsc" },
	{ "PROFVIZ_NODE_THRESHOLD",
	  "a percentage from 0 to 100 (0.5 or 0.5%): the graph hides functions under it",
	  NUMBER(PV_DEFAULT_NODE_THRESHOLD) },
	{ "PROFVIZ_EDGE_THRESHOLD",
	  "a percentage from 0 to 100: the graph hides arcs under it",
	  NUMBER(PV_DEFAULT_EDGE_THRESHOLD) },
	{ "PROFVIZ_NODES", "a whole number: the graph draws at most this many boxes; 0: no cap",
	  NUMBER(PV_DEFAULT_MAX_NODES) },
	{ "PROFVIZ_QUIET", "0, or 1: no start-up line", "0" },
	{ "PROFVIZ_DISABLE", "0, or 1: the hooks do nothing, nothing is written", "0" },
	{ "PROFVIZ_CHILDREN", "1, or 0: forked children do not profile", "1" },
	{ "PROFVIZ_COMPENSATE", "1, or 0: the hooks' own cost is left in (no calibration)",
	  "1" },
	{ "PROFVIZ_PROGRESS",
	  "whole seconds, 0 to " NUMBER(PV_MAX_PROGRESS_SECONDS) ": a line on stderr every N "
	  "seconds saying the run is still being profiled; 0: none",
	  "0" },
	{ "PROFVIZ_SIGNAL",
	  "a signal's name or number (SIGUSR2, USR2, 12, SIGRTMIN+1), not a fault's, job "
	  "control's or one the kernel sends (SIGPIPE, SIGALRM, ...): each one sent opens a "
	  "window of the run, the next writes it (prof.w1.json, "
	  "...) and closes it; profviz dump PID and profviz reset PID send it; the program's own "
	  "handler of that signal is not installed",
	  "none" },
	{ "PROFVIZ_START",
	  "running, or paused: nothing is written until a window opens (by PROFVIZ_SIGNAL, "
	  "PROFVIZ_INTERVAL or profviz_start()), and no profile at exit but the open window's "
	  "(a fatal signal's, an exec's and profviz_dump()'s profiles are still written whole)",
	  "running" },
	{ "PROFVIZ_INTERVAL",
	  "whole seconds, 0 to " NUMBER(PV_MAX_WINDOW_SECONDS) ": a window written every N "
	  "seconds (prof.w1.json, prof.w2.json, ...), each the run since the one before; 0: none",
	  "0" },
	{ "PROFVIZ_DEBUG",
	  "0 to " NUMBER(PV_DEBUG_MAX) ": debug lines on stderr, each starting 'profviz: "
	  "debug:'; 1: the run's course; 2: also the runtime's repairs; 3: also every "
	  "resynchronisation after a longjmp and every exit without its enter",
	  "0" },
};

const unsigned pv_n_variables = sizeof(pv_variables) / sizeof(pv_variables[0]);

const struct pv_variable pv_command_variable = {
	"PROFVIZ_SO",
	"the runtime profviz run preloads, instead of the one installed with it (its --runtime "
	"is stronger still)",
	"unset: the runtime beside the command, else the one installed with it"
};
