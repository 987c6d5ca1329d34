/* The fused family's closing addition of two fp16 encodings, to nearest
 * even (fast_fused_scalar.c's fused_ieee_add), apart so that
 * tests/prove_f16_add.c checks it on every pair of finite encodings. */
#ifndef MMAREF_FAST_F16ADD_H
#define MMAREF_FAST_F16ADD_H

#include "fast.h"

#include <math.h>

/* a finite fp16 encoding as a double (exact) */
static inline double f16_double(uint32_t w)
{
    uint32_t ef = (w >> 10) & 0x1f, sig = (w & 0x3ff) | (ef ? 0x400u : 0);
    uint64_t pb = (uint64_t)((int64_t)(ef ? ef : 1) - 25 + 1023) << 52;   /* 2^(e - 10) */
    double sc, v = (double)(int32_t)sig;
    memcpy(&sc, &pb, 8);
    v *= sc;
    return (w >> 15) ? -v : v;
}

/* x + y for two finite fp16 encodings: the host's binary64 sum is exact
 * (both lie on 2^-24's grid below 2^16: at most 41 bits), and IEEE's zero
 * (+0 unless both are -0) under round to nearest; then rounded to nearest
 * even in fp16, an overflow to Inf. */
static inline uint64_t add_f16(uint64_t x, uint64_t y)
{
    double sd = f16_double((uint32_t)x & 0xffff) + f16_double((uint32_t)y & 0xffff);
    uint64_t db;
    memcpy(&db, &sd, 8);
    uint64_t sign = (db >> 63) << 15, frac = db & (((uint64_t)1 << 52) - 1);
    int32_t e = (int32_t)((db >> 52) & 0x7ff) - 1023;
    if (e >= -14) {                      /* normal: 10 of 52 fraction bits kept */
        uint64_t h = ((uint64_t)(e + 15) << 10) + (frac >> 42), rem = frac & (((uint64_t)1 << 42) - 1);
        h += rem > ((uint64_t)1 << 41) || (rem == ((uint64_t)1 << 41) && (h & 1));
        return sign | (h >= 0x7c00 ? 0x7c00 : h);
    }
    /* subnormal or zero: a whole number of 2^-24, to nearest even by the
     * host's addition at 2^52 (the result 0x400 is the smallest normal) */
    double q = (fabs(sd) * 16777216.0 + 4503599627370496.0) - 4503599627370496.0;
    return sign | (uint64_t)q;
}

#ifdef FAST_HAVE_AVX2
/* add_f16 in a fifth of its instructions, where its closing addition took
 * a sixth of a Hopper fp8 mma.sync with fp16 output (80 of 513 a call,
 * the slowest catalogue units on a 2.1 GHz Xeon): both operands to
 * binary32 in one conversion (exact), added by the host (in whatever
 * rounding mode), the sum to nearest even in fp16 by the conversion, which
 * names its rounding.  The binary32 addition is inexact only where the
 * smaller operand lies wholly more than 13 bits below the larger's last
 * bit, and then the sum is not within a binary32 ulp of an fp16 tie: the
 * two roundings give the one rounding of the exact sum.  An exact zero
 * sum is the one exception: rounding downward the host makes it -0, and
 * IEEE's rule under round to nearest (the reference's) is +0 unless both
 * are -0 (a nonzero sum is at least 2^-24 and never rounds to a zero), so
 * a -0 from operands not both -0 becomes +0.  Checked against the exact
 * sum rounded once on every pair of finite fp16 encodings (4.03e9) in
 * each of the four rounding modes: make prove-f16-add (tests/
 * prove_f16_add.c; docs/performance.md has its figures), which found the
 * -0; test_fastpath's section 3d runs the kernels in three modes.  No
 * binary32 here is subnormal (the least fp16 is 2^-24): neither FTZ nor
 * DAZ changes it. */
static inline __attribute__((target(FAST_ISA_F16C))) uint64_t add_f16_f16c(uint64_t x, uint64_t y)
{
    __m128 v = _mm_cvtph_ps(_mm_cvtsi32_si128((int)((x & 0xffff) | (y & 0xffff) << 16)));
    __m128 r = _mm_add_ss(v, _mm_movehdup_ps(v));
    uint64_t h = (uint16_t)_mm_cvtsi128_si32(_mm_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return h == 0x8000 && !(x & y & 0x8000) ? 0 : h;
}
#endif

#endif
