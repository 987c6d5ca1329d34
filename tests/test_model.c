/* Unit tests of the model (Check framework).  Each directed case is chosen
 * so that a wrong F, rounding, order or special-value rule would fail it;
 * expected values come from the paper's worked examples, the DeepSeek-V3 write-up's swamping
 * example, or exact arithmetic done by hand in the comment beside them. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_exact.h"
#include "mmaref_gen.h"
#include "mmaref_parallel.h"
#include "mmaref_vec.h"
#include "../model/src/core/internal.h"     /* mma_edit_distance */

static mma_unit U(const char *name)
{
    mma_unit u;
    char err[512];
    int rc = mma_unit_parse(name, &u, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", name, err);
    return u;
}

/* d for c and the first n products given; the rest are zero */
static uint64_t dot(const mma_unit *u, uint64_t c, int n, const uint64_t *a, const uint64_t *b)
{
    uint64_t A[MMA_MAX_K] = {0}, B[MMA_MAX_K] = {0};
    memcpy(A, a, sizeof(uint64_t) * (size_t)n);
    memcpy(B, b, sizeof(uint64_t) * (size_t)n);
    return mma_dot(u, c, A, B, NULL, NULL);
}

#define QG "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
#define E4_1 0x38   /* 1.0 in e4m3 */
#define E4_M1 0xb8  /* -1.0 */
#define F32_1 0x3f800000u

START_TEST(formats_decode)
{
    mma_value v = mma_decode(MMA_FMT_E4M3, 0x7e);            /* 448 = 1.75 * 2^8 */
    ck_assert_int_eq(v.cls, MMA_FINITE);
    ck_assert_uint_eq(v.sig, 14);                           /* 0b1.110 */
    ck_assert_int_eq(v.exp, 5);
    ck_assert_uint_eq(v.sig << v.exp, 448);
    ck_assert_int_eq(mma_decode(MMA_FMT_E4M3, 0x7f).cls, MMA_NAN);
    ck_assert_int_eq(mma_decode(MMA_FMT_E4M3, 0xff).cls, MMA_NAN);
    ck_assert_int_eq(mma_decode(MMA_FMT_E5M2, 0x7c).cls, MMA_INF);
    ck_assert_int_eq(mma_decode(MMA_FMT_E4M3FNUZ, 0x80).cls, MMA_NAN);
    ck_assert_int_eq(mma_decode(MMA_FMT_E5M2FNUZ, 0x80).cls, MMA_NAN);
    ck_assert_int_eq(mma_decode(MMA_FMT_E4M3FNUZ, 0x7f).cls, MMA_FINITE);  /* 240 */
    /* e2m1: 0,.5,1,1.5,2,3,4,6 */
    static const int tw[8] = {0, 1, 2, 3, 4, 6, 8, 12};   /* twice the value */
    for (int i = 0; i < 8; i++) {
        mma_value x = mma_decode(MMA_FMT_E2M1, (uint64_t)i);
        long twice = x.cls == MMA_ZERO ? 0 : (long)x.sig * (x.exp + 1 >= 0 ? 1L << (x.exp + 1) : 0);
        if (x.exp + 1 < 0) twice = (long)x.sig >> -(x.exp + 1);
        ck_assert_int_eq(twice, tw[i]);
    }
    mma_value s = mma_decode(MMA_FMT_UE8M0, 0x7f);          /* 2^0 */
    ck_assert_int_eq(s.exp, 0);
    ck_assert_int_eq(mma_decode(MMA_FMT_UE8M0, 0xff).cls, MMA_NAN);
    /* tf32: the low 13 bits are ignored; a NaN whose payload is only there becomes Inf */
    ck_assert_int_eq(mma_decode(MMA_FMT_TF32, 0x7f800001).cls, MMA_INF);
    ck_assert_int_eq(mma_decode(MMA_FMT_TF32, 0x7f802000).cls, MMA_NAN);
    /* ue4m3: the top bit is ignored */
    ck_assert_int_eq(mma_decode(MMA_FMT_UE4M3, 0xb8).exp, mma_decode(MMA_FMT_UE4M3, 0x38).exp);
}
END_TEST

/* QGMMA keeps F=13 bits: -1 + 1 + 2^-13 keeps eps, 2^-14 is cut. */
/* mma_encode is mma_decode's inverse on every encoding (the bits a format
 * ignores cleared), and a value half-way between two neighbours rounds to
 * the even one, a hair above it to the upper one: neighbours and their
 * midpoints come from mma_decode alone. */
static uint64_t canonical(mma_fmt f, uint64_t x)
{
    if (f == MMA_FMT_TF32) return x & ~(uint64_t)0x1fff;
    if (f == MMA_FMT_UE4M3) return x & 0x7f;
    return x;
}

START_TEST(encode_inverse)
{
    mma_rng r;
    mma_rng_seed(&r, 30, 0);
    for (int f = 1; f < MMA_FMT_COUNT; f++) {
        const mma_format_info *fi = mma_format((mma_fmt)f);
        long n = fi->width <= 16 ? 1L << fi->width : 200000;
        for (long i = 0; i < n; i++) {
            uint64_t x = fi->width <= 16 ? (uint64_t)i : mma_rng_next(&r) & (fi->width == 64 ? ~0ull : ((uint64_t)1 << fi->width) - 1);
            mma_value v = mma_decode((mma_fmt)f, x);
            uint64_t y = mma_encode((mma_fmt)f, v);
            if (v.cls == MMA_NAN) ck_assert_int_eq(mma_decode((mma_fmt)f, y).cls, MMA_NAN);
            else if (y != canonical((mma_fmt)f, x))
                ck_abort_msg("%s: 0x%llx decodes and encodes to 0x%llx", fi->name, (unsigned long long)x, (unsigned long long)y);
        }
    }
}
END_TEST

START_TEST(encode_ties)
{
    static const mma_fmt fs[] = {MMA_FMT_FP16, MMA_FMT_BF16, MMA_FMT_E4M3, MMA_FMT_E5M2, MMA_FMT_E3M2, MMA_FMT_E2M1, MMA_FMT_E4M3FNUZ};
    for (size_t q = 0; q < sizeof fs / sizeof fs[0]; q++) {
        mma_fmt f = fs[q];
        uint64_t max = mma_format_max(f);
        for (uint64_t x = 0; x < max; x++) {
            mma_value lo = mma_decode(f, x), hi = mma_decode(f, x + 1);
            if (hi.cls != MMA_FINITE) continue;
            if (lo.cls == MMA_ZERO) { lo.sig = 0; lo.exp = hi.exp; }
            /* both on the grid of the finer exponent, then the midpoint one bit lower */
            int32_t e = lo.exp < hi.exp ? lo.exp : hi.exp;
            uint64_t a = lo.sig << (lo.exp - e), b = hi.sig << (hi.exp - e);
            mma_value mid = {MMA_FINITE, 0, e - 2, 2 * (a + b)};        /* (a+b)/2 at 2^e, times 4 */
            mma_value above = {MMA_FINITE, 0, e - 2, 2 * (a + b) + 1};
            uint64_t even = (x & 1) ? x + 1 : x;
            ck_assert_msg(mma_encode(f, mid) == even, "%s: midpoint after 0x%llx", mma_format(f)->name, (unsigned long long)x);
            ck_assert_msg(mma_encode(f, above) == x + 1, "%s: above the midpoint after 0x%llx", mma_format(f)->name, (unsigned long long)x);
        }
    }
    /* beyond the largest finite: Inf, or the largest finite without Inf */
    mma_value big = {MMA_FINITE, 1, 200, 1};
    ck_assert_uint_eq(mma_encode(MMA_FMT_FP16, big), 0xfc00);
    ck_assert_uint_eq(mma_encode(MMA_FMT_E4M3, big), 0xfe);
}
END_TEST

/* the suites by name and index; a vector depends on (seed, suite, i) only */
START_TEST(gen_suites)
{
    ck_assert_int_eq(mma_suite_count(), 16);
    ck_assert_int_eq(mma_suite_find("compliance"), 8);
    ck_assert_str_eq(mma_suite_name(mma_suite_find("ieee-nan")), "ieee-nan");
    ck_assert_int_eq(mma_suite_find("neighbours"), 15);     /* appended: the others keep their indices */
    ck_assert_ptr_null(mma_suite_name(16));
    mma_unit u;
    char err[256];
    ck_assert_int_eq(mma_unit_parse("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", &u, err, sizeof err), 0);
    mma_gen g;
    ck_assert_int_eq(mma_gen_init(&g, &u, "no-such-suite", 1), -1);
    ck_assert_int_eq(mma_gen_init(&g, &u, "normal", 1), 0);
    static mma_vec v[8], w;
    ck_assert_int_eq(mma_gen_vectors(&g, 0, 8, v), 8);
    mma_gen_operands(&g, 5, &w);
    ck_assert_uint_eq(w.c, v[5].c);
    ck_assert_int_eq(memcmp(w.a, v[5].a, sizeof w.a[0] * (size_t)u.k), 0);
    ck_assert_uint_eq(v[5].d, mma_dot(&u, v[5].c, v[5].a, v[5].b, NULL, NULL));
    mma_gen h;
    mma_gen_init(&h, &u, "normal", 2);
    mma_gen_operands(&h, 5, &w);
    ck_assert(memcmp(w.a, v[5].a, sizeof w.a[0] * (size_t)u.k) != 0);
}
END_TEST

/* A mutant of the model that compares c's exponent with a constant one
 * bit off: fp32 c with exponent field 0xf7 and a zero fraction (2^120,
 * +inf ^ 1<<26) taken for Inf. */
static uint64_t dot_mutant_c_inf(const mma_unit *u, const mma_vec *v)
{
    uint64_t c = v->c;
    if ((c & 0x7fffffff) == 0x7b800000) c = (c & 0x80000000) | 0x7f800000;
    return mma_dot(u, c, v->a, v->b, NULL, NULL);
}

/* vectors of `suite` (count from seed 1) whose d the mutant changes */
static long mutant_kills(const mma_unit *u, const char *suite, long count)
{
    mma_gen g;
    static mma_vec v;
    long kills = 0;
    ck_assert_int_eq(mma_gen_init(&g, u, suite, 1), 0);
    for (long i = 0; i < count; i++) {
        mma_gen_vectors(&g, i, i + 1, &v);
        kills += dot_mutant_c_inf(u, &v) != v.d;
    }
    return kills;
}

/* neighbours (issue 26): within 20,000 vectors of fp16 inputs and fp32 c,
 * every one-bit neighbour of +Inf appears in c (32 values) and every
 * one-hot fp16 pattern in a (16 values); the mutant above is killed */
START_TEST(gen_neighbours)
{
    mma_unit u;
    char err[256];
    ck_assert_int_eq(mma_unit_parse("hopper:wgmma.m64n8k16.f32.f16.f16", &u, err, sizeof err), 0);
    mma_gen g;
    ck_assert_int_eq(mma_gen_init(&g, &u, "neighbours", 1), 0);
    static mma_vec v;
    uint64_t cseen = 0, aseen = 0;
    for (long i = 0; i < 20000; i++) {
        mma_gen_operands(&g, i, &v);
        uint64_t x = v.c ^ 0x7f800000;
        if (x && !(x & (x - 1))) cseen |= x;                /* x is the flipped bit */
        for (int k = 0; k < u.k; k++)
            if (v.a[k] && !(v.a[k] & (v.a[k] - 1))) aseen |= v.a[k];
    }
    ck_assert_uint_eq(cseen, 0xffffffffu);
    ck_assert_uint_eq(aseen, 0xffffu);
    long kn = mutant_kills(&u, "neighbours", 20000), kc = mutant_kills(&u, "compliance", 20000);
    printf("neighbours: the c exponent 0xf7 mutant killed by %ld of 20000 neighbours vectors, %ld of 20000 compliance\n", kn, kc);
    ck_assert_int_gt(kn, 0);
}
END_TEST

/* the random modes: a finite mode's operands are finite, the same seed
 * gives the same stream, a reseed restarts it; bad modes and block-scaled
 * units are refused with a reason */
START_TEST(rgen_modes)
{
    mma_unit u, bs;
    char err[256];
    ck_assert_int_eq(mma_unit_parse("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", &u, err, sizeof err), 0);
    ck_assert_int_eq(mma_unit_parse("blackwell:tcgen05.mma.m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0", &bs, err, sizeof err), 0);
    ck_assert_ptr_null(mma_rgen_create(&u, 1, "nope", err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "unknown stimulus mode 'nope'"));
    ck_assert_ptr_null(mma_rgen_create(&bs, 1, "mix", err, sizeof err));
    ck_assert_int_eq(mma_rgen_mode_ok("carry"), 1);
    ck_assert_int_eq(mma_rgen_mode_ok("carr"), 0);
    mma_rgen *g = mma_rgen_create(&u, 7, "finite", err, sizeof err), *h = mma_rgen_create(&u, 7, "finite", err, sizeof err);
    uint64_t c, a[MMA_MAX_K], b[MMA_MAX_K], c2, a2[MMA_MAX_K], b2[MMA_MAX_K], first;
    for (int i = 0; i < 2000; i++) {
        mma_rgen_next(g, &c, a, b);
        mma_rgen_next(h, &c2, a2, b2);
        if (i == 0) first = a[0] | a[1] << 8 | c << 16;
        ck_assert(c == c2 && !memcmp(a, a2, sizeof a[0] * (size_t)u.k));
        ck_assert(mma_decode(u.c, c).cls <= MMA_FINITE);
        for (int k = 0; k < u.k; k++)
            ck_assert(mma_decode(u.a, a[k]).cls <= MMA_FINITE && mma_decode(u.b, b[k]).cls <= MMA_FINITE);
    }
    mma_rgen_reseed(g, 7);
    mma_rgen_next(g, &c, a, b);
    ck_assert_uint_eq(a[0] | a[1] << 8 | c << 16, first);
    mma_rgen_free(g);
    mma_rgen_free(h);
}
END_TEST

START_TEST(fda_f13)
{
    mma_unit u = U(QG);
    uint64_t a[2] = {E4_1, E4_M1}, b[2] = {E4_1, E4_1};
    ck_assert_uint_eq(dot(&u, 0x39000000 /* 2^-13 */, 2, a, b), 0x39000000);
    ck_assert_uint_eq(dot(&u, 0x38800000 /* 2^-14 */, 2, a, b), 0);
    /* F=14 (one bit more) would keep it: the configuration string proves it */
    mma_unit w = U("fused,a=e4m3,b=e4m3,k=32,f=14,d=e8m13,ezero=-133");
    ck_assert_uint_eq(dot(&w, 0x38800000, 2, a, b), 0x38800000);
}
END_TEST

/* HGMMA on Hopper: F=25 */
START_TEST(fda_f25)
{
    mma_unit u = U("hopper:wgmma.m64n8k16.f32.bf16.bf16");
    uint64_t a[2] = {0x3f80, 0xbf80}, b[2] = {0x3f80, 0x3f80};
    ck_assert_uint_eq(dot(&u, 0x33000000 /* 2^-25 */, 2, a, b), 0x33000000);
    ck_assert_uint_eq(dot(&u, 0x32800000 /* 2^-26 */, 2, a, b), 0);
    mma_unit amp = U("ampere:mma.m16n8k8.f32.bf16.bf16.f32");   /* F=24 */
    ck_assert_uint_eq(dot(&amp, 0x33000000, 2, a, b), 0);
    ck_assert_uint_eq(dot(&amp, 0x33800000, 2, a, b), 0x33800000);
}
END_TEST

/* Hopper FP8 with FP32 output: RZ to 13 bits, the low 10 bits always zero. */
START_TEST(fda_e8m13)
{
    mma_unit u = U(QG);
    uint64_t a[1] = {E4_1}, b[1] = {E4_1};
    /* 1 + (2^-13 + 2^-14 + ...): c = 1.0 + lots of low bits, product 0 */
    ck_assert_uint_eq(dot(&u, 0x3f8007ff, 0, a, b), 0x3f800400);  /* RZ at 13 bits */
    ck_assert_uint_eq(dot(&u, 0x3f8003ff, 1, a, b) & 0x3ff, 0);
    srand(1);
    for (int i = 0; i < 20000; i++) {
        uint64_t A[32], B[32], c = ((uint64_t)rand() << 1 ^ (uint64_t)rand()) & 0xffffffff;
        for (int k = 0; k < 32; k++) { A[k] = (uint64_t)rand() & 0xff; B[k] = (uint64_t)rand() & 0xff; }
        uint64_t d = mma_dot(&u, c, A, B, NULL, NULL);
        if ((d & 0x7f800000) != 0x7f800000) ck_assert_uint_eq(d & 0x3ff, 0);
    }
}
END_TEST

/* RZ for FP32 output, RNE for FP16 output: 1 + 0.75 ulp. */
START_TEST(fda_rounding)
{
    mma_unit u32 = U("hopper:wgmma.m64n8k16.f32.f16.f16");
    mma_unit u16 = U("hopper:wgmma.m64n8k16.f16.f16.f16");
    uint64_t a[2] = {0x3c00, 0x3c00}, b[2] = {0x3c00, 0x3c00};
    /* f32 out: 1 + 2^-24 + 2^-25 (0.75 ulp) -> RZ gives 1 */
    uint64_t a2[3] = {0x3c00, 0x0100 /* 2^-16 */, 0x0080 /* 2^-17 */}, b2[3] = {0x3c00, 0x1c00 /* 2^-8 */, 0x1c00};
    ck_assert_uint_eq(dot(&u32, 0, 3, a2, b2), F32_1);
    /* f16 out: 1 + 0.75 ulp (ulp 2^-10) -> 1 + ulp; 1 + 0.5 ulp -> 1 (tie to even); 1 + 1.5 ulp -> 1 + 2 ulp */
    uint64_t a3[3] = {0x3c00, 0x1400 /* 2^-10 */, 0x1000 /* 2^-11 */}, b3[3] = {0x3c00, 0x3800 /* .5 */, 0x3800};
    ck_assert_uint_eq(dot(&u16, 0, 3, a3, b3), 0x3c01);
    ck_assert_uint_eq(dot(&u16, 0, 2, a3, b3), 0x3c00);
    uint64_t a4[3] = {0x3c00, 0x1400, 0x1400}, b4[3] = {0x3c00, 0x3c00, 0x3800};
    ck_assert_uint_eq(dot(&u16, 0, 3, a4, b4), 0x3c02);
    (void)a; (void)b;
}
END_TEST

/* Specials: canonical NaN, 0*Inf, +Inf with -Inf, one Inf, +0 results. */
START_TEST(fda_specials)
{
    mma_unit u = U("hopper:wgmma.m64n8k16.f32.f16.f16");
    uint64_t inf[1] = {0x7c00}, one[1] = {0x3c00}, zero[1] = {0}, nan[1] = {0x7e01};
    ck_assert_uint_eq(dot(&u, 0, 1, nan, one), 0x7fffffff);
    ck_assert_uint_eq(dot(&u, 0, 1, inf, zero), 0x7fffffff);
    ck_assert_uint_eq(dot(&u, 0xff800000, 1, inf, one), 0x7fffffff);
    ck_assert_uint_eq(dot(&u, 0x3f800000, 1, inf, one), 0x7f800000);
    ck_assert_uint_eq(dot(&u, 0x80000000, 1, zero, one), 0);           /* -0 + 0 -> +0 */
    uint64_t m1[1] = {0xbc00};
    ck_assert_uint_eq(dot(&u, 0x3f800000, 1, m1, one), 0);             /* 1 - 1 -> +0 */
    mma_unit h = U("hopper:wgmma.m64n8k16.f16.f16.f16");
    ck_assert_uint_eq(dot(&h, 0x7e00, 1, one, one), 0x7fff);
    /* products never overflow inside NVIDIA units: 2^254 - 2^254 + 1 is 0
     * (not NaN from Inf - Inf; c = 1 lies 254 places below emax and is cut) */
    mma_unit bf = U("hopper:wgmma.m64n8k16.f32.bf16.bf16");
    uint64_t big[2] = {0x7f00, 0xff00}, bb[2] = {0x7f00, 0x7f00};
    ck_assert_uint_eq(dot(&bf, 0x3f800000, 2, big, bb), 0);
    /* the sum overflows to Inf although the rounding is toward zero */
    uint64_t big2[2] = {0x7f00, 0x7f00}, two[2] = {0x3f80, 0x3f80};
    ck_assert_uint_eq(dot(&bf, 0, 2, big2, two), 0x7f800000);
}
END_TEST

/* TF32: a NaN whose payload lies in the ignored low 13 bits becomes Inf. */
START_TEST(tf32_payload)
{
    mma_unit u = U("hopper:wgmma.m64n8k8.f32.tf32.tf32");
    uint64_t a[1] = {0x7f800001}, b[1] = {F32_1};
    ck_assert_uint_eq(dot(&u, 0, 1, a, b), 0x7f800000);
    uint64_t a2[1] = {0x3f801fff};   /* 1 + low garbage = 1 */
    ck_assert_uint_eq(dot(&u, 0, 1, a2, b), F32_1);
}
END_TEST

/* CoFDA (Ampere bf16 m16n8k16): two chained FDAs of 8 products.  X in the
 * first half, -X in the second, y small in the first half: the first step
 * rounds X + y to X (y below F=24 of X), the second cancels X: the result
 * is 0 + (the second half's y).  One fused step would keep y. */
START_TEST(cofda_order)
{
    mma_unit amp = U("ampere:mma.m16n8k16.f32.bf16.bf16.f32");
    mma_unit hop = U("hopper:mma.m16n8k16.f32.bf16.bf16.f32");
    uint64_t a[16] = {0}, b[16] = {0};
    a[0] = 0x4f80; b[0] = 0x3f80;           /* X = 2^32 */
    a[1] = 0x3f80; b[1] = 0x3f80;           /* y = 1, first half */
    a[8] = 0xcf80; b[8] = 0x3f80;           /* -X, second half */
    ck_assert_uint_eq(mma_dot(&amp, 0, a, b, NULL, NULL), 0);
    ck_assert_uint_eq(mma_dot(&hop, 0, a, b, NULL, NULL), 0);   /* F=25 also cuts 2^-32 */
    /* X = 2^23, y = 0.5 within F=24 of X but below fp32's ulp at X: step 1
     * keeps y in its sum but rounds X + 0.5 to X; step 2 cancels X: 0.
     * Hopper's single fused step keeps 0.5. */
    a[0] = 0x4b00; a[1] = 0x3f00; a[8] = 0xcb00;
    ck_assert_uint_eq(mma_dot(&amp, 0, a, b, NULL, NULL), 0);
    ck_assert_uint_eq(mma_dot(&hop, 0, a, b, NULL, NULL), 0x3f000000);
}
END_TEST

/* SFMA (DMMA): sequential fma in k order from c.  1 + 2^53 - 2^53: the
 * first fma rounds 1 away, so the result is 0 (the exact sum is 1). */
START_TEST(sfma_order)
{
    mma_unit u = U("hopper:mma.m8n8k4.f64.f64.f64.f64");
    uint64_t a[2] = {0x4340000000000000ull /* 2^53 */, 0xc340000000000000ull}, b[2] = {0x3ff0000000000000ull, 0x3ff0000000000000ull};
    ck_assert_uint_eq(dot(&u, 0x3ff0000000000000ull, 2, a, b), 0);
    /* reversed order keeps it: -2^53 first... still 2^53 then: also 0; put
     * the cancellation first: c=2^53, -2^53, then +1 -> 1 */
    uint64_t a2[2] = {0xc340000000000000ull, 0x3ff0000000000000ull};
    ck_assert_uint_eq(dot(&u, 0x4340000000000000ull, 2, a2, b), 0x3ff0000000000000ull);
    /* NaN payload passes through, quieted */
    uint64_t an[1] = {0x7ff0000000000123ull};
    ck_assert_uint_eq(dot(&u, 0, 1, an, b), 0x7ff8000000000123ull);
    /* H100 DMMA: the accumulator's NaN wins over a later a_k's;
     * 0*Inf gives 0xfff8000000000000 */
    uint64_t an2[2] = {0x7ff0000000000001ull, 0x7ff0000000000002ull};
    ck_assert_uint_eq(dot(&u, 0, 2, an2, b), 0x7ff8000000000001ull);
    uint64_t ai[1] = {0x7ff0000000000000ull}, bz[1] = {0};
    ck_assert_uint_eq(dot(&u, 0, 1, ai, bz), 0xfff8000000000000ull);
}
END_TEST

/* Which NaN a DMMA step passes on: H100 outputs (lines of
 * vectors/hw/h100/mma.m8n8k4.f64.f64.f64.f64.nan.vec.xz; c, a[0], b[0] as
 * given, a[1..3] = 1 + k/16, b[1..3] = 2).  b_k first, then the
 * accumulator, then a_k; a signaling NaN has no precedence, it is only
 * quieted. */
START_TEST(dmma_nan_rule)
{
    static const struct { uint64_t c, a0, b0, d; } hw[] = {
        {0xfff80c00000000d7ull, 0x3ff0000000000000ull, 0xfff00b00000000d7ull, 0xfff80b00000000d7ull}, /* c quiet, b signaling */
        {0xfff00c00000000cdull, 0xfff80a00000000cdull, 0x4000000000000000ull, 0xfff80c00000000cdull}, /* c signaling, a quiet */
        {0x3fe0000000000000ull, 0xfff00a0000000031ull, 0xfff80b0000000031ull, 0xfff80b0000000031ull}, /* a signaling, b quiet */
        {0xfff80c00000000b7ull, 0xfff00a00000000b7ull, 0x4000000000000000ull, 0xfff80c00000000b7ull}, /* c quiet, a signaling */
        {0x7ff00c000000008eull, 0x7ff00a000000008eull, 0x7ff00b000000008eull, 0x7ff80b000000008eull}, /* all signaling */
        {0xfff80c0000000047ull, 0xfff80a0000000047ull, 0xfff80b0000000047ull, 0xfff80b0000000047ull}, /* all quiet */
    };
    static const char *names[] = {"hopper:mma.m8n8k4.f64.f64.f64.f64", "hopper:wmma.m8n8k4.f64.f64.f64.f64",
                                  "ampere:mma.m8n8k4.f64.f64.f64.f64"};
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        mma_unit u = U(names[n]);
        for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++) {
            uint64_t a[4] = {hw[i].a0, 0x3ff1000000000000ull, 0x3ff2000000000000ull, 0x3ff3000000000000ull};
            uint64_t b[4] = {hw[i].b0, 0x4000000000000000ull, 0x4000000000000000ull, 0x4000000000000000ull};
            ck_assert_msg(mma_dot(&u, hw[i].c, a, b, NULL, NULL) == hw[i].d, "%s, case %zu", names[n], i);
        }
    }
}
END_TEST

