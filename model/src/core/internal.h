/* Internal primitives shared by the algorithms.  Not installed. */
#ifndef MMAREF_INTERNAL_H
#define MMAREF_INTERNAL_H

#include "mmaref.h"

/* MMA_HD marks the functions of the reference path that the CUDA backend
 * (cuda/) compiles for the GPU as well, so that its arithmetic is this
 * code and exists once: empty for the C compiler, __host__ __device__
 * under nvcc.  The fast path (fast*.c) stays on the CPU. */
#if defined(__CUDACC__)
#define MMA_HD __host__ __device__
#else
#define MMA_HD
#endif

/* The limits of a format for its encoder (model/src/encode.c): the
 * exponent of the largest finite, its significand field, the stored
 * significand's width (tf32: fp32's 23), whether -0 exists, fnuz. */
typedef struct { int emax, mb_st, neg0, fnuz; uint64_t maxm; const mma_format_info *fi; } fmt_lim;
extern fmt_lim mma_fmt_lims[MMA_FMT_COUNT];
/* sign, exponent field and significand field into f's layout */
static inline uint64_t mma_pack(mma_fmt f, const fmt_lim *l, int neg, uint64_t efield, uint64_t mfield)
{
    const mma_format_info *fi = l->fi;
    (void)f;
    uint64_t bits = (efield << l->mb_st) | (mfield << (l->mb_st - fi->mbits));
    if (neg && fi->has_sign) {
        if (l->fnuz) { if (bits) bits |= 0x80; }
        else bits |= (uint64_t)1 << (fi->width - 1);
    }
    return bits;
}
/* Round (-1)^neg * mag * 2^(e - 63) (+ a sticky bit below) to format f,
 * keeping p fraction bits (the format's own when p < 0), RNE or RZ.
 * Overflow: Inf where the format has one (NVIDIA rule also for RZ),
 * otherwise the largest finite value (saturation).  mag has bit 63 set or
 * is 0 (then the result is +0, or -0 when neg and the format has -0).
 * The one encoder of the library: mma_encode and the metrics round here. */
uint64_t mma_encode_round(mma_fmt f, int p, mma_rounding rho, int neg, uint64_t mag, int32_t e, int sticky);

/* A term of a sum: (-1)^neg * sig * 2^(e - fb).  e is the paper's exponent
 * (MMA-Sim paper, FDA step 2): the weight of the unit bit for a normal number,
 * the format's minimum exponent for a subnormal, e_a + e_b for a product
 * (which is not renormalized, so its significand lies in [1,4)). */
typedef struct {
    mma_class cls;
    int neg;
    int32_t e;
    int fb;          /* fraction bits of sig */
    uint64_t sig;
} mma_term;

MMA_HD mma_term mma_term_of(mma_fmt f, uint64_t bits);
MMA_HD mma_term mma_term_mul(mma_term x, mma_term y);

/* Fixed-point result of a fused aligned sum: value = s * 2^(emax - f). */
typedef struct {
    int64_t s;
    int32_t emax;
    int f;
    int empty;       /* no term set emax (all zero, zeros take no part)   */
} mma_fixed;

/* Fused aligned sum with F fraction bits (the FDA core): terms are aligned
 * to the largest exponent, each cut to F bits after the binary point (RZ:
 * toward zero; RD: toward -inf), then added exactly. */
MMA_HD mma_fixed mma_fused_sum(const mma_term *t, int n, int f, mma_rounding cut,
                               int ezero, int zeros_take_part);

/* Re-express x at fraction bits f relative to 2^emax, cutting with mode. */
MMA_HD int64_t mma_fixed_realign(int64_t s, int32_t from_lsb, int32_t to_lsb,
                                 mma_rounding cut);

/* An output rounding: the format, the fraction bits kept, the direction,
 * and what overflow, zeros and tininess do (from the unit's configuration:
 * mma_unit_rspec). */
