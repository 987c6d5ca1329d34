/* The fast path of the fused algorithms (alg_fused.c): FDA and CoFDA, with
 * block scales (ST-FDPA), interleaved steps and the closing IEEE addition
 * of c (Hopper's fp8 mma.sync, "FDA+FADD").  The same arithmetic as
 * alg_fused.c; a step with an Inf or NaN term is decided by fused_special_step
 * from the operand tables' classes, by the rules of specials.c.
 * Kernels (the plan picks one):
 *   - scalar: operands of 16 bits or fewer decoded through the tables
 *     (one table gives the packed product of two 8-bit formats), tf32
 *     arithmetically;
 *   - AVX2 generic (AVX2, BMI2 and LZCNT checked at run time): eight
 *     products per vector, operands decoded arithmetically, each term
 *     aligned by one variable shift; any l, 32- or 64-bit lanes, RZ or RD,
 *     tf32, MX (ue8m0) block scales of 8 or more products;
 *   - AVX2 specialized: the same for l = 8, 16 or 32, RZ, and the common
 *     outputs (fp32 RZ with p = 23 or 13 and fp16 RNE with p = 10) known
 *     at compile time; operands of 16 bits or fewer decoded together, a in
 *     the low and b in the high 16-bit half of each lane; tf32 apart; a
 *     chained step hands its result to the next one already decoded; steps
 *     of four (Volta, tf32) two to a vector; a step with Inf or NaN decided
 *     from the lanes' classes (fused_s_special).
 * All end in the same scalar code: c joins, then the rounding (fast_round;
 * for fp32 with RZ and p = 23 in the specialized kernels, round_f32rz,
 * through the exact double of the sum).  Interleaved steps and the closing
 * addition wrap any of them (fused_wrap). */
#include "fast_fused.h"

#include <stdlib.h>


static int pre_shift(const mma_unit *u, int fbs)
{
    int fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits + fbs;
    return u->f > fbp ? u->f - fbp : 0;
}

/* fraction bits of a scale product */
static int scale_fb(const mma_unit *u)
{
    return u->scale == MMA_FMT_NONE ? 0 : 2 * mma_format(u->scale)->mbits;
}

static int fused_ok(const mma_unit *u)
{
    /* products hold at most 30 bits (22 for two operands, 8 more for the
     * significands of two ue4m3 scales); the left pre-shift must keep them
     * inside 63 bits.  Product overflow (AMD) and flushed inputs stay with
     * the reference path; interleaved steps take no scales. */
    if (u->tree != MMA_TREE_FUSED || (u->cadd != MMA_CADD_FUSED && u->cadd != MMA_CADD_AFTER)) return 0;
    if (u->flags & (MMA_F_PROD_OVF | MMA_F_FTZ_IN)) return 0;
    if (!fast_op_ok(u->a) || !fast_op_ok(u->b) || u->lmax < 1 || u->lmax > 64 || u->k < u->lmax || u->k % u->lmax) return 0;
    if (u->interleave && (u->lmax % u->interleave || u->scale != MMA_FMT_NONE)) return 0;
    if (u->scale != MMA_FMT_NONE) {
        if ((u->scale != MMA_FMT_UE8M0 && u->scale != MMA_FMT_UE4M3) || u->block < 1 || u->k % u->block ||
            (u->block % u->lmax && u->lmax % u->block))
            return 0;
    }
    if (pre_shift(u, scale_fb(u)) > 40) return 0;
    if (u->c != MMA_FMT_FP32 && !fast_tab[u->c]) return 0;
    if (u->cadd == MMA_CADD_AFTER && u->c != u->d) return 0;
    if ((u->flags & MMA_F_VIA_FP16) && (mma_format(u->a)->width > 8 || mma_format(u->b)->width > 8)) return 0;
    return (u->d == MMA_FMT_FP32 || u->d == MMA_FMT_FP16 || u->d == MMA_FMT_BF16) && u->p >= 1 &&
           u->p <= mma_format(u->d)->mbits;
}

