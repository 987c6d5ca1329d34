/* The fast path of the AMD CDNA3 algorithms (alg_amd.c): FDRDA and CoFDRDA
 * (xf32, fp16, bf16) and GFDRDA and CoGFDRDA (fp8), the same arithmetic.
 * A step: the products fused among themselves with F bits cut toward zero
 * (even and odd products apart for GFDRDA, then joined with round-down),
 * then c added, both aligned to the larger exponent with round-down (the
 * dot part at F2+1 bits, c at F bits, or c dropped below emax-F-1 with
 * cadd=rdz); the sum rounded down to F2 bits, then to the output.  The
 * products come from the shared tables and loops (fast.h); a step with
 * an Inf or NaN, or a product that may overflow (povf, exponent >= 127),
 * goes through amd_special first. */
#include "fast.h"

#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int L, steps, f, f2, pre, base, evenodd, rdz, povf, fbp;
    fast_cfmt c1, cd;
    int32_t cemin1, cemind;          /* a zero c's exponent: its format's emin */
    int32_t kemin;                   /* d's emin (the round-down to F2 bits) */
    int out;                         /* OUT_F32RNE or 0 */
    fast_out o;
    fast_src src;
    /* vector kernel */
    fast_op va, vb;
#ifdef FAST_HAVE_AVX2
    fast_vop ka, kb;
#endif
    int32_t one[8], low[8], even[8];
    int64_t prec[2], cpre[2];          /* pre; c's shift to F - 23 fraction bits (batch loops) */
    int groups, tail;
    int32_t bab;
    int as, bs;                      /* the operands' natural sizes (fast_nat_size) */
} amd_plan;
#define PLAN(h) ((const amd_plan *)(h))

static int amd_ok(const mma_unit *u)
{
    if (u->tree == MMA_TREE_FUSED) {
        if (u->cadd != MMA_CADD_RD && u->cadd != MMA_CADD_RDZ) return 0;
    } else if (u->tree != MMA_TREE_EVENODD) {
        return 0;
    }
    if ((u->flags & (MMA_F_FTZ_IN | MMA_F_VIA_FP16)) || u->scale != MMA_FMT_NONE || u->interleave) return 0;
    if (!fast_op_ok(u->a) || !fast_op_ok(u->b) || u->lmax < 1 || u->lmax > 64 || u->k % u->lmax) return 0;
    int fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    if (u->f < 1 || u->f > 48 || u->f2 < u->f || u->f2 > 40 || u->f - fbp > 40) return 0;
    if (u->c != MMA_FMT_FP32 && !fast_tab[u->c]) return 0;
    return (u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) && u->p >= 1 &&
           u->p <= mma_format(u->d)->mbits;
}

/* mma_fixed_realign with round-down: s in units of 2^from, in units of 2^to */
static inline int64_t realign_rd(int64_t s, int32_t from, int32_t to)
{
    /* (without branches: which way it shifts follows the data, and a
     * large file's vectors mispredicted it) */
    int32_t d = to - from;
    int ls = d < 0 ? -d : 0, rs = d > 63 ? 63 : d > 0 ? d : 0;
    return (int64_t)((uint64_t)s << ls) >> rs;
}

/* realign_rd toward a larger exponent (d = to - from >= 0): a right shift
 * alone, a third of realign_rd's instructions (8% of a CDNA3 fp8 call) */
static inline int64_t shr_rd(int64_t s, int32_t d)
{
    return s >> (d > 63 ? 63 : d);
}

/* the rounding of s * 2^lsb: down to F2 fraction bits (mma_round_keep),
 * then to the output (mma_round_to) */
static inline __attribute__((always_inline)) uint64_t amd_round(const amd_plan *P, int64_t s, int32_t lsb,
                                                               const int out)
{
    uint64_t sg = (uint64_t)(s >> 63), mag = ((uint64_t)s ^ sg) - sg;
    int neg = (int)(sg & 1);
    if (mag) {
        int32_t x = 63 - __builtin_clzll(mag) + lsb;
        int32_t keep = (x < P->kemin ? P->kemin : x) - P->f2;
        int32_t sh = keep - lsb;
        /* (no branch on the shift's direction: a large file mispredicted it) */
        int rs = sh > 63 ? 63 : sh > 0 ? sh : 0, ls = sh < 0 ? -sh : 0;
        uint64_t q = mag >> rs, rem = mag & (((uint64_t)1 << rs) - 1);
        q = sh > 63 ? 0 : q;
        rem = sh > 63 ? mag : rem;
        mag = (q + (uint64_t)(neg && rem)) << ls;        /* toward -inf */
        lsb = keep;
    }
    return fast_round(&P->o, neg, mag, lsb, out, NULL);
}

/* A step that meets Inf or NaN, or whose products may overflow: the
 * classes as alg_amd.c gives them (mma_term_overflow: a product reaching
 * 2^128 is Inf, with its sign), decided by mma_terms_special's rules
 * (any NaN, or Inf of both signs: the canonical NaN; else the Inf).
 * Returns 1 and sets *out when decided; 0 when no term is Inf or NaN. */
