/* (fast_fused.h says which file holds what) */
#include "fast_fused.h"

/* ---- tf32 batches: a dot product a lane ----------------------------------- */

/* Why: s_step puts a step's eight products in one vector, but its end (the
 * largest exponent and the sum across the lanes, c's join, the rounding) is
 * scalar, and a batch of tf32 wgmma took 182 instructions a dot product so.
 * Eight dot products, one a 32-bit lane, share every instruction instead
 * (as fast_amd.c's amd_lstep does for CDNA3): operand j of eight dot
 * products is one vector, the largest exponent and the aligned sum are
 * vertical, and the rounding is the host's conversion of the lane's int32
 * sum to binary32 (to nearest), stepped one unit toward zero where it went
 * up, which is round_f32rz's RZ to 24 bits, then moved by emax - F in the
 * exponent field.  The same fused sum as s_step: products exact, aligned
 * to the largest exponent (a zero product's and a zero c's: ezero), cut
 * toward zero at F fraction bits, summed with c, one rounding.  A lane
 * whose result overflows takes Inf of the sum's sign (round_f32rz); one
 * whose c is Inf (a chain's later step after an overflow, mostly) and whose
 * products are finite takes c (c_decides).  Lanes that meet an Inf or NaN
 * operand, a NaN c, or a result below fp32's normal range are done again by
 * the plan's one-vector kernel.  The units: tf32 operands, c and d fp32,
 * RZ to p = 23, steps of 4 or 8 (fused_t_lanes_ok). */
#ifdef FAST_HAVE_AVX2

/* whether P's unit takes the lane loop: besides the specialized tf32
 * kernels' conditions, a lane's sum (L products below 2^(F+2) units and c
 * below 2^(F+1)) must fit int32, and a vector's operands a local copy */
int fused_t_lanes_ok(const fast_plan *P, const mma_unit *u)
{
    return u->a == MMA_FMT_TF32 && u->b == MMA_FMT_TF32 && u->c == MMA_FMT_FP32 && u->d == MMA_FMT_FP32 &&
           u->rho == MMA_RZ && u->p == 23 && !P->rd && !P->scaled && !P->permute && !P->after &&
           (P->L == 4 || P->L == 8) && u->k <= 32 && P->c1.tab == NULL &&
           ((int64_t)P->L << (u->f + 2)) + ((int64_t)1 << (u->f + 1)) < ((int64_t)1 << 31) &&
           (!P->zeros_part || (P->ez_rel > -(1 << 20) && P->ez_rel < (1 << 20)));
}

/* One step of eight dot products, dot v in lane v: xa[j], xb[j] operand j
 * of each (fp32 layout), c their accumulators (fp32 bits).  Returns the
 * step's results; or's into *rare the lanes to be done again. */