/* ---- plans ------------------------------------------------------------------- */

static fast_hdr *fused_build(const mma_unit *u, int mode);

#ifdef FAST_HAVE_AVX2
/* any subnormal among the k operands of x (exponent field and fraction
 * masks of its format): four a vector */
V_FN int any_subnormal(const uint64_t *x, int k, uint64_t em, uint64_t mm)
{
    const __m256i E = _mm256_set1_epi64x((long long)em), M = _mm256_set1_epi64x((long long)mm);
    const __m256i z = _mm256_setzero_si256();
    __m256i acc = z;
    int i = 0, r = 0;
    for (; i + 4 <= k; i += 4) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i e0 = _mm256_cmpeq_epi64(_mm256_and_si256(v, E), z), m0 = _mm256_cmpeq_epi64(_mm256_and_si256(v, M), z);
        acc = _mm256_or_si256(acc, _mm256_andnot_si256(m0, e0));
    }
    for (; i < k; i++) r |= !(x[i] & em) & !!(x[i] & mm);
    return r | !_mm256_testz_si256(acc, acc);
}

static V_TARGET uint64_t via_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,
                                 const uint64_t *sa, const uint64_t *sb)
{
    const fast_plan *P = PLAN(h);
    const int k = h->u.k;
    if (any_subnormal(a, k, P->sub_e[0], P->sub_m[0]) | any_subnormal(b, k, P->sub_e[1], P->sub_m[1]))
        return P->via_scalar->fn(P->via_scalar, c, a, b, sa, sb);
    return P->via_vec(h, c, a, b, sa, sb);
}
#endif

#ifdef FAST_HAVE_AVX2
/* via=fp16 with the vector kernels: the plan of the unit without the
 * conversion, and beside it the scalar plan with it */
static fast_hdr *via_build(const mma_unit *u, int mode)
{
    mma_unit plain = *u;
    plain.flags &= ~(unsigned)MMA_F_VIA_FP16;
    fast_hdr *S = fused_build(u, FAST_MODE_SCALAR);
    fast_hdr *V = S ? fused_build(&plain, mode) : NULL;
    if (!V || V->kernel == FAST_K_SCALAR) { free(V); return S; }
    V->sub = S;                          /* (freed with V) */
    S->u = *u;                           /* (what the cache sets for the plans it holds) */
    S->u.impl = 1;
    fast_plan *P = (fast_plan *)V;
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    P->via_scalar = S;
    P->via_vec = V->fn;
    P->sub_e[0] = (((uint64_t)1 << fa->ebits) - 1) << fa->mbits;
    P->sub_m[0] = ((uint64_t)1 << fa->mbits) - 1;
    P->sub_e[1] = (((uint64_t)1 << fb->ebits) - 1) << fb->mbits;
    P->sub_m[1] = ((uint64_t)1 << fb->mbits) - 1;
    V->fn = via_dot;
    /* a subnormal significand i (1 <= i < hidden) is shifted left until it
     * is normal, or until the exponent reaches fp16's minimum (alg_fused.c:
     * via_fp16); the tables' 16 entries, by the significand's value */
    for (int t = 0; t < 2; t++) {
        const mma_format_info *fi = t ? fb : fa;
        unsigned char *lz = t ? P->lz_b : P->lz_a;
        for (int i = 0; i < 32; i++) {
            int v = i % 16, n = 0;
            if (v && v < (1 << fi->mbits) && fi->mbits < 4)
                while (!((v << n) >> fi->mbits) && fi->emin - n > -14) n++;
            lz[i] = (unsigned char)n;
        }
    }
    /* the interleaved kernels convert themselves, where a subnormal changes
     * (e5m2's are fp16's own: nothing to convert) */
    int lza = 0, lzb = 0, same = 1;
    for (int i = 0; i < 32; i++) {
        lza |= P->lz_a[i];
        lzb |= P->lz_b[i];
        same &= P->lz_a[i] == P->lz_b[i];
    }
    /* in 16-bit halves where one table serves both (one format converts,
     * or both alike) */
    int halves = !lza || !lzb || same;
    for (int i = 0; i < 32; i++) {
        P->pk_lz[i] = lza ? P->lz_a[i] : P->lz_b[i];
        P->pk_pw[i] = (unsigned char)(1u << P->pk_lz[i]);
    }
    for (int i = 0; i < 8; i++) P->pk_lzm[i] = (int32_t)((lza ? 0xfu : 0) | (lzb ? 0xfu << 16 : 0));
    for (int i = 0; i < FUSED_IL2_OUTS * FUSED_SPKS * FUSED_IL2_GROUPS; i++)
        if (P->via_vec == (&fused_s_kernels_il2[IL2_PLAIN][0][0][0])[i])
            V->fn = !lza && !lzb ? P->via_vec : (&fused_s_kernels_il2[halves ? IL2_VIA16 : IL2_VIA32][0][0][0])[i];
    return V;
}
#endif

