/* The exact reference of mmaref metrics checked against GNU MPFR and
 * against the model's own exact path (mma_exact_dot / mma_exact_round):
 *
 *  1. quantization: every finite encoding of every format of 16 bits or
 *     fewer (and 2^20 random fp32 ones) round-trips; random doubles and
 *     exact midpoints round (RNE, saturating or to Inf) as MPFR rounds them;
 *  2. the accumulator on random terms over the whole fp64 product range,
 *     with exact cancellations: leading 64 bits, exponent and sticky bit
 *     equal MPFR's exact sum;
 *  3. random dot products of many units and every distribution (including
 *     random encodings): the exact value equals MPFR's and the model's; its
 *     RNE/RZ roundings into fp64, fp32, fp16, bf16 equal MPFR's and
 *     mma_exact_round's; for the unit's real output d, the error d - x
 *     (to a double), its ulps and the "not correctly rounded" flag equal
 *     what MPFR computes;
 *  4. the percentiles of a row (a radix select on all threads) equal the
 *     nearest-rank elements of |errors| sorted by qsort, NaN left out, on
 *     arrays with zeros, infinities, ties and subnormals, for 1, 2 and 5
 *     threads.
 *
 * usage: test_exact [N]   (N dot products per unit and distribution)
 * Prints one line per check group and exits 1 on the first mismatches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <mpfr.h>
#include "metrics_internal.h"
#include "internal.h"      /* mma_encode_round (core/encode.c) */
#include "mmaref_exact.h"

#define PREC 5000

static long fails;
#define FAIL(...) do { if (fails++ < 20) { fprintf(stderr, "FAIL: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* the value of an encoding, from the model's decoder (not our tables) */
static void enc_mpfr(mpfr_t r, mma_fmt f, uint64_t bits, int *cls)
{
    mma_value v = mma_decode(f, bits);
    *cls = v.cls;
    if (v.cls == MMA_NAN) { mpfr_set_nan(r); return; }
    if (v.cls == MMA_INF) { mpfr_set_inf(r, v.neg ? -1 : 1); return; }
    if (v.cls == MMA_ZERO) { mpfr_set_zero(r, v.neg ? -1 : 1); return; }
    mpfr_set_uj_2exp(r, v.sig, v.exp, MPFR_RNDN);
    if (v.neg) mpfr_neg(r, r, MPFR_RNDN);
}

/* largest finite values, from the format table (model/src/core/format.c) */
static double fmax_of(mma_fmt f)
{
    switch (f) {
    case MMA_FMT_FP64: return DBL_MAX;
    case MMA_FMT_FP32: return FLT_MAX;
    case MMA_FMT_TF32: return ldexp(2.0 - ldexp(1, -10), 127);
    case MMA_FMT_FP16: return 65504;
    case MMA_FMT_BF16: return ldexp(2.0 - ldexp(1, -7), 127);
    case MMA_FMT_E4M3: return 448;
    case MMA_FMT_E5M2: return 57344;
    case MMA_FMT_E4M3FNUZ: return 240;
    case MMA_FMT_E5M2FNUZ: return 57344;
    case MMA_FMT_E3M2: return 28;
    case MMA_FMT_E2M3: return 7.5;
    case MMA_FMT_E2M1: return 6;
    case MMA_FMT_UE4M3: return 448;
    default: return 0;
    }
}

/* round x into format f keeping p fraction bits; *ovf set past the max */
static void round_fmt(mpfr_t r, const mpfr_t x, mma_fmt f, int p, mpfr_rnd_t rnd, int *ovf)
{
    const mma_format_info *fi = mma_format(f);
    *ovf = 0;
    if (mpfr_zero_p(x) || !mpfr_number_p(x)) { mpfr_set(r, x, MPFR_RNDN); return; }
    if (mpfr_get_prec(r) < mpfr_get_prec(x)) { fprintf(stderr, "round_fmt: precision\n"); exit(2); }
    long e = mpfr_get_exp(x) - 1;
    long lsb = (e > fi->emin ? e : fi->emin) - p;
    mpfr_mul_2si(r, x, -lsb, MPFR_RNDN);
    mpfr_rint(r, r, rnd);
    mpfr_mul_2si(r, r, lsb, MPFR_RNDN);
    if (mpfr_cmp_d(r, fmax_of(f)) > 0 || mpfr_cmp_d(r, -fmax_of(f)) < 0) *ovf = 1;
}