static __attribute__((noinline)) int amd_special(const amd_plan *P, const uint64_t *a, const uint64_t *b,
                                                 uint64_t cls_c, uint64_t *out)
{
    unsigned inf = 0;
    const fast_src *S = &P->src;
    if (!S->pt) {                 /* a NaN operand (random bits: most of them) */
        uint64_t any = 0;
        for (int j = 0; j < P->L; j++) any |= fast_entry(S->ta, S->amask, a[j]) | fast_entry(S->tb, S->bmask, b[j]);
        if (any & T_NAN) { *out = P->o.nan; return 1; }
    }
    for (int j = 0; j < P->L; j++) {
        /* the class alone where no product may overflow and no pair
         * table gives the whole product in one load */
        uint64_t x = P->povf || S->pt ? fast_product(S, a[j], b[j])
                                      : product_class(fast_entry(S->ta, S->amask, a[j]),
                                                      fast_entry(S->tb, S->bmask, b[j]));
        if (x & P_SPEC) {
            if (x & P_NAN) { *out = P->o.nan; return 1; }
            inf |= (x & P_NEG) ? 2 : 1;
        } else if (P->povf && !(x & P_ZERO)) {
            int32_t e = (int32_t)((x >> 32) & 0xfff) - P_EOFF;
            if (63 - __builtin_clzll((uint32_t)x) + e - P->fbp >= 128) inf |= (x & P_NEG) ? 2 : 1;
        }
    }
    if (cls_c & P_NAN) { *out = P->o.nan; return 1; }
    if (cls_c & P_SPEC) inf |= (cls_c & P_NEG) ? 2 : 1;
    if (inf == 3) { *out = P->o.nan; return 1; }
    if (inf) { *out = P->o.inf | (inf == 2 ? P->o.sign : 0); return 1; }
    return 0;
}

/* GFDRDA: the even and odd sums (F bits relative to 2^ee, 2^eo) joined
 * with round-down at the larger exponent, *ed.  An empty sum is 0 with an
 * exponent below any other (-2048 or lower), which the join then shifts
 * out: the same as leaving it out, without a branch on it. */
static inline int64_t join_evenodd(int64_t se, int32_t ee, int64_t so, int32_t eo, int32_t *ed)
{
    *ed = ee > eo ? ee : eo;
    return shr_rd(se, *ed - ee) + shr_rd(so, *ed - eo);
}

/* the largest exponent field of every other product from j0 (0: all zero) */
static inline uint64_t emf_stride(const uint64_t *p, int L, int j0)
{
    uint64_t emf = 0;
    for (int j = j0; j < L; j += 2) {
        uint64_t ef = p[j] & P_EMASK;
        emf = ef > emf ? ef : emf;
    }
    return emf;
}

/* The end of a step: the dot part S (F fraction bits relative to 2^ed;
 * empty when every product is zero, S then 0 and ed -2048 or lower, below
 * any c) and c, aligned with round-down to the larger exponent, then
 * rounded. */
static inline __attribute__((always_inline)) uint64_t amd_join(const amd_plan *P, int first, const fast_c *xc,
                                                              const fast_cfmt *cf, int64_t S, int32_t ed,
                                                              const int out)
{
    int32_t ec = xc->sig ? xc->e : first ? P->cemin1 : P->cemind;
    int32_t emax = ed > ec ? ed : ec;
    int32_t lsb = emax - P->f2 - 1;
    int64_t s = realign_rd(S, ed - P->f, lsb);
    if (xc->sig && !(P->rdz && ec < emax - P->f - 1)) {
        int64_t cs = xc->neg ? -(int64_t)xc->sig : (int64_t)xc->sig;
        s += (int64_t)((uint64_t)realign_rd(cs, ec - cf->fb, emax - P->f) << (P->f2 + 1 - P->f));
    }
    return amd_round(P, s, lsb, out);
}

static inline __attribute__((always_inline)) uint64_t amd_step(const amd_plan *P, int first, uint64_t acc,
                                                              const uint64_t *a, const uint64_t *b,
                                                              const int evenodd, const int out)
{
    const int L = P->L;
    uint64_t p[64], any, emf;
    fast_products(&P->src, a, b, L, p, &any, &emf);
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = c_decode(cf, acc);
    if (__builtin_expect((any & P_SPEC) || xc.spec || (P->povf && emf >= (uint64_t)(127 + P_EOFF) << 32), 0)) {
        uint64_t r;
        if (amd_special(P, a, b, c_class(cf, acc), &r)) return r;
    }
    /* the dot part: S at F fraction bits relative to 2^ed; empty when
     * every product is zero (zeros take no part) */
    int64_t S = 0;
    int32_t ed = 0;
    if (!evenodd) {
        ed = (int32_t)(emf >> 32) - P_EOFF;
        if (emf) S = align_body(p, L, (int64_t)ed + P_EOFF + P->base, P->pre, 0, 1);
    } else {
        uint64_t fe = emf_stride(p, L, 0), fo = emf_stride(p, L, 1);
        int32_t ee = (int32_t)(fe >> 32) - P_EOFF, eo = (int32_t)(fo >> 32) - P_EOFF;
        int64_t se = fe ? align_body(p, L, (int64_t)ee + P_EOFF + P->base, P->pre, 0, 2) : 0;
        int64_t so = fo ? align_body(p + 1, L - 1, (int64_t)eo + P_EOFF + P->base, P->pre, 0, 2) : 0;
        S = join_evenodd(se, ee, so, eo, &ed);
    }
    return amd_join(P, first, &xc, cf, S, ed, out);
}

/* ---- the AVX2 kernel ------------------------------------------------------ */
#ifdef FAST_HAVE_AVX2
/* (gcc 12 unrolls the loops over a G known only at run time eight times
 * and then cannot see that the second loop reads only what the first
 * wrote) */