/* Hopper's emulated fp8 mma.sync converts e4m3 to fp16 before the HMMA, so
 * a subnormal e4m3 operand is normalized: H100 output of a vector of
 * vectors/hw/h100/million/mma.m16n8k16.f32.e4m3.e5m2.f32.sample.vec.xz.
 * The largest product, a = 0x84 (-2^-7, subnormal) times b = 0xf3
 * (-14336), has exponent e_a + e_b = 7 unnormalized but 6 in fp16, which
 * cuts the other terms one bit lower: without the conversion the model
 * gives 4320f5ad. */
START_TEST(fp8_via_fp16)
{
    mma_unit u = U("hopper:mma.m16n8k16.f32.e4m3.e5m2.f32");
    uint64_t a[16] = {0x01, 0x8b, 0x82, 0x84, 0x05, 0x04, 0xdd, 0x6f, 0x02, 0x80, 0x01, 0xbb, 0x82, 0x7b, 0x82, 0xee};
    uint64_t b[16] = {0x46, 0x09, 0x8f, 0xf3, 0x82, 0xbc, 0x02, 0x00, 0x1c, 0x80, 0x82, 0x00, 0x82, 0x83, 0x47, 0xb7};
    ck_assert_uint_eq(mma_dot(&u, 0xb4dfcdefu, a, b, NULL, NULL), 0x4320f5acu);
    u.flags &= ~(unsigned)MMA_F_VIA_FP16;
    ck_assert_uint_eq(mma_dot(&u, 0xb4dfcdefu, a, b, NULL, NULL), 0x4320f5adu);
    mma_unit w = U("blackwell:mma.m16n8k16.f32.e4m3.e5m2.f32");
    ck_assert_uint_eq(mma_dot(&w, 0xb4dfcdefu, a, b, NULL, NULL), 0x4320f5acu);
}
END_TEST