/* does encoding `bits` of f hold the value r (or the overflow result)? */
static int same_value(mma_fmt f, uint64_t bits, const mpfr_t r, int ovf, int saturate)
{
    mma_value v = mma_decode(f, bits);
    if (ovf) {
        if (!saturate && mma_format(f)->has_inf) return v.cls == MMA_INF && v.neg == (mpfr_sgn(r) < 0);
        mpfr_t m;
        mpfr_init2(m, 64);
        int c;
        enc_mpfr(m, f, bits, &c);
        int ok = c == MMA_FINITE && mpfr_cmp_d(m, mpfr_sgn(r) < 0 ? -fmax_of(f) : fmax_of(f)) == 0;
        mpfr_clear(m);
        return ok;
    }
    if (mpfr_zero_p(r)) return v.cls == MMA_ZERO;
    if (v.cls != MMA_FINITE) return 0;
    mpfr_t m;
    mpfr_init2(m, 128);
    int c;
    enc_mpfr(m, f, bits, &c);
    int ok = mpfr_equal_p(m, r);
    mpfr_clear(m);
    return ok;
}

/* ---- 1. quantization ---------------------------------------------------- */
static const mma_fmt qfmts[] = {MMA_FMT_FP32, MMA_FMT_TF32, MMA_FMT_FP16, MMA_FMT_BF16, MMA_FMT_E4M3, MMA_FMT_E5M2,
                                MMA_FMT_E4M3FNUZ, MMA_FMT_E5M2FNUZ, MMA_FMT_E3M2, MMA_FMT_E2M3, MMA_FMT_E2M1, MMA_FMT_UE4M3};
#define NQ (sizeof qfmts / sizeof qfmts[0])

static void test_quant(long n)
{
    long checked = 0;
    mma_rng r;
    mma_rng_seed(&r, 77, 0);
    for (size_t fi = 0; fi < NQ; fi++) {
        mma_fmt f = qfmts[fi];
        int w = mma_format(f)->width;
        long encs = w <= 16 ? 1L << w : 1L << 20;
        for (long i = 0; i < encs; i++) {
            uint64_t x = w <= 16 ? (uint64_t)i : mma_rng_next(&r) & 0xffffffffu;
            if (f == MMA_FMT_TF32) x &= ~(uint64_t)0x1fff;
            mma_value v = mma_decode(f, x);
            if (v.cls != MMA_FINITE && v.cls != MMA_ZERO) continue;
            uint64_t y = mx_quantize(f, mx_value(f, x));
            if (f == MMA_FMT_UE4M3) { x &= 0x7f; }
            if (x != y && !(v.cls == MMA_ZERO && (f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ)))
                FAIL("quantize round trip %s: %llx -> %llx", mma_format(f)->name, (unsigned long long)x, (unsigned long long)y);
            checked++;
        }
    }
    printf("quantize: %ld encodings round-trip\n", checked);
    mpfr_t x, rr;
    mpfr_init2(x, 64);
    mpfr_init2(rr, 200);
    long rnd = 0;
    for (size_t fi = 0; fi < NQ; fi++) {
        mma_fmt f = qfmts[fi];
        const mma_format_info *inf = mma_format(f);
        for (long i = 0; i < n; i++) {
            double v;
            if (i & 1) {
                /* an exact midpoint between two neighbouring encodings */
                uint64_t e = mma_rng_next(&r) & (inf->width < 64 ? ((uint64_t)1 << inf->width) - 1 : ~0ull);
                if (f == MMA_FMT_TF32) e &= ~(uint64_t)0x1fff;
                double a = mx_value(f, e);
                double b = mx_value(f, e + (f == MMA_FMT_TF32 ? 0x2000 : 1));
                if (!isfinite(a) || !isfinite(b)) continue;
                v = 0.5 * (a + b);
                if (fabs(v) > 1e300) continue;
            } else {
                int ex = (int)mma_rng_below(&r, (uint64_t)(2 * 160)) - 160;
                v = ldexp((double)(mma_rng_next(&r) >> 11), ex - 53);
                if (mma_rng_next(&r) & 1) v = -v;
            }
            if (!inf->has_sign) v = fabs(v);
            mpfr_set_d(x, v, MPFR_RNDN);
            int ovf;
            round_fmt(rr, x, f, inf->mbits, MPFR_RNDN, &ovf);
            uint64_t q = mx_quantize(f, v);
            if (!same_value(f, q, rr, ovf, !inf->has_inf))
                FAIL("quantize %s(%.17g) = %llx, MPFR gives %.17g%s", inf->name, v, (unsigned long long)q,
                     mpfr_get_d(rr, MPFR_RNDN), ovf ? " (overflow)" : "");
            rnd++;
        }
    }
    printf("quantize: %ld random values and midpoints round as MPFR rounds them\n", rnd);
    mpfr_clear(x);
    mpfr_clear(rr);
}