#if defined(__GNUC__) && !defined(__clang__)   /* a GCC-only warning */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
/* One step on eight products a vector (fast_fused_avx2.c's decoding and
 * alignment): zero products take no part (their exponent is the lowest);
 * even and odd products are the even and odd lanes (v_load8 keeps the
 * parity of k).  A step with Inf, NaN or a product that may overflow is
 * left to the scalar step. */
V_FN uint64_t amd_vstep(const amd_plan *P, const int first, uint64_t acc, const void *a, const void *b,
                        const int as, const int bs, const int G, const int tail, const int tf, const int evenodd,
                        const int out, const int np)
{
    __m256i SP[8], EP[8], SG[8];
    const __m256i zero = _mm256_setzero_si256(), low = V_LD(P->low);
    __m256i spec = zero, emv = low, nanv = zero;
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m256i xa, xb, sa, sb, ea, eb, valid = zero;
        const int part = tail && g == G - 1;
        v_operands_n(a, b, as, bs, g, part ? tail : 0, tf, &P->ka, &P->kb, P->one, &xa, &xb, &sa, &sb, &ea, &eb,
                     &valid, &spec);
        if (np) {                                 /* NaN lanes: Inf/NaN with a fraction */
            __m256i na = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(P->ka.mm)), zero),
                                             _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(P->ka.sm)), V_LD(P->ka.sv)));
            __m256i nb = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(P->kb.mm)), zero),
                                             _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(P->kb.sm)), V_LD(P->kb.sv)));
            nanv = _mm256_or_si256(nanv, _mm256_or_si256(na, nb));
        }
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i z = _mm256_cmpeq_epi32(sp, zero);
        __m256i ep = _mm256_blendv_epi8(_mm256_add_epi32(ea, eb), low, z);
        if (part) ep = _mm256_blendv_epi8(low, ep, valid);
        SG[g] = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, V_CNT(P->ka.ssh)),
                                                   _mm256_sll_epi32(xb, V_CNT(P->kb.ssh))), 31);
        SP[g] = _mm256_sll_epi32(sp, V_CNT(P->prec));
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = c_decode(cf, acc);
    int32_t er = v_hmax(emv);                             /* biased by bab */
    /* np: a NaN operand's step is NaN, selected at the end instead of a
     * branch that random bits mispredict (the sum of such a step is
     * garbage but harmless); other specials branch */
    int pspec = np ? !_mm256_testc_si256(nanv, spec) : !_mm256_testz_si256(spec, spec);
    uint64_t pnan = np ? -(uint64_t)!_mm256_testz_si256(nanv, nanv) : 0;
    if (__builtin_expect(pspec || xc.spec || (P->povf && er - P->bab >= 127), 0)) {
        uint64_t r, wa[64], wb[64];              /* (random bits: most steps) */
        const uint64_t *a64 = fast_widen(a, as, P->L, wa), *b64 = fast_widen(b, bs, P->L, wb);
        if (amd_special(P, a64, b64, c_class(cf, acc), &r)) return r;
        return amd_step(P, first, acc, a64, b64, evenodd, out);
    }
    /* the sums align at the largest exponent, of the even and of the odd
     * lanes apart for GFDRDA; with every product zero (er, ee or eo below
     * FAST_EMPTY / 2) every lane's significand is 0, and so is the sum,
     * at an exponent below any c: no branch, which large files
     * mispredicted */
    const __m256i ev = V_LD(P->even);
    int32_t ee = er, eo = er, ed;
    if (evenodd) {
        ee = v_hmax(_mm256_blendv_epi8(low, emv, ev));
        eo = v_hmax(_mm256_blendv_epi8(emv, low, ev));
    }
    const __m256i ebv = _mm256_blendv_epi8(_mm256_set1_epi32(eo + P->base), _mm256_set1_epi32(ee + P->base), ev);
    __m256i sv = zero;
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m256i sh = _mm256_sub_epi32(ebv, EP[g]);
        sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(SP[g], sh), SG[g]));
        sv = _mm256_sub_epi32(sv, SG[g]);
    }
    int64_t S;
    if (!evenodd) {
        S = v_hsum32(sv);
        ed = er - P->bab;
    } else {
        int64_t se = v_hsum32(_mm256_and_si256(sv, ev)), so = v_hsum32(_mm256_andnot_si256(ev, sv));
        S = join_evenodd(se, ee - P->bab, so, eo - P->bab, &ed);
    }
    uint64_t r = amd_join(P, first, &xc, cf, S, ed, out);
    return np ? (r & ~pnan) | (P->o.nan & pnan) : r;
}

/* a kernel on uint64_t operands (fast_fn), T uint64_t, AS = BS = 8, or on
 * operands at their natural widths (fast_nfn), T void, AS and BS their
 * sizes */
#define AMD_VKERNEL(NAME, T, AS, BS, G, TAIL, TF, EO, OUT, NP)                                     \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const T *a, const T *b, const T *sa, \
                                  const T *sb)                                                     \
    {                                                                                              \
        const amd_plan *P = PLAN(h);                                                               \
        const int as = AS, bs = BS;                                                                \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        c = amd_vstep(P, 1, c, a, b, as, bs, G, TAIL, TF, EO, OUT, NP);                            \
        for (int s = 1; s < P->steps && c != P->o.nan; s++)   /* a NaN c gives NaN */            \
            c = amd_vstep(P, 0, c, fast_at(a, as, (size_t)(s * P->L)), fast_at(b, bs, (size_t)(s * P->L)), as, bs, \
                          G, TAIL, TF, EO, OUT, NP);                                               \
        return c;                                                                                  \
    }
