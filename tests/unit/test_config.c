/* SPDX-License-Identifier: MIT */
/* PROFVIZ_* parsing: defaults, valid values, and the exact message and
 * fallback for each kind of bad value. */
#include <stdlib.h>
#include <signal.h>
#include <string.h>

#include "output/config.h"
#include "messages.h"
#include "output/file.h"
#include "output/variables.h"
#include "tap.h"

static const char *names[8], *values[8];
static int n_vars;

static const char *fake_getenv(const char *name)
{
	for (int i = 0; i < n_vars; i++)
		if (!strcmp(names[i], name))
			return values[i];
	return NULL;
}

static struct pv_config c;

static void load(int secure, const char *name, const char *value)
{
	n_vars = 0;
	if (name) {
		names[0] = name;
		values[0] = value;
		n_vars = 1;
	}
	messages_clear();
	pv_config_load(&c, fake_getenv, secure);
}

static void expect_message(const char *name, const char *value, const char *message)
{
	load(0, name, value);
	if (!tap_ok(n_messages == 1 && !strcmp(messages[0], message), "%s='%s' reported", name,
		    value))
		printf("#   %d messages: '%s'\n#   want '%s'\n", n_messages, messages[0], message);
}

/* The names pv_config_load asks for, in order. */
static const char *asked[64];
static unsigned n_asked;

static const char *recording_getenv(const char *name)
{
	if (n_asked < sizeof(asked) / sizeof(asked[0]))
		asked[n_asked++] = name;
	return NULL;
}

static int documented(const char *name)
{
	for (unsigned i = 0; i < pv_n_variables; i++)
		if (!strcmp(pv_variables[i].name, name))
			return 1;
	return 0;
}

static int was_asked(const char *name)
{
	for (unsigned i = 0; i < n_asked; i++)
		if (!strcmp(asked[i], name))
			return 1;
	return 0;
}

static int same_config(const struct pv_config *a, const struct pv_config *b)
{
	return a->quiet == b->quiet && a->disabled == b->disabled && a->children == b->children &&
	       a->compensate == b->compensate && a->progress == b->progress &&
	       a->debug == b->debug && a->node_threshold == b->node_threshold &&
	       a->edge_threshold == b->edge_threshold &&
	       a->time_from_hooks == b->time_from_hooks &&
	       a->inlined_as_frames == b->inlined_as_frames && a->rate_hz == b->rate_hz &&
	       a->n_outputs == b->n_outputs && !strcmp(a->outputs[0].path, b->outputs[0].path) &&
	       !strcmp(a->events, b->events);
}

/* The table `profviz help variables` and the man page print is the
 * variables the parser reads, and the default each states is the one it
 * uses. */
static void check_documented_variables(void)
{
	struct pv_config unset;
	n_asked = 0;
	pv_config_load(&unset, recording_getenv, 0);
	unsigned undocumented = 0, unread = 0;
	for (unsigned i = 0; i < n_asked; i++)
		if (!documented(asked[i]) && ++undocumented)
			printf("#   %s is read but not in pv_variables\n", asked[i]);
	for (unsigned i = 0; i < pv_n_variables; i++)
		if (!was_asked(pv_variables[i].name) && ++unread)
			printf("#   %s is in pv_variables but not read\n", pv_variables[i].name);
	tap_ok(n_asked > 0 && !undocumented, "every variable pv_config_load reads is documented");
	tap_ok(!unread, "every documented variable is one pv_config_load reads");
	for (unsigned i = 0; i < pv_n_variables; i++) {
		const struct pv_variable *v = &pv_variables[i];
		if (strchr(v->fallback, ' ')) /* a default that is no value: PROFVIZ_EVENTS's */
			continue;
		load(0, v->name, v->fallback);
		tap_ok(n_messages == 0 && same_config(&c, &unset),
		       "%s=%s, its documented default, is what an unset %s gives", v->name,
		       v->fallback, v->name);
	}
}

/* A variable that names one of two ways: *set 0 when unset and for
 * fallback, 1 for other; bad said, and fallback used. */