V_FN __m256i t_lstep(const fast_plan *P, __m256i c, const __m256i *xa, const __m256i *xb, const int L, __m256i *rare)
{
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    const __m256i mag = _mm256_set1_epi32(0x7fffe000), h10 = _mm256_set1_epi32(0x400);
    const __m256i ezv = _mm256_set1_epi32(P->ez_rel), finf = _mm256_set1_epi32(0x7f800000);
    const __m128i pre = _mm_cvtsi32_si128(P->pre);
    __m256i SP[8], EP[8], SG[8], amax = zero, emv = _mm256_set1_epi32(V_LOW);
#pragma GCC unroll 8
    for (int j = 0; j < L; j++) {
        /* the magnitudes' tf32 bits: their largest says Inf (0x7f800000)
         * or NaN (above) */
        __m256i ma = _mm256_and_si256(xa[j], mag), mb = _mm256_and_si256(xb[j], mag);
        amax = _mm256_max_epi32(amax, _mm256_max_epi32(ma, mb));
        /* exponent field e, max(e, 1), and the significand: the fields
         * e:m less (max(e, 1) - 1) units of 2^10 (the hidden bit where
         * normal) */
        __m256i ya = _mm256_srli_epi32(ma, 13), yb = _mm256_srli_epi32(mb, 13);
        __m256i ea = _mm256_max_epi32(_mm256_srli_epi32(ma, 23), one), eb = _mm256_max_epi32(_mm256_srli_epi32(mb, 23), one);
        __m256i sa = _mm256_add_epi32(_mm256_sub_epi32(ya, _mm256_slli_epi32(ea, 10)), h10);
        __m256i sb = _mm256_add_epi32(_mm256_sub_epi32(yb, _mm256_slli_epi32(eb, 10)), h10);
        __m256i sp = _mm256_madd_epi16(sa, sb);                           /* (high halves 0) */
        __m256i ep = _mm256_add_epi32(ea, eb);
        emv = _mm256_max_epi32(emv, _mm256_blendv_epi8(ep, ezv, _mm256_cmpeq_epi32(sp, zero)));
        EP[j] = ep;                      /* (a zero product's shift does not matter) */
        SP[j] = _mm256_sll_epi32(sp, pre);
        SG[j] = _mm256_or_si256(_mm256_xor_si256(xa[j], xb[j]), one);   /* psignd: never 0 */
    }
    /* c: its exponent relative as the products' (bias_a + bias_b added),
     * its significand; Inf or NaN apart */
    __m256i cabs = _mm256_and_si256(c, _mm256_set1_epi32(0x7fffffff));
    __m256i ce = _mm256_srli_epi32(cabs, 23);
    __m256i csig = _mm256_or_si256(_mm256_and_si256(c, _mm256_set1_epi32(0x7fffff)),
                                   _mm256_slli_epi32(_mm256_min_epu32(ce, one), 23));
    __m256i ec = _mm256_add_epi32(_mm256_max_epi32(ce, one), _mm256_set1_epi32(P->bab - 127));
    __m256i emax = _mm256_max_epi32(emv, _mm256_blendv_epi8(ec, ezv, _mm256_cmpeq_epi32(csig, zero)));
    /* the aligned sum, each term cut toward zero at emax - F */
    const __m256i ebv = _mm256_add_epi32(emax, _mm256_set1_epi32(P->base));
    __m256i sum = _mm256_srlv_epi32(_mm256_sll_epi32(csig, _mm_cvtsi32_si128(P->c1.pre)),
                                    _mm256_sub_epi32(_mm256_add_epi32(emax, _mm256_set1_epi32(P->c1.base)), ec));
    sum = _mm256_sign_epi32(sum, _mm256_or_si256(c, one));
#pragma GCC unroll 8
    for (int j = 0; j < L; j++)
        sum = _mm256_add_epi32(sum, _mm256_sign_epi32(_mm256_srlv_epi32(SP[j], _mm256_sub_epi32(ebv, EP[j])), SG[j]));
    /* RZ to 24 bits: to nearest by the conversion (|sum| < 2^31 - 2^7: no
     * overflow back), one unit toward zero where that grew |sum| */
    __m256 f = _mm256_cvtepi32_ps(sum);
    __m256i sgn = _mm256_srai_epi32(sum, 31);
    __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_cvttps_epi32(f), sgn), _mm256_xor_si256(sum, sgn));
    __m256i fb = _mm256_add_epi32(_mm256_castps_si256(f), up);
    /* times 2^(emax - F): the result's biased exponent must lie in 1..254 */
    __m256i lsb = _mm256_sub_epi32(emax, _mm256_set1_epi32(P->bab + P->f));
    __m256i be = _mm256_add_epi32(_mm256_srli_epi32(_mm256_slli_epi32(fb, 1), 24), lsb);
    __m256i r = _mm256_add_epi32(fb, _mm256_slli_epi32(lsb, 23));
    __m256i iszero = _mm256_cmpeq_epi32(sum, zero);
    __m256i ovf = _mm256_cmpgt_epi32(be, _mm256_set1_epi32(254));
    __m256i tiny = _mm256_andnot_si256(iszero, _mm256_cmpgt_epi32(one, be));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(finf, _mm256_slli_epi32(sgn, 31)), ovf);
    r = _mm256_andnot_si256(iszero, r);                                   /* an exact zero: +0 */
    /* specials (fused_special_step, c_decides): a NaN operand or c gives the
     * NaN; an Inf c with finite products gives c; an Inf operand goes
     * to the plan's kernel */
    __m256i cinf = _mm256_cmpeq_epi32(cabs, finf);
    __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi32(amax, finf), _mm256_cmpgt_epi32(cabs, finf));
    __m256i inf = _mm256_cmpeq_epi32(amax, finf);
    r = _mm256_blendv_epi8(r, c, cinf);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int32_t)P->o.nan), nan);
    *rare = _mm256_or_si256(*rare, _mm256_andnot_si256(nan, _mm256_or_si256(inf, _mm256_andnot_si256(cinf, tiny))));
    return r;
}

