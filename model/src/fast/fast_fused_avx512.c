/* (fast_fused.h says which file holds what) */
#include "fast_fused.h"

#ifdef FAST_HAVE_AVX2
/* ---- AVX-512: 32 products in 16-bit lanes ----------------------------- */

/* Hopper's fp8 fused sum (wgmma, F = 13) fits a 16-bit lane: an 8-bit
 * operand's significand has at most 4 bits, a product 8, and aligned with
 * its pre-shift it stays below 2^15; AVX-512 BW shifts each 16-bit lane by
 * its own count (vpsrlvw), so the 32 products of a step are one register:
 * decoded, aligned to emax, negated where negative and summed in pairs to
 * 32 bits.  The same semantics as s_step (RZ alignment; a zero product
 * counts with ezero; Inf and NaN steps go to fused_s_special). */
#define W_TARGET __attribute__((target(FAST_ISA_AVX512)))
#define W_FN static inline __attribute__((always_inline, target(FAST_ISA_AVX512)))
#define W_LD(p) _mm512_loadu_si512((const void *)(p))

/* a step's 32 operands of one side as 16-bit lanes, k in order: bytes
 * (nw 1) widened, or the low word of each uint64_t picked by vpermt2w */
W_FN __m512i w_load(const fast_plan *P, const void *p, int i, const int nw)
{
    __m512i x;
    if (nw == 1) {
        x = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)p));
    } else {
        const uint64_t *q = (const uint64_t *)p;
        __m512i lo = _mm512_permutex2var_epi16(W_LD(q), W_LD(P->w_idx), W_LD(q + 8));
        __m512i hi = _mm512_permutex2var_epi16(W_LD(q + 16), W_LD(P->w_idx), W_LD(q + 24));
        x = _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1);
    }
    return _mm512_and_si512(x, W_LD(P->w_wm[i]));
}

/* rare: for a dot product of one step through mma_dot, the kernel that
 * takes over when an operand or c is Inf or NaN (the whole dot product
 * again, as a tail call): with no call left on the common path the
 * kernel saves no registers and aligns no stack, which was a tenth of
 * its instructions. */
W_FN uint64_t w_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, fast_c *xcp,
                     const void *a, const void *b, const int out, const int ck, const int spk, const int nw,
                     const fast_fn rare)
{
    const __m512i zero = _mm512_setzero_si512(), one = W_LD(P->w_one);
    __m512i xa = w_load(P, a, 0, nw), xb = w_load(P, b, 1, nw);
    __m512i ra = _mm512_and_si512(_mm512_srl_epi16(xa, V_CNT(P->ka.mb)), W_LD(P->w_em[0]));
    __m512i rb = _mm512_and_si512(_mm512_srl_epi16(xb, V_CNT(P->kb.mb)), W_LD(P->w_em[1]));
    __m512i sa = _mm512_and_si512(xa, W_LD(P->w_mm[0])), sb = _mm512_and_si512(xb, W_LD(P->w_mm[1]));
    sa = _mm512_mask_add_epi16(sa, _mm512_test_epi16_mask(ra, ra), sa, W_LD(P->w_hid[0]));
    sb = _mm512_mask_add_epi16(sb, _mm512_test_epi16_mask(rb, rb), sb, W_LD(P->w_hid[1]));
    __m512i sp = _mm512_mullo_epi16(sa, sb);
    __m512i ep = _mm512_add_epi16(_mm512_max_epu16(ra, one), _mm512_max_epu16(rb, one));
    ep = _mm512_mask_mov_epi16(ep, _mm512_testn_epi16_mask(sp, sp), W_LD(P->w_ezv));
    __mmask32 neg = _mm512_movepi16_mask(
        _mm512_xor_si512(_mm512_sll_epi16(xa, V_CNT(P->w_ss[0])), _mm512_sll_epi16(xb, V_CNT(P->w_ss[1]))));
    __mmask32 spec = 0;
    if (spk == SPK_AND)
        spec = _mm512_cmpeq_epi16_mask(_mm512_and_si512(xa, W_LD(P->w_sm[0])), W_LD(P->w_sv[0])) |
               _mm512_cmpeq_epi16_mask(_mm512_and_si512(xb, W_LD(P->w_sm[1])), W_LD(P->w_sv[1]));
    if (spk == SPK_EXP)
        spec = _mm512_cmpeq_epi16_mask(ra, W_LD(P->w_em[0])) | _mm512_cmpeq_epi16_mask(rb, W_LD(P->w_em[1]));
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = !xcp || xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    if (__builtin_expect(spec | (unsigned)xc.spec, 0)) {
        if (rare) return rare(&P->h, acc, (const uint64_t *)a, (const uint64_t *)b, NULL, NULL);
        if (xcp) xcp->spec = 1;
        /* (formats with no Inf, e4m3: an Inf/NaN lane is a NaN operand, and
         * a NaN term makes the step's result NaN whatever c is) */
        if (spk == SPK_AND && spec && P->w_nan_only) return P->o.nan;
        return fused_s_special(P, u, first, s, acc, a, b, NULL, NULL, 0, 4, 0, 0, nw);
    }
    /* emax of the products: the largest signed word, as the smallest of
     * 0x7fff - x (phminposuw); -32768 in every lane: none */
    __m256i m8 = _mm256_max_epi16(_mm512_castsi512_si256(ep), _mm512_extracti64x4_epi64(ep, 1));
    __m128i m4 = _mm_max_epi16(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
    int32_t er = 0x7fff - (int32_t)(uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_sub_epi16(_mm_set1_epi16(0x7fff), m4)));
    er = er == -32768 ? V_LOW : er;
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    /* (emr below FAST_EMPTY / 2: every product and c are zero, and so is
     * the sum, whatever the shifts) */
    __m512i sh = _mm512_sub_epi16(_mm512_set1_epi16((short)(emr + P->base)), ep);
    __m512i t = _mm512_srlv_epi16(_mm512_sll_epi16(sp, V_CNT(P->prec)), sh);
    t = _mm512_mask_sub_epi16(t, neg, zero, t);
    int32_t sum = _mm512_reduce_add_epi32(_mm512_madd_epi16(t, one));
    return finish_k(P, emr - P->bab, sum, &xc, cf, out, xcp, 0);
}