static void two_ways(const char *name, const char *fallback, const char *other, const char *bad,
		     const int *set)
{
	load(0, NULL, NULL);
	tap_ok(!*set, "%s: %s by default", name, fallback);
	load(0, name, other);
	tap_ok(*set && n_messages == 0, "%s=%s", name, other);
	load(0, name, fallback);
	tap_ok(!*set && n_messages == 0, "%s=%s", name, fallback);
	char want[256];
	snprintf(want, sizeof(want), "profviz: %s='%s' is not '%s' or '%s'; using %s", name, bad,
		 fallback, other, fallback);
	expect_message(name, bad, want);
	tap_ok(!*set, "... and %s used", fallback);
}

/* Every name profviz reads passes without a word; another PROFVIZ_* name is
 * said, with the variable it may have meant when one is that near. */
static void check_names(void)
{
	char *env[64];
	char lines[32][128];
	unsigned n = 0;
	for (unsigned i = 0; i < pv_n_variables && n < 30; i++, n++) {
		snprintf(lines[n], sizeof(lines[n]), "%s=1", pv_variables[i].name);
		env[n] = lines[n];
	}
	env[n++] = (char *)"PROFVIZ_SO=/x/profviz.so";
	env[n++] = (char *)"PATH=/bin";
	env[n++] = (char *)"NOT_PROFVIZ_OUPUT=1";
	env[n] = NULL;
	messages_clear();
	pv_config_check_names(env);
	tap_ok(n_messages == 0, "every variable profviz reads, and others', pass without a word");
	char *typos[] = { (char *)"PROFVIZ_OUPUT=x.json", (char *)"PROFVIZ_NODE_TRESHOLD=2",
			  (char *)"PROFVIZ_TIEM=hooks", (char *)"PROFVIZ_FOO=1",
			  (char *)"PROFVIZ_", NULL };
	messages_clear();
	pv_config_check_names(typos);
	tap_ok(n_messages == 4, "each unknown PROFVIZ_ name said once (%d)", n_messages);
	const char *want[] = {
		"profviz: PROFVIZ_OUPUT=x.json is ignored: profviz has no variable PROFVIZ_OUPUT; "
		"did you mean PROFVIZ_OUTPUT?",
		"profviz: PROFVIZ_NODE_TRESHOLD=2 is ignored: profviz has no variable "
		"PROFVIZ_NODE_TRESHOLD; did you mean PROFVIZ_NODE_THRESHOLD?",
		"profviz: PROFVIZ_TIEM=hooks is ignored: profviz has no variable PROFVIZ_TIEM; did "
		"you mean PROFVIZ_TIME?",
		"profviz: PROFVIZ_FOO=1 is ignored: profviz has no variable PROFVIZ_FOO (profviz "
		"help variables lists them)",
	};
	for (unsigned i = 0; i < 4; i++)
		tap_ok(!strcmp(messages[i], want[i]), "%s", want[i]);
}