/* compare an exact value (ours) with MPFR's exact sum X */
static int same_exact(mma_xval v, const mpfr_t X)
{
    if (mpfr_nan_p(X)) return v.cls == MMA_NAN;
    if (mpfr_inf_p(X)) return v.cls == MMA_INF && v.neg == (mpfr_sgn(X) < 0);
    if (mpfr_zero_p(X)) return v.cls == MMA_ZERO;
    if (v.cls != MMA_FINITE || v.neg != (mpfr_sgn(X) < 0)) return 0;
    if (v.e != mpfr_get_exp(X) - 1) return 0;
    mpfr_t m;
    mpfr_init2(m, 64);
    int inexact = mpfr_set(m, X, MPFR_RNDZ) != 0;
    mpfr_abs(m, m, MPFR_RNDN);
    mpfr_mul_2si(m, m, 63 - v.e, MPFR_RNDN);
    uint64_t mag = (uint64_t)mpfr_get_uj(m, MPFR_RNDN);
    mpfr_clear(m);
    return mag == v.mag && inexact == v.sticky;
}

/* ---- 2. raw accumulator --------------------------------------------------- */
static void test_acc(long n)
{
    mma_acc *a = malloc(sizeof *a);
    mma_acc_clear(a);
    mpfr_t X, t;
    mpfr_init2(X, PREC);
    mpfr_init2(t, 200);
    mma_rng r;
    mma_rng_seed(&r, 99, 1);
    for (long i = 0; i < n; i++) {
        mma_acc_reset(a);
        mpfr_set_zero(X, 1);
        int nt = 1 + (int)mma_rng_below(&r, 40);
        int lo = -2148 + (int)mma_rng_below(&r, 4000), span = (int)mma_rng_below(&r, 300);
        unsigned __int128 sigs[40];
        int32_t lsbs[40];
        int negs[40];
        for (int j = 0; j < nt; j++) {
            unsigned __int128 s = mma_rng_next(&r);
            if (mma_rng_next(&r) & 1) s = (s << 42) | (mma_rng_next(&r) >> 22);    /* up to 106 bits */
            if ((mma_rng_next(&r) & 3) == 0) s >>= mma_rng_below(&r, 60);
            int32_t lsb = lo + (int)mma_rng_below(&r, (uint64_t)span + 1);
            if (lsb > 1900) lsb = 1900;
            int neg = (int)(mma_rng_next(&r) & 1);
            if (j && (mma_rng_next(&r) & 3) == 0) { s = sigs[j - 1]; lsb = lsbs[j - 1]; neg = !negs[j - 1]; }  /* cancel */
            sigs[j] = s; lsbs[j] = lsb; negs[j] = neg;
            mx_acc_add(a, neg, s, lsb);
            mpfr_set_uj(t, (uint64_t)(s >> 64), MPFR_RNDN);
            mpfr_mul_2si(t, t, 64, MPFR_RNDN);
            mpfr_add_ui(t, t, 0, MPFR_RNDN);
            mpfr_t lo64;
            mpfr_init2(lo64, 64);
            mpfr_set_uj(lo64, (uint64_t)s, MPFR_RNDN);
            mpfr_add(t, t, lo64, MPFR_RNDN);
            mpfr_clear(lo64);
            mpfr_mul_2si(t, t, lsb, MPFR_RNDN);
            if (neg) mpfr_sub(X, X, t, MPFR_RNDN); else mpfr_add(X, X, t, MPFR_RNDN);
        }
        mma_xval v = mma_acc_value(a);
        if (!same_exact(v, X)) FAIL("accumulator: vector %ld (%d terms) differs from MPFR", i, nt);
    }
    printf("accumulator: %ld random sums over 2^-2148..2^2000 with cancellations equal MPFR's\n", n);
    mpfr_clear(X);
    mpfr_clear(t);
    free(a);
}