enum { MMA_ZS_POS, MMA_ZS_FIXED, MMA_ZS_IEEE };   /* zero=pos, fixed, ieee */
/* the overflow rule (ovf=), as MMA_F_OVF_* >> 10 */
typedef enum { MMA_OVR_IEEE = 1, MMA_OVR_INF, MMA_OVR_SAT,
               MMA_OVR_SATOVF   /* in an rspec only: ovf=sat+inf (MMA_F_SAT_INF) */ } mma_ovr;
typedef struct {
    mma_fmt d;
    int p;
    mma_rounding rho;
    mma_ovr ovf;
    int zero;          /* MMA_ZS_*                                         */
    int tiny_before;   /* underflow: tininess detected before rounding     */
} mma_rspec;
MMA_HD mma_rspec mma_unit_rspec(const mma_unit *u);
MMA_HD mma_ovr mma_default_ovf(mma_tree t, mma_rounding rho);
MMA_HD mma_ovr mma_unit_ovf(const mma_unit *u);   /* the unit's, or the default */

/* Normalize-and-round the exact value (-1)^neg * mag * 2^lsb by r; an
 * exactly zero value (mag 0) takes the sign zneg under zero=ieee.  The
 * IEEE 754 flags (inexact, underflow, overflow) are or-ed into *flags
 * (may be NULL). */
MMA_HD uint64_t mma_round_to(const mma_rspec *r, int neg, uint64_t mag, int32_t lsb, int zneg,
                             unsigned *flags);
/* Whether (-1)^neg * mag * 2^lsb (mag > 0) is tiny in r's format: below
 * 2^emin before rounding (r->tiny_before), or after rounding to p+1 bits
 * with an unbounded exponent range; what a flush to zero decides on. */
MMA_HD int mma_round_tiny(const mma_rspec *r, int neg, uint64_t mag, int32_t lsb);
/* Round to p bits but keep the result as (mag, lsb) for a second rounding. */
MMA_HD void mma_round_keep(mma_fmt d, int p, mma_rounding rho, int neg,
                           uint64_t *mag, int32_t *lsb);

MMA_HD uint64_t mma_inf(mma_fmt d, int neg);
MMA_HD uint64_t mma_out_inf(const mma_rspec *r, int neg);   /* an Inf result in r->d */
MMA_HD uint64_t mma_out_max(mma_fmt d, int p, int neg);     /* the largest finite    */
MMA_HD uint64_t mma_canonical_nan(mma_fmt d);
MMA_HD uint64_t mma_default_nan(mma_fmt d);
MMA_HD uint64_t mma_quiet(mma_fmt d, uint64_t nan_bits);
/* printf into err (when err and len): the library's messages; returns -1 */
int mma_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

MMA_HD int mma_is_nan(mma_fmt d, uint64_t bits);
MMA_HD int mma_is_snan(mma_fmt d, uint64_t bits);

/* The operands a NaN result may come from, in the order nan=prop searches
 * them: c, then a[k[j]], b[k[j]] for j = 0..n-1 (k NULL: k[j] = j). */
typedef struct {
    mma_fmt cf, af, bf;
    uint64_t c;
    const uint64_t *a, *b;
    const int *k;
    int n;
} mma_nansrc;
MMA_HD uint64_t mma_nan_out(const mma_unit *u, mma_fmt d, const mma_nansrc *s);
/* A NaN operand of format f written in d: sign kept, payload aligned to
 * the top of d's fraction, quieted (IEEE 754 6.2.3). */
MMA_HD uint64_t mma_nan_convert(mma_fmt f, uint64_t bits, mma_fmt d);

/* Special values (paper, FDA step 1): any NaN term (0*Inf products are NaN
 * terms already), or +Inf and -Inf both present, gives NaN; otherwise one
 * kind of Inf gives that Inf.  The class (MMA_NAN, MMA_INF with *inf_neg,
 * or MMA_FINITE when no term is special). */
