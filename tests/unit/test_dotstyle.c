/* SPDX-License-Identifier: MIT */
/* Names as a graph's boxes show them (output/dotstyle.c): C++ names without
 * parameters and template arguments, and profviz's own bracketed names
 * ("<blocked: pthread_cond_wait>", "<signal SIGALRM>") whole. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/dotstyle.h"
#include "tap.h"

static void shows(const char *name, const char *want)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	pv_dot_short_name(out, name, 160);
	fclose(out);
	tap_ok(text && !strcmp(text, want), "\"%s\" shows as \"%s\" (got \"%s\")", name, want,
	       text ? text : "(nothing)");
	free(text);
}

int main(void)
{
	shows("main", "main");
	shows("std::vector<int, std::allocator<int> >::push_back(int const&)",
	      "std::vector<...>::push_back");
	shows("geo::Box<int>::grow(int) const", "geo::Box<...>::grow");
	shows("bool operator< <int>(Box<int> const&, Box<int> const&)", "bool operator< <...>");
	shows("Stream::operator<<(int)", "Stream::operator<<");
	shows("Ptr<T>::operator->() const", "Ptr<...>::operator->");
	shows("(anonymous namespace)::f(int)", "(anonymous namespace)::f");
	/* The runtime's stand-ins for waits and signal deliveries: never a
	 * template's argument list, whatever they hold. */
	shows("<blocked: pthread_cond_timedwait>", "<blocked: pthread_cond_timedwait>");
	shows("<blocked: pthread_mutex_lock>", "<blocked: pthread_mutex_lock>");
	shows("<signal SIGALRM>", "<signal SIGALRM>");
	shows("<signal 34>", "<signal 34>");
	return tap_done();
}