/* ---- 3. dot products ------------------------------------------------------ */
static const char *units[] = {
    "hopper:wgmma.m64n8k32.f32.e4m3.e4m3",
    "hopper:wgmma.m64n8k32.f16.e5m2.e4m3",
    "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3",
    "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e2m1.e3m2",
    "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e2m3.ue8m0",
    "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3",
    "hopper:mma.m16n8k16.f32.bf16.bf16.f32",
    "hopper:mma.m16n8k16.f16.f16.f16.f16",
    "hopper:mma.m16n8k8.f32.tf32.tf32.f32",
    "hopper:mma.m8n8k4.f64.f64.f64.f64",
    "ada:mma.m16n8k32.f32.e4m3.e4m3.f32",
    "cdna3:v_mfma_f32_16x16x32_fp8_bf8",
    "cdna2:v_mfma_f32_16x16x16f16",
    "exact,a=e4m3,b=e4m3,k=32",
};
#define NU (sizeof units / sizeof units[0])

static void test_dots(long n)
{
    mma_acc *a = malloc(sizeof *a);
    mma_acc_clear(a);
    mpfr_t X, t, u2, rr, dd;
    mpfr_init2(X, PREC); mpfr_init2(t, 256); mpfr_init2(u2, 256); mpfr_init2(rr, PREC); mpfr_init2(dd, PREC);
    long dots = 0, rounds = 0, outs = 0;
    for (size_t ui = 0; ui < NU; ui++) {
        mma_unit u;
        char perr[512];
        if (mma_unit_parse(units[ui], &u, perr, sizeof perr)) { FAIL("unit %s: %s", units[ui], perr); continue; }
        int ns = mma_unit_nscales(&u);
        for (int dist = 0; dist < MMA_DIST_COUNT; dist++) {
            for (int chain = 1; chain <= 2; chain++) {
                int K = u.k * chain;
                mx_gen g;
                mx_gen_init(&g, (mma_dist)dist, dist == MMA_DIST_NORMAL ? 0.5 : 1.0, K, 1000 + ui, 0, MMA_FMT_NONE);
                mx_draw *d = mx_draw_new(K);
                mx_enc *e = mx_enc_new(K);
                for (long i = 0; i < n / 2; i++) {
                    mx_draw_vector(&g, (uint64_t)i, d);
                    mx_encode_draw(&g, &u, d, e);
                    mma_acc_reset(a);
                    mma_acc_chain(a, &u, e->c, e->a, e->b, e->sa, e->sb, K);
                    mma_xval v = mma_acc_value(a);
                    /* MPFR: c + sum a*b*sa*sb, with IEEE specials */
                    int nan = 0, pinf = 0, ninf = 0, cls;
                    mpfr_set_zero(X, 1);
                    for (int k = 0; k < K; k++) {
                        int ca, cb;
                        enc_mpfr(t, u.a, e->a[k], &ca);
                        enc_mpfr(u2, u.b, e->b[k], &cb);
                        if (ns) {
                            mpfr_t s1, s2;
                            mpfr_init2(s1, 64); mpfr_init2(s2, 64);
                            int c1, c2;
                            enc_mpfr(s1, u.scale, e->sa[k / u.block], &c1);
                            enc_mpfr(s2, u.scale, e->sb[k / u.block], &c2);
                            if (c1 == MMA_NAN || c2 == MMA_NAN) nan = 1;
                            mpfr_mul(t, t, s1, MPFR_RNDN);
                            mpfr_mul(u2, u2, s2, MPFR_RNDN);
                            mpfr_clears(s1, s2, (mpfr_ptr)0);
                        }
                        if (ca == MMA_NAN || cb == MMA_NAN) nan = 1;
                        else if ((ca == MMA_INF && mpfr_zero_p(u2)) || (cb == MMA_INF && mpfr_zero_p(t))) nan = 1;
                        mpfr_mul(t, t, u2, MPFR_RNDN);
                        if (mpfr_inf_p(t)) { if (mpfr_sgn(t) < 0) ninf = 1; else pinf = 1; }
                        else if (mpfr_number_p(t)) mpfr_add(X, X, t, MPFR_RNDN);
                    }
                    enc_mpfr(t, u.c, e->c, &cls);
                    if (cls == MMA_NAN) nan = 1;
                    else if (cls == MMA_INF) { if (mpfr_sgn(t) < 0) ninf = 1; else pinf = 1; }
                    else mpfr_add(X, X, t, MPFR_RNDN);
                    if (nan || (pinf && ninf)) mpfr_set_nan(X);
                    else if (pinf || ninf) mpfr_set_inf(X, ninf ? -1 : 1);
                    if (!same_exact(v, X)) { FAIL("%s %s K=%d vector %ld: exact value differs from MPFR", units[ui], mma_dist_name((mma_dist)dist), K, i); continue; }
                    dots++;
                    /* the model's exact path, one call (K = u.k).  Not for fp64
                     * inputs: mma_exact_dot() multiplies significands in 64
                     * bits (mma_term.sig), which truncates 106-bit products */
                    if (u.a == MMA_FMT_FP64 && chain == 1 && i == 0 && dist == 0)
                        printf("note: %s: model comparison skipped (mma_exact_dot truncates fp64 products)\n", units[ui]);
                    if (chain == 1 && u.a != MMA_FMT_FP64) {
                        mma_exact me;
                        mma_exact_dot(&u, e->c, e->a, e->b, ns ? e->sa : NULL, ns ? e->sb : NULL, &me);
                        static const struct { mma_fmt f; int p; mma_rounding r; } rs[] = {
                            {MMA_FMT_FP64, 52, MMA_RNE}, {MMA_FMT_FP64, 52, MMA_RZ}, {MMA_FMT_FP32, 23, MMA_RNE},
                            {MMA_FMT_FP32, 23, MMA_RZ}, {MMA_FMT_FP32, 13, MMA_RZ}, {MMA_FMT_FP16, 10, MMA_RNE},
                            {MMA_FMT_BF16, 7, MMA_RNE}};
                        for (size_t q = 0; q < sizeof rs / sizeof rs[0]; q++) {
                            uint64_t model = mma_exact_round(&me, rs[q].f, rs[q].p, rs[q].r);
                            if (v.cls == MMA_NAN || v.cls == MMA_INF) {
                                if (mma_decode(rs[q].f, model).cls != v.cls) FAIL("%s: special class differs from the model", units[ui]);
                                continue;
                            }
                            uint64_t ours = v.cls == MMA_ZERO ? 0 : mma_encode_round(rs[q].f, rs[q].p, rs[q].r, v.neg, v.mag, v.e, v.sticky);
                            int ovf;
                            round_fmt(rr, X, rs[q].f, rs[q].p, rs[q].r == MMA_RNE ? MPFR_RNDN : MPFR_RNDZ, &ovf);
                            /* the model rounds an underflow to +0; we keep IEEE's sign: equal values */
                            int bothzero = mma_decode(rs[q].f, ours).cls == MMA_ZERO && mma_decode(rs[q].f, model).cls == MMA_ZERO;
                            if (ours != model && !bothzero) FAIL("%s %s vector %ld: %s p=%d %s: ours %llx, model %llx", units[ui], mma_dist_name((mma_dist)dist), i,
                                                    mma_format(rs[q].f)->name, rs[q].p, rs[q].r == MMA_RNE ? "rne" : "rz",
                                                    (unsigned long long)ours, (unsigned long long)model);
                            if (!same_value(rs[q].f, ours, rr, ovf, 0)) FAIL("%s vector %ld: %s p=%d rounding differs from MPFR", units[ui], i, mma_format(rs[q].f)->name, rs[q].p);
                            rounds++;
                        }
                    }
                    /* the unit's output against the exact value */
                    uint64_t dout = mma_chain(&u, e->c, e->a, e->b, e->sa, e->sb, K);
                    mx_res res;
                    mx_result(u.d, dout, a, v, 0, 0, &res);
                    int dcls;
                    enc_mpfr(dd, u.d, dout, &dcls);
                    int ovf;
                    round_fmt(rr, X, u.d, mma_format(u.d)->mbits, MPFR_RNDN, &ovf);
                    int special = !mpfr_number_p(X) || dcls == MMA_NAN || dcls == MMA_INF || ovf;
                    if (special != !!(res.flags & MX_R_SPECIAL)) { FAIL("%s vector %ld: special flag", units[ui], i); continue; }
                    if (special) continue;
                    mpfr_sub(dd, dd, X, MPFR_RNDN);                  /* exact at PREC */
                    double err = mpfr_get_d(dd, MPFR_RNDN);
                    long ex = mpfr_zero_p(X) ? mma_format(u.d)->emin : mpfr_get_exp(X) - 1;
                    if (ex < mma_format(u.d)->emin) ex = mma_format(u.d)->emin;
                    double ulp = ldexp(err, -(int)(ex - mma_format(u.d)->mbits));
                    int notcr = !same_value(u.d, dout, rr, 0, 0);
                    if (err != res.abs || ulp != res.ulp || notcr != !!(res.flags & MX_R_NOTCR))
                        FAIL("%s %s vector %ld: error %.17g/%.17g ulp (notcr %d), MPFR %.17g/%.17g (notcr %d)", units[ui],
                             mma_dist_name((mma_dist)dist), i, res.abs, res.ulp, !!(res.flags & MX_R_NOTCR), err, ulp, notcr);
                    outs++;
                }
                mx_draw_free(d);
                mx_enc_free(e);
                mx_gen_free(&g);
            }
        }
    }
    printf("dot products: %ld exact values equal MPFR's (%zu units x %d distributions x K=k,2k)\n", dots, NU, MMA_DIST_COUNT);
    printf("roundings: %ld RNE/RZ roundings into fp64/fp32/e8m13/fp16/bf16 equal mma_exact_round and MPFR\n", rounds);
    printf("errors: %ld unit outputs: error, ulps and correct-rounding flag equal MPFR's\n", outs);
    mpfr_clears(X, t, u2, rr, dd, (mpfr_ptr)0);
    free(a);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static void test_percentiles(void)
{
    static const long sizes[] = {1, 2, 3, 999, 70000, 300001};
    uint64_t st = 12345;
    long checked = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int kind = 0; kind < 4; kind++) {
            long n = sizes[si];
            mma_row r;
            memset(&r, 0, sizeof r);
            if (mx_row_init(&r, n, 1024, 0)) { FAIL("percentiles: out of memory"); return; }
            float *ref = malloc(sizeof *ref * (size_t)n);
            long m = 0;
            for (long i = 0; i < n; i++) {
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                uint32_t b = (uint32_t)(st >> 32);
                float x;
                switch (kind) {
                case 0: x = (float)((double)(b >> 8) / 65536.0 - 128.0); break;   /* ordinary, signed */
                case 1: x = (b & 3) ? 0.0f : (float)(b >> 20); break;                /* mostly exact */
                case 2: memcpy(&x, &b, 4); break;                                    /* any bit pattern */
                default: x = (b & 7) == 0 ? NAN : (b & 7) == 1 ? -INFINITY : (b & 7) == 2 ? 1e-42f : (float)(b & 15); break;
                }
                r.e_ulp[i] = x;
                if (x == x) ref[m++] = fabsf(x);
            }
            qsort(ref, (size_t)m, sizeof *ref, cmp_float);
            for (int t = 1; t <= 5; t += t == 1 ? 1 : 3) {
                mx_row_finish(&r, t);
                for (int q = 0; q < 4; q++) {
                    double want = NAN;
                    if (m) {
                        long rank = (long)ceil(mx_pct[q] * (double)m);
                        want = ref[(rank < 1 ? 1 : rank) - 1];
                    }
                    if (!(r.pulp[q] == want || (r.pulp[q] != r.pulp[q] && want != want)))
                        FAIL("percentiles: n=%ld kind %d threads %d: p%g = %g, sorted gives %g", n, kind, t,
                             100 * mx_pct[q], r.pulp[q], want);
                    checked++;
                }
            }
            free(ref);
            mma_row_free(&r);
        }
    printf("percentiles: %ld checked against qsort\n", checked);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 400;
    mx_tables_init();
    mx_rng_init();
    test_quant(n * 50);
    test_acc(n * 50);
    test_dots(n);
    test_percentiles();
    if (fails) { fprintf(stderr, "test_exact: %ld failures\n", fails); return 1; }
    printf("test_exact: all checks passed\n");
    return 0;
}
