/* SPDX-License-Identifier: MIT */
/* A plugin loaded with dlopen and unloaded with dlclose before exit. */
static volatile int plugin_sink;

static void plugin_helper(int i)
{
	plugin_sink += i;
}

void plugin_entry(int n)
{
	for (int i = 0; i < n; i++)
		plugin_helper(i);
}