W_FN uint64_t w_dot(const fast_plan *P, uint64_t c, const void *a, const void *b, const int out, const int ck,
                    const int spk, const int nw)
{
    const mma_unit *u = &P->h.u;
    if (P->steps == 1) return w_step(P, u, 1, 0, c, NULL, a, b, out, ck, spk, nw, NULL);
    fast_c xc = {0, 0, 0, 1};
    const char *ca = (const char *)a, *cb = (const char *)b;
    uint64_t acc = w_step(P, u, 1, 0, c, &xc, ca, cb, out, ck, spk, nw, NULL);
    for (int s = 1; s < P->steps; s++) {
        ca += 32 * (nw ? nw : 8);
        cb += 32 * (nw ? nw : 8);
        acc = w_step(P, u, 0, s, acc, &xc, ca, cb, out, ck, spk, nw, NULL);
    }
    return acc;
}

#define W_KERNELS(OUT, CK, SPK)                                                                    \
    FN_UNSCALED(fast_w_##OUT##_##SPK, W_TARGET, w_dot(PLAN(h), c, a, b, OUT, CK, SPK, 0))           \
    FN_UNSCALED(fast_w1_##OUT##_##SPK, W_TARGET,                                                    \
                w_step(PLAN(h), &h->u, 1, 0, c, NULL, a, b, OUT, CK, SPK, 0, fast_w_##OUT##_##SPK))    \
    B_RANGE(fast_wb_##OUT##_##SPK, W_TARGET, 1, w_dot, OUT, CK, SPK, 1)
OUT_SPK_FORMS(W_KERNELS)
#undef W_KERNELS
const fast_fn fused_w_kernels[FUSED_OUTS][FUSED_SPKS] = {
    {fast_w_1_0, fast_w_1_1, fast_w_1_2}, {fast_w_2_0, fast_w_2_1, fast_w_2_2}, {fast_w_3_0, fast_w_3_1, fast_w_3_2}};
const fast_fn fused_w1_kernels[FUSED_OUTS][FUSED_SPKS] = {
    {fast_w1_1_0, fast_w1_1_1, fast_w1_1_2}, {fast_w1_2_0, fast_w1_2_1, fast_w1_2_2}, {fast_w1_3_0, fast_w1_3_1, fast_w1_3_2}};
const fast_bfn fused_w_batches[FUSED_OUTS][FUSED_SPKS] = {
    {fast_wb_1_0, fast_wb_1_1, fast_wb_1_2}, {fast_wb_2_0, fast_wb_2_1, fast_wb_2_2}, {fast_wb_3_0, fast_wb_3_1, fast_wb_3_2}};

/* whether P's steps fit the 16-bit lanes (32 products a step of 8-bit
 * signed operands, pre-shifted products below 2^15, ezero a word), and
 * the lanes' constants */
int fused_w_plan(fast_plan *P, const mma_unit *u)
{
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    if (P->L != 32 || fa->width > 8 || fb->width > 8 || !fa->has_sign || !fb->has_sign) return 0;
    uint32_t top = (2 * P->va.hidden - 1) * (2 * P->vb.hidden - 1);
    if (P->pre > 15 || (top << P->pre) >= 0x8000 || P->base > 1000 || (P->zeros_part && (P->ez_rel < -30000 || P->ez_rel > 30000)))
        return 0;
    const fast_op *op[2] = {&P->va, &P->vb};
    const int w[2] = {fa->width, fb->width};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 32; j++) {
            P->w_mm[i][j] = (int16_t)op[i]->mmask;
            P->w_em[i][j] = (int16_t)op[i]->emask;
            P->w_hid[i][j] = (int16_t)op[i]->hidden;
            P->w_sm[i][j] = (int16_t)op[i]->smask;
            P->w_sv[i][j] = (int16_t)op[i]->sval;
            P->w_wm[i][j] = (int16_t)((1 << w[i]) - 1);
        }
        P->w_ss[i][0] = 16 - w[i];
    }
    P->w_pre1[0] = P->pre + 1;
    P->w_nan_only = !fa->has_inf && !fb->has_inf;
    for (int j = 0; j < 32; j++) {
        P->w_one[j] = 1;
        P->w_ezv[j] = (int16_t)(P->zeros_part ? P->ez_rel : -32768);
        P->w_idx[j] = (int16_t)(4 * (j & 15));
    }
    return 1;
}
#endif
