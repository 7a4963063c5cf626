/* SPDX-License-Identifier: MIT */
/* Six functions called in every order none repeats in: a thread that runs
 * onward(0) takes 1956 call paths, each new to it, so that the runtime
 * works on its tree all along and takes a while to hand it over as the
 * thread ends (term_churn.c, term_workers.c). */
#ifndef CALL_PATHS_H
#define CALL_PATHS_H

#define NPATH 6
static volatile long sink;

static void path0(unsigned used);
static void path1(unsigned used);
static void path2(unsigned used);
static void path3(unsigned used);
static void path4(unsigned used);
static void path5(unsigned used);
static void (*const paths[NPATH])(unsigned) = { path0, path1, path2, path3, path4, path5 };

/* Every order of the functions not yet on the path (this one has no hooks,
 * so the tree does not fold them all into recursion). */
__attribute__((no_instrument_function)) static void onward(unsigned used)
{
	for (int i = 0; i < NPATH; i++)
		if (!(used & 1u << i))
			paths[i](used | 1u << i);
}

static void path0(unsigned used) { sink++; onward(used); }
static void path1(unsigned used) { sink++; onward(used); }
static void path2(unsigned used) { sink++; onward(used); }
static void path3(unsigned used) { sink++; onward(used); }
static void path4(unsigned used) { sink++; onward(used); }
static void path5(unsigned used) { sink++; onward(used); }

#endif /* CALL_PATHS_H */
