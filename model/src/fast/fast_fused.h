/* The fused family's fast path (FDA and CoFDA, with block scales,
 * interleaved steps and the closing IEEE addition of c): what its files
 * share.  One file per kernel kind:
 *   fast_fused.c         which units it serves (fused_ok) and the plan of
 *                        a unit: which kernel, with its constants
 *   fast_fused_scalar.c  steps that meet Inf or NaN, the scalar kernel,
 *                        interleaved steps and the closing addition
 *   fast_fused_avx2.c    AVX2: the generic kernel, the specialized kernels
 *                        and their batch loops, steps of four, Hopper's
 *                        fp8 mma.sync, 16-bit lanes without AVX-512
 *   fast_fused_tf32.c    AVX2: tf32 batches, a dot product a lane
 *   fast_fused_avx512.c  AVX-512: Hopper's fp8 wgmma, 32 products in
 *                        16-bit lanes
 * The arithmetic is alg_fused.c's; test-fastpath checks every kernel
 * against it. */
#ifndef MMAREF_FAST_FUSED_H
#define MMAREF_FAST_FUSED_H

#include "fast.h"

/* ---- the plan of a unit ------------------------------------------------ */

#define V_LOW FAST_EMPTY

typedef struct fast_plan fast_plan;
struct fast_plan {
    fast_hdr h;
    fast_fn inner;                       /* fused_wrap's kernel           */
    int L, steps, f, fbp, pre, base, rd, zeros_part;
    int32_t ezero;
    fast_cfmt c1, cd;                    /* c of the first step, of later */
    fast_out o;
    fast_src src;                        /* the scalar kernel's products  */
    /* block scales */
    int scaled, block;
    const uint64_t *ts;
    /* interleaved steps, the closing addition of c */
    int permute, after, il;
    /* via=fp16 in the vector kernels: they decode the 8-bit operands as
     * they are, which is the fp16 conversion's value and exponent for every
     * operand but a subnormal one (fp16 normalizes it); a dot product with a
     * subnormal operand goes to the scalar plan, whose tables convert */
    const fast_hdr *via_scalar;
    fast_fn via_vec;
    uint64_t sub_e[2], sub_m[2];         /* a, b: exponent field and fraction masks */
    /* how far fp16 normalizes a subnormal significand (by its value, 0
     * for others): s_step's via=fp16 */
    unsigned char lz_a[32], lz_b[32];
    int32_t mag_a[8], mag_b[8];          /* the magnitude bits of a, b: fused_s_special */
    /* s_step's 16-bit halves (a low, b high): 2^(16 - mb) (a right shift
     * by mb through mulhi), exponent, fraction, hidden bit, Inf/NaN mask and
     * value; 1 in each half */
    int32_t pk_shr[8], pk_em[8], pk_mm[8], pk_hid[8], pk_sm[8], pk_sv[8], pk_one[8];
    /* via=fp16 in halves: one table for both operands, by the
     * significand (lz_a's or lz_b's, the other half's index kept at 0 by
     * pk_lzm where its format has nothing to convert), and 2^lz */
    int32_t pk_lzm[8];
    unsigned char pk_lz[32], pk_pw[32];
    uint64_t cnan;                       /* d's canonical NaN: fused_ieee_add */
    int f16c;                            /* fused_ieee_add's fp16 sum through F16C (not in the scalar mode) */
    fast_out oadd;
    unsigned char perm[MMA_MAX_K];       /* k of the j-th product in step order */
    /* vector kernel */
    fast_op va, vb;
#ifdef FAST_HAVE_AVX2
    fast_vop ka, kb;
#endif
    int32_t one[8], ezv[8], low[8];
    int64_t prec[2];
    /* the AVX-512 kernel's 16-bit lanes ([0] a, [1] b): fraction,
     * exponent, hidden bit, Inf/NaN mask and value, the encoding's bits;
     * 1, ezero (or the lowest), the word of each uint64_t; the sign's
     * shift to bit 15 (the fields' shift: ka's and kb's mb) */
    int16_t w_mm[2][32], w_em[2][32], w_hid[2][32], w_sm[2][32], w_sv[2][32], w_wm[2][32];
    int16_t w_one[32], w_ezv[32], w_idx[32];
    int w_nan_only;                      /* a and b have no Inf: Inf/NaN lanes are NaNs */
    int64_t w_ss[2][2], w_pre1[2];       /* (w_pre1: pre + 1, the AVX2 lanes' alignment) */
    int groups, tail, narrow, tf;
    int32_t bab, ez_rel;                 /* bias_a + bias_b; ezero + bab  */
};
#define PLAN(h) ((const fast_plan *)(h))