#define AMD_VKERNELS(NAME, NS, G, TAIL, TF, EO, OUT, NP)                                           \
    AMD_VKERNEL(NAME, uint64_t, 8, 8, G, TAIL, TF, EO, OUT, NP)                                    \
    AMD_VKERNEL(NAME##_n, void, NS, NS, G, TAIL, TF, EO, OUT, NP)
AMD_VKERNELS(amd_v8, 2, 1, 0, 0, 0, OUT_F32RNE, 1)      /* CDNA3 fp16/bf16: steps of 8 */
AMD_VKERNELS(amd_v_tf4, 4, 1, 4, 1, 0, OUT_F32RNE, 0)   /* xf32: steps of 4 */
AMD_VKERNELS(amd_v_eo16, 1, 2, 0, 0, 1, OUT_F32RNE, 0)  /* fp8/bf8: steps of 16 */
/* (the narrow ones at the plan's sizes) */
AMD_VKERNEL(amd_v_any, uint64_t, 8, 8, P->groups, P->tail, 1, 0, 0, 0)
AMD_VKERNEL(amd_v_any_n, void, P->as, P->bs, P->groups, P->tail, 1, 0, 0, 0)
AMD_VKERNEL(amd_v_eo_any, uint64_t, 8, 8, P->groups, P->tail, 1, 1, 0, 0)
AMD_VKERNEL(amd_v_eo_any_n, void, P->as, P->bs, P->groups, P->tail, 1, 1, 0, 0)
#undef AMD_VKERNELS
#undef AMD_VKERNEL
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

/* ---- batch loops: a dot product a lane ----------------------------------- */
#ifdef FAST_HAVE_AVX2
/* Why: a vector at a time, a step's products fill one vector but its end
 * (the largest exponent and the sum across lanes, the join with c, the two
 * roundings) is scalar work, about half of a step's ~265 instructions
 * (callgrind, fp16 on random bits), and the core already ran them near
 * its peak (9.8 G a second): two dot products side by side (the fused
 * batch loops' way) gained nothing.  Eight dot products, one a 32-bit
 * lane, share every instruction instead: the largest exponent and the
 * sums are vertical, and the join is done on doubles, where each term and
 * their sum are exact (below 2^53), with the roundings on the doubles'
 * bits.  A NaN operand or c gives the NaN in its lane, as do (bf16)
 * products reaching 2^128 and Inf c their Inf; lanes that meet an Inf
 * operand or a result below 2^-126 or from 2^128 on are done again by the
 * narrow kernel. */

/* 2^e for four int32 e (well inside double's range), as doubles */
V_FN __m256d l_pow2(__m128i e)
{
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepi32_epi64(_mm_add_epi32(e, _mm_set1_epi32(1023))), 52));
}

/* Four lanes' end of a step: s * 2^e1 + sc * 2^e2 (exact), rounded down to
 * F2 fraction bits and then to nearest-even fp32, on the double's bits
 * (mrd: the 52 - F2 bits the round-down drops).  Returns fp32 bits in
 * each 64-bit lane's low half; *ok: the sum is zero (+0) or its magnitude
 * lies in [2^-126, 2^128), where the roundings meet no subnormal, and
 * one up to 2^128 gives Inf's bits (nearest-even's overflow). */
V_FN __m256i l_round4(__m128i s, __m128i sc, __m128i e1, __m128i e2, __m256i mrd, __m256i *ok)
{
    __m256d v = _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(s), l_pow2(e1)),
                              _mm256_mul_pd(_mm256_cvtepi32_pd(sc), l_pow2(e2)));
    const __m256i zero = _mm256_setzero_si256(), sign = _mm256_set1_epi64x((long long)0x8000000000000000ull);
    __m256i b = _mm256_castpd_si256(v), ab = _mm256_andnot_si256(sign, b);
    __m256i isz = _mm256_cmpeq_epi64(ab, zero);
    __m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(ab, _mm256_set1_epi64x(((long long)(1023 - 126) << 52) - 1)),
                                  _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(1023 + 128) << 52), ab));
    *ok = _mm256_or_si256(in, isz);
    __m256i neg = _mm256_cmpgt_epi64(zero, b);
    b = _mm256_andnot_si256(mrd, _mm256_add_epi64(b, _mm256_and_si256(neg, mrd)));      /* toward -inf */
    b = _mm256_add_epi64(b, _mm256_add_epi64(_mm256_and_si256(_mm256_srli_epi64(b, 29), _mm256_set1_epi64x(1)),
                                             _mm256_set1_epi64x(((long long)1 << 28) - 1)));  /* to nearest, even */
    __m256i r = _mm256_sub_epi64(_mm256_srli_epi64(b, 29), _mm256_set1_epi64x((long long)(1023 - 127) << 23));
    r = _mm256_or_si256(r, _mm256_and_si256(neg, _mm256_set1_epi64x(0x80000000ll)));
    return _mm256_andnot_si256(isz, r);
}

/* the low halves of two vectors of four 64-bit lanes, as eight 32-bit lanes */
V_FN __m256i l_pack(__m256i lo, __m256i hi)
{
    __m256 x = _mm256_shuffle_ps(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi), 0x88);
    return _mm256_permute4x64_epi64(_mm256_castps_si256(x), 0xd8);
}

/* significand (hidden bit included) and max(biased exponent, 1) of two
 * operands a lane, its 16-bit halves */
