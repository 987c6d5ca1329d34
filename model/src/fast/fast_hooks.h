/* The fast path's hooks for its tests and for `mmaref bench` (not
 * installed: the installed library hides these names).  Their callers
 * include this header rather than declaring them again. */
#ifndef MMAREF_FAST_HOOKS_H
#define MMAREF_FAST_HOOKS_H

#include "mmaref.h"

/* Plans looked up from now on use kernel mode FAST_MODE_* (fast.h: 0 the
 * best kernel, 1 scalar, 2 the generic vector kernel, 3 AVX2 without
 * AVX-512); not for concurrent use. */
void mma_fast_force(int mode);
/* the kernel that computes u: FAST_K_* (fast.h: 0 the reference, 1 scalar,
 * 2 AVX2 generic, 3 AVX2 specialized, 4 AVX-512) */
int mma_fast_kernel(const mma_unit *u);
/* what a batch of u at natural widths takes: 2 the plan's batch loop, 1 its
 * narrow kernel, 0 the widening path */
int mma_fast_narrow(const mma_unit *u);

#endif
