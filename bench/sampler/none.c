/* SPDX-License-Identifier: MIT */
/* No sampling: the baseline the others' cost is measured against. */
#include "sampler.h"
const char *smp_name = "none";
__thread struct smp_thread *smp_self __attribute__((tls_model("initial-exec")));
int smp_init(long period_ns) { (void)period_ns; return 0; }
int smp_thread_begin(struct smp_thread *t) { smp_self = t; return 0; }
void smp_thread_end(struct smp_thread *t) { (void)t; smp_self = 0; }
void smp_flush(void) {}