V_FN void l_decode16(__m256i x, const fast_vop *k, __m256i *sig, __m256i *ex)
{
    __m256i e = _mm256_and_si256(_mm256_srl_epi16(x, V_CNT(k->mb)), _mm256_set1_epi16((short)k->em[0]));
    __m256i one = _mm256_set1_epi16(1);
    *sig = _mm256_or_si256(_mm256_and_si256(x, _mm256_set1_epi16((short)k->mm[0])),
                           _mm256_sll_epi16(_mm256_min_epu16(e, one), V_CNT(k->mb)));
    *ex = _mm256_max_epi16(e, one);
}

/* The eight fp8 (fnuz) products' sums of a step, the even k and the odd
 * apart (GFDRDA), each product cut toward zero at its group's largest
 * exponent - F: decoded and multiplied two a lane, bytes 0 and 2 of a
 * lane's four (even k) or 1 and 3 (odd k) as its 16-bit halves, then
 * aligned a half at a time (fp8 products cannot overflow) */
V_FN void l_sums_fp8(const amd_plan *P, const __m256i da[4], const __m256i db[4], __m256i *se, __m256i *so,
                     __m256i *eme, __m256i *emo)
{
    const __m256i zero = _mm256_setzero_si256(), base = _mm256_set1_epi32(P->base);
    const __m256i lo8 = _mm256_set1_epi16(0xff), lo16 = _mm256_set1_epi32(0xffff);
    __m256i SP2[8], EP2[8], SG2[8], me = zero, mo = zero, ae = zero, ao = zero;
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        const int j = r / 2, odd = r % 2;
        __m256i xa = odd ? _mm256_srli_epi16(da[j], 8) : _mm256_and_si256(da[j], lo8);
        __m256i xb = odd ? _mm256_srli_epi16(db[j], 8) : _mm256_and_si256(db[j], lo8);
        __m256i sa, sb, ea, eb;
        l_decode16(xa, &P->ka, &sa, &ea);
        l_decode16(xb, &P->kb, &sb, &eb);
        __m256i sp = _mm256_mullo_epi16(sa, sb);             /* (below 2^16) */
        __m256i ep = _mm256_andnot_si256(_mm256_cmpeq_epi16(sp, zero), _mm256_add_epi16(ea, eb));
        SG2[r] = _mm256_xor_si256(xa, xb);
        SP2[r] = sp;
        EP2[r] = ep;
        if (odd) mo = _mm256_max_epi16(mo, ep);
        else me = _mm256_max_epi16(me, ep);
    }
    me = _mm256_and_si256(_mm256_max_epi16(me, _mm256_srli_epi32(me, 16)), lo16);
    mo = _mm256_and_si256(_mm256_max_epi16(mo, _mm256_srli_epi32(mo, 16)), lo16);
    const __m256i ebe = _mm256_add_epi32(me, base), ebo = _mm256_add_epi32(mo, base);
#pragma GCC unroll 16
    for (int k = 0; k < 16; k++) {
        const int r = k / 4 * 2 + k % 2, hi = k % 4 >= 2;
        __m256i sp = hi ? _mm256_srli_epi32(SP2[r], 16) : _mm256_and_si256(SP2[r], lo16);
        __m256i ep = hi ? _mm256_srli_epi32(EP2[r], 16) : _mm256_and_si256(EP2[r], lo16);
        /* the sign to bit 31: a byte's top bit, 7 or 23 */
        __m256i sg = _mm256_srai_epi32(_mm256_slli_epi32(SG2[r], hi ? 8 : 24), 31);
        __m256i t = _mm256_srlv_epi32(_mm256_sll_epi32(sp, V_CNT(P->prec)), _mm256_sub_epi32(k % 2 ? ebo : ebe, ep));
        t = _mm256_sub_epi32(_mm256_xor_si256(t, sg), sg);
        if (k % 2) ao = _mm256_add_epi32(ao, t);
        else ae = _mm256_add_epi32(ae, t);
    }
    *se = ae, *so = ao, *eme = me, *emo = mo;
}

/* The eight fp16 or bf16 products' sum of a step, each cut toward zero at
 * the largest exponent - F: decoded two a lane (elements 2j and 2j + 1
 * are a lane's 16-bit halves), multiplied a half at a time by pmaddwd
 * with the other half masked.  ov: products may reach 2^128 (bf16), the
 * lanes with such a product of each sign or'd into *ipos, *ineg */
V_FN void l_sums_16(const amd_plan *P, const __m256i da[4], const __m256i db[4], const int ov, __m256i *se,
                    __m256i *eme, __m256i *ipos, __m256i *ineg)
{
    const __m256i zero = _mm256_setzero_si256(), lo16 = _mm256_set1_epi32(0xffff);
    const __m256i othr = _mm256_set1_epi32(254 + P->bab + P->fbp);
    __m256i SA[4], SB[4], E2[4], SP[8], EP[8], SG[8], em = zero, sum = zero;
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
        __m256i ea, eb;
        l_decode16(da[j], &P->ka, &SA[j], &ea);
        l_decode16(db[j], &P->kb, &SB[j], &eb);
        E2[j] = _mm256_add_epi16(ea, eb);
    }
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        const int j = k / 2, hi = k % 2;
        __m256i sp = _mm256_madd_epi16(hi ? _mm256_andnot_si256(lo16, SA[j]) : _mm256_and_si256(SA[j], lo16), SB[j]);
        __m256i ep = hi ? _mm256_srli_epi32(E2[j], 16) : _mm256_and_si256(E2[j], lo16);
        ep = _mm256_andnot_si256(_mm256_cmpeq_epi32(sp, zero), ep);
        __m256i x = _mm256_xor_si256(da[j], db[j]);
        SG[k] = _mm256_srai_epi32(hi ? x : _mm256_slli_epi32(x, 16), 31);
        SP[k] = _mm256_sll_epi32(sp, V_CNT(P->prec));
        EP[k] = ep;
        if (ov) {               /* the product's leading bit (its float's exponent) + e - fbp >= 128 */
            __m256i fe = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(sp)), 23);
            __m256i o = _mm256_cmpgt_epi32(_mm256_add_epi32(fe, ep), othr);
            *ipos = _mm256_or_si256(*ipos, _mm256_andnot_si256(SG[k], o));
            *ineg = _mm256_or_si256(*ineg, _mm256_and_si256(SG[k], o));
        }
        em = _mm256_max_epi32(em, ep);
    }
    const __m256i eb = _mm256_add_epi32(em, _mm256_set1_epi32(P->base));
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        __m256i t = _mm256_srlv_epi32(SP[k], _mm256_sub_epi32(eb, EP[k]));
        sum = _mm256_add_epi32(sum, _mm256_sub_epi32(_mm256_xor_si256(t, SG[k]), SG[k]));
    }
    *se = sum, *eme = em;
}

