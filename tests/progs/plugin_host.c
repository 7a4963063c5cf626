/* SPDX-License-Identifier: MIT */
/* usage: plugin_host PLUGIN.so */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argc;
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		printf("%s\n", dlerror());
		return 1;
	}
	void (*entry)(int) = (void (*)(int))dlsym(h, "plugin_entry");
	entry(6);
	dlclose(h);
	printf("unloaded\n");
	return 0;
}