/* ---- block scales ---------------------------------------------------------- */

/* The packed product of a block's two scales (its class: NaN when either
 * is NaN, zero when either is zero). */
static inline uint64_t scale_pair(const fast_plan *P, const uint64_t *sa, const uint64_t *sb, int blk)
{
    return pack_product(P->ts[sa[blk] & 0xff], P->ts[sb[blk] & 0xff]);
}

/* A packed product times its block's scale product s, as alg_fused.c's
 * product() makes it (mma_term_mul of the two): NaN when either is NaN or
 * an Inf meets a zero; Inf when the product is Inf (scales have none);
 * zero when either is zero; the scale's sign is +. */
static inline uint64_t scale_apply(uint64_t p, uint64_t s)
{
    if (__builtin_expect(((p | s) & (P_SPEC | P_ZERO)) != 0, 0)) {
        uint64_t sg = p & P_NEG;
        if (((p | s) & P_NAN) || ((p & P_SPEC) && (s & P_ZERO))) return sg | P_SPEC | P_NAN;
        if (p & P_SPEC) return sg | P_SPEC;
        return sg | P_ZERO;
    }
    uint64_t e = ((p & P_EMASK) + (s & P_EMASK) - ((uint64_t)P_EOFF << 32)) & P_EMASK;
    return (p & P_NEG) | e | (uint32_t)((uint32_t)p * (uint32_t)s);
}

static inline uint64_t c_decides(const fast_plan *P, int first, uint64_t acc)
{
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    return (x & P_NAN) ? P->o.nan : P->o.inf | ((x & P_NEG) ? P->o.sign : 0);
}

/* emax of the step: ep is the largest product exponent (below FAST_EMPTY / 2
 * if none; zero products already counted with ezero) */
static inline __attribute__((always_inline)) int32_t emax_with_c(const fast_plan *P, int32_t ep, const fast_c *c)
{
    int32_t e = c->sig ? c->e : P->zeros_part ? P->ezero : FAST_EMPTY;
    return e > ep ? e : ep;
}

/* The end of a step: c joins the products' aligned sum, the total is
 * rounded into d (emax not empty; ovf: round_f32rz's). */
static inline __attribute__((always_inline)) uint64_t finish_k(const fast_plan *P, int32_t emax, int64_t sum,
                                                              const fast_c *c, const fast_cfmt *cf,
                                                              const int out, fast_c *cn, const int ovf)
{
    if (c->sig) {                         /* aligned as the products are */
        uint64_t m = c->sig << cf->pre;
        int64_t sh = (int64_t)emax - c->e + cf->base;
        sh = sh > 63 ? 63 : sh;
        if (out || !P->rd) {              /* (the specialized kernels cut with RZ) */
            uint64_t s = -(uint64_t)c->neg;
            sum += (int64_t)(((m >> sh) ^ s) - s);
        } else {
            int64_t v = c->neg ? -(int64_t)m : (int64_t)m;
            sum += v >> sh;
        }
    }
    if (out == OUT_F32 || out == OUT_E8M13) return round_f32rz(&P->o, sum, emax - P->f, O_P(&P->o, out), cn, ovf);
    /* |sum| and its sign without a branch (the sign is data, a coin toss) */
    uint64_t sg = (uint64_t)(sum >> 63);
    uint64_t mag = ((uint64_t)sum ^ sg) - sg;
    return fast_round(&P->o, (int)(sg & 1), mag, emax - P->f, out, cn);
}