/* One step of eight dot products, dot v in lane v: a and b the step's 16
 * bytes of dot 0 (8 fp16 or 16 fp8 operands, nb bytes each), dot v's st
 * bytes further on; c their accumulators (fp32 bits).  Returns the step's
 * results; or's into *nan the lanes whose result is NaN and into *rare
 * those to be done again (*nan: a NaN operand, or the first c NaN, which
 * make the result NaN whatever else the lane meets).  ov: products may
 * reach 2^128 (bf16), an Inf of their sign; an Inf c counts as such an
 * Inf; Infs of both signs give NaN, as does a later step's NaN c (which
 * may also be a rare lane's garbage: that lane is done again anyway). */
V_FN __m256i amd_lstep(const amd_plan *P, const int first, __m256i c, const char *a, const char *b, size_t st,
                       const int nb, const int ov, __m256i *nan, __m256i *rare)
{
    const __m256i zero = _mm256_setzero_si256(), ones = _mm256_cmpeq_epi32(zero, zero);
    __m256i da[4], db[4];
    v_load8x16_t(a, st, da);
    v_load8x16_t(b, st, db);
    /* NaN and Inf operands, on the packed elements */
    __m256i nanop, infop;
    if (nb == 2) {                  /* fp16: |x| above the Inf/NaN pattern is NaN, at it Inf */
        const __m256i abs = _mm256_set1_epi16(0x7fff);
        __m256i mx = zero;
        for (int j = 0; j < 4; j++)
            mx = _mm256_max_epu16(mx, _mm256_max_epu16(_mm256_and_si256(da[j], abs), _mm256_and_si256(db[j], abs)));
        const __m256i sv = _mm256_set1_epi16((short)P->va.sval);
        nanop = _mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_cmpgt_epi16(mx, sv), zero), ones);
        infop = _mm256_xor_si256(_mm256_cmpeq_epi32(_mm256_cmpeq_epi16(mx, sv), zero), ones);
    } else {                        /* fp8 fnuz: 0x80 is NaN, no Inf */
        const __m256i nv = _mm256_set1_epi8((char)0x80);
        __m256i m = zero;
        for (int j = 0; j < 4; j++)
            m = _mm256_or_si256(m, _mm256_or_si256(_mm256_cmpeq_epi8(da[j], nv), _mm256_cmpeq_epi8(db[j], nv)));
        nanop = _mm256_xor_si256(_mm256_cmpeq_epi32(m, zero), ones);
        infop = zero;
    }
    /* the products' sums, each cut toward zero at its group's largest
     * exponent - F: fp8 (GFDRDA) the even and the odd products apart */
    const int evenodd = nb == 1;
    __m256i se, so = zero, eme, emo = zero, ipos = zero, ineg = zero;
    if (evenodd) l_sums_fp8(P, da, db, &se, &so, &eme, &emo);
    else l_sums_16(P, da, db, ov, &se, &eme, &ipos, &ineg);
    __m256i er = eme, S = se;
    if (evenodd) {                  /* the two sums joined with round-down */
        er = _mm256_max_epi32(eme, emo);
        S = _mm256_add_epi32(_mm256_srav_epi32(se, _mm256_sub_epi32(er, eme)),
                             _mm256_srav_epi32(so, _mm256_sub_epi32(er, emo)));
    }
    /* ed: the dot part's exponent; every product zero (er 0): below any c */
    __m256i ed = _mm256_blendv_epi8(_mm256_sub_epi32(er, _mm256_set1_epi32(P->bab)), _mm256_set1_epi32(-100000),
                                    _mm256_cmpeq_epi32(er, zero));
    /* c (fp32): the exponent of its unit bit, its signed significand */
    __m256i ce = _mm256_and_si256(_mm256_srli_epi32(c, 23), _mm256_set1_epi32(0xff));
    __m256i cabs = _mm256_and_si256(c, _mm256_set1_epi32(0x7fffffff)), cinf = _mm256_set1_epi32(0x7f800000);
    __m256i cnan = _mm256_cmpgt_epi32(cabs, cinf), csg = _mm256_srai_epi32(c, 31);
    __m256i isci = _mm256_cmpeq_epi32(cabs, cinf);
    ipos = _mm256_or_si256(ipos, _mm256_andnot_si256(csg, isci));
    ineg = _mm256_or_si256(ineg, _mm256_and_si256(csg, isci));
    __m256i csig = _mm256_or_si256(_mm256_and_si256(c, _mm256_set1_epi32(0x7fffff)),
                                   _mm256_slli_epi32(_mm256_min_epu32(ce, _mm256_set1_epi32(1)), 23));
    __m256i ec = _mm256_sub_epi32(_mm256_max_epi32(ce, _mm256_set1_epi32(1)), _mm256_set1_epi32(127));
    csig = _mm256_sub_epi32(_mm256_xor_si256(csig, csg), csg);
    __m256i emax = _mm256_max_epi32(ed, ec);
    /* c at emax - F with round-down (dropped below emax - F - 1 where cadd
     * is rdz); the dot part at emax - F2 - 1 with round-down, exact where
     * that shifts it up (then at ed - F) */
    __m256i sc = _mm256_srav_epi32(_mm256_sll_epi32(csig, V_CNT(P->cpre)), _mm256_sub_epi32(emax, ec));
    if (P->rdz) sc = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_sub_epi32(emax, _mm256_set1_epi32(P->f + 1)), ec), sc);
    __m256i dd = _mm256_sub_epi32(emax, ed), g = _mm256_set1_epi32(P->f2 + 1 - P->f);
    S = _mm256_srav_epi32(S, _mm256_max_epi32(_mm256_sub_epi32(dd, g), zero));
    __m256i e2 = _mm256_sub_epi32(emax, _mm256_set1_epi32(P->f));
    __m256i e1 = _mm256_max_epi32(_mm256_sub_epi32(ed, _mm256_set1_epi32(P->f)), _mm256_sub_epi32(e2, g));
    const __m256i mrd = _mm256_set1_epi64x((long long)(((uint64_t)1 << (52 - P->f2)) - 1));
    __m256i ok0, ok1;
    __m256i r0 = l_round4(_mm256_castsi256_si128(S), _mm256_castsi256_si128(sc), _mm256_castsi256_si128(e1),
                          _mm256_castsi256_si128(e2), mrd, &ok0);
    __m256i r1 = l_round4(_mm256_extracti128_si256(S, 1), _mm256_extracti128_si256(sc, 1),
                          _mm256_extracti128_si256(e1, 1), _mm256_extracti128_si256(e2, 1), mrd, &ok1);
    __m256i ok = l_pack(ok0, ok1), r = l_pack(r0, r1);
    __m256i nanl = first ? _mm256_or_si256(nanop, cnan) : nanop;
    __m256i nanr = _mm256_and_si256(ipos, ineg);
    if (!first) nanr = _mm256_or_si256(nanr, cnan);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7f800000), ipos);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int32_t)0xff800000u), ineg);
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int32_t)P->o.nan), _mm256_or_si256(nanr, nanl));
    ok = _mm256_or_si256(ok, _mm256_or_si256(nanr, _mm256_or_si256(ipos, ineg)));
    *nan = _mm256_or_si256(*nan, nanl);
    *rare = _mm256_or_si256(*rare, _mm256_or_si256(infop, _mm256_xor_si256(ok, ones)));
    return r;
}