int main(void)
{
	messages_capture();

	load(0, NULL, NULL);
	tap_ok(n_messages == 0, "no variables: no messages");
	tap_ok(c.n_outputs == 1 && !strcmp(c.outputs[0].path, "prof.dot") &&
		       c.outputs[0].format->write == pv_write_dot,
	       "default output prof.dot");
	tap_ok(c.node_threshold == 0.5 && c.edge_threshold == 0.1, "default thresholds");
	tap_ok(c.max_nodes == PV_DEFAULT_MAX_NODES && c.max_nodes == 20,
	       "default cap: the graph's 20 hottest boxes (%u)", c.max_nodes);
	tap_ok(!c.quiet && !c.disabled && c.children, "default flags");

	load(0, "PROFVIZ_OUTPUT", "a.json,b.%p.dot");
	tap_ok(c.n_outputs == 2 && c.outputs[0].format->write == pv_write_json &&
		       c.outputs[1].format->write == pv_write_dot && n_messages == 0,
	       "two outputs, format from the extension");
	load(0, "PROFVIZ_NODE_THRESHOLD", "2.5");
	tap_ok(c.node_threshold == 2.5 && n_messages == 0, "node threshold set");
	load(0, "PROFVIZ_NODE_THRESHOLD", "0.5%");
	tap_ok(c.node_threshold == 0.5 && n_messages == 0, "node threshold with a %% sign");
	load(0, "PROFVIZ_NODE_THRESHOLD", "2%");
	tap_ok(c.node_threshold == 2 && n_messages == 0, "... not the default");
	load(0, "PROFVIZ_EDGE_THRESHOLD", "100%");
	tap_ok(c.edge_threshold == 100 && n_messages == 0, "edge threshold with a %% sign");
	load(0, "PROFVIZ_EDGE_THRESHOLD", "0");
	tap_ok(c.edge_threshold == 0 && n_messages == 0, "edge threshold 0 allowed");
	load(0, "PROFVIZ_NODES", "0");
	tap_ok(c.max_nodes == 0 && n_messages == 0, "PROFVIZ_NODES=0: no cap");
	load(0, "PROFVIZ_NODES", "80");
	tap_ok(c.max_nodes == 80 && n_messages == 0, "PROFVIZ_NODES=80");
	expect_message("PROFVIZ_NODES", "-5",
		       "profviz: PROFVIZ_NODES='-5' is not a number of boxes from 0 to 4294967295; "
		       "using 20");
	load(0, "PROFVIZ_QUIET", "1");
	tap_ok(c.quiet && n_messages == 0, "quiet set");

	load(0, NULL, NULL);
	tap_ok(!c.time_from_hooks && c.rate_hz == 1000 && !c.rate_forced,
	       "time sampled by default, at the rate a sample's cost allows (1000 until measured)");
	load(0, "PROFVIZ_TIME", "hooks");
	tap_ok(c.time_from_hooks && n_messages == 0, "PROFVIZ_TIME=hooks");
	load(0, "PROFVIZ_TIME", "sampled");
	tap_ok(!c.time_from_hooks && n_messages == 0, "PROFVIZ_TIME=sampled");
	expect_message("PROFVIZ_TIME", "tsc",
		       "profviz: PROFVIZ_TIME='tsc' is not 'sampled' or 'hooks'; using sampled");
	tap_ok(!c.time_from_hooks, "... and sampled used");
	two_ways("PROFVIZ_INLINED", "host", "frames", "frame", &c.inlined_as_frames);
	two_ways("PROFVIZ_WAITS", "apart", "in", "inside", &c.waits_inside);
	load(0, "PROFVIZ_RATE", "4k");
	tap_ok(c.rate_hz == 4000 && c.rate_forced && n_messages == 0, "PROFVIZ_RATE=4k: 4000, forced");
	load(0, "PROFVIZ_RATE", "250");
	tap_ok(c.rate_hz == 250 && n_messages == 0, "PROFVIZ_RATE=250");
	const char *bad_rate[] = { "fast", "0", "9", "20001", "1e9", "", "-100", "100x", "nan" };
	for (size_t i = 0; i < sizeof(bad_rate) / sizeof(bad_rate[0]); i++) {
		char want_rate[256];
		snprintf(want_rate, sizeof(want_rate),
			 "profviz: PROFVIZ_RATE='%s' is not a rate from 10 to 20000 (per second); "
			 "using the rate a sample's cost allows",
			 bad_rate[i]);
		if (!bad_rate[i][0]) {
			load(0, "PROFVIZ_RATE", "");
			tap_ok(n_messages == 0 && c.rate_hz == 1000 && !c.rate_forced,
			       "PROFVIZ_RATE='': the default");
			continue;
		}
		expect_message("PROFVIZ_RATE", bad_rate[i], want_rate);
		tap_ok(c.rate_hz == 1000 && !c.rate_forced, "... and the default used");
	}

	expect_message("PROFVIZ_QUIET", "yes", "profviz: PROFVIZ_QUIET='yes' is not 0 or 1; using 0");
	tap_ok(c.quiet == 0, "... and the default used");
	expect_message("PROFVIZ_CHILDREN", "2",
		       "profviz: PROFVIZ_CHILDREN='2' is not 0 or 1; using 1");
	const char *bad_percent[] = { "abc", "-1", "101", "1e999", "", "0x", "nan",
				      "%", "5%%", "5%x", "101%", "-1%", "nan%" };
	for (size_t i = 0; i < sizeof(bad_percent) / sizeof(bad_percent[0]); i++) {
		char want[256];
		snprintf(want, sizeof(want),
			 "profviz: PROFVIZ_NODE_THRESHOLD='%s' is not a percentage from 0 to 100; "
			 "using 0.5",
			 bad_percent[i]);
		expect_message("PROFVIZ_NODE_THRESHOLD", bad_percent[i], want);
		tap_ok(c.node_threshold == 0.5, "... and 0.5 used");
	}
	expect_message("PROFVIZ_EDGE_THRESHOLD", "huge",
		       "profviz: PROFVIZ_EDGE_THRESHOLD='huge' is not a percentage from 0 to 100; "
		       "using 0.1");

	expect_message("PROFVIZ_OUTPUT", "",
		       "profviz: PROFVIZ_OUTPUT='' has an empty item; writing prof.dot");
	tap_ok(c.n_outputs == 1 && !strcmp(c.outputs[0].path, "prof.dot"), "... prof.dot used");
	expect_message("PROFVIZ_OUTPUT", "a.txt",
		       "profviz: PROFVIZ_OUTPUT='a.txt': 'a.txt' does not end in .dot, .json, .folded, .pb.gz, .callgrind or .speedscope.json; "
		       "writing prof.dot");
	expect_message("PROFVIZ_OUTPUT", "a.dot,,b.json",
		       "profviz: PROFVIZ_OUTPUT='a.dot,,b.json' has an empty item; it is ignored");
	tap_ok(c.n_outputs == 2, "... the others kept");
	expect_message("PROFVIZ_OUTPUT", "x%z.dot,y.json",
		       "profviz: PROFVIZ_OUTPUT='x%z.dot,y.json': 'x%z.dot' has a % other than %p, "
		       "%h or %%; it is ignored");
	expect_message("PROFVIZ_OUTPUT", "dir.d/file",
		       "profviz: PROFVIZ_OUTPUT='dir.d/file': 'dir.d/file' does not end in .dot, "
		       ".json, .folded, .pb.gz, .callgrind or .speedscope.json; writing prof.dot");
	load(0, "PROFVIZ_OUTPUT", "a.txt,b.txt");
	tap_ok(n_messages == 2 && strstr(messages[0], "'a.txt' does not end in .dot, .json, .folded, .pb.gz, .callgrind or .speedscope.json; "
						      "it is ignored") &&
		       strstr(messages[1], "'b.txt' does not end in .dot, .json, .folded, .pb.gz, .callgrind or .speedscope.json; writing prof.dot"),
	       "one message per bad item, the last naming the default");
	load(0, "PROFVIZ_OUTPUT", "1.dot,2.dot,3.dot,4.dot,5.dot,6.dot,7.dot,8.dot,9.dot");
	tap_ok(c.n_outputs == 8 && n_messages == 1 &&
		       strstr(messages[0], "names more than 8 files; the rest are ignored"),
	       "more than 8 outputs reported");

	const char *ten = "1.dot,2.dot,3.dot,4.dot,5.dot,6.dot,7.dot,8.dot,9.dot,10.dot";
	char want[512];
	snprintf(want, sizeof(want),
		 "profviz: PROFVIZ_OUTPUT='%s' names more than 8 files; the rest are ignored", ten);
	expect_message("PROFVIZ_OUTPUT", ten, want);
	tap_ok(c.n_outputs == 8 && !strcmp(c.outputs[7].path, "8.dot"), "... the first 8 kept");
	load(0, "PROFVIZ_OUTPUT", "x.txt,1.dot,2.dot,3.dot,4.dot,5.dot,6.dot,7.dot,8.dot,9.dot,y.txt");
	tap_ok(n_messages == 2 && strstr(messages[0], "'x.txt' does not end in") &&
		       strstr(messages[0], "; it is ignored") &&
		       strstr(messages[1], "names more than 8 files; the rest are ignored") &&
		       c.n_outputs == 8,
	       "a bad item, then too many: one message each");
	load(0, "PROFVIZ_OUTPUT", "1.dot,2.dot,3.dot,4.dot,5.dot,6.dot,7.dot,8.dot,");
	tap_ok(n_messages == 1 && strstr(messages[0], "has an empty item; it is ignored") &&
		       c.n_outputs == 8,
	       "8 files and an empty item: the empty item reported, not too many");
	expect_message("PROFVIZ_OUTPUT", ",a.json,,",
		       "profviz: PROFVIZ_OUTPUT=',a.json,,' has an empty item; it is ignored");
	tap_ok(c.n_outputs == 1 && c.outputs[0].format->write == pv_write_json,
	       "... reported once however many, the usable file kept");
	expect_message("PROFVIZ_OUTPUT", "a.txt,b.json",
		       "profviz: PROFVIZ_OUTPUT='a.txt,b.json': 'a.txt' does not end in .dot, .json, "
		       ".folded, .pb.gz, .callgrind or .speedscope.json; it is ignored");
	tap_ok(c.n_outputs == 1 && !strcmp(c.outputs[0].path, "b.json"),
	       "... a later usable file is written, not the default");
	char long_name[PATH_MAX + 8];
	memset(long_name, 'x', sizeof(long_name));
	strcpy(long_name + sizeof(long_name) - 5, ".dot");
	load(0, "PROFVIZ_OUTPUT", long_name);
	tap_ok(n_messages == 1 && !strncmp(messages[0], "profviz: PROFVIZ_OUTPUT='xxxx", 29) &&
		       strstr(messages[0], "' has a file name that is too long; writing prof.dot") &&
		       !strcmp(c.outputs[0].path, "prof.dot"),
	       "a file name too long: named, and the default written");

	load(1, "PROFVIZ_OUTPUT", "/tmp/elsewhere.json");
	tap_ok(n_messages == 1 &&
		       !strcmp(messages[0], "profviz: PROFVIZ_OUTPUT is ignored in a setuid/setgid "
					    "program; writing prof.dot") &&
		       !strcmp(c.outputs[0].path, "prof.dot"),
	       "setuid: PROFVIZ_OUTPUT ignored, with a message");

	char long_events[2000];
	memset(long_events, 'a', sizeof(long_events) - 1);
	long_events[sizeof(long_events) - 1] = '\0';
	expect_message("PROFVIZ_EVENTS", long_events,
		       "profviz: PROFVIZ_EVENTS is longer than 1023 characters; using the default");

	load(0, "PROFVIZ_OUTPUT", "p.json,/abs/q.dot,r.%p.folded");
	pv_config_anchor_outputs(&c, "/home/a%b");
	tap_ok(!strcmp(c.outputs[0].path, "/home/a%%b/p.json") &&
		       !strcmp(c.outputs[1].path, "/abs/q.dot") &&
		       !strcmp(c.outputs[2].path, "/home/a%%b/r.%p.folded") &&
		       !strcmp(c.outputs[0].given, "p.json"),
	       "relative names anchored at the start directory, its %% escaped");
	char out[64];
	tap_ok(pv_expand_path("p.%p.%%.json", 42, out, sizeof(out)) == 0 &&
		       !strcmp(out, "p.42.%.json"),
	       "%%p and %%%% expanded");
	tap_ok(pv_expand_path("%p%p%p%p%p%p%p%p%p%p", 123456789, out, 32) == -1,
	       "an expansion that does not fit is refused");

	int sig;
	const char *why;
	tap_ok(pv_config_signal("SIGUSR2", &sig, &why) && sig == SIGUSR2 &&
		       pv_config_signal("USR2", &sig, &why) && sig == SIGUSR2 &&
		       pv_config_signal("12", &sig, &why) && sig == 12 &&
		       pv_config_signal("SIGRTMIN+1", &sig, &why) && sig == SIGRTMIN + 1 &&
		       pv_config_signal("RTMAX-2", &sig, &why) && sig == SIGRTMAX - 2 &&
		       pv_config_signal("SIGHUP", &sig, &why) && sig == SIGHUP,
	       "PROFVIZ_SIGNAL: by name, without SIG, by number, real-time ones");
	tap_ok(!pv_config_signal("SIGSTOP", &sig, &why) && !pv_config_signal("9", &sig, &why) &&
		       !pv_config_signal("SIGCHLD", &sig, &why) &&
		       !pv_config_signal("SIGPIPE", &sig, &why) &&
		       !pv_config_signal("WINCH", &sig, &why) &&
		       !pv_config_signal("SIGRTMIN+99", &sig, &why) &&
		       !pv_config_signal("0", &sig, &why) && !pv_config_signal("", &sig, &why),
	       "PROFVIZ_SIGNAL: none the program cannot give up, none that is not a signal");
	check_documented_variables();
	check_names();
	return tap_done();
}
