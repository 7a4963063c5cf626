/* SPDX-License-Identifier: MIT */
/* The public API: a profile written mid-run, and a program that still runs
 * without the preload (the weak symbol is then NULL). */
#include <stdio.h>

#include "profviz.h"

static volatile int sink;

static void step(int i)
{
	sink += i;
}

static PROFVIZ_NO_INSTRUMENT void hidden(int i)
{
	sink += i;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		step(i);
	if (profviz_dump) {
		int rc = profviz_dump();
		rename("prof.json", "mid.json");
		printf("dumped %d\n", rc);
	} else {
		printf("no profiler\n");
	}
	for (int i = 0; i < 2; i++) {
		step(i);
		hidden(i);
	}
	return 0;
}