static inline __attribute__((always_inline)) uint64_t finish(const fast_plan *P, int32_t emax, int64_t sum,
                                                            const fast_c *c, const fast_cfmt *cf, const int out)
{
    if (emax < FAST_EMPTY / 2) return 0;
    return finish_k(P, emax, sum, c, cf, out, NULL, 0);
}

/* the nine forms of the specialized kernels, each handed to M(out, ck,
 * spk): outputs 1 and 2 (OUT_F32, OUT_E8M13) with an fp32 c, 3 (OUT_F16)
 * with an fp16 one, and the three ways of finding Inf and NaN */
#define OUT_SPK_FORMS(M) M(1, CK_F32, 0) M(1, CK_F32, 1) M(1, CK_F32, 2) M(2, CK_F32, 0) M(2, CK_F32, 1) \
    M(2, CK_F32, 2) M(3, CK_F16, 0) M(3, CK_F16, 1) M(3, CK_F16, 2)

/* fast_bfn: vectors lo .. hi-1 of a batch through DOT(P, c, a, b, ...), two
 * at a time (NW: bytes an operand).  Each starts on 64 bytes: the tf32
 * batch ran 12% slower, at the same instructions, when other files'
 * growth moved it (47.8 -> 41.7 M/s on random bits, 45.8 aligned). */
#define B_RANGE(NAME, TGT, NW, DOT, ...)                                                           \
    static TGT __attribute__((aligned(64))) void NAME(const fast_hdr *h, const mma_batch *x, size_t lo, \
                                                      size_t hi)                                   \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const size_t st = (size_t)h->u.k * NW;                                                     \
        const char *a = (const char *)x->a, *b = (const char *)x->b;                               \
        const int cs = x->c_size, ds = x->d_size;                                                  \
        for (size_t i = lo; i < hi; i += 2) {   /* (an odd last one: computed twice) */            \
            size_t j = i + 1 < hi ? i + 1 : i;                                                     \
            uint64_t d0 = DOT(P, fast_ld(x->c, cs, i), a + i * st, b + i * st, __VA_ARGS__);          \
            uint64_t d1 = DOT(P, fast_ld(x->c, cs, j), a + j * st, b + j * st, __VA_ARGS__);          \
            fast_st(x->d, ds, j, d1);                                                                 \
            fast_st(x->d, ds, i, d0);                                                                 \
        }                                                                                          \
    }

/* a fast_fn NAME (TGT: its target) of no block scales returning CALL */
#define FN_UNSCALED(NAME, TGT, CALL)                                                              \
    static TGT uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b,  \
                             const uint64_t *sa, const uint64_t *sb)                               \
    {                                                                                              \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        return CALL;                                                                               \
    }

/* The dimensions of the specialized kernels' tables (fast_fused.c's plan
 * picks an entry):
 *   - out - 1, out one of OUT_F32, OUT_E8M13, OUT_F16 (fast.h): FUSED_OUTS;
 *   - how Inf and NaN operands are found: through running maxima of the
 *     exponent fields (all ones: SPK_EXP, fp16/bf16/e5m2 only), of x & smask
 *     (equal to sval: SPK_AND, e4m3 and the mixes), or not at all (SPK_NONE,
 *     fp6/fp4);
 *   - groups of eight products a step: FUSED_G1, _G2, _G4;
 *   - operand bytes in a batch at natural widths: FUSED_NW (1 or 2). */
#define FUSED_OUTS 3
enum fused_spk { SPK_EXP, SPK_AND, SPK_NONE, FUSED_SPKS };
enum fused_groups { FUSED_G1, FUSED_G2, FUSED_G4, FUSED_GROUPS };
#define FUSED_NW 2
/* Hopper's fp8 mma.sync kernels: the via=fp16 conversion (none; in
 * 32-bit lanes; in 16-bit halves), the output (fp32, fp16), and groups 1
 * or 2 */