static fast_hdr *fused_build(const mma_unit *u, int mode)
{
#ifdef FAST_HAVE_AVX2
    if ((u->flags & MMA_F_VIA_FP16) && mode != FAST_MODE_SCALAR) return via_build(u, mode);
#endif
    fast_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b), *fd = mma_format(u->d);
    const int via = (u->flags & MMA_F_VIA_FP16) != 0;    /* operands as fp16: 10 fraction bits each */
    P->L = u->lmax;
    P->steps = u->k / u->lmax;
    P->f = u->f;
    P->fbp = (via ? 20 : fa->mbits + fb->mbits) + scale_fb(u);
    P->pre = u->f > P->fbp ? u->f - P->fbp : 0;
    P->base = P->fbp - u->f + P->pre;
    P->rd = u->align == MMA_RD;
    P->zeros_part = !(u->flags & MMA_F_NO_EZERO);
    P->ezero = u->ezero;
    P->after = u->cadd == MMA_CADD_AFTER;
    fast_cfmt_init(&P->c1, P->after ? u->d : u->c, u->f);
    fast_cfmt_init(&P->cd, u->d, u->f);
    fast_out_init(&P->o, u);
    /* the closing addition: to nearest even at the format's full width,
     * an exact zero +0 */
    P->oadd = P->o;
    P->oadd.p = fd->mbits;
    P->oadd.rho = MMA_RNE;
    P->oadd.zsigned = 0;
    P->oadd.maxf = P->oadd.inf - 1;
    P->cnan = mma_canonical_nan(u->d);
#ifdef FAST_HAVE_AVX2
    P->f16c = mode != FAST_MODE_SCALAR && fast_f16c_usable();
#endif
    fast_src_init(&P->src, u->a, u->b);
    if (via) {                             /* the converted operands' tables */
        P->src.ta = fast_via_fp16_table(u->a);
        P->src.tb = fast_via_fp16_table(u->b);
        P->src.pt = fast_via_fp16_pair_table(u->a, u->b);
        P->src.bta = P->src.btb = NULL;
        if (!P->src.ta || !P->src.tb || !P->src.pt) { free(P); return NULL; }
    }
    P->scaled = u->scale != MMA_FMT_NONE;
    P->block = u->block;
    P->ts = P->scaled ? fast_tab[u->scale] : NULL;
    P->permute = u->interleave != 0;
    P->il = u->interleave;
    for (int j = 0; j < u->k; j++) {
        int s = j / u->lmax, i = j % u->lmax, steps = u->k / u->lmax;
        int run = u->interleave ? i / u->interleave : 0;
        P->perm[j] = (unsigned char)(u->interleave ? (run * steps + s) * u->interleave + i % u->interleave : j);
    }
    fast_fn fn = fused_scalar;
    int kernel = FAST_K_SCALAR;
