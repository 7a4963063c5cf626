/* SPDX-License-Identifier: MIT */
#include "runtime/hooksites.h"

#include <unwind.h>

#include "runtime/arch.h"

/* Verdicts by the hook's return address (the instruction after the call of
 * a hook): address << 1 | in the host; 0 is a free slot. Each is written
 * once, by whichever thread decides first: all decide alike. When the
 * slots a site may take are all taken, it is decided at every call. */
#define SLOTS 16384
#define PROBES 32
static uintptr_t verdicts[SLOTS];

static unsigned slot_of(uintptr_t ra)
{
	return (unsigned)((ra * 0x9e3779b97f4a7c15u) >> 54) % SLOTS;
}

/* The unwinder's walk out from here. At each step it gives a frame's IP
 * and, as its CFA, the stack pointer that frame called from: the frame
 * running at the hook's return address called from the hook's CFA, and
 * the frame after it called that function, so its CFA is where that
 * function's frame ends. */
struct walk {
	uintptr_t hook_cfa;
	uintptr_t ra;
	int past_hook;
	uintptr_t frame_end;
};

static _Unwind_Reason_Code step(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	uintptr_t cfa = _Unwind_GetCFA(ctx);
	if (w->past_hook) {
		w->frame_end = cfa;
		return _URC_END_OF_STACK;
	}
	if (cfa == w->hook_cfa && _Unwind_GetIP(ctx) == w->ra)
		w->past_hook = 1;
	else if (cfa > w->hook_cfa)
		return _URC_END_OF_STACK; /* a frame without call frame information */
	return _URC_NO_REASON;
}

static int decide(uintptr_t hook_cfa, uintptr_t ra, uintptr_t host_sp)
{
	struct walk w = { hook_cfa, ra, 0, 0 };
	_Unwind_Backtrace(step, &w);
	return w.frame_end > host_sp;
}

int pv_hooksite_in_host(uintptr_t hook_cfa, uintptr_t host_sp)
{
	uintptr_t ra = pv_arch_return_address(hook_cfa);
	if (!ra)
		return 0;
	unsigned first = slot_of(ra);
	for (unsigned i = 0; i < PROBES; i++) {
		uintptr_t v = __atomic_load_n(&verdicts[(first + i) % SLOTS], __ATOMIC_RELAXED);
		if (v >> 1 == ra)
			return (int)(v & 1);
		if (!v)
			break;
	}
	int in_host = decide(hook_cfa, ra, host_sp);
	uintptr_t mine = ra << 1 | (uintptr_t)in_host;
	for (unsigned i = 0; i < PROBES; i++) {
		uintptr_t v = 0;
		if (__atomic_compare_exchange_n(&verdicts[(first + i) % SLOTS], &v, mine, 0,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
		    v >> 1 == ra)
			break;
	}
	return in_host;
}