enum fused_il2_via { IL2_PLAIN, IL2_VIA32, IL2_VIA16, FUSED_IL2_VIAS };
#define FUSED_IL2_OUTS 2
#define FUSED_IL2_GROUPS 2

/* fast_fused_scalar.c */
uint64_t fused_special_step(const fast_plan *P, const mma_unit *u, int first, int s, uint64_t acc, const uint64_t *a,
                            const uint64_t *b, const uint64_t *sa, const uint64_t *sb);
uint64_t fused_scalar(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                      const uint64_t *sb);
uint64_t fused_ieee_add(const fast_plan *P, uint64_t x, uint64_t y);
uint64_t fused_wrap(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                    const uint64_t *sb);

#ifdef FAST_HAVE_AVX2
/* fast_fused_avx2.c: the generic kernels (one group of eight, two, four,
 * any; tf32; MX block scales) */
uint64_t fast_avx2_g1(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *);
uint64_t fast_avx2_g2(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *);
uint64_t fast_avx2_g4(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *);
uint64_t fast_avx2_gn(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *, const uint64_t *);
uint64_t fast_avx2_tf_g1(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *,
                         const uint64_t *);
uint64_t fast_avx2_tf_gn(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *,
                         const uint64_t *);
uint64_t fast_avx2_mx_gn(const fast_hdr *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *,
                         const uint64_t *);
/* the specialized kernels: operands of 16 bits or fewer, any two widths,
 * decoded in halves; batches with both operands of one byte or both of
 * two ([bytes - 1]); two steps of eight, operands of two bytes; MX scales
 * (fp32 RZ p = 23); tf32 (fp32 RZ p = 23; batches [one step]) */
extern const fast_fn fused_s_kernels[FUSED_OUTS][FUSED_SPKS][FUSED_GROUPS];
extern const fast_bfn fused_s_batches[FUSED_NW][FUSED_OUTS][FUSED_SPKS][FUSED_GROUPS];
extern const fast_bfn fused_s_batches2[FUSED_OUTS][FUSED_SPKS];
extern const fast_fn fused_s_kernels_mx[FUSED_SPKS][FUSED_GROUPS];
extern const fast_fn fused_s_kernels_tf[FUSED_GROUPS];
extern const fast_bfn fused_s_batches_tf[2][FUSED_GROUPS];
/* steps of four ([tf32]); Hopper's fp8 mma.sync; one step in 16-bit lanes */
extern const fast_fn fused_q_kernels[FUSED_OUTS][FUSED_SPKS][2];
extern const fast_fn fused_s_kernels_il2[FUSED_IL2_VIAS][FUSED_IL2_OUTS][FUSED_SPKS][FUSED_IL2_GROUPS];
extern const fast_fn fused_h1_kernels[FUSED_OUTS][FUSED_SPKS];
/* fused_special_step for the specialized kernels' operands (the AVX-512 kernel's
 * too) */
uint64_t fused_s_special(const fast_plan *P, const mma_unit *u, int first, int s, uint64_t acc, const void *a,
                         const void *b, const uint64_t *psa, const uint64_t *psb, int snan, const int G, const int sc,
                         const int tf, const int nw);
/* fast_fused_tf32.c */
int fused_t_lanes_ok(const fast_plan *P, const mma_unit *u);
void fused_t_lanes_4(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi);
void fused_t_lanes_8(const fast_hdr *h, const mma_batch *x, size_t lo, size_t hi);
/* fast_fused_avx512.c: whether P fits the 16-bit lanes (and their
 * constants, which fused_h1_kernels use too); the kernels, of any steps,
 * of one step, the batches */
int fused_w_plan(fast_plan *P, const mma_unit *u);
extern const fast_fn fused_w_kernels[FUSED_OUTS][FUSED_SPKS];
extern const fast_fn fused_w1_kernels[FUSED_OUTS][FUSED_SPKS];
extern const fast_bfn fused_w_batches[FUSED_OUTS][FUSED_SPKS];
#endif

#endif
