/* SPDX-License-Identifier: MIT */
/*
 * returns_twice.S — wrappers for libc functions that return twice, which
 * cannot be written in C: a C wrapper's frame would be where setjmp saves
 * its caller's, and a vfork child would return through the parent's stack.
 *
 * x86-64 only. Elsewhere these functions are not wrapped: a longjmp then
 * resynchronises by stack pointers, and the README says what a vfork
 * child's calls do there.
 */
#if defined(__x86_64__) && defined(__linux__)

#include <asm/unistd.h>

#ifdef __CET__
#define LANDING endbr64
#else
#define LANDING
#endif

	.text

/* setjmp family: note where the caller is (pv_setjmp_noted(env, caller's
 * stack pointer, which)), then tail-jump to libc's function, which finds
 * the stack, the callee-saved registers and the return address untouched. */
.macro SETJMP_WRAPPER name, which
	.globl \name
	.type \name, @function
	.p2align 4
\name:
	.cfi_startproc
	LANDING
	pushq %rdi
	.cfi_adjust_cfa_offset 8
	pushq %rsi
	.cfi_adjust_cfa_offset 8
	subq $8, %rsp /* the call below on a 16-byte boundary */
	.cfi_adjust_cfa_offset 8
	leaq 32(%rsp), %rsi /* the caller's stack pointer, past our return address */
	movl $\which, %edx
	call pv_setjmp_noted
	movq %rax, %r11
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	popq %rsi
	.cfi_adjust_cfa_offset -8
	popq %rdi
	.cfi_adjust_cfa_offset -8
	jmp *%r11
	.cfi_endproc
	.size \name, . - \name
.endm

SETJMP_WRAPPER setjmp, 0
SETJMP_WRAPPER _setjmp, 1
SETJMP_WRAPPER __sigsetjmp, 2

/* vfork: the child runs first, on the parent's stack and with its memory,
 * TLS included. Before the system call, pv_vfork_begins() points this
 * thread's hooks at a state they never write (what the child runs with),
 * and returns the parent's, kept in %rsi, which the system call preserves.
 * The return address is kept in %rdi, as glibc does: the child may
 * overwrite anything on the stack below its caller's frame. The parent
 * then gets its state back from pv_vfork_ended(result, state). */
	.globl vfork
	.type vfork, @function
	.globl __vfork
	.type __vfork, @function
	.p2align 4
vfork:
__vfork:
	.cfi_startproc
	LANDING
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	call pv_vfork_begins
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	movq %rax, %rsi
	popq %rdi
	.cfi_adjust_cfa_offset -8
	.cfi_register %rip, %rdi
	movl $__NR_vfork, %eax
	syscall
	testl %eax, %eax
	jz 1f
	.cfi_remember_state
	pushq %rdi /* the parent: the child is gone, the stack is ours again */
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rip, -8
	subq $8, %rsp
	.cfi_adjust_cfa_offset 8
	movq %rax, %rdi
	call pv_vfork_ended
	addq $8, %rsp
	.cfi_adjust_cfa_offset -8
	ret
1:	/* The child: back to the caller without a ret, which would pop a
	 * shadow stack it shares with the parent (as glibc does). */
	.cfi_restore_state
	jmp *%rdi
	.cfi_endproc
	.size vfork, . - vfork
	.size __vfork, . - __vfork

#endif

	.section .note.GNU-stack, "", @progbits