MMA_HD int mma_terms_special_class(const mma_term *t, int n, int *inf_neg);
/* The same with NVIDIA's encodings (canonical NaN, Inf); 1 when decided. */
MMA_HD int mma_terms_special(const mma_term *t, int n, mma_fmt d, uint64_t *out);
/* The same with the unit's rules (NaN by its nan=, Inf by r); 1 when decided. */
MMA_HD int mma_step_special(const mma_unit *u, const mma_rspec *r, const mma_term *t, int n,
                            const mma_nansrc *s, uint64_t *out);
/* The sign of an exactly zero sum of the terms under zero=ieee; from
 * whether all terms are zeros and which signs they have. */
MMA_HD int mma_terms_zneg(const mma_term *t, int n, mma_rounding rho);
MMA_HD int mma_zero_sign(int allzero, int anypos, int anyneg, mma_rounding rho);

/* AMD CDNA3: a product whose magnitude reaches 2^128 becomes Inf. */
MMA_HD void mma_term_overflow(mma_term *p);

/* Exact (Kulisch) accumulator over a window of 64-bit limbs. */
#define MMA_KACC_LIMBS 72  /* keep equal to mma_exact.w */
typedef struct {
    int32_t lo;                  /* weight of bit 0 of w[0]                */
    int n;                       /* limbs in use                           */
    uint64_t w[MMA_KACC_LIMBS];  /* two's complement, little-endian limbs  */
} mma_kacc;
MMA_HD void mma_kacc_init(mma_kacc *k, int32_t lo, int32_t hi);
MMA_HD void mma_kacc_add(mma_kacc *k, int neg, unsigned __int128 sig, int32_t lsb);
/* Round the exact content into format d (p fraction bits, rho). */
MMA_HD uint64_t mma_kacc_round(const mma_kacc *k, mma_fmt d, int p, mma_rounding rho,
                               int zero_signed);
/* The same by r, with the sign zneg for an exact zero and the flags. */
MMA_HD uint64_t mma_kacc_round_to(const mma_kacc *k, const mma_rspec *r, int zneg, unsigned *flags);
MMA_HD int mma_kacc_sign(const mma_kacc *k);   /* -1, 0, 1 */
/* The content as (-1)^neg * mag * 2^lsb: its leading 63 bits and a sticky
 * bit below them (enough for any rounding to 53 bits or fewer); mag 0 for
 * an exact zero. */
MMA_HD void mma_kacc_mag(const mma_kacc *k, int *neg, uint64_t *mag, int32_t *lsb);

/* The algorithms (one file each). */
MMA_HD uint64_t mma_alg_fused(const mma_unit *u, uint64_t c, const uint64_t *a,
                              const uint64_t *b, const uint64_t *sa, const uint64_t *sb);
/* The fast path (fast*.c): the same results, checked by the tests. */
int mma_fast_ok(const mma_unit *u);
int mma_unit_impl(const mma_unit *u);   /* 1 reference, 2 fast path */
uint64_t mma_fast_dot(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                      const uint64_t *sa, const uint64_t *sb);
/* The reference path of u (its tree's algorithm, whatever u->impl says;
 * dot.c): what a fast kernel calls where it hands a dot product back, so
 * that the fast path never calls mma_dot, which dispatches into it. */
uint64_t mma_ref_dot(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                     const uint64_t *sa, const uint64_t *sb);
MMA_HD uint64_t mma_alg_amd(const mma_unit *u, uint64_t c, const uint64_t *a,
                            const uint64_t *b);
/* alg_amd.c's last part of a step, shared with the CUDA backend's streaming
 * kernel: the even and odd sums joined (GFDRDA), and c joining the sum */
MMA_HD mma_fixed mma_amd_evenodd_join(const mma_unit *u, mma_fixed e, mma_fixed o);
MMA_HD uint64_t mma_amd_join(const mma_unit *u, const mma_rspec *r, mma_fixed dot, mma_term ct, int zneg);
MMA_HD uint64_t mma_alg_groups(const mma_unit *u, uint64_t c, const uint64_t *a,
                               const uint64_t *b, const uint64_t *sa, const uint64_t *sb);
/* whether a groups unit's sums fit the 64-bit fixed point (config.c refuses
 * those that do not), and the LSB weight of a product of a and b */