/* fast_bfn: eight dot products at a time (t_lstep); the lanes to do again
 * by the plan's kernel (fn, on the operands widened); a last group of
 * fewer than eight vectors copied into zeros first */
V_FN void t_lanes(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi, const int L)
{
    const fast_plan *P = PLAN(h);
    const int k = h->u.k;
    const size_t st = (size_t)k * 4;
    const char *a = (const char *)x->a, *b = (const char *)x->b;
    const int cs = x->c_size, ds = x->d_size;
    uint32_t ta[8 * 32], tb[8 * 32];
    for (size_t i = lo; i < hi; i += 8) {
        const int n = hi - i < 8 ? (int)(hi - i) : 8;
        uint32_t cv[8] = {0}, rv[8];
        const char *pa = a + i * st, *pb = b + i * st;
        if (n < 8) {
            memset(ta, 0, sizeof ta);
            memset(tb, 0, sizeof tb);
            memcpy(ta, pa, (size_t)n * st);
            memcpy(tb, pb, (size_t)n * st);
            pa = (const char *)ta;
            pb = (const char *)tb;
        }
        __m256i r;
        if (cs == 4 && n == 8) {
            r = V_LD((const uint32_t *)x->c + i);
        } else {
            for (int v = 0; v < n; v++) cv[v] = (uint32_t)fast_ld(x->c, cs, i + (size_t)v);
            r = V_LD(cv);
        }
        const __m256i c0 = r;
        __m256i rare = _mm256_setzero_si256();
        for (int s = 0; s < P->steps; s++) {
            __m256i xa[8], xb[8];
#pragma GCC unroll 2
            for (int q = 0; q < L / 4; q++) {
                v_load8x16_t(pa + 16 * (size_t)(s * L / 4 + q), st, xa + 4 * q);
                v_load8x16_t(pb + 16 * (size_t)(s * L / 4 + q), st, xb + 4 * q);
            }
            r = t_lstep(P, r, xa, xb, L, &rare);
        }
        unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(rare)) & ((1u << n) - 1);
        if (ds == 4 && n == 8 && !m) {
            _mm256_storeu_si256((__m256i *)((uint32_t *)x->d + i), r);
            continue;
        }
        _mm256_storeu_si256((__m256i *)rv, r);
        _mm256_storeu_si256((__m256i *)cv, c0);
        while (m) {
            int v = __builtin_ctz(m);
            uint64_t wa[32], wb[32];
            m &= m - 1;
            rv[v] = (uint32_t)h->fn(h, cv[v], fast_widen(pa + (size_t)v * st, 4, k, wa),
                                    fast_widen(pb + (size_t)v * st, 4, k, wb), NULL, NULL);
        }
        for (int v = 0; v < n; v++) fast_st(x->d, ds, i + (size_t)v, rv[v]);
    }
}
V_TARGET void fused_t_lanes_4(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    t_lanes(h, x, lo, hi, 4);
}
V_TARGET void fused_t_lanes_8(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    t_lanes(h, x, lo, hi, 8);
}
#endif
