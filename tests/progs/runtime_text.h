/* SPDX-License-Identifier: MIT */
/* Where profviz.so's code is, so that a signal handler can tell whether the
 * signal interrupted it (timeout.c, alarm_walk.c). The including file
 * defines _GNU_SOURCE before its first include. */
#ifndef RUNTIME_TEXT_H
#define RUNTIME_TEXT_H

#include <link.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

static uintptr_t runtime_lo, runtime_hi;

/* Instruments, not the program's work: no hooks (a handler's call of its
 * own would count among the handler's). */
#define UNHOOKED __attribute__((no_instrument_function))

static UNHOOKED int find_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!strstr(info->dlpi_name, "profviz"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			runtime_lo = info->dlpi_addr + ph->p_vaddr;
			runtime_hi = runtime_lo + ph->p_memsz;
		}
	}
	return 1;
}

/* Once, before the handler may ask. */
static UNHOOKED void find_runtime_text(void)
{
	dl_iterate_phdr(find_runtime, NULL);
}

/* Did the signal whose handler got context interrupt profviz.so's code?
 * (x86-64; elsewhere, never said.) */
static UNHOOKED int interrupted_runtime(void *context)
{
#if defined(__x86_64__)
	uintptr_t pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
	return pc >= runtime_lo && pc < runtime_hi;
#else
	(void)context;
	return 0;
#endif
}

#endif /* RUNTIME_TEXT_H */