/* wmma is the architecture's native instruction chained over k in k order
 * (nvcc 13.0 SASS, docs/hardware.md): for random vectors, every wmma entry
 * equals the calls of its native catalogue entry over consecutive slices of
 * k, each call's output the next call's c. */
START_TEST(wmma_chain)
{
    static const struct { const char *wmma, *native; } rows[] = {
        {"volta:wmma.m16n16k16.f32.f16.f16.f32", "volta:mma.m8n8k4.f32.f16.f16.f32"},
        {"volta:wmma.m32n8k16.f16.f16.f16.f16", "volta:mma.m8n8k4.f16.f16.f16.f16"},
        {"turing:wmma.m16n16k16.f32.f16.f16.f32", "turing:mma.m16n8k8.f32.f16.f16.f32"},
        {"turing:wmma.m8n32k16.f16.f16.f16.f16", "turing:mma.m16n8k8.f16.f16.f16.f16"},
        {"ampere:wmma.m16n16k16.f32.f16.f16.f32", "ampere:mma.m16n8k16.f32.f16.f16.f32"},
        {"ampere:wmma.m16n16k16.f32.bf16.bf16.f32", "ampere:mma.m16n8k16.f32.bf16.bf16.f32"},
        {"ampere:wmma.m16n16k8.f32.tf32.tf32.f32", "ampere:mma.m16n8k4.f32.tf32.tf32.f32"},
        {"ada:wmma.m32n8k16.f16.f16.f16.f16", "ada:mma.m16n8k16.f16.f16.f16.f16"},
        {"hopper:wmma.m16n16k16.f32.f16.f16.f32", "hopper:mma.m16n8k16.f32.f16.f16.f32"},
        {"hopper:wmma.m8n32k16.f32.bf16.bf16.f32", "hopper:mma.m16n8k16.f32.bf16.bf16.f32"},
        {"hopper:wmma.m16n16k8.f32.tf32.tf32.f32", "hopper:mma.m16n8k4.f32.tf32.tf32.f32"},
        {"hopper:wmma.m8n8k4.f64.f64.f64.f64", "hopper:mma.m8n8k4.f64.f64.f64.f64"},
        {"blackwell:wmma.m16n16k8.f32.tf32.tf32.f32", "blackwell:mma.m16n8k4.f32.tf32.tf32.f32"},
        {"rtx-blackwell:wmma.m16n16k16.f16.f16.f16.f16", "rtx-blackwell:mma.m16n8k16.f16.f16.f16.f16"},
    };
    uint64_t st = 14;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        mma_unit w = U(rows[r].wmma), n = U(rows[r].native);
        ck_assert_int_eq(w.k % n.k, 0);
        int wa = mma_format(w.a)->width, wc = mma_format(w.c)->width;
        for (int v = 0; v < 2000; v++) {
            uint64_t a[MMA_MAX_K], b[MMA_MAX_K], c;
            for (int k = 0; k < w.k; k++) {
                /* values near 1 with spread exponents: the cut of each step shows */
                st = st * 6364136223846793005ull + 1442695040888963407ull;
                uint64_t x = st >> 11, y = st >> 27;
                a[k] = wa == 64 ? x : x & ((1ull << wa) - 1);
                b[k] = wa == 64 ? y : y & ((1ull << wa) - 1);
            }
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            c = wc == 64 ? st : (st >> 17) & ((1ull << wc) - 1);
            uint64_t d = c;
            for (int k0 = 0; k0 < w.k; k0 += n.k) d = mma_dot(&n, d, a + k0, b + k0, NULL, NULL);
            ck_assert_msg(mma_result_equal(&w, mma_dot(&w, c, a, b, NULL, NULL), d), "%s vector %d", rows[r].wmma, v);
        }
    }
}
END_TEST

/* Names as PTX source writes them resolve to the catalogue, and describe's
 * name is the canonical one. */