/* fast_bfn: eight dot products at a time (amd_lstep), the rest and the
 * lanes to do again by the narrow kernel; c of fp32, d fp32 */
V_FN void amd_lanes(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi, const int nb, const int ov)
{
    const amd_plan *P = PLAN(h);
    const size_t st = (size_t)h->u.k * (size_t)nb;
    const char *a = (const char *)x->a, *b = (const char *)x->b;
    const int cs = x->c_size, ds = x->d_size;
    const fast_nfn fn = h->nfn;
    size_t i = lo;
    for (; i + 8 <= hi; i += 8) {
        uint32_t cv[8], rv[8];
        for (int v = 0; v < 8; v++) cv[v] = (uint32_t)fast_ld(x->c, cs, i + (size_t)v);
        __m256i r = V_LD(cv), nan = _mm256_setzero_si256(), rare = nan;
        const char *pa = a + i * st, *pb = b + i * st;
        for (int s = 0; s < P->steps; s++) r = amd_lstep(P, s == 0, r, pa + 16 * s, pb + 16 * s, st, nb, ov, &nan, &rare);
        r = _mm256_blendv_epi8(r, _mm256_set1_epi32((int32_t)P->o.nan), nan);
        _mm256_storeu_si256((__m256i *)rv, r);
        /* (a NaN operand anywhere makes the result NaN, whatever else the lane met) */
        unsigned m = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(nan, rare)));
        while (m) {
            int v = __builtin_ctz(m);
            m &= m - 1;
            rv[v] = (uint32_t)fn(h, cv[v], pa + (size_t)v * st, pb + (size_t)v * st, NULL, NULL);
        }
        for (int v = 0; v < 8; v++) fast_st(x->d, ds, i + (size_t)v, rv[v]);
    }
    for (; i < hi; i++) fast_st(x->d, ds, i, fn(h, fast_ld(x->c, cs, i), a + i * st, b + i * st, NULL, NULL));
}
static V_TARGET void amd_lanes_16(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    amd_lanes(h, x, lo, hi, 2, 0);
}
static V_TARGET void amd_lanes_16ov(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    amd_lanes(h, x, lo, hi, 2, 1);
}
static V_TARGET void amd_lanes_eo8(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi)
{
    amd_lanes(h, x, lo, hi, 1, 0);
}
#endif

