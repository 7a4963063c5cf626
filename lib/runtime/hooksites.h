/* SPDX-License-Identifier: MIT */
/*
 * hooksites.h — is a call of the hooks a body's inlined into its host, or
 * a function's own, when the stack pointer cannot tell?
 *
 * A body's hooks are given its host's return address as their call site,
 * and run in the host's frame, at the host's stack pointer; but gcc also
 * hooks bodies under stack arguments the host has pushed for a call, and
 * in a part of the host it split off (NAME.part.0) and jumped to, whose
 * frame goes far below. What tells them from a call is where the frame of
 * the function calling the hook ends: above the host's stack pointer for
 * a body (the host's own frame, or the part's, which replaced it), at or
 * below it for a function called from the host. The unwinder (libgcc's,
 * from the program's call frame information) says where, once for each
 * instruction that calls a hook, as long as the table of answers has room
 * (16,384 of them): the answer is the code's, whichever call runs it.
 */
#ifndef PV_RUNTIME_HOOKSITES_H
#define PV_RUNTIME_HOOKSITES_H

#include <stdint.h>

/* Does the function that called the hook whose CFA is hook_cfa have its
 * frame end above host_sp? No, when the unwinder cannot tell (code built
 * without call frame information): a call, as the hook took it. */
int pv_hooksite_in_host(uintptr_t hook_cfa, uintptr_t host_sp);

#endif /* PV_RUNTIME_HOOKSITES_H */