START_TEST(ptx_spellings)
{
    static const struct { const char *in, *canon; } rows[] = {
        {"hopper:mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "hopper:mma.m16n8k16.f32.f16.f16.f32"},
        {"hopper:mma.m16n8k16.row.col.f16.f16.f16.f16", "hopper:mma.m16n8k16.f16.f16.f16.f16"},
        {"hopper:wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"},
        {"sm_90a:wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "hopper:wgmma.m64n256k16.f32.bf16.bf16"},
        {"blackwell:tcgen05.mma.cta_group::1.kind::f8f6f4.m64n8k32.f32.e4m3.e4m3",
         "blackwell:tcgen05.mma.m64n8k32.kind::f8f6f4.f32.e4m3.e4m3"},
        {"blackwell:tcgen05.mma.cta_group::2.kind::f16.m256n128k16.f32.bf16.bf16",
         "blackwell:tcgen05.mma.m256n128k16.kind::f16.f32.bf16.bf16"},
        {"blackwell:tcgen05.mma.ws.cta_group::1.kind::tf32.m32n64k8.f32.tf32.tf32",
         "blackwell:tcgen05.mma.m32n64k8.kind::tf32.f32.tf32.tf32"},
        {"blackwell:tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X.m128n64k32.f32.e4m3.e2m1.ue8m0",
         "blackwell:tcgen05.mma.m128n64k32.kind::mxf8f6f4.block32.f32.e4m3.e2m1.ue8m0"},
        {"rtx-blackwell:mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3",
         "rtx-blackwell:mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3"},
        {"volta:wmma.mma.sync.aligned.m16n16k16.row.col.f32.f32", "volta:wmma.m16n16k16.f32.f16.f16.f32"},
        {"ampere:wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", "ampere:wmma.m16n16k8.f32.tf32.tf32.f32"},
        {"hopper:wmma.mma.sync.aligned.col.row.m8n8k4.rn.f64.f64.f64.f64", "hopper:wmma.m8n8k4.f64.f64.f64.f64"},
        {"gfx942:V_MFMA_F32_32X32X8_F16", "cdna3:v_mfma_f32_32x32x8_f16"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        mma_unit u = U(rows[i].in), v = U(rows[i].canon);
        ck_assert_str_eq(u.name, rows[i].canon);
        ck_assert_str_eq(v.name, rows[i].canon);
        char c1[512], c2[512];
        mma_unit_config(&u, c1, sizeof c1);
        mma_unit_config(&v, c2, sizeof c2);
        ck_assert_str_eq(c1, c2);
    }
    mma_unit u;
    char err[1024];
    /* tcgen05: M = 256 only with cta_group::2, 32 only with .ws */
    ck_assert_int_eq(mma_unit_parse("blackwell:tcgen05.mma.ws.kind::f16.m256n64k16.f32.f16.f16", &u, err, sizeof err), -1);
    ck_assert_int_eq(mma_unit_parse("blackwell:tcgen05.mma.cta_group::2.kind::f16.m32n64k16.f32.f16.f16", &u, err, sizeof err), -1);
    /* a bare qualifier says which architectures have it */
    ck_assert_int_eq(mma_unit_parse("mma.m16n8k16.f32.f16.f16.f32", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "ampere, ada, hopper"));
    /* unknown names suggest names of the architecture given */
    ck_assert_int_eq(mma_unit_parse("hopper:foo", &u, err, sizeof err), -1);
    const char *p = strstr(err, "nearest: ");
    ck_assert_ptr_nonnull(p);
    for (p += 9; p && *p; p = strstr(p, ", ")) {
        if (*p == ',') p += 2;
        ck_assert_msg(!strncmp(p, "hopper:", 7), "%s", err);
    }
}
END_TEST

/* Every name of the peer model mmasim 2.1.1's lists (4,999, every shape;
 * scripts/peer/mmasim_fill.py --list-all) resolves to a unit. */
START_TEST(mmasim_names)
{
    FILE *f = fopen("scripts/peer/mmasim_instructions_all.txt", "r");
    ck_assert_msg(f != NULL, "run from the repository root");
    char line[256], err[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        mma_unit u;
        ck_assert_msg(mma_unit_parse(line, &u, err, sizeof err) == 0, "%s: %s", line, err);
        n++;
    }
    fclose(f);
    ck_assert_int_eq(n, 4999);
}
END_TEST

/* A vector file whose '# instr:' has no architecture takes '# arch:'. */
START_TEST(vecfile_arch_header)
{
    const char *text = "# mmavec 1\n# arch: hopper\n# instr: mma.m8n8k4.f64.f64.f64.f64\n# k: 4\n"
                       "# fields: c a[0..3] b[0..3] d\n";
    char err[512];
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    mma_vec_reader *r = mma_vec_open_stream(f, "mem.vec", NULL, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    ck_assert_str_eq(mma_vec_unit(r)->name, "hopper:mma.m8n8k4.f64.f64.f64.f64");
    mma_vec_close(r);
    fclose(f);
    const char *bad = "# mmavec 1\n# arch: hopper\n# instr: ampere:mma.m8n8k4.f64.f64.f64.f64\n";
    f = fmemopen((void *)bad, strlen(bad), "r");
    r = mma_vec_open_stream(f, "bad.vec", NULL, err, sizeof err);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err, "field arch"));
    fclose(f);
}
END_TEST

/* GPS (CDNA2 fp16): subnormal inputs flush to +0; pairwise groups of 4 with
 * fp32 adds.  (2^24 + 1) + (-2^24) computed pairwise as (p0+p1)+(p2+p3):
 * p0 + p1 = 2^24 + 1 rounds to 2^24 (ties to even), so the result is 0. */
START_TEST(gps)
{
    mma_unit u = U("cdna2:v_mfma_f32_32x32x8f16");
    uint64_t a[4] = {0x0001 /* subnormal */, 0, 0, 0}, b[4] = {0x7bff, 0, 0, 0};
    ck_assert_uint_eq(dot(&u, 0, 4, a, b), 0);        /* flushed: exact would be > 0 */
    uint64_t a2[4] = {0x6c00 /* 4096 */, 0x3c00, 0xec00, 0}, b2[4] = {0x6c00, 0x3c00, 0x6c00, 0};
    ck_assert_uint_eq(dot(&u, 0, 4, a2, b2), 0);      /* (2^24 + 1 -> 2^24) - 2^24 */
    /* a subnormal fp32 c flushes to +0 */
    ck_assert_uint_eq(dot(&u, 0x00000001, 0, a, b), 0);
}
END_TEST

/* CDNA3 FDRDA, the paper's example: 2048*2048 - 2048*2048 - 0.000001 gives
 * -0.25 under round-down (section "asymmetric rounding"). */
START_TEST(fdrda_paper)
{
    mma_unit u = U("cdna3:v_mfma_f32_32x32x8_f16");
    uint64_t a[2] = {0x6800, 0xe800}, b[2] = {0x6800, 0x6800};
    ck_assert_uint_eq(dot(&u, 0xb58637bd /* -1e-6 */, 2, a, b), 0xbe800000);
    /* CDNA3 products overflow: 2^15*2^15*... bf16 2^127 * 2 reaches 2^128 */
    mma_unit bf = U("cdna3:v_mfma_f32_32x32x8_bf16");
    uint64_t big[2] = {0x7f00, 0xff00}, two[2] = {0x4000, 0x4000};
    ck_assert_uint_eq(dot(&bf, 0, 2, big, two), 0x7fffffff);   /* +Inf - Inf */
}
END_TEST

/* GFDRDA (CDNA3 fp8): c far below the dot part is cut toward zero, not
 * rounded down; FDRDA rounds it down to 1 - 2^-24. */
START_TEST(gfdrda)
{
    mma_unit g = U("cdna3:v_mfma_f32_32x32x16_fp8_fp8");
    uint64_t a[1] = {0x40 /* 1.0, bias 8 */}, b[1] = {0x40};
    ck_assert_uint_eq(dot(&g, 0xab800000 /* -2^-40 */, 1, a, b), F32_1);
    mma_unit r = U("fused,a=e4m3fnuz,b=e4m3fnuz,k=16,f=24,f2=31,cadd=rd,round=rne");
    ck_assert_uint_eq(dot(&r, 0xab800000, 1, a, b), 0x3f7fffff);
}
END_TEST

/* GDFS (K=64 fp4 with scales): the scale exponents shift the group; a NaN
 * scale gives NaN. */
START_TEST(gdfs)
{
    mma_unit u = U("rtx-blackwell:mma.m16n8k64.kind::mxf4.block32.f32.e2m1.e2m1.f32.ue8m0");
    uint64_t a[64] = {0}, b[64] = {0}, sa[2] = {127, 127}, sb[2] = {127 + 3, 127};
    a[0] = 0x2; b[0] = 0x2;            /* 1 * 1 */
    a[40] = 0x7; b[40] = 0x7;          /* 6 * 6 = 36, block 1 scale 1 */
    /* 1 * 2^3 + 36 = 44 */
    ck_assert_uint_eq(mma_dot(&u, 0, a, b, sa, sb), 0x42300000);
    sa[1] = 0xff;
    ck_assert_uint_eq(mma_dot(&u, 0, a, b, sa, sb), 0x7fffffff);
}
END_TEST

/* Seed 001's five-element swamping example: products 16,16,16,16,1/16 summed
 * by a running accumulator of 3 fraction bits (an FP8-like accumulator)
 * lose the 1/16 at 64; with 23 bits the sum is 64.0625. */
START_TEST(seed001_swamping)
{
    uint64_t a[5] = {0x48, 0x48, 0x48, 0x48, 0x28 /* 0.25 */}, b[5] = {0x48 /* 4 */, 0x48, 0x48, 0x48, 0x28};
    mma_unit acc3 = U("fused,a=e4m3,b=e4m3,k=5,l=1,f=24,round=rne,p=3");
    mma_unit acc23 = U("fused,a=e4m3,b=e4m3,k=5,l=1,f=24,round=rne");
    ck_assert_uint_eq(mma_dot(&acc3, 0, a, b, NULL, NULL), 0x42800000);   /* 64 */
    ck_assert_uint_eq(mma_dot(&acc23, 0, a, b, NULL, NULL), 0x42802000);  /* 64.0625 */
}
END_TEST

/* AMD findings of the peer comparison (docs/peer-comparison.md).
 * CDNA3 FDRDA and CDNA1 E-FDPA: an exact zero sum is +0, but a negative sum
 * that the final rounding takes to zero is -0 (mmasim 2.x; two's complement
 * sum, IEEE rounding).  bf16 -2^-125 * 2^-100 = -2^-225: the round-down
 * keeps it as -1 unit of 2^-157, which RNE to fp32 takes to -0. */
START_TEST(amd_zero_sign)
{
    const char *names[] = {"cdna3:v_mfma_f32_32x32x8_bf16", "cdna3:v_mfma_f32_32x32x4_xf32",
                           "cdna1:v_mfma_f32_32x32x4bf16"};
    for (int i = 0; i < 3; i++) {
        mma_unit u = U(names[i]);
        int tf = u.a == MMA_FMT_TF32;
        /* in the last step: a chained step's -0 is the next step's c,
         * and -0 + 0 is an exact zero again (+0) */
        uint64_t a[MMA_MAX_K] = {0}, b[MMA_MAX_K] = {0};
        a[u.k - 1] = tf ? 0x81000000 : 0x8100;
        b[u.k - 1] = tf ? 0x0d800000 : 0x0d80;
        ck_assert_uint_eq(dot(&u, 0, u.k, a, b), 0x80000000);
        ck_assert_uint_eq(dot(&u, 0x80000000, u.k, a, b), 0x80000000);
        if (u.k > u.lmax) {
            a[0] = a[u.k - 1]; b[0] = b[u.k - 1]; a[u.k - 1] = b[u.k - 1] = 0;
            ck_assert_uint_eq(dot(&u, 0, u.k, a, b), 0);
        }
        /* exact zeros: -0 + (-0)*1 and 1 + (-1)*1 give +0 */
        uint64_t nz[2] = {tf ? 0x80000000 : 0x8000, 0}, one[2] = {tf ? 0x3f800000 : 0x3f80, 0};
        uint64_t m1[2] = {tf ? 0xbf800000 : 0xbf80, 0};
        ck_assert_uint_eq(dot(&u, 0x80000000, 2, nz, one), 0);
        ck_assert_uint_eq(dot(&u, F32_1, 2, m1, one), 0);
    }
    /* NVIDIA: always +0 */
    mma_unit h = U("hopper:wgmma.m64n8k16.f32.bf16.bf16");
    uint64_t a[1] = {0x8100}, b[1] = {0x0d80};
    ck_assert_uint_eq(dot(&h, 0, 1, a, b), 0);
}
END_TEST

/* AMD NaN payloads are not specified: every AMD unit, the fp32/fp64 FMA
 * ones included, matches any NaN (mmasim on an x86 host gives 0xffc00000
 * for Inf - Inf, we give 0x7fffffff).  NVIDIA DMMA keeps its payload rule. */
START_TEST(amd_nan_any)
{
    size_t n = mma_catalogue_size();
    for (size_t i = 0; i < n; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        mma_catalogue_get(i, &e, &u);
        int amd = !strncmp(e.arch, "cdna", 4);
        ck_assert_msg(!!(u.flags & MMA_F_NAN_ANY) == amd, "%s:%s nan=any should be %d", e.arch, e.qualifier, amd);
    }
    mma_unit f = U("cdna3:v_mfma_f32_16x16x4_f32");
    uint64_t inf[1] = {0x7f800000}, zero[1] = {0};
    ck_assert_int_eq(mma_decode(MMA_FMT_FP32, dot(&f, 0, 1, inf, zero)).cls, MMA_NAN);
    ck_assert(mma_result_equal(&f, 0xffc00000, dot(&f, 0, 1, inf, zero)));
    mma_unit d = U("hopper:mma.m16n8k8.f64.f64.f64.f64");
    ck_assert(!mma_result_equal(&d, 0x7ff8000000000001ull, 0x7ff8000000000002ull));
}
END_TEST

/* CDNA3 fp8 (GFDRDA): a NaN or Inf c decides the result however large the
 * products are.  mmasim 2.1.1 drops such a c when the products' exponent
 * exceeds 24 (its frexp gives NaN and Inf the exponent 0, and the c step
 * cuts a c below emax - 25 to zero): the peer is wrong there, and the
 * paper's step 1 (specials first) is what we follow. */
START_TEST(gfdrda_special_c)
{
    mma_unit g = U("cdna3:v_mfma_f32_32x32x16_bf8_bf8");
    uint64_t a[1] = {0x7b /* 1.75 * 2^14, bias 16 */}, b[1] = {0x7b};
    ck_assert_uint_eq(dot(&g, 0x7fc00000, 1, a, b), 0x7fffffff);
    ck_assert_uint_eq(dot(&g, 0x7f800000, 1, a, b), 0x7f800000);
    ck_assert_uint_eq(dot(&g, 0xff800000, 1, a, b), 0xff800000);
    ck_assert_uint_eq(dot(&g, 0x3f800000, 1, a, b), 0x4e440000);   /* 3.0625 * 2^28 + 1: c cut */
}
END_TEST

/* Generic-unit options: subnormal inputs flushed (ftz=in) and IEEE default
 * NaN (nan=ieee) in the fused tree. */
START_TEST(generic_options)
{
    mma_unit f = U("fused,a=fp16,k=2,f=25,ftz=in");
    mma_unit n = U("fused,a=fp16,k=2,f=25");
    /* a subnormal fp32 c (2^-149) alone: kept, or flushed to +0 */
    uint64_t z[2] = {0, 0};
    ck_assert_uint_eq(mma_dot(&n, 0x00000001, z, z, NULL, NULL), 0x00000001);
    ck_assert_uint_eq(mma_dot(&f, 0x00000001, z, z, NULL, NULL), 0);
    uint64_t a2[2] = {0x0200 /* 2^-15 subnormal */, 0}, b2[2] = {0x3c00, 0};
    ck_assert_uint_eq(mma_dot(&n, 0, a2, b2, NULL, NULL), 0x38000000);     /* 2^-15 */
    ck_assert_uint_eq(mma_dot(&f, 0, a2, b2, NULL, NULL), 0);              /* flushed */
    mma_unit ie = U("fused,a=fp16,k=2,f=25,nan=ieee");
    uint64_t an[2] = {0x7e00, 0}, one[2] = {0x3c00, 0};
    ck_assert_uint_eq(mma_dot(&ie, 0, an, one, NULL, NULL), 0x7fc00000);
    ck_assert_uint_eq(mma_dot(&n, 0, an, one, NULL, NULL), 0x7fffffff);
    mma_unit bad;
    char err[256];
    ck_assert_int_eq(mma_unit_parse("evenodd,a=e4m3fnuz,k=16,f=24,cadd=rd,ftz=in", &bad, err, sizeof err), -1);
}
END_TEST

/* Every catalogue entry parses by name, its configuration string reads back
 * to the same unit, and it computes 0 . 0 + 0 = +0. */
START_TEST(catalogue_roundtrip)
{
    size_t n = mma_catalogue_size();
    ck_assert_uint_ge(n, 300);
    for (size_t i = 0; i < n; i++) {
        mma_catalogue_entry e;
        mma_unit u, v, w;
        char name[256], cfg[512], cfg2[512], err[512];
        ck_assert_int_eq(mma_catalogue_get(i, &e, &u), 0);
        snprintf(name, sizeof name, "%s:%s", e.arch, e.qualifier);
        ck_assert_msg(mma_unit_parse(name, &v, err, sizeof err) == 0, "%s: %s", name, err);
        mma_unit_config(&v, cfg, sizeof cfg);
        ck_assert_msg(mma_unit_parse(cfg, &w, err, sizeof err) == 0, "%s: %s", cfg, err);
        mma_unit_config(&w, cfg2, sizeof cfg2);
        ck_assert_str_eq(cfg, cfg2);
        ck_assert_msg(v.flags == w.flags, "%s: flags %x, read back from '%s' %x", name, v.flags, cfg, w.flags);
        uint64_t z[MMA_MAX_K] = {0}, s[16] = {127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127, 127};
        if (u.scale == MMA_FMT_UE4M3) for (int j = 0; j < 16; j++) s[j] = 0x38;
        ck_assert_uint_eq(mma_dot(&u, 0, z, z, s, s), 0);
    }
    ck_assert_int_eq(mma_catalogue_get(n, NULL, NULL), -1);
}
END_TEST

START_TEST(shape_freedom)
{
    mma_unit a = U("hopper:wgmma.m64n256k32.f32.e4m3.e4m3"), b = U(QG);
    char ca[512], cb[512];
    mma_unit_config(&a, ca, sizeof ca);
    mma_unit_config(&b, cb, sizeof cb);
    ck_assert_str_eq(ca, cb);
    mma_unit t = U("blackwell:tcgen05.mma.m64n64k16.kind::f16.f32.bf16.bf16");
    ck_assert_int_eq(t.k, 16);
}
END_TEST

START_TEST(bad_names)
{
    mma_unit u;
    char err[1024];
    ck_assert_int_eq(mma_unit_parse("hopper:wgmma.m64n8k32.f32.e4m3.e4m4", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "nearest"));
    ck_assert_ptr_nonnull(strstr(err, "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"));
    ck_assert_int_eq(mma_unit_parse("fused,a=e4m3,k=32,f=99", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "'f'"));
    ck_assert_int_eq(mma_unit_parse("fused,a=e9m9,k=32,f=13", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "'a'"));
    ck_assert_int_eq(mma_unit_parse("fused,a=e4m3,k=32,l=5,f=13", &u, err, sizeof err), -1);
    ck_assert_int_eq(mma_unit_parse("fused,a=e4m3,k=32,f=13,bogus=1", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bogus"));
    ck_assert_int_eq(mma_unit_parse("", &u, err, sizeof err), -1);
}
END_TEST

/* The bit-parallel edit distance against the textbook dynamic programme, on
 * random strings over a small alphabet (many near matches), lengths 0 to
 * 120: the distance, and with a limit at or below it any value >= limit. */
static int dp_distance(const char *s, const char *t)
{
    size_t ls = strlen(s), lt = strlen(t);
    static int d[121][121];
    for (size_t i = 0; i <= ls; i++)
        for (size_t j = 0; j <= lt; j++) {
            if (!i || !j) { d[i][j] = (int)(i + j); continue; }
            int x = d[i - 1][j - 1] + (s[i - 1] != t[j - 1]), y = d[i - 1][j] + 1, z = d[i][j - 1] + 1;
            d[i][j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
        }
    return d[ls][lt];
}

START_TEST(edit_distance)
{
    static mma_edit_pattern p;
    char s[130], t[130];
    srand(11);
    for (int it = 0; it < 20000; it++) {
        int ls = it < 10 ? it : rand() % 121, lt = rand() % 4 ? ls + rand() % 9 - 4 : rand() % 121;
        if (lt < 0) lt = 0;
        if (lt > 120) lt = 120;
        for (int i = 0; i < ls; i++) s[i] = "abc.:"[rand() % 5];
        for (int i = 0; i < lt; i++) t[i] = rand() % 3 && i < ls ? s[i] : "abc.:"[rand() % 5];
        s[ls] = t[lt] = 0;
        int want = dp_distance(s, t);
        mma_edit_prepare(&p, s);
        ck_assert_int_eq(mma_edit_distance(&p, t, 1 << 30), want);
        int lim = rand() % (want + 2);
        int got = mma_edit_distance(&p, t, lim);
        if (want < lim) ck_assert_int_eq(got, want); else ck_assert_int_ge(got, lim);
    }
    memset(s, 'a', 121); s[121] = 0;       /* beyond the longest name: far */
    mma_edit_prepare(&p, s);
    ck_assert_int_eq(mma_edit_distance(&p, "a", 1 << 30), MMA_EDIT_FAR);
}
END_TEST

/* The exact reference: Kulisch sum against an independent long-double
 * computation on sums that long double holds exactly. */
START_TEST(exact_small)
{
    mma_unit u = U(QG);
    srand(3);
    for (int i = 0; i < 2000; i++) {
        uint64_t a[32], b[32];
        long double s = 0;
        for (int k = 0; k < 32; k++) {
            int ia = rand() % 17 - 8, ib = rand() % 9 - 4;   /* small integers exactly in e4m3 */
            mma_exact x;
            (void)x;
            /* encode small integers: |v| <= 8 */
            uint64_t ea = 0, eb = 0;
            int va = ia < 0 ? -ia : ia, vb = ib < 0 ? -ib : ib;
            static const uint64_t enc[9] = {0x00, 0x38, 0x40, 0x44, 0x48, 0x4a, 0x4c, 0x4e, 0x50};
            ea = enc[va] | (ia < 0 ? 0x80 : 0);
            eb = enc[vb] | (ib < 0 ? 0x80 : 0);
            a[k] = ea; b[k] = eb;
            s += (long double)ia * ib;
        }
        mma_exact x;
        mma_exact_dot(&u, 0x3f800000, a, b, NULL, NULL, &x);
        ck_assert(mma_exact_to_double(&x) == (double)(s + 1));
    }
}
END_TEST

/* fp64 products keep all 106 bits in the exact reference:
 * (1 + 2^-52)^2 = 1 + 2^-51 + 2^-104, minus (1 + 2^-51) leaves 2^-104. */
START_TEST(exact_fp64)
{
    mma_unit u = U("hopper:mma.m8n8k4.f64.f64.f64.f64");
    uint64_t a[4] = {0x3ff0000000000001ull, 0, 0, 0}, b[4] = {0x3ff0000000000001ull, 0, 0, 0};
    mma_exact x;
    mma_exact_dot(&u, 0xbff0000000000002ull, a, b, NULL, NULL, &x);
    ck_assert(mma_exact_to_double(&x) == 0x1p-104);
}
END_TEST

/* The tile API: D = A*B + C, A row-major, B column-major, equals one dot
 * product per element. */
START_TEST(tile)
{
    mma_unit u = U("ampere:mma.m16n8k16.f32.bf16.bf16.f32");
    enum { M = 16, N = 8, K = 16 };
    uint64_t A[M * K], B[N * K], C[M * N], D[M * N];
    srand(5);
    for (int i = 0; i < M * K; i++) A[i] = (uint64_t)(rand() & 0x3fff) | (uint64_t)((rand() & 1) << 15) | 0x3000;
    for (int i = 0; i < N * K; i++) B[i] = (uint64_t)(rand() & 0x3fff) | 0x3000;
    for (int i = 0; i < M * N; i++) C[i] = (uint64_t)(rand() & 0x3fffffff);
    mma_tile(&u, M, N, A, B, C, D);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            ck_assert_uint_eq(D[i * N + j], mma_dot(&u, C[i * N + j], A + i * K, B + j * K, NULL, NULL));
    ck_assert_uint_ne(D[0], D[1]);
}
END_TEST

/* The tile of block-scaled units: MX (ST-FDPA, K=32, block 32) and NVFP4
 * (GDFS, K=64, block 16): each element is the dot product of its row of A
 * and column of B with their own scales; scales of 1 give what the same
 * unit without scales gives (the unscaled configuration of the same
 * arithmetic), and doubling every scale of A while halving B's changes
 * nothing, where swapping the scales of two rows does. */
START_TEST(tile_scaled)
{
    static const char *units[2][2] = {
        {"blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0",
         "fused,a=e4m3,b=e4m3,k=32,f=25,ezero=-133"},
        {"rtx-blackwell:mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3", NULL}};
    for (int t = 0; t < 2; t++) {
        mma_unit u = U(units[t][0]);
        enum { M = 4, N = 3 };
        int K = u.k, ns = mma_unit_nscales(&u);
        int w = mma_format(u.a)->width;
        uint64_t A[M * 64], B[N * 64], C[M * N], D[M * N], D1[M * N], SA[M * 4], SB[N * 4], S2A[M * 4], S2B[N * 4];
        uint64_t E[M * N];
        srand(11 + t);
        for (int i = 0; i < M * K; i++) A[i] = (uint64_t)rand() & ((1u << w) - 1) & (t ? 0xf : 0x77);
        for (int i = 0; i < N * K; i++) B[i] = (uint64_t)rand() & ((1u << w) - 1) & (t ? 0xf : 0x77);
        for (int i = 0; i < M * N; i++) C[i] = (uint64_t)(rand() & 0x3fffffff);
        /* ue8m0 scales near 1 (0x7f), ue4m3 ones 1..7.5 */
        for (int i = 0; i < M * ns; i++) SA[i] = t ? (uint64_t)(0x38 + (rand() % 24)) : (uint64_t)(0x7c + rand() % 7);
        for (int i = 0; i < N * ns; i++) SB[i] = t ? (uint64_t)(0x38 + (rand() % 24)) : (uint64_t)(0x7c + rand() % 7);
        mma_tile_scaled(&u, M, N, A, B, C, SA, SB, D);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                ck_assert_uint_eq(D[i * N + j], mma_dot(&u, C[i * N + j], A + i * K, B + j * K, SA + i * ns, SB + j * ns));
        /* scale exponents moved from B to A: the same products */
        for (int i = 0; i < M * ns; i++) S2A[i] = SA[i] + (t ? 8 : 1);     /* ue4m3: +1 in the exponent field */
        for (int i = 0; i < N * ns; i++) S2B[i] = SB[i] - (t ? 8 : 1);
        mma_tile_scaled(&u, M, N, A, B, C, S2A, S2B, D1);
        ck_assert_mem_eq(D, D1, sizeof D);
        /* scales of rows 0 and 1 swapped: row 0 and 1 of D change */
        memcpy(S2A, SA, sizeof SA);
        for (int s = 0; s < ns; s++) { S2A[s] = SA[ns + s]; S2A[ns + s] = SA[s] + 1; }
        mma_tile_scaled(&u, M, N, A, B, C, S2A, SB, D1);
        ck_assert(memcmp(D, D1, sizeof(uint64_t) * 2 * N) != 0);
        ck_assert_mem_eq(D + 2 * N, D1 + 2 * N, sizeof(uint64_t) * (M - 2) * N);
        /* no scales: each 1, as the same arithmetic without scales */
        mma_tile_scaled(&u, M, N, A, B, C, NULL, NULL, D);
        mma_tile(&u, M, N, A, B, C, D1);
        ck_assert_mem_eq(D, D1, sizeof D);
        if (units[t][1]) {
            mma_unit v = U(units[t][1]);
            mma_tile(&v, M, N, A, B, C, E);
            ck_assert_mem_eq(D, E, sizeof D);
        }
        for (int i = 0; i < M * ns; i++) S2A[i] = t ? 0x38 : 0x7f;
        mma_tile_scaled(&u, M, N, A, B, C, S2A, S2A, D1);
        ck_assert_mem_eq(D, D1, sizeof D);
    }
}
END_TEST

/* mma_dot_batch gives each vector what mma_dot gives it, whatever the
 * number of threads (block-scaled units included: the scales of vector i
 * are read at i * nscales), also when the count is not a multiple of the
 * chunk size. */
START_TEST(dot_batch)
{
    const char *names[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3",
                           "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0"};
    for (int t = 0; t < 2; t++) {
        mma_unit u = U(names[t]);
        enum { N = 10007 };
        size_t k = (size_t)u.k, ns = (size_t)mma_unit_nscales(&u);
        uint64_t *a = malloc(N * k * 8), *b = malloc(N * k * 8), *c = malloc(N * 8);
        uint64_t *sa = ns ? malloc(N * ns * 8) : NULL, *sb = ns ? malloc(N * ns * 8) : NULL;
        uint64_t *d1 = malloc(N * 8), *d3 = malloc(N * 8);
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < N * k; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; a[i] = x & 0xff; b[i] = (x >> 8) & 0xff; }
        for (size_t i = 0; i < N; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; c[i] = x & 0xffffffff; }
        for (size_t i = 0; ns && i < N * ns; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; sa[i] = 120 + (x & 15); sb[i] = 120 + ((x >> 4) & 15); }
        mma_dot_batch(&u, N, c, a, b, sa, sb, d1, 1);
        mma_dot_batch(&u, N, c, a, b, sa, sb, d3, 3);
        for (size_t i = 0; i < N; i++) {
            uint64_t want = mma_dot(&u, c[i], a + i * k, b + i * k, ns ? sa + i * ns : NULL, ns ? sb + i * ns : NULL);
            ck_assert_uint_eq(d1[i], want);
            ck_assert_uint_eq(d3[i], want);
        }
        free(a); free(b); free(c); free(sa); free(sb); free(d1); free(d3);
    }
}
END_TEST

/* mma_batch_dot on encodings at their natural width gives each vector
 * what mma_dot (mma_dot_flags) gives it, for every element size of a, b,
 * c, d, sa and sb that holds the format, one thread and three (n not a
 * multiple of the chunk), with and without flags. */
/* the n values of v in elements of `size` bytes (each fits them) */
static void *narrow_copy(const uint64_t *v, size_t n, int size)
{
    unsigned char *p = malloc(n * (size_t)size + 1);
    for (size_t i = 0; i < n; i++) memcpy(p + i * (size_t)size, &v[i], (size_t)size);   /* little-endian host */
    return p;
}

static int sizes_for(mma_fmt f, int *out)
{
    int n = 0;
    for (int s = 1; s <= 8; s *= 2)
        if (s * 8 >= mma_format(f)->width) out[n++] = s;
    return n;
}

START_TEST(batch_natural_width)
{
    const char *names[] = {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "hopper:wgmma.m64n8k16.f32.bf16.bf16",
                           "hopper:wgmma.m64n8k8.f32.tf32.tf32", "hopper:mma.m8n8k4.f64.f64.f64.f64",
                           "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0",
                           "cdna3:v_mfma_f32_16x16x32_fp8_fp8", "ieee,a=fp16,c=fp32,k=8"};
    enum { N = 261 };   /* chunks of 256: one full, one of 5 */
    mma_rng r;
    mma_rng_seed(&r, 88172645463325252ull, 0);
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        mma_unit u = U(names[t]);
        size_t k = (size_t)u.k, ns = (size_t)mma_unit_nscales(&u), nsn = ns ? ns : 1;
        uint64_t *a = malloc(N * k * 8), *b = malloc(N * k * 8), *c = malloc(N * 8), *sa = malloc(N * nsn * 8),
                 *sb = malloc(N * nsn * 8), *want = malloc(N * 8), *d = malloc(N * 8);
        unsigned char want_fl[N], fl[N];
        uint64_t ma = mma_format_max(u.a), mb = mma_format_max(u.b), mc = mma_format_max(u.c);
        uint64_t ms = ns ? mma_format_max(u.scale) : 0;
        for (size_t i = 0; i < N * k; i++) { a[i] = mma_rng_next(&r) & ma; b[i] = mma_rng_next(&r) & mb; }
        for (size_t i = 0; i < N; i++) c[i] = mma_rng_next(&r) & mc;
        for (size_t i = 0; i < N * ns; i++) { sa[i] = mma_rng_next(&r) & ms; sb[i] = mma_rng_next(&r) & ms; }
        for (size_t i = 0; i < N; i++) {
            unsigned f = 0;
            want[i] = mma_dot_flags(&u, c[i], a + i * k, b + i * k, ns ? sa + i * ns : NULL, ns ? sb + i * ns : NULL, &f);
            want_fl[i] = (unsigned char)f;
            ck_assert_uint_eq(want[i], mma_dot(&u, c[i], a + i * k, b + i * k, ns ? sa + i * ns : NULL,
                                               ns ? sb + i * ns : NULL));
        }
        int za[4], zb[4], zc[4], zd[4], zs[4];
        int na = sizes_for(u.a, za), nb = sizes_for(u.b, zb), nc = sizes_for(u.c, zc), nd = sizes_for(u.d, zd);
        int nz = ns ? sizes_for(u.scale, zs) : 1;
        if (!ns) zs[0] = 8;
        for (int ia = 0; ia < na; ia++)
            for (int ib = 0; ib < nb; ib++)
                for (int ic = 0; ic < nc; ic++)
                    for (int id = 0; id < nd; id++)
                        for (int isa = 0; isa < nz; isa++)
                            for (int isb = 0; isb < nz; isb++) {
                                mma_batch x;
                                mma_batch_init(&x);
                                x.n = N;
                                x.a_size = za[ia]; x.b_size = zb[ib]; x.c_size = zc[ic]; x.d_size = zd[id];
                                x.sa_size = zs[isa]; x.sb_size = zs[isb];
                                void *pa = narrow_copy(a, N * k, x.a_size), *pb = narrow_copy(b, N * k, x.b_size);
                                void *pc = narrow_copy(c, N, x.c_size), *pd = malloc(N * (size_t)x.d_size);
                                void *psa = narrow_copy(sa, N * ns, x.sa_size), *psb = narrow_copy(sb, N * ns, x.sb_size);
                                x.a = pa; x.b = pb; x.c = pc; x.d = pd;
                                if (ns) { x.sa = psa; x.sb = psb; }
                                for (int threads = 1; threads <= 3; threads += 2) {
                                    char err[256] = "";
                                    memset(pd, 0xa5, N * (size_t)x.d_size);
                                    memset(fl, 0xa5, sizeof fl);
                                    x.threads = threads;
                                    x.flags = threads == 3 ? fl : NULL;
                                    ck_assert_int_eq(mma_batch_dot(&u, &x, err, sizeof err), 0);
                                    for (size_t i = 0; i < N; i++) d[i] = 0;
                                    for (size_t i = 0; i < N; i++) memcpy(&d[i], (char *)pd + i * (size_t)x.d_size, (size_t)x.d_size);
                                    for (size_t i = 0; i < N; i++) {
                                        if (d[i] != want[i])
                                            ck_abort_msg("%s sizes c%d a%d b%d sa%d sb%d d%d, %d threads: vector %zu: %#llx, mma_dot %#llx",
                                                         names[t], x.c_size, x.a_size, x.b_size, x.sa_size, x.sb_size, x.d_size,
                                                         threads, i, (unsigned long long)d[i], (unsigned long long)want[i]);
                                        if (x.flags) ck_assert_uint_eq(fl[i], want_fl[i]);
                                    }
                                }
                                free(pa); free(pb); free(pc); free(pd); free(psa); free(psb);
                            }
        free(a); free(b); free(c); free(sa); free(sb); free(want); free(d);
    }
}
END_TEST

/* An element size too narrow for its format, or not 1, 2, 4 or 8, is
 * refused with a message naming the argument, and nothing is written. */
START_TEST(batch_refusals)
{
    static const struct { const char *unit; int field, size; const char *msg; } cases[] = {
        {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", 0, 2, "c: 2-byte elements cannot hold fp32's 32 bits"},
        {"hopper:wgmma.m64n8k16.f32.bf16.bf16", 1, 1, "a: 1-byte elements cannot hold bf16's 16 bits"},
        {"hopper:wgmma.m64n8k8.f32.tf32.tf32", 2, 2, "b: 2-byte elements cannot hold tf32's 32 bits"},
        {"hopper:mma.m8n8k4.f64.f64.f64.f64", 5, 4, "d: 4-byte elements cannot hold fp64's 64 bits"},
        {"hopper:wgmma.m64n8k32.f32.e4m3.e4m3", 1, 3, "a: elements of 3 bytes (1, 2, 4 or 8 expected)"},
        {"blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0", 4, 0,
         "sb: elements of 0 bytes (1, 2, 4 or 8 expected)"},
    };
    uint64_t v[2 * MMA_MAX_K] = {0}, d[2] = {7, 7};
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        mma_unit u = U(cases[t].unit);
        mma_batch x;
        mma_batch_init(&x);
        x.n = 1; x.c = x.a = x.b = x.sa = x.sb = v; x.d = d;
        int *sz[] = {&x.c_size, &x.a_size, &x.b_size, &x.sa_size, &x.sb_size, &x.d_size};
        *sz[cases[t].field] = cases[t].size;
        char err[256] = "";
        ck_assert_int_eq(mma_batch_dot(&u, &x, err, sizeof err), -1);
        ck_assert_str_eq(err, cases[t].msg);
        ck_assert_uint_eq(d[0], 7);
    }
    /* a block-scaled unit without its scales */
    mma_unit u = U(cases[5].unit);
    mma_batch x;
    mma_batch_init(&x);
    x.n = 1; x.c = x.a = x.b = x.sb = v; x.d = d;
    char err[256] = "";
    ck_assert_int_eq(mma_batch_dot(&u, &x, err, sizeof err), -1);
    ck_assert_str_eq(err, "sa: NULL, but the batch has vectors to compute");
    ck_assert_uint_eq(d[0], 7);
}
END_TEST

/* IEEE 754-2019 6.3 on the ieee tree and on the fused tree with zero=ieee:
 * an exact zero sum of zeros of one sign keeps it (x + x has the sign of
 * x, also rounding down); zeros of both signs, or terms that cancel, give
 * +0, and -0 rounding down.  fp16 1.0 = 0x3c00, -0 = 0x8000. */
START_TEST(ieee_zero_signs)
{
    static const char *fmt[] = {"ieee,a=fp16,c=fp32,k=2,round=%s", "fused,a=fp16,c=fp32,k=2,f=25,zero=ieee,round=%s"};
    for (int t = 0; t < 2; t++) {
        char rne[128], rd[128];
        snprintf(rne, sizeof rne, fmt[t], "rne");
        snprintf(rd, sizeof rd, fmt[t], "rd");
        mma_unit n = U(rne), d = U(rd);
        uint64_t nz[2] = {0x8000, 0x8000}, pz[2] = {0, 0}, one[2] = {0x3c00, 0x3c00}, mix[2] = {0x8000, 0};
        uint64_t pm[2] = {0x3c00, 0xbc00};
        ck_assert_uint_eq(dot(&n, 0x80000000, 2, nz, one), 0x80000000);   /* -0 -0 -0 */
        ck_assert_uint_eq(dot(&d, 0x80000000, 2, nz, one), 0x80000000);
        ck_assert_uint_eq(dot(&d, 0, 2, pz, one), 0);                      /* +0 +0 +0 under RD */
        ck_assert_uint_eq(dot(&n, 0, 2, mix, one), 0);                     /* -0 +0 +0 */
        ck_assert_uint_eq(dot(&d, 0, 2, mix, one), 0x80000000);
        ck_assert_uint_eq(dot(&n, 0x80000000, 2, pm, one), 0);             /* 1 - 1 - 0: cancellation */
        ck_assert_uint_eq(dot(&d, 0, 2, pm, one), 0x80000000);
    }
}
END_TEST

/* Negated products (neg=1): d = c - sum a*b with the signs IEEE 754
 * gives that expression (section 6.3: x - y of zeros is +0 unless both
 * are -0 in effect, -0 under RD; an exact cancellation is +0, -0 under
 * RD); the values worked by hand: 2 - 1.5*2 = -1, 0 - (1*1 + 1*1) = -2,
 * Inf - Inf is NaN and invalid.  Trees ieee, exact, fused (one step and
 * chained) and the metrics' exact value agree. */
START_TEST(neg_products)
{
    static const char *fmt[] = {"ieee,a=fp16,c=fp32,k=2,round=%s,neg=1", "exact,a=fp16,c=fp32,k=2,round=%s,zero=ieee,neg=1",
                                "fused,a=fp16,c=fp32,k=2,f=25,zero=ieee,round=%s,neg=1",
                                "ieee,a=fp16,c=fp32,k=2,l=1,round=%s,neg=1"};
    for (int t = 0; t < 4; t++) {
        char rne[128], rd[128];
        snprintf(rne, sizeof rne, fmt[t], "rne");
        snprintf(rd, sizeof rd, fmt[t], "rd");
        mma_unit n = U(rne), d = U(rd);
        uint64_t pz[2] = {0, 0}, nz[2] = {0x8000, 0x8000}, one[2] = {0x3c00, 0x3c00}, half3[2] = {0x3e00, 0};
        uint64_t two[2] = {0x4000, 0x3c00};
        ck_assert_uint_eq(dot(&n, 0, 2, pz, one), 0);                       /* +0 - (+0) - (+0) */
        ck_assert_uint_eq(dot(&d, 0, 2, pz, one), 0x80000000);              /* the same under RD: -0 */
        ck_assert_uint_eq(dot(&n, 0x80000000, 2, pz, one), 0x80000000);     /* -0 - (+0) - (+0): -0 */
        ck_assert_uint_eq(dot(&n, 0x80000000, 2, nz, one), 0);              /* -0 - (-0) - (-0): +0 */
        ck_assert_uint_eq(dot(&n, 0x40000000, 2, half3, two), 0xbf800000);  /* 2 - 1.5*2 - 0*1 = -1 */
        ck_assert_uint_eq(dot(&n, 0, 2, one, one), 0xc0000000);             /* 0 - 1 - 1 = -2 */
        ck_assert_uint_eq(dot(&n, 0x40000000, 2, one, one), 0);             /* 2 - 1 - 1: +0 */
        ck_assert_uint_eq(dot(&d, 0x40000000, 2, one, one), 0x80000000);    /* -0 under RD */
        /* Inf - Inf: NaN; c - (-Inf) = +Inf */
        uint64_t inf[2] = {0x7c00, 0}, ninf[2] = {0xfc00, 0};
        ck_assert(mma_is_nan(MMA_FMT_FP32, dot(&n, 0x7f800000, 2, inf, one)));
        ck_assert_uint_eq(dot(&n, 0x3f800000, 2, ninf, one), 0x7f800000);
        ck_assert_uint_eq(dot(&n, 0xff800000, 2, ninf, one) & 0x7fc00000, 0x7fc00000);
    }
    /* the flags: Inf - Inf is invalid; 1 - 2^-24*2^-24 inexact */
    mma_unit u = U("ieee,a=fp16,c=fp32,k=1,round=rne,neg=1");
    uint64_t a[1] = {0x7c00}, b[1] = {0x3c00}, t[1] = {0x0001};
    unsigned fl;
    mma_dot_flags(&u, 0x7f800000, a, b, NULL, NULL, &fl);
    ck_assert_uint_eq(fl, MMA_FLAG_INVALID);
    ck_assert_uint_eq(mma_dot_flags(&u, 0x3f800000, t, t, NULL, NULL, &fl), 0x3f800000);
    ck_assert_uint_eq(fl, MMA_FLAG_INEXACT);
    /* round trip, the explanation, refusals */
    char cfg[512], ex[2048];
    mma_unit_config(&u, cfg, sizeof cfg);
    ck_assert_ptr_nonnull(strstr(cfg, ",neg=1"));
    mma_unit r = U(cfg);
    ck_assert(r.flags & MMA_F_NEG);
    mma_unit_explain(&u, ex, sizeof ex);
    ck_assert_ptr_nonnull(strstr(ex, "d = c - sum"));
    mma_unit bad;
    char err[256];
    ck_assert_int_eq(mma_unit_parse("pairwise,a=fp16,k=4,g=4,neg=1", &bad, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "'neg'"));
    ck_assert_int_eq(mma_unit_parse("fused,a=fp16,k=4,f=24,neg=2", &bad, err, sizeof err), -1);
    /* the metrics' exact value: c - sum */
    mma_exact x;
    uint64_t a2[2] = {0x3e00, 0}, b2[2] = {0x4000, 0x3c00};
    mma_unit e = U("exact,a=fp16,c=fp32,k=2,neg=1");
    mma_exact_dot(&e, 0x40000000, a2, b2, NULL, NULL, &x);
    ck_assert_uint_eq(mma_exact_round(&x, MMA_FMT_FP32, 23, MMA_RNE), 0xbf800000);
}
END_TEST

/* Overflow, IEEE 754 7.4: 65504 * 2 = 131008 overflows fp16 (0x7bff is
 * 65504, 0x7c00 Inf).  RNE, RMM and the rounding toward the sign give
 * Inf; RZ, RODD and the rounding away from it the largest finite; ovf=inf
 * and ovf=sat override; both flags overflow and inexact.  Formats without
 * Inf: OCP e4m3 writes NaN (448 * 2 = 896 > 448), e2m1 saturates (6 * 2). */
START_TEST(ieee_overflow)
{
    static const struct { const char *r; uint64_t pos, neg; } want[] = {
        {"rne", 0x7c00, 0xfc00}, {"rmm", 0x7c00, 0xfc00}, {"rz", 0x7bff, 0xfbff}, {"rodd", 0x7bff, 0xfbff},
        {"rd", 0x7bff, 0xfc00}, {"ru", 0x7c00, 0xfbff}, {"rz,ovf=inf", 0x7c00, 0xfc00}, {"rne,ovf=sat", 0x7bff, 0xfbff}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "ieee,a=fp16,c=fp16,d=fp16,k=1,round=%s", want[i].r);
        mma_unit u = U(cfg);
        uint64_t a[1] = {0x7bff}, an[1] = {0xfbff}, b[1] = {0x4000};
        unsigned fl;
        ck_assert_uint_eq(mma_dot_flags(&u, 0, a, b, NULL, NULL, &fl), want[i].pos);
        ck_assert_uint_eq(fl, MMA_FLAG_OVERFLOW | MMA_FLAG_INEXACT);
        ck_assert_uint_eq(mma_dot_flags(&u, 0, an, b, NULL, NULL, &fl), want[i].neg);
    }
    mma_unit e = U("ieee,a=e4m3,c=e4m3,d=e4m3,k=1"), es = U("ieee,a=e4m3,c=e4m3,d=e4m3,k=1,ovf=sat");
    mma_unit f = U("ieee,a=e2m1,c=e2m1,d=e2m1,k=1");
    uint64_t x[1] = {0x7e}, two[1] = {0x40}, y[1] = {0x7}, two4[1] = {0x4};
    ck_assert_uint_eq(dot(&e, 0, 1, x, two), 0x7f);
    ck_assert_uint_eq(dot(&es, 0, 1, x, two), 0x7e);
    ck_assert_uint_eq(dot(&f, 0, 1, y, two4), 0x7);
    /* the fused tree: Inf under RZ by default (NVIDIA), IEEE's rule on request */
    mma_unit h = U("fused,a=fp16,c=fp16,d=fp16,k=1,f=25,round=rz"), hi = U("fused,a=fp16,c=fp16,d=fp16,k=1,f=25,round=rz,ovf=ieee");
    uint64_t a[1] = {0x7bff}, b[1] = {0x4000};
    ck_assert_uint_eq(dot(&h, 0, 1, a, b), 0x7c00);
    ck_assert_uint_eq(dot(&hi, 0, 1, a, b), 0x7bff);
    ck_assert_uint_eq(mma_format_max(MMA_FMT_E4M3IEEE), 0x77);
}
END_TEST

/* Tininess (IEEE 754 7.5): 2^-14 - 2^-26 (fp16: 2^-14 is 0x0400, 2^-13
 * 0x0800, so a = (2^-14, 2^-13), b = (1, -2^-13)) lies below fp16's
 * smallest normal; rounded to 11 bits with an unbounded exponent it is
 * the tie between 2^-14 - 2^-25 and 2^-14, which goes to the even 2^-14:
 * not tiny after rounding, tiny before.  The result is 2^-14, inexact. */
START_TEST(ieee_tininess)
{
    mma_unit after = U("ieee,a=fp16,c=fp16,d=fp16,k=2"), before = U("ieee,a=fp16,c=fp16,d=fp16,k=2,tiny=before");
    uint64_t a[2] = {0x0400, 0x0800}, b[2] = {0x3c00, 0x8800};
    unsigned fl;
    ck_assert_uint_eq(mma_dot_flags(&after, 0, a, b, NULL, NULL, &fl), 0x0400);
    ck_assert_uint_eq(fl, MMA_FLAG_INEXACT);
    ck_assert_uint_eq(mma_dot_flags(&before, 0, a, b, NULL, NULL, &fl), 0x0400);
    ck_assert_uint_eq(fl, MMA_FLAG_INEXACT | MMA_FLAG_UNDERFLOW);
    /* an exact subnormal result raises nothing: 2^-24 = 2^-12 * 2^-12 */
    uint64_t s[2] = {0x0c00, 0}, one[2] = {0x0c00, 0};
    ck_assert_uint_eq(mma_dot_flags(&after, 0, s, one, NULL, NULL, &fl), 0x0001);
    ck_assert_uint_eq(fl, 0);
}
END_TEST

/* Ties: c = 1 + 2^-23 (0x3f800001) plus 2^-12 * 2^-12 = 2^-24, half an
 * fp32 ulp: RNE and RMM round up to 1 + 2^-22, RZ keeps 1 + 2^-23, and
 * round-to-odd keeps it too (its last bit is already odd); from c = 1 the
 * same tie goes to 1 under RNE (even), to 1 + 2^-23 under RMM and RODD. */
START_TEST(ieee_ties)
{
    static const struct { const char *r; uint64_t odd, even; } want[] = {
        {"rne", 0x3f800002, 0x3f800000}, {"rmm", 0x3f800002, 0x3f800001},
        {"rz", 0x3f800001, 0x3f800000}, {"rodd", 0x3f800001, 0x3f800001}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char cfg[128];
        snprintf(cfg, sizeof cfg, "ieee,a=fp16,c=fp32,k=1,round=%s", want[i].r);
        mma_unit u = U(cfg);
        uint64_t a[1] = {0x0c00}, b[1] = {0x0c00};
        ck_assert_uint_eq(dot(&u, 0x3f800001, 1, a, b), want[i].odd);
        ck_assert_uint_eq(dot(&u, F32_1, 1, a, b), want[i].even);
    }
}
END_TEST

/* NaN results: canonical, default, or the first NaN operand in the order
 * c, a[0], b[0], a[1], ... quieted.  The fp16 signaling NaN 0x7d23 (fraction
 * 0x123, quiet bit clear) in a[1] becomes fp32 0x7f800000 | 0x123 << 13 |
 * 0x400000 = 0x7fe46000 and raises invalid; a quiet NaN c (0xffc00005)
 * comes before it; 0 * Inf beside a quiet NaN raises invalid too. */
START_TEST(ieee_nans)
{
    mma_unit p = U("ieee,a=fp16,c=fp32,k=2,nan=prop"), dflt = U("ieee,a=fp16,c=fp32,k=2"), cn = U("ieee,a=fp16,c=fp32,k=2,nan=canon");
    uint64_t a[2] = {0x3c00, 0x7d23}, b[2] = {0x3c00, 0x3c00}, a0i[2] = {0x7c00, 0x3c00}, b0z[2] = {0, 0x3c00};
    unsigned fl;
    ck_assert_uint_eq(mma_dot_flags(&p, 0, a, b, NULL, NULL, &fl), 0x7fe46000);
    ck_assert_uint_eq(fl, MMA_FLAG_INVALID);
    ck_assert_uint_eq(mma_dot_flags(&p, 0xffc00005, a, b, NULL, NULL, &fl), 0xffc00005);
    ck_assert_uint_eq(mma_dot_flags(&dflt, 0, a, b, NULL, NULL, &fl), 0x7fc00000);
    ck_assert_uint_eq(mma_dot_flags(&cn, 0, a, b, NULL, NULL, &fl), 0x7fffffff);
    ck_assert_uint_eq(mma_dot_flags(&p, 0x7fc00005, a0i, b0z, NULL, NULL, &fl), 0x7fc00005);
    ck_assert_uint_eq(fl, MMA_FLAG_INVALID);
    ck_assert_uint_eq(mma_dot_flags(&p, 0x7fc00005, b, b, NULL, NULL, &fl), 0x7fc00005);
    ck_assert_uint_eq(fl, 0);
}
END_TEST

/* Options: instruction names take only their own; flags exist on the ieee
 * tree alone; the ieee tree and the exact tree with the same options give
 * the same d; canonical strings read back to the same unit. */
START_TEST(ieee_options)
{
    mma_unit u;
    char err[512], cfg[512], cfg2[512];
    ck_assert_int_eq(mma_unit_parse(QG ",round=rz,zero=pos", &u, err, sizeof err), 0);
    ck_assert_int_eq(mma_unit_parse(QG ",round=rmm", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "round=rmm"));
    ck_assert_int_eq(mma_unit_parse(QG ",tiny=before", &u, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no exception flags"));
    ck_assert_int_eq(mma_unit_parse("fma,a=fp64,c=fp64,k=2,zero=ieee", &u, err, sizeof err), -1);
    ck_assert_int_eq(mma_unit_parse("ieee,a=fp16,k=2,p=5", &u, err, sizeof err), -1);
    ck_assert(!mma_unit_has_flags(&(mma_unit){0}) && mma_unit_has_flags(&(mma_unit){.tree = MMA_TREE_IEEE}));
    static const char *outs[] = {"fp64", "fp32", "fp16", "bf16", "e5m2", "e4m3", "e4m3ieee", "e4m3fnuz", "e5m2fnuz", "e3m2", "e2m3", "e2m1"};
    static const char *rnd[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};
    uint64_t seed = 12345;
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
        for (int r = 0; r < 6; r++) {
            char ie[256], ex[256];
            snprintf(ie, sizeof ie, "ieee,a=%s,c=%s,d=%s,k=4,l=2,round=%s,nan=prop,ovf=%s", o ? "e4m3" : "fp64",
                     o ? "fp16" : "fp64", outs[o], rnd[r], r & 1 ? "sat" : "ieee");
            mma_unit i = U(ie);
            mma_unit_config(&i, cfg, sizeof cfg);
            mma_unit j = U(cfg);
            mma_unit_config(&j, cfg2, sizeof cfg2);
            ck_assert_str_eq(cfg, cfg2);
            ck_assert_uint_eq(i.flags, j.flags);
            snprintf(ex, sizeof ex, "exact%s", strchr(cfg, ','));
            *strstr(ex, ",tiny=") = 0;
            mma_unit x = U(ex);
            for (int v = 0; v < 2000; v++) {
                uint64_t a[4], b[4], c;
                for (int k = 0; k < 4; k++) {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    a[k] = (seed >> 20) & (o ? 0xff : ~0ull);
                    b[k] = (seed >> 36) & (o ? 0xff : ~0ull);
                }
                c = seed >> (o ? 48 : 0);
                ck_assert_uint_eq(mma_dot(&i, c, a, b, NULL, NULL), mma_dot(&x, c, a, b, NULL, NULL));
            }
        }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("model");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, formats_decode);
    tcase_add_test(t, fda_f13);
    tcase_add_test(t, fda_f25);
    tcase_add_test(t, fda_e8m13);
    tcase_add_test(t, fda_rounding);
    tcase_add_test(t, fda_specials);
    tcase_add_test(t, tf32_payload);
    tcase_add_test(t, cofda_order);
    tcase_add_test(t, sfma_order);
    tcase_add_test(t, dmma_nan_rule);
    tcase_add_test(t, fp8_via_fp16);
    tcase_add_test(t, wmma_chain);
    tcase_add_test(t, ptx_spellings);
    tcase_add_test(t, vecfile_arch_header);
    tcase_add_test(t, mmasim_names);
    tcase_add_test(t, gps);
    tcase_add_test(t, fdrda_paper);
    tcase_add_test(t, gfdrda);
    tcase_add_test(t, gdfs);
    tcase_add_test(t, seed001_swamping);
    tcase_add_test(t, amd_zero_sign);
    tcase_add_test(t, amd_nan_any);
    tcase_add_test(t, gfdrda_special_c);
    tcase_add_test(t, encode_inverse);
    tcase_add_test(t, encode_ties);
    tcase_add_test(t, gen_suites);
    tcase_add_test(t, gen_neighbours);
    tcase_add_test(t, rgen_modes);
    tcase_add_test(t, generic_options);
    tcase_add_test(t, catalogue_roundtrip);
    tcase_add_test(t, shape_freedom);
    tcase_add_test(t, bad_names);
    tcase_add_test(t, edit_distance);
    tcase_add_test(t, exact_small);
    tcase_add_test(t, exact_fp64);
    tcase_add_test(t, tile);
    tcase_add_test(t, tile_scaled);
    tcase_add_test(t, dot_batch);
    tcase_add_test(t, batch_natural_width);
    tcase_add_test(t, batch_refusals);
    tcase_add_test(t, ieee_zero_signs);
    tcase_add_test(t, neg_products);
    tcase_add_test(t, ieee_overflow);
    tcase_add_test(t, ieee_tininess);
    tcase_add_test(t, ieee_ties);
    tcase_add_test(t, ieee_nans);
    tcase_add_test(t, ieee_options);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    printf("test_model: %d passed, %d failed\n", srunner_ntests_run(r) - failed, failed);
    srunner_free(r);
    return failed ? 1 : 0;
}
