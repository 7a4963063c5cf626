/* SPDX-License-Identifier: MIT */
/*
 * exceptions.c — where a C++ exception's unwinding ends: its catch.
 *
 * gcc's instrumented functions run their exit hooks as an exception
 * unwinds them (in their cleanups); clang's run none, and their frames
 * stayed open until some later hook found out, at whatever stack pointer
 * it ran: the catching function's next call, at the stale frame's very
 * depth, passed for a body inlined into it. Every catch block begins by
 * calling __cxa_begin_catch from the frame that caught, so the frames
 * deeper than that call's stack pointer were unwound, and end there. Where
 * the exception was thrown (__cxa_throw, __cxa_rethrow) tells one thing
 * more: a body inlined into the catching frame that threw and is still
 * open at the catch ran no exit hook either.
 */
#include <stdint.h>

#include "runtime/arch.h"
#include "runtime/runtime.h"
#include "runtime/wrap/wrap.h"

typedef void *begin_catch_fn(void *);
typedef void throw_fn(void *, void *, void (*)(void *));
typedef void rethrow_fn(void);

PV_EXPORT __attribute__((noreturn)) void __cxa_throw(void *exception, void *type,
						     void (*destroy)(void *))
{
	pv_thread_throws(pv_self);
	PV_NEXT(throw_fn, __cxa_throw)(exception, type, destroy);
	__builtin_unreachable();
}

PV_EXPORT __attribute__((noreturn)) void __cxa_rethrow(void)
{
	pv_thread_throws(pv_self);
	PV_NEXT(rethrow_fn, __cxa_rethrow)();
	__builtin_unreachable();
}

PV_EXPORT void *__cxa_begin_catch(void *exception)
{
	pv_thread_caught(pv_self, pv_arch_stack_pointer());
	return PV_NEXT(begin_catch_fn, __cxa_begin_catch)(exception);
}
