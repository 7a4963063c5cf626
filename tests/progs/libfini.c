/* SPDX-License-Identifier: MIT */
/* A shared library with a static destructor of its own. */
static volatile int fini_sink;

static void lib_fini_work(void)
{
	fini_sink++;
}

__attribute__((destructor)) static void lib_fini(void)
{
	lib_fini_work();
}

void lib_call(void)
{
	fini_sink++;
}
