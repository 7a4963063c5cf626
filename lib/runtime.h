/*
 * runtime.h — what the runtime's entry (profviz.c) shares with the wrappers
 * it interposes on libc (interpose.c).
 */
#ifndef PV_RUNTIME_H
#define PV_RUNTIME_H

#include "compiler.h"
#include "thread.h"

/* This thread's state; never NULL (a static sentinel before and after). */
extern __thread struct pv_thread *pv_self __attribute__((tls_model("initial-exec")));

/* Write the outputs now; at_exit closes the open frames first. */
PV_HIDDEN int pv_runtime_dump(int at_exit);

#endif /* PV_RUNTIME_H */