#ifdef FAST_HAVE_AVX2
    /* ezero far outside the exponent range would overflow the lanes' int32
     * arithmetic: such units keep the scalar kernel */
    int mx = !P->scaled || (u->scale == MMA_FMT_UE8M0 && u->block % 8 == 0 && P->L % 8 == 0);
    if (mode != FAST_MODE_SCALAR && !via && (!P->zeros_part || (u->ezero >= -100000 && u->ezero <= 100000)) &&
        fast_vec_op(&P->va, u->a) && fast_vec_op(&P->vb, u->b) && mx && fast_avx2_usable()) {
        int lg = 0;
        P->groups = (P->L + 7) / 8;
        P->tail = P->L % 8;
        while ((1 << lg) < P->groups) lg++;
        P->narrow = (u->f > P->fbp ? u->f : P->fbp) + 2 + lg <= 30;
        P->tf = P->va.shr || P->vb.shr;
        P->bab = P->va.bias + P->vb.bias;
        P->ez_rel = P->zeros_part ? u->ezero + P->bab : V_LOW;
        fast_vop_init(&P->ka, &P->va);
        fast_vop_init(&P->kb, &P->vb);
        for (int i = 0; i < 8; i++) {
#define PK(FA, FB) (int32_t)((uint32_t)(FA) | (uint32_t)(FB) << 16)
            P->pk_shr[i] = PK(1u << (16 - P->va.mb), 1u << (16 - P->vb.mb));
            P->pk_em[i] = PK(P->va.emask, P->vb.emask);
            P->pk_mm[i] = PK(P->va.mmask, P->vb.mmask);
            P->pk_hid[i] = PK(P->va.hidden, P->vb.hidden);
            P->pk_sm[i] = PK(P->va.smask, P->vb.smask);
            P->pk_sv[i] = PK(P->va.sval, P->vb.sval);
            P->pk_one[i] = PK(1, 1);
#undef PK
            P->mag_a[i] = (int32_t)(((uint32_t)1 << (31 - P->va.sshift)) - 1);   /* (tf32 shifted) */
            P->mag_b[i] = (int32_t)(((uint32_t)1 << (31 - P->vb.sshift)) - 1);
            P->one[i] = 1;
            P->ezv[i] = P->ez_rel;
            P->low[i] = V_LOW;
        }
        P->prec[0] = P->pre;
        kernel = FAST_K_VECTOR;
        if (P->scaled) fn = fast_avx2_mx_gn;
        else if (P->tf) fn = P->groups == 1 && !P->tail ? fast_avx2_tf_g1 : fast_avx2_tf_gn;
        else fn = P->tail ? fast_avx2_gn : P->groups == 1 ? fast_avx2_g1 : P->groups == 2 ? fast_avx2_g2 :
                  P->groups == 4 ? fast_avx2_g4 : fast_avx2_gn;
        /* the specialized integer kernels */
        int f32 = u->d == MMA_FMT_FP32 && u->rho == MMA_RZ && P->c1.tab == NULL;
        int out = f32 && u->p == 23 ? OUT_F32 : f32 && u->p == 13 ? OUT_E8M13 :
                  u->d == MMA_FMT_FP16 && u->rho == MMA_RNE && (P->after ? u->d : u->c) == MMA_FMT_FP16 &&
                  u->p == 10 ? OUT_F16 : 0;
        /* Inf/NaN tests by maxima: not for fnuz (NaN = 0x80) */
        int fnuz = u->a == MMA_FMT_E4M3FNUZ || u->a == MMA_FMT_E5M2FNUZ || u->b == MMA_FMT_E4M3FNUZ ||
                   u->b == MMA_FMT_E5M2FNUZ;
        int ieee_a = u->a == MMA_FMT_FP16 || u->a == MMA_FMT_BF16 || u->a == MMA_FMT_E5M2;
        int ieee_b = u->b == MMA_FMT_FP16 || u->b == MMA_FMT_BF16 || u->b == MMA_FMT_E5M2;
        int spk = fnuz ? -1 : ieee_a && ieee_b ? SPK_EXP : P->va.smask || P->vb.smask ? SPK_AND : SPK_NONE;
        int gi = P->groups == 1 ? FUSED_G1 : P->groups == 2 ? FUSED_G2 : P->groups == 4 ? FUSED_G4 : -1;
        if (mode == FAST_MODE_BEST && out && spk >= 0 && gi >= 0 && !P->tail && fa->width <= 16 && fb->width <= 16 &&
            P->narrow && !P->rd && !P->tf && (!P->scaled || out == OUT_F32)) {
            fn = P->scaled ? fused_s_kernels_mx[spk][gi] : fused_s_kernels[out - 1][spk][gi];
            kernel = FAST_K_SPECIAL;
            if (!P->scaled && !P->permute && !P->after && (fa->width + 7) / 8 == (fb->width + 7) / 8)
                P->h.bfn = P->steps == 2 && gi == FUSED_G1 && fa->width > 8 ? fused_s_batches2[out - 1][spk] :
                           fused_s_batches[(fa->width + 7) / 8 - 1][out - 1][spk][gi];
            int wl = !P->scaled && !P->permute && !P->after && !(u->flags & MMA_F_VIA_FP16) && fused_w_plan(P, u);
            if (wl && fast_avx512_usable()) {
                fn = P->steps == 1 ? fused_w1_kernels[out - 1][spk] : fused_w_kernels[out - 1][spk];
                P->h.bfn = fused_w_batches[out - 1][spk];
                kernel = FAST_K_AVX512;
            } else if (wl && P->steps == 1) {
                fn = fused_h1_kernels[out - 1][spk];   /* (its batches stay s_step's: their bytes widen cheaper) */
            }
            if (P->permute || P->after) {
                if (P->after && u->interleave == 2 && P->steps == 2 && gi < FUSED_IL2_GROUPS && out != OUT_E8M13) {
                    P->h.kernel = FAST_K_SPECIAL;
                    P->h.fn = fused_s_kernels_il2[IL2_PLAIN][out == OUT_F16][spk][gi];
                    return &P->h;
                }
                kernel = FAST_K_VECTOR;       /* (the wrapped kernel below) */
            }
        } else if (mode == FAST_MODE_BEST && out == OUT_F32 && spk == SPK_AND && gi >= 0 && !P->tail && P->tf &&
                   u->a == MMA_FMT_TF32 && u->b == MMA_FMT_TF32 && P->narrow && !P->rd && !P->scaled && !P->permute &&
                   !P->after) {
            fn = fused_s_kernels_tf[gi];
            kernel = FAST_K_SPECIAL;
            P->h.bfn = fused_t_lanes_ok(P, u) ? (P->L == 8 ? fused_t_lanes_8 : fused_t_lanes_4) : fused_s_batches_tf[P->steps == 1][gi];
        } else if (mode == FAST_MODE_BEST && out && spk >= 0 && P->L == 4 && P->va.sshift == P->vb.sshift &&
                   P->va.shr == P->vb.shr && P->narrow && !P->rd && !P->scaled && !P->permute && !P->after) {
            fn = fused_q_kernels[out - 1][spk][P->tf];
            kernel = FAST_K_SPECIAL;
            if (out == OUT_F32 && fused_t_lanes_ok(P, u)) P->h.bfn = fused_t_lanes_4;
        }
    }
#endif
    P->h.kernel = kernel;
    P->h.fn = fn;
    if (P->permute || P->after) {
        P->inner = fn;
        P->h.fn = fused_wrap;
    }
    return &P->h;
}

const fast_family fast_fused_family = {fused_ok, fused_build};