int mma_groups_sums_fit(const mma_unit *u);
int32_t mma_groups_lsb0(mma_fmt a, mma_fmt b);
MMA_HD uint64_t mma_alg_pairwise(const mma_unit *u, uint64_t c, const uint64_t *a,
                                 const uint64_t *b);
MMA_HD uint64_t mma_alg_fma(const mma_unit *u, uint64_t c, const uint64_t *a,
                            const uint64_t *b);
MMA_HD uint64_t mma_alg_exact(const mma_unit *u, uint64_t c, const uint64_t *a,
                              const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                              unsigned *flags);
MMA_HD uint64_t mma_alg_chains(const mma_unit *u, uint64_t c, const uint64_t *a,
                               const uint64_t *b);
/* the chains tree's configuration string and explanation (alg_chains.c),
 * and its checks and defaults (mma_unit_finish calls it) */
int mma_chains_config(const mma_unit *u, char *buf, size_t len);
int mma_chains_explain(const mma_unit *u, char *buf, size_t len);
int mma_chains_finish(mma_unit *u, char *err, size_t len);

/* The reference path: the algorithm of tree t (the unit's own, u->tree),
 * with the flags it raises or-ed into *flags (may be NULL).  What mma_dot
 * computes where the fast path does not (dot.c), and what each GPU thread
 * of the CUDA backend runs (cuda/), there with t a constant so that each
 * tree's kernel holds its algorithm alone. */
static inline MMA_HD uint64_t mma_dot_tree(mma_tree t, const mma_unit *u, uint64_t c, const uint64_t *a,
                                           const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                                           unsigned *flags)
{
    switch (t) {
    case MMA_TREE_FUSED:
        if (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER) return mma_alg_fused(u, c, a, b, sa, sb);
        return mma_alg_amd(u, c, a, b);
    case MMA_TREE_EVENODD:  return mma_alg_amd(u, c, a, b);
    case MMA_TREE_GROUPS:   return mma_alg_groups(u, c, a, b, sa, sb);
    case MMA_TREE_PAIRWISE: return mma_alg_pairwise(u, c, a, b);
    case MMA_TREE_FMA:      return mma_alg_fma(u, c, a, b);
    case MMA_TREE_EXACT:
    case MMA_TREE_IEEE: {
        unsigned fl = 0;
        uint64_t d = mma_alg_exact(u, c, a, b, sa, sb, &fl);
        if (flags && t == MMA_TREE_IEEE) *flags |= fl;
        return d;
    }
    case MMA_TREE_CHAINS:   return mma_alg_chains(u, c, a, b);
    }
    return mma_canonical_nan(u->d);
}

/* Instruction names (names.c): "arch:qualifier" split at the colon that
 * is not half of a "::" (1 when there is an arch, its alias resolved), the
 * canonical name of an architecture alias (sm_90a -> hopper), and a PTX
 * spelling rewritten into the catalogue's (-1 if it is none; *cta2, *ws:
 * tcgen05's cta_group::2 and .ws were given). */
int mma_name_split(const char *text, char *arch, size_t alen, char *qual, size_t qlen);
const char *mma_arch_canon(const char *arch);
int mma_name_canon(const char *qual, char *out, size_t len, int *cta2, int *ws);

static inline MMA_HD int mma_clz64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
    return __clzll((long long)x);     /* (64 for 0) */
#else
    return x ? __builtin_clzll(x) : 64;
#endif
}

/* Edit distance to a prepared name (edit_distance.c): names up to
 * MMA_EDIT_MAX characters; any longer gives MMA_EDIT_FAR.  A result >=
 * limit only says that the distance is at least limit. */
#define MMA_EDIT_MAX 120
#define MMA_EDIT_FAR 999
typedef unsigned __int128 mma_edit_word;
typedef struct { mma_edit_word peq[256]; int m; } mma_edit_pattern;
void mma_edit_prepare(mma_edit_pattern *p, const char *s);
int mma_edit_distance(const mma_edit_pattern *p, const char *t, int limit);

#endif
