/* The algorithms made of ordinary IEEE operations.
 *  - SFMA (NVIDIA DMMA; AMD fp64/fp32 MFMA): d = c; d = fma(a_k, b_k, d) in k
 *    order, round-to-nearest-even (paper, Algorithm 1).
 *  - GPS (AMD CDNA2 fp16/bf16; "FTZ-AddMul" in the final paper): inputs
 *    flushed to +0 when subnormal, FP32 products, pairwise sums of G
 *    products, then c plus each group sum in turn; every product and sum
 *    flushed to zero with its sign kept when subnormal (Algorithms 2, 3).
 * Host binary32/binary64 arithmetic is IEEE-754 with round-to-nearest-even
 * on every platform we build for; we never enable flush-to-zero modes. */
#include "internal.h"

#include <math.h>
#include <string.h>

static MMA_HD float f32_of(uint64_t bits) { uint32_t w = (uint32_t)bits; float f; memcpy(&f, &w, 4); return f; }
static MMA_HD uint64_t bits_of_f32(float f) { uint32_t w; memcpy(&w, &f, 4); return w; }
static MMA_HD double f64_of(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }
static MMA_HD uint64_t bits_of_f64(double d) { uint64_t w; memcpy(&w, &d, 8); return w; }

/* Any 16-bit or narrower input as an exact binary32 (fp16, bf16 fit). */
static MMA_HD float f32_from(mma_fmt f, uint64_t bits)
{
    if (f == MMA_FMT_FP32 || f == MMA_FMT_TF32) return f32_of(bits);
    mma_value v = mma_decode(f, bits);
    float x;
    switch (v.cls) {
    case MMA_NAN: return NAN;
    case MMA_INF: x = INFINITY; break;
    case MMA_ZERO: x = 0.0f; break;
    default: x = ldexpf((float)v.sig, v.exp); break;
    }
    return v.neg ? -x : x;
}

/* SFMA: NaN payloads pass through quieted (DMMA, docs/hardware.md).  H100 DMMA
 * (vectors/hw/h100/, the .nan.vec.xz files: every state of c, a[k], b[k] among
 * finite, quiet NaN and signaling NaN, scripts/hw_dmma_nan_rule.py): a step
 * that meets NaNs returns the first of b_k, the running accumulator, a_k
 * that is a NaN, quieted, whether it was signaling or not; an invalid
 * operation (0*Inf, Inf-Inf) gives 0xfff8000000000000.  The fp32 chain (AMD,
 * whose payload rule is unknown: nan=any) uses the same order. */
#define DMMA_DEFAULT_NAN 0xfff8000000000000ull
MMA_HD uint64_t mma_alg_fma(const mma_unit *u, uint64_t c, const uint64_t *a,
                            const uint64_t *b)
{
    if (u->d == MMA_FMT_FP64) {
        double d = f64_of(c);
        for (int k = 0; k < u->k; k++) {
            double x = f64_of(a[k]), y = f64_of(b[k]);
            if (isnan(x) || isnan(y) || isnan(d)) {
                uint64_t nb = isnan(y) ? b[k] : isnan(d) ? bits_of_f64(d) : a[k];
                d = f64_of(mma_quiet(MMA_FMT_FP64, nb));
                continue;
            }
            d = fma(x, y, d);
            if (isnan(d)) d = f64_of(DMMA_DEFAULT_NAN);
        }
        return bits_of_f64(d);
    }
    float d = f32_of(c);
    for (int k = 0; k < u->k; k++) {
        float x = f32_of(a[k]), y = f32_of(b[k]);
        if (isnan(x) || isnan(y) || isnan(d)) {
            uint64_t nb = isnan(y) ? b[k] : isnan(d) ? bits_of_f32(d) : a[k];
            d = f32_of(mma_quiet(MMA_FMT_FP32, nb));
            continue;
        }
        d = fmaf(x, y, d);
        if (isnan(d)) d = f32_of(mma_canonical_nan(MMA_FMT_FP32));
    }
    return bits_of_f32(d);
}

static MMA_HD float ftz_keep_sign(float x)
{
    return fabsf(x) < 0x1p-126f ? x * 0.0f : x;
}

static MMA_HD float pairwise(const float *p, int n)
{
    if (n == 1) return p[0];
    float s = pairwise(p, n / 2) + pairwise(p + n / 2, n - n / 2);
    return ftz_keep_sign(s);
}

MMA_HD uint64_t mma_alg_pairwise(const mma_unit *u, uint64_t c, const uint64_t *a,
                                 const uint64_t *b)
{
    float p[MMA_MAX_K];
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    for (int k = 0; k < u->k; k++) {
        float x = f32_from(u->a, a[k]), y = f32_from(u->b, b[k]);
        /* |x| < 2^emin also turns -0 into +0, as the peer model does */
        if (!isnan(x) && fabsf(x) < ldexpf(1.0f, fa->emin)) x = 0.0f;
        if (!isnan(y) && fabsf(y) < ldexpf(1.0f, fb->emin)) y = 0.0f;
        p[k] = ftz_keep_sign(x * y);
    }
    float d = f32_from(u->c, c);
    if (!isnan(d) && fabsf(d) < 0x1p-126f) d = 0.0f;
    for (int k0 = 0; k0 < u->k; k0 += u->g)
        d = ftz_keep_sign(d + pairwise(p + k0, u->g));
    /* A NaN result is the unit's NaN (nan=), not the one the float unit
     * hands back: x86 and a GPU give different ones, and on x86 which of
     * two NaN operands comes out depends on the order the compiler put
     * them in. */
    if (isnan(d)) {
        mma_nansrc src = {u->c, u->a, u->b, c, a, b, NULL, u->k};
        return mma_nan_out(u, MMA_FMT_FP32, &src);
    }
    return bits_of_f32(d);
}