#define AMD_KERNEL(NAME, EO, OUT)                                                                  \
    static uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,      \
                         const uint64_t *sa, const uint64_t *sb)                                   \
    {                                                                                              \
        const amd_plan *P = PLAN(h);                                                               \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        c = amd_step(P, 1, c, a, b, EO, OUT);                                                      \
        for (int s = 1; s < P->steps && c != P->o.nan; s++)   /* a NaN c gives NaN */            \
            c = amd_step(P, 0, c, a + s * P->L, b + s * P->L, EO, OUT);                            \
        return c;                                                                                  \
    }
AMD_KERNEL(amd_fused, 0, 0)
AMD_KERNEL(amd_fused_f32, 0, OUT_F32RNE)
AMD_KERNEL(amd_evenodd, 1, 0)
AMD_KERNEL(amd_evenodd_f32, 1, OUT_F32RNE)
#undef AMD_KERNEL

static fast_hdr *amd_build(const mma_unit *u, int mode)
{
    amd_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->L = u->lmax;
    P->steps = u->k / u->lmax;
    P->f = u->f;
    P->f2 = u->f2;
    P->fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    P->pre = u->f > P->fbp ? u->f - P->fbp : 0;
    P->base = P->fbp - u->f + P->pre;
    P->evenodd = u->tree == MMA_TREE_EVENODD;
    P->rdz = u->cadd == MMA_CADD_RDZ;
    P->povf = (u->flags & MMA_F_PROD_OVF) != 0;
    fast_cfmt_init(&P->c1, u->c, u->f);
    fast_cfmt_init(&P->cd, u->d, u->f);
    P->cemin1 = mma_format(u->c)->emin;
    P->cemind = mma_format(u->d)->emin;
    P->kemin = mma_format(u->d)->emin;
    fast_out_init(&P->o, u);
    P->o.nan = mma_canonical_nan(u->d);      /* mma_terms_special's NaN */
    fast_src_init(&P->src, u->a, u->b);
    int f32 = u->d == MMA_FMT_FP32 && u->rho == MMA_RNE && u->p == 23;
    P->h.fn = P->evenodd ? (f32 ? amd_evenodd_f32 : amd_evenodd) : (f32 ? amd_fused_f32 : amd_fused);
    P->h.kernel = FAST_K_SCALAR;
#ifdef FAST_HAVE_AVX2
    /* the vector kernel: 32-bit lanes (each aligned product below
     * 2^(F+2), at most 64 of them), operands it decodes */
    int lg = 0;
    P->groups = (P->L + 7) / 8;
    P->tail = P->L % 8;
    while ((1 << lg) < P->groups) lg++;
    int narrow = (u->f > P->fbp ? u->f : P->fbp) + 2 + 3 + lg <= 30;
    if (mode != FAST_MODE_SCALAR && narrow && fast_vec_op(&P->va, u->a) && fast_vec_op(&P->vb, u->b) &&
        fast_avx2_usable()) {
        P->bab = P->va.bias + P->vb.bias;
        fast_vop_init(&P->ka, &P->va);
        fast_vop_init(&P->kb, &P->vb);
        for (int i = 0; i < 8; i++) {
            P->one[i] = 1;
            P->low[i] = FAST_EMPTY;
            P->even[i] = i % 2 ? 0 : -1;
        }
        P->prec[0] = P->pre;
        int tf = P->va.shr || P->vb.shr;
        P->h.kernel = FAST_K_VECTOR;
        P->h.fn = P->evenodd ? amd_v_eo_any : amd_v_any;
        P->as = fast_nat_size(u->a);
        P->bs = fast_nat_size(u->b);
        P->h.nfn = P->evenodd ? amd_v_eo_any_n : amd_v_any_n;
        if (mode == FAST_MODE_BEST && f32) {
            int kern = 1, both = P->as == P->bs ? P->as : 0;
            if (!P->evenodd && P->L == 8 && !tf) {
                P->h.fn = amd_v8;
                if (both == 2) P->h.nfn = amd_v8_n;
            } else if (!P->evenodd && P->L == 4 && tf && P->va.shr && P->vb.shr) {
                P->h.fn = amd_v_tf4;
                P->h.nfn = amd_v_tf4_n;                   /* (tf32: 4 bytes) */
            } else if (P->evenodd && P->L == 16 && !tf) {
                P->h.fn = amd_v_eo16;
                if (both == 1) P->h.nfn = amd_v_eo16_n;
            } else {
                kern = 0;
            }
            if (kern) P->h.kernel = FAST_K_SPECIAL;
            /* the batch loops (a dot product a lane): fp32 c and d, F of
             * 23 or more (c shifted up), steps of 16 bytes: fp16 or bf16
             * (products reaching 2^128 looked for where povf says so and
             * bf16 can reach it) or fp8 without Inf */
            int fnuz = (u->a == MMA_FMT_E4M3FNUZ || u->a == MMA_FMT_E5M2FNUZ) &&
                       (u->b == MMA_FMT_E4M3FNUZ || u->b == MMA_FMT_E5M2FNUZ);
            if (kern && u->c == MMA_FMT_FP32 && u->f >= 23 && u->f - P->fbp >= 0) {
                P->cpre[0] = u->f - 23;
                if (P->h.nfn == amd_v8_n && u->a == u->b && (u->a == MMA_FMT_FP16 || u->a == MMA_FMT_BF16))
                    P->h.bfn = P->povf && u->a == MMA_FMT_BF16 ? amd_lanes_16ov : amd_lanes_16;
                else if (P->h.nfn == amd_v_eo16_n && fnuz && !P->povf) P->h.bfn = amd_lanes_eo8;
            }
        }
    }
#endif
    return &P->h;
}

const fast_family fast_amd_family = {amd_ok, amd_build};
