/* An independent oracle for the IEEE semantics of mmaref: the ieee tree
 * (exact sum of c and the products, rounded once per step) under every
 * rounding (RNE, RZ, RD, RU, RMM, round-to-odd), every output format, the
 * overflow, NaN, zero and tininess options, and the exception flags.
 *
 * Nothing of the model's arithmetic is used to compute the expected
 * results: formats are decoded and encoded here from their definitions
 * (IEEE 754-2019, the OCP 8-bit and MX specifications), the exact sum is
 * GNU MPFR's, and rounding is done twice over, independently: by MPFR's
 * integer roundings (mpfr_rint, mpfr_round, mpfr_trunc) on the format's
 * grid for every mode, and for the four IEEE modes also by mpfr_set,
 * mpfr_check_range and mpfr_subnormalize in the format's exponent range
 * (whose inexact flag is compared too); the two must agree before the
 * model is compared with them.  Flags follow IEEE 754 7.4-7.6 as written
 * out in the comments below.
 *
 * Parts:
 *   decode   every encoding of every format of 16 bits or fewer (and
 *            random fp32/fp64 ones) decodes here as in the model;
 *   named    the examples of docs/algorithms.md;
 *   k1       K = 1 over 8-bit and narrower formats: every (a, b, c) triple
 *            (quick: the 6- and 4-bit formats whole, the 8-bit ones
 *            sampled), every rounding, tininess before and after;
 *   k2       K = 2 over e5m2 and e4m3: every pair (a0, a1), with 16 pairs
 *            (b0, b1) and 16 values of c (quick: sampled);
 *   units    mixed formats, every output format, chained steps, the nan,
 *            ovf, zero and tiny options, on every `mmaref gen` suite (the
 *            ieee- boundary suites among them) and on random encodings;
 *   fused    the fused tree with the IEEE options against the ieee tree,
 *            where its sum is exact (e4m3 operands span fewer than F = 48
 *            bits): every output format, rounding and option set;
 *   host     ieee,k=1 against the host's fmaf/fma under fesetround in the
 *            four IEEE roundings, the flags by fetestexcept (NaN payloads
 *            are the host's own: NaN is compared as NaN).
 *
 * usage: test_ieee [quick|full] [threads] [part]
 * Prints one line per part with its case count; exits 1 on any mismatch. */
#include <stdint.h>
#include <fenv.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_gen.h"
#include "mmaref_vec.h"
#include "mmaref_parallel.h"

static long fails;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
#define FAIL(...) do { pthread_mutex_lock(&fail_lock); if (fails++ < 25) { fprintf(stderr, "FAIL: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } pthread_mutex_unlock(&fail_lock); } while (0)

/* ---- formats, from their definitions ----------------------------------- */
enum { K_IEEE, K_FN, K_FNUZ, K_NONE };   /* Inf+NaN; OCP e4m3 (S.1111.111 NaN); 0x80 NaN; neither */
typedef struct { mma_fmt f; const char *name; int w, eb, mb, bias, kind; } ofmt;
static const ofmt OF[] = {
    {MMA_FMT_FP64, "fp64", 64, 11, 52, 1023, K_IEEE}, {MMA_FMT_FP32, "fp32", 32, 8, 23, 127, K_IEEE},
    {MMA_FMT_TF32, "tf32", 32, 8, 23, 127, K_IEEE},   {MMA_FMT_FP16, "fp16", 16, 5, 10, 15, K_IEEE},
    {MMA_FMT_BF16, "bf16", 16, 8, 7, 127, K_IEEE},     {MMA_FMT_E5M2, "e5m2", 8, 5, 2, 15, K_IEEE},
    {MMA_FMT_E4M3IEEE, "e4m3ieee", 8, 4, 3, 7, K_IEEE}, {MMA_FMT_E4M3, "e4m3", 8, 4, 3, 7, K_FN},
    {MMA_FMT_E4M3FNUZ, "e4m3fnuz", 8, 4, 3, 8, K_FNUZ}, {MMA_FMT_E5M2FNUZ, "e5m2fnuz", 8, 5, 2, 16, K_FNUZ},
    {MMA_FMT_E3M2, "e3m2", 6, 3, 2, 3, K_NONE}, {MMA_FMT_E2M3, "e2m3", 6, 2, 3, 1, K_NONE},
    {MMA_FMT_E2M1, "e2m1", 4, 2, 1, 1, K_NONE},
};
#define NOF (int)(sizeof OF / sizeof OF[0])
static const ofmt *of(mma_fmt f)
{
    for (int i = 0; i < NOF; i++) if (OF[i].f == f) return &OF[i];
    return NULL;
}

enum { C_ZERO, C_FIN, C_INF, C_NAN };
typedef struct {
    int cls, neg, snan;
    uint64_t sig;        /* value = sig * 2^exp */
    int exp;
    uint64_t pay;        /* NaN: fraction bits, `pbits` of them (0: none) */
    int pbits;
} oval;

static oval odecode(const ofmt *F, uint64_t x)
{
    oval v = {C_FIN, 0, 0, 0, 0, 0, 0};
    if (F->w < 64) x &= ((uint64_t)1 << F->w) - 1;
    if (F->f == MMA_FMT_TF32) x &= ~(uint64_t)0x1fff;         /* tensor cores read 19 bits */
    v.neg = (int)(x >> (F->w - 1));
    uint64_t emask = ((uint64_t)1 << F->eb) - 1, mmask = ((uint64_t)1 << F->mb) - 1;
    uint64_t e = (x >> F->mb) & emask, m = x & mmask;
    if (F->kind == K_IEEE && e == emask) {
        if (!m) { v.cls = C_INF; return v; }
        v.cls = C_NAN;
        v.snan = !(m >> (F->mb - 1));
        v.pay = F->f == MMA_FMT_TF32 ? m >> 13 : m;
        v.pbits = F->f == MMA_FMT_TF32 ? 10 : F->mb;
        return v;
    }
    if (F->kind == K_FN && (x & 0x7f) == 0x7f) { v.cls = C_NAN; v.pay = 7; v.pbits = 3; return v; }
    if (F->kind == K_FNUZ && x == 0x80) { v.cls = C_NAN; v.neg = 0; return v; }
    v.sig = e ? m | ((uint64_t)1 << F->mb) : m;
    v.exp = (e ? (int)e : 1) - F->bias - F->mb;
    if (!v.sig) v.cls = C_ZERO;
    return v;
}

/* the largest finite of F at p fraction bits, as q * 2^(E - p) */
static void omax(const ofmt *F, int p, int *E, uint64_t *q)
{
    int top = (1 << F->eb) - 1;
    uint64_t m = ((uint64_t)1 << F->mb) - 1;
    if (F->kind == K_IEEE) top--;
    if (F->kind == K_FN) m--;                           /* S.1111.111 is the NaN */
    *E = top - F->bias;
    *q = (((uint64_t)1 << F->mb) | m) >> (F->mb - p);
}

static uint64_t osign(const ofmt *F, int neg) { return neg ? (uint64_t)1 << (F->w - 1) : 0; }

/* encode sig * 2^lsb with sig of at most p+1 bits on F's grid */
static uint64_t oencode_fin(const ofmt *F, int neg, uint64_t sig, int lsb)
{
    if (!sig) return F->kind == K_FNUZ ? 0 : osign(F, neg);
    int lead = 63 - __builtin_clzll(sig) + lsb;
    int emin = 1 - F->bias;
    uint64_t bexp, frac;
    if (lead < emin) { bexp = 0; frac = sig << (lsb - (emin - F->mb)); }
    else { bexp = (uint64_t)(lead + F->bias); frac = (sig << (lsb - (lead - F->mb))) & (((uint64_t)1 << F->mb) - 1); }
    return osign(F, neg) | bexp << F->mb | frac;
}

static uint64_t oencode_max(const ofmt *F, int p, int neg)
{
    int E;
    uint64_t q;
    omax(F, p, &E, &q);
    return oencode_fin(F, neg, q, E - p);
}

/* ---- the unit's options, read from its configuration (not its code) --- */
enum { R_RZ, R_RNE, R_RD, R_RU, R_RMM, R_RODD };
typedef struct {
    const ofmt *A, *B, *C, *D, *S;
    int k, l, p, rho, ovf, nan, zero, tiny_before, block;
} ounit;
enum { O_IEEE, O_INF, O_SAT };
enum { N_CANON, N_DEFAULT, N_PROP };
enum { Z_POS, Z_FIXED, Z_IEEE };

static const char *field(const char *cfg, const char *key, char *buf, size_t len)
{
    char k[32];
    snprintf(k, sizeof k, ",%s=", key);
    const char *at = strstr(cfg, k);
    if (!at) return NULL;
    at += strlen(k);
    snprintf(buf, len, "%.*s", (int)strcspn(at, ","), at);
    return buf;
}

static int ounit_of(const char *cfg, ounit *o)
{
    char v[64];
    static const char *rn[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};
    memset(o, 0, sizeof *o);
    if (strncmp(cfg, "ieee,", 5)) return -1;
    o->A = of(mma_format_by_name(field(cfg, "a", v, sizeof v)));
    o->B = of(mma_format_by_name(field(cfg, "b", v, sizeof v)));
    o->C = of(mma_format_by_name(field(cfg, "c", v, sizeof v)));
    o->D = of(mma_format_by_name(field(cfg, "d", v, sizeof v)));
    o->k = atoi(field(cfg, "k", v, sizeof v));
    o->l = atoi(field(cfg, "l", v, sizeof v));
    o->p = o->D->mb;
    field(cfg, "round", v, sizeof v);
    for (int i = 0; i < 6; i++) if (!strcmp(v, rn[i])) o->rho = i;
    field(cfg, "ovf", v, sizeof v);
    o->ovf = !strcmp(v, "inf") ? O_INF : !strcmp(v, "sat") ? O_SAT : O_IEEE;
    field(cfg, "nan", v, sizeof v);
    o->nan = !strncmp(v, "canon", 5) ? N_CANON : !strncmp(v, "prop", 4) ? N_PROP : N_DEFAULT;
    field(cfg, "zero", v, sizeof v);
    o->zero = !strcmp(v, "pos") ? Z_POS : !strcmp(v, "fixed") ? Z_FIXED : Z_IEEE;
    field(cfg, "tiny", v, sizeof v);
    o->tiny_before = !strcmp(v, "before");
    if (field(cfg, "scale", v, sizeof v)) {
        o->S = !strcmp(v, "ue8m0") ? (const ofmt *)1 : (const ofmt *)2;   /* scales: see oscale */
        o->block = atoi(field(cfg, "block", v, sizeof v));
    }
    return o->A && o->B && o->C && o->D && o->k > 0 && o->l > 0 ? 0 : -1;
}

/* a block scale: ue8m0 2^(x-127), 0xff NaN; ue4m3 e4m3 with the top bit
 * ignored, 0x7f NaN (NVFP4) */
static oval oscale(const ounit *o, uint64_t x)
{
    oval v = {C_FIN, 0, 0, 1, 0, 0, 0};
    if (o->S == (const ofmt *)1) {
        if (x == 0xff) v.cls = C_NAN;
        else v.exp = (int)x - 127;
        return v;
    }
    v = odecode(of(MMA_FMT_E4M3), x & 0x7f);
    return v;
}

/* ---- the oracle -------------------------------------------------------- */
typedef struct {
    mpfr_t s, t, r, ru, h, m;    /* sum, term, rounded, unbounded, scratch */
    mpfr_prec_t prec;
} octx;

static void octx_init(octx *x, mpfr_prec_t prec)
{
    x->prec = prec;
    mpfr_inits2(prec, x->s, x->t, x->r, x->ru, x->h, x->m, (mpfr_ptr)0);
}
static void octx_clear(octx *x) { mpfr_clears(x->s, x->t, x->r, x->ru, x->h, x->m, (mpfr_ptr)0); }

/* Round s to the grid 2^lsb by direction rho, into r (exact integer
 * roundings: nothing about floating-point formats is assumed). */
static void grid_round(octx *x, mpfr_t r, const mpfr_t s, long lsb, int rho)
{
    mpfr_mul_2si(r, s, -lsb, MPFR_RNDN);                /* exact */
    switch (rho) {
    case R_RZ: mpfr_trunc(r, r); break;
    case R_RNE: mpfr_rint(r, r, MPFR_RNDN); break;
    case R_RD: mpfr_floor(r, r); break;
    case R_RU: mpfr_ceil(r, r); break;
    case R_RMM: mpfr_round(r, r); break;               /* halfway cases away from zero */
    default:                                            /* to odd */
        if (!mpfr_integer_p(r)) {
            mpfr_trunc(x->h, r);
            mpfr_div_2ui(x->m, x->h, 1, MPFR_RNDN);
            if (mpfr_integer_p(x->m))                   /* even: the odd neighbour away from zero */
                mpfr_add_si(x->h, x->h, mpfr_sgn(r) < 0 ? -1 : 1, MPFR_RNDN);
            mpfr_set(r, x->h, MPFR_RNDN);
        }
    }
    mpfr_mul_2si(r, r, lsb, MPFR_RNDN);
}

static long lead_exp(const mpfr_t s) { return (long)mpfr_get_exp(s) - 1; }   /* s = 1.xxx * 2^lead */

typedef struct { uint64_t bits; unsigned flags; } ores;

/* The second, independent rounding: MPFR's own, in F's exponent range with
 * subnormals (mpfr_check_range, mpfr_subnormalize); the four IEEE modes.
 * Returns the value in r2 and MPFR's inexact flag. */
static int mpfr_round_fmt(mpfr_t r2, const mpfr_t s, const ofmt *F, int p, int rho)
{
    static const mpfr_rnd_t rm[4] = {MPFR_RNDZ, MPFR_RNDN, MPFR_RNDD, MPFR_RNDU};
    mpfr_rnd_t rnd = rm[rho];
    mpfr_exp_t emin0 = mpfr_get_emin(), emax0 = mpfr_get_emax();
    mpfr_clear_flags();
    int inex = mpfr_set(r2, s, rnd);                   /* to p+1 bits, unbounded range */
    mpfr_set_emin(1 - F->bias - p + 1);                 /* the smallest subnormal is 0.1b * 2^emin */
    mpfr_set_emax(emax0);
    inex = mpfr_check_range(r2, inex, rnd);
    inex = mpfr_subnormalize(r2, inex, rnd);
    int flag = mpfr_inexflag_p() != 0;
    mpfr_set_emin(emin0);
    mpfr_set_emax(emax0);
    return flag;
}

/* Round the exact nonzero-or-zero sum x->s into o's output format:
 * IEEE 754 4.3 (rounding), 7.4 (overflow), 7.5 (underflow: tiny and
 * inexact; tininess after rounding: the rounding with an unbounded
 * exponent range is below 2^emin; before: the exact value is), 7.6
 * (inexact); 6.3 (zeros).  zneg: the sign of an exactly zero sum. */
static ores oround(octx *x, const ounit *o, int zneg)
{
    const ofmt *D = o->D;
    ores res = {0, 0};
    int p = o->p, emin = 1 - D->bias;
    if (mpfr_zero_p(x->s)) {
        res.bits = o->zero == Z_IEEE && D->kind != K_FNUZ ? osign(D, zneg) : 0;
        return res;
    }
    int neg = mpfr_sgn(x->s) < 0;
    long lead = lead_exp(x->s);
    grid_round(x, x->r, x->s, (lead > emin ? lead : emin) - p, o->rho);     /* bounded */
    grid_round(x, x->ru, x->s, lead - p, o->rho);                           /* unbounded */
    if (o->rho <= R_RU) {                                                   /* second opinion */
        mpfr_t r2;
        mpfr_init2(r2, p + 1);
        int fl = mpfr_round_fmt(r2, x->s, D, p, o->rho);
        if (!mpfr_equal_p(r2, x->r) && !(mpfr_zero_p(r2) && mpfr_zero_p(x->r)))
            FAIL("oracle: the two roundings disagree (%s, p=%d, rho=%d)", D->name, p, o->rho);
        if (fl != !mpfr_equal_p(x->r, x->s)) FAIL("oracle: MPFR's inexact flag disagrees");
        mpfr_clear(r2);
    }
    int inexact = !mpfr_equal_p(x->r, x->s);
    int E;
    uint64_t q;
    omax(D, p, &E, &q);
    mpfr_set_ui_2exp(x->h, q, E - p, MPFR_RNDN);                             /* the largest finite */
    mpfr_abs(x->m, x->ru, MPFR_RNDN);
    if (mpfr_cmp(x->m, x->h) > 0) {                                          /* overflow */
        res.flags = MMA_FLAG_OVERFLOW | MMA_FLAG_INEXACT;
        int inf;
        if (o->ovf == O_INF) inf = 1;
        else if (o->ovf == O_SAT) inf = 0;
        else inf = o->rho == R_RNE || o->rho == R_RMM || (o->rho == R_RD && neg) || (o->rho == R_RU && !neg);
        if (!inf || D->kind == K_NONE) res.bits = oencode_max(D, p, neg);
        else if (D->kind == K_IEEE) res.bits = osign(D, neg) | ((((uint64_t)1 << D->eb) - 1) << D->mb);
        else if (D->kind == K_FN) res.bits = osign(D, neg) | 0x7f;
        else res.bits = 0x80;
        return res;
    }
    if (inexact) {
        res.flags |= MMA_FLAG_INEXACT;
        mpfr_abs(x->m, o->tiny_before ? x->s : x->ru, MPFR_RNDN);
        if (mpfr_cmp_ui_2exp(x->m, 1, emin) < 0) res.flags |= MMA_FLAG_UNDERFLOW;
    }
    if (mpfr_zero_p(x->r)) {
        res.bits = o->zero != Z_POS && D->kind != K_FNUZ ? osign(D, neg) : 0;
        return res;
    }
    long lsb = (lead_exp(x->r) > emin ? lead_exp(x->r) : emin) - p;
    mpfr_abs(x->m, x->r, MPFR_RNDN);
    mpfr_mul_2si(x->m, x->m, -lsb, MPFR_RNDN);
    res.bits = oencode_fin(D, neg, mpfr_get_ui(x->m, MPFR_RNDN), (int)lsb);
    return res;
}

/* NaN results: the canonical NaN (all ones but the sign), the default
 * quiet NaN (quiet bit only), or the first NaN operand's sign and payload,
 * the payload at the top of the fraction, quieted. */
static uint64_t onan(const ounit *o, const oval *src)
{
    const ofmt *D = o->D;
    if (D->kind == K_FN) return (o->nan == N_PROP && src && src->neg ? 0x80u : 0u) | 0x7f;
    if (D->kind == K_FNUZ) return 0x80;
    if (D->kind == K_NONE) return oencode_max(D, D->mb, 0);
    uint64_t inf = (((uint64_t)1 << D->eb) - 1) << D->mb, qb = (uint64_t)1 << (D->mb - 1);
    if (o->nan == N_CANON) return inf | (((uint64_t)1 << D->mb) - 1);
    if (o->nan == N_PROP && src && src->pbits) {
        uint64_t pay = D->mb >= src->pbits ? src->pay << (D->mb - src->pbits) : src->pay >> (src->pbits - D->mb);
        return osign(D, src->neg) | inf | pay | qb;
    }
    return inf | qb;
}

static void add_product(octx *x, const oval *a, const oval *b, const oval *s1, const oval *s2)
{
    mpfr_set_ui_2exp(x->t, a->sig, a->exp, MPFR_RNDN);
    mpfr_mul_ui(x->t, x->t, b->sig, MPFR_RNDN);
    mpfr_mul_2si(x->t, x->t, b->exp, MPFR_RNDN);
    if (s1) {
        mpfr_mul_ui(x->t, x->t, s1->sig * s2->sig, MPFR_RNDN);
        mpfr_mul_2si(x->t, x->t, s1->exp + s2->exp, MPFR_RNDN);
    }
    if (a->neg != b->neg) mpfr_neg(x->t, x->t, MPFR_RNDN);
    if (mpfr_add(x->s, x->s, x->t, MPFR_RNDN)) FAIL("oracle: the exact sum lost bits (precision %ld)", (long)x->prec);
}

/* One step: c (in format C) and products k0 .. k0+l-1.  Invalid (7.2): a
 * signaling NaN operand; a product 0 * Inf, even beside a quiet NaN (as
 * RISC-V's fused multiply-add); +Inf and -Inf among the terms when no
 * operand is a NaN. */
static ores ostep(octx *x, const ounit *o, const ofmt *C, uint64_t c, const uint64_t *a, const uint64_t *b,
                  const uint64_t *sa, const uint64_t *sb, int k0)
{
    ores res = {0, 0};
    oval vc = odecode(C, c);
    const oval *first_nan = NULL;
    oval va[MMA_MAX_K], vb[MMA_MAX_K], s1[MMA_MAX_K], s2[MMA_MAX_K];
    int nan = vc.cls == C_NAN, snan = vc.snan, zinf = 0, pinf = 0, ninf = 0;
    int allzero = vc.cls == C_ZERO, anyneg = vc.neg, anypos = !vc.neg;
    if (nan) first_nan = &vc;
    if (vc.cls == C_INF) { if (vc.neg) ninf = 1; else pinf = 1; }
    for (int j = 0; j < o->l; j++) {
        int k = k0 + j;
        va[j] = odecode(o->A, a[k]);
        vb[j] = odecode(o->B, b[k]);
        int sz = 0, snanv = 0;
        if (o->S) {
            s1[j] = oscale(o, sa[k / o->block]);
            s2[j] = oscale(o, sb[k / o->block]);
            snanv = s1[j].cls == C_NAN || s2[j].cls == C_NAN;
            sz = s1[j].cls == C_ZERO || s2[j].cls == C_ZERO;
        }
        if (va[j].cls == C_NAN && !first_nan) first_nan = &va[j];
        if (vb[j].cls == C_NAN && !first_nan) first_nan = &vb[j];
        snan |= va[j].snan | vb[j].snan;
        int opnan = va[j].cls == C_NAN || vb[j].cls == C_NAN || snanv;
        int zero = va[j].cls == C_ZERO || vb[j].cls == C_ZERO || sz;
        int inf = va[j].cls == C_INF || vb[j].cls == C_INF;
        int pneg = va[j].neg != vb[j].neg;
        if (opnan) nan = 1;
        else if (inf && zero) { nan = 1; zinf = 1; }
        else if (inf) { if (pneg) ninf = 1; else pinf = 1; }
        allzero &= !opnan && zero && !inf;
        if (pneg) anyneg = 1; else anypos = 1;
    }
    int invalid = snan || zinf || (!nan && pinf && ninf);
    if (invalid) res.flags |= MMA_FLAG_INVALID;
    if (nan || (pinf && ninf)) { res.bits = onan(o, first_nan); return res; }
    if (pinf || ninf) {
        if (o->ovf == O_SAT || o->D->kind == K_NONE) res.bits = oencode_max(o->D, o->p, ninf);
        else if (o->D->kind == K_IEEE) res.bits = osign(o->D, ninf) | ((((uint64_t)1 << o->D->eb) - 1) << o->D->mb);
        else if (o->D->kind == K_FN) res.bits = osign(o->D, ninf) | 0x7f;
        else res.bits = 0x80;
        return res;
    }
    mpfr_set_zero(x->s, 1);
    if (vc.cls == C_FIN) {
        mpfr_set_ui_2exp(x->t, vc.sig, vc.exp, MPFR_RNDN);
        if (vc.neg) mpfr_neg(x->t, x->t, MPFR_RNDN);
        mpfr_add(x->s, x->s, x->t, MPFR_RNDN);
    }
    for (int j = 0; j < o->l; j++)
        if (va[j].cls == C_FIN && vb[j].cls == C_FIN && (!o->S || (s1[j].cls == C_FIN && s2[j].cls == C_FIN)))
            add_product(x, &va[j], &vb[j], o->S ? &s1[j] : NULL, o->S ? &s2[j] : NULL);
    /* 6.3: x + x keeps the sign of x even when x is zero; other exact zero
     * sums are +0 but under roundTowardNegative */
    ores r = oround(x, o, allzero && !(anypos && anyneg) ? anyneg : o->rho == R_RD);
    r.flags |= res.flags;
    return r;
}

static ores oracle(octx *x, const ounit *o, uint64_t c, const uint64_t *a, const uint64_t *b,
                   const uint64_t *sa, const uint64_t *sb)
{
    const ofmt *C = o->C;
    unsigned fl = 0;
    ores r = {c, 0};
    for (int k0 = 0; k0 < o->k; k0 += o->l) {
        r = ostep(x, o, C, r.bits, a, b, sa, sb, k0);
        fl |= r.flags;
        C = o->D;
    }
    r.flags = fl;
    return r;
}

/* ---- comparing the model with the oracle ------------------------------- */
typedef struct {
    mma_unit u;
    ounit o;
    char cfg[512];
    mpfr_prec_t prec;
} tunit;

static int tunit_of(tunit *t, const char *cfg)
{
    char err[512];
    if (mma_unit_parse(cfg, &t->u, err, sizeof err)) { FAIL("%s: %s", cfg, err); return -1; }
    mma_unit_config(&t->u, t->cfg, sizeof t->cfg);
    if (ounit_of(t->cfg, &t->o)) { FAIL("%s: the oracle cannot read it", t->cfg); return -1; }
    int wide = t->o.A->w == 64 || t->o.B->w == 64 || t->o.C->w == 64 || t->o.D->w == 64;
    int small = t->o.A->w <= 8 && t->o.B->w <= 8 && t->o.C->w <= 8 && t->o.D->w <= 8 && !t->o.S;
    t->prec = wide ? 4600 : small ? 192 : 1200;
    return 0;
}

static void report(const tunit *t, uint64_t c, const uint64_t *a, const uint64_t *b, uint64_t d, unsigned fl,
                   ores want)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s: c=%llx a=", t->cfg, (unsigned long long)c);
    for (int k = 0; k < t->u.k && n < 3000; k++) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%llx", k ? "," : "", (unsigned long long)a[k]);
    n += snprintf(buf + n, sizeof buf - (size_t)n, " b=");
    for (int k = 0; k < t->u.k && n < 3500; k++) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%llx", k ? "," : "", (unsigned long long)b[k]);
    FAIL("%s: model %llx flags %02x, oracle %llx flags %02x", buf, (unsigned long long)d, fl,
         (unsigned long long)want.bits, want.flags);
}

static int check_vec(octx *x, const tunit *t, uint64_t c, const uint64_t *a, const uint64_t *b,
                     const uint64_t *sa, const uint64_t *sb)
{
    unsigned fl;
    uint64_t d = mma_dot_flags(&t->u, c, a, b, sa, sb, &fl);
    ores want = oracle(x, &t->o, c, a, b, sa, sb);
    if (d == want.bits && fl == want.flags) return 0;
    report(t, c, a, b, d, fl, want);
    return 1;
}

/* ---- 1. decoding ---------------------------------------------------------- */
static void part_decode(void)
{
    long n = 0;
    uint64_t s = 1;
    for (int i = 0; i < NOF; i++) {
        const ofmt *F = &OF[i];
        long count = F->w <= 16 ? 1L << F->w : 1L << 20;
        for (long j = 0; j < count; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t xb = F->w <= 16 ? (uint64_t)j : F->w == 32 ? s >> 32 : s;
            oval v = odecode(F, xb);
            mma_value m = mma_decode(F->f, xb);
            static const mma_class cls[4] = {MMA_ZERO, MMA_FINITE, MMA_INF, MMA_NAN};
            int ok = m.cls == cls[v.cls] && (v.cls == C_NAN || m.neg == v.neg);
            if (ok && v.cls == C_FIN) {
                /* the same value: sig * 2^exp, both reduced */
                uint64_t ms = m.sig, vs = v.sig;
                int me = m.exp, ve = v.exp;
                while (!(ms & 1)) { ms >>= 1; me++; }
                while (!(vs & 1)) { vs >>= 1; ve++; }
                ok = ms == vs && me == ve;
            }
            if (!ok) FAIL("decode %s %llx", F->name, (unsigned long long)xb);
            n++;
        }
    }
    printf("decode: %ld encodings of %d formats decode as their definitions say\n", n, NOF);
}

/* ---- 2. exhaustive over small formats ------------------------------------ */
typedef struct {
    tunit *units;      /* one per rounding and tininess */
    int nunits;
    const ofmt *F;
    int k2;            /* 0: K=1 over (a, b, c); 1: K=2 over (a0, a1) x bpairs x cvals */
    long stride;       /* quick: every stride-th case (odd, so all residues come round) */
    uint64_t bp[16][2], cv[16];
} ex_job;

static void ex_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    ex_job *j = ctx;
    octx x;
    octx_init(&x, 192);
    int w = j->F->w;
    for (long i = lo; i < hi; i++) {
        long idx = (i * j->stride) & ((1L << (j->k2 ? 24 : 3 * w)) - 1);
        uint64_t a[2], b[2], c;
        if (!j->k2) {
            a[0] = (uint64_t)idx & ((1u << w) - 1);
            b[0] = (uint64_t)(idx >> w) & ((1u << w) - 1);
            c = (uint64_t)(idx >> (2 * w));
        } else {
            a[0] = (uint64_t)idx & 0xff;
            a[1] = (uint64_t)(idx >> 8) & 0xff;
            b[0] = j->bp[(idx >> 16) & 15][0];
            b[1] = j->bp[(idx >> 16) & 15][1];
            c = j->cv[(idx >> 20) & 15];
        }
        for (int u = 0; u < j->nunits; u++) check_vec(&x, &j->units[u], c, a, b, NULL, NULL);
    }
    octx_clear(&x);
}

static const char *rnames[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};

static long exhaustive(const ofmt *F, int k2, int quick, int threads)
{
    static const char *ovfs[] = {"ieee", "ieee", "ieee", "sat", "inf", "ieee"};
    ex_job j;
    memset(&j, 0, sizeof j);
    j.F = F;
    j.k2 = k2;
    tunit units[12];
    j.units = units;
    for (int r = 0; r < 6; r++)
        for (int tb = 0; tb < 2; tb++) {
            char cfg[256];
            /* the tininess-before twin also varies nan= and ovf= */
            snprintf(cfg, sizeof cfg, "ieee,a=%s,c=%s,d=%s,k=%d,round=%s,tiny=%s%s%s", F->name, F->name, F->name,
                     k2 ? 2 : 1, rnames[r], tb ? "before" : "after", tb ? ",nan=prop,ovf=" : "", tb ? ovfs[r] : "");
            if (tunit_of(&units[j.nunits], cfg) == 0) j.nunits++;
        }
    if (k2) {
        /* b pairs: 1 and -1 in both orders, the largest, the smallest
         * subnormal, a NaN and an Inf where the format has them, random */
        uint64_t one = odecode(F, 0).sig, sgn = (uint64_t)1 << (F->w - 1);
        (void)one;
        uint64_t v1 = (uint64_t)F->bias << F->mb, mx = oencode_max(F, F->mb, 0), sub = 1;
        uint64_t bl[16][2] = {{v1, v1}, {v1, v1 | sgn}, {v1 | sgn, v1}, {mx, mx}, {sub, v1}, {v1, sub},
                              {mx, sub | sgn}, {v1 + 1, v1 - 1}, {0, v1}, {v1, 0 | sgn}, {0x7f, v1}, {v1, 0x7c},
                              {0x3a, 0xc5}, {0x51, 0x2e}, {0x09, 0x90}, {0x66, 0xe3}};
        memcpy(j.bp, bl, sizeof bl);
        uint64_t cl[16] = {0, sgn, v1, v1 | sgn, mx, mx | sgn, sub, sub | sgn, 0x7f, 0x7c, 0xfc, 0x42, 0xb9, 0x13, 0x8e, 0x60};
        memcpy(j.cv, cl, sizeof cl);
    }
    long total = k2 ? 1L << 24 : 1L << (3 * F->w);
    long n = quick ? (total > 60000 ? 60000 : total) : total;
    j.stride = n == total ? 1 : 2654435761L;       /* odd: a permutation of the cases */
    mma_parallel_for(n, 4096, threads, ex_chunk, &j, NULL, NULL);
    return n * j.nunits;
}

/* ---- 3. units on generated suites and random encodings -------------------- */
static mma_vec *gen_suite(const tunit *t, const char *suite, long count, unsigned seed, long *n)
{
    mma_vec *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    mma_gen g;
    *n = mma_gen_init(&g, &t->u, suite, seed) ? -1 : mma_gen_vectors(&g, 0, count, v);
    if (*n < 0) { FAIL("gen %s %s", t->cfg, suite); free(v); return NULL; }
    return v;
}

typedef struct { tunit *t; mma_vec *v; } vjob;
static void v_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    vjob *j = ctx;
    octx x;
    octx_init(&x, j->t->prec);
    for (long i = lo; i < hi; i++)
        check_vec(&x, j->t, j->v[i].c, j->v[i].a, j->v[i].b, j->v[i].sa, j->v[i].sb);
    octx_clear(&x);
}

static const char *unit_list[] = {
    "ieee,a=fp16,c=fp32,d=fp32,k=2",
    "ieee,a=fp16,c=fp16,d=fp16,k=4",
    "ieee,a=bf16,c=fp32,d=bf16,k=8,l=2",
    "ieee,a=bf16,c=fp32,d=fp32,k=16",
    "ieee,a=fp32,c=fp32,d=fp32,k=1",
    "ieee,a=fp32,c=fp32,d=fp32,k=4,l=1",
    "ieee,a=tf32,c=fp32,d=fp16,k=4",
    "ieee,a=fp64,c=fp64,d=fp64,k=1",
    "ieee,a=fp64,c=fp64,d=fp64,k=4",
    "ieee,a=fp16,c=fp64,d=fp32,k=3",
    "ieee,a=e5m2,c=fp16,d=fp16,k=2",
    "ieee,a=e4m3,b=e5m2,c=fp32,d=e4m3,k=4",
    "ieee,a=e5m2,c=e5m2,d=e5m2,k=3",
    "ieee,a=e4m3ieee,c=e4m3ieee,d=e4m3ieee,k=2",
    "ieee,a=e4m3,c=bf16,d=e4m3ieee,k=8,l=4",
    "ieee,a=e5m2,c=fp16,d=e4m3fnuz,k=2",
    "ieee,a=e4m3,c=fp16,d=e5m2fnuz,k=2",
    "ieee,a=e5m2,c=fp16,d=e3m2,k=2",
    "ieee,a=e4m3,c=e2m3,d=e2m3,k=4",
    "ieee,a=e2m1,c=e2m1,d=e2m1,k=4",
    "ieee,a=e3m2,b=e2m1,c=fp32,d=e2m1,k=32",
    "ieee,a=e4m3fnuz,b=e5m2fnuz,c=fp32,d=fp32,k=4",
    "ieee,a=e2m1,c=fp32,d=fp32,k=32,scale=ue8m0,block=16",
    "ieee,a=e2m1,c=fp16,d=bf16,k=16,scale=ue4m3,block=16",
};
static const char *opt_list[] = {"", ",nan=prop", ",nan=canon", ",ovf=sat", ",ovf=inf", ",zero=pos",
                                 ",zero=fixed", ",tiny=before", ",nan=prop,ovf=sat,tiny=before"};
static const char *suite_list[] = {"random", "normal", "cancel", "order", "precision", "rounding", "specials",
                                   "compliance", "bits", "ieee-zero", "ieee-overflow", "ieee-tiny", "ieee-sticky", "ieee-nan"};

static long part_units(int quick, int threads)
{
    long total = 0, per = quick ? 40 : 4000;
    unsigned seed = 11;
    for (size_t u = 0; u < sizeof unit_list / sizeof unit_list[0]; u++)
        for (int r = 0; r < 6; r++)
            for (size_t op = 0; op < sizeof opt_list / sizeof opt_list[0]; op++) {
                /* quick: every unit and rounding, the options in turn */
                if (quick && op != (u + (size_t)r) % (sizeof opt_list / sizeof opt_list[0]) && op) continue;
                char cfg[512];
                snprintf(cfg, sizeof cfg, "%s,round=%s%s", unit_list[u], rnames[r], opt_list[op]);
                tunit t;
                if (tunit_of(&t, cfg)) continue;
                for (size_t s = 0; s < sizeof suite_list / sizeof suite_list[0]; s++) {
                    long n = 0;
                    mma_vec *v = gen_suite(&t, suite_list[s], per, seed++, &n);
                    if (!v) continue;
                    vjob j = {&t, v};
                    mma_parallel_for(n, 64, threads, v_chunk, &j, NULL, NULL);
                    total += n;
                    free(v);
                }
            }
    return total;
}

/* ---- 4. the fused tree's IEEE options ------------------------------------ */
typedef struct { mma_unit f, e; long seed; } fjob;
static void f_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    fjob *j = ctx;
    for (long i = lo; i < hi; i++) {
        uint64_t z = (uint64_t)(j->seed + i) * 0x9e3779b97f4a7c15ull;
        z ^= z >> 29;
        z *= 0xbf58476d1ce4e5b9ull;
        uint64_t a[2] = {z & 0xff, (z >> 8) & 0xff}, b[2] = {(z >> 16) & 0xff, (z >> 24) & 0xff}, c = (z >> 32) & 0xff;
        if ((z >> 40) & 1) {                            /* a1*b1 = -a0*b0: cancellation */
            uint64_t sgn = (z >> 41) & 1 ? 0x80 : 0;
            a[1] = a[0] ^ sgn;
            b[1] = b[0] ^ sgn ^ 0x80;
        }
        uint64_t df = mma_dot(&j->f, c, a, b, NULL, NULL), de = mma_dot(&j->e, c, a, b, NULL, NULL);
        if (df != de) {
            char cfg[512];
            mma_unit_config(&j->f, cfg, sizeof cfg);
            FAIL("%s: c=%llx a=%llx,%llx b=%llx,%llx: fused %llx, ieee %llx", cfg, (unsigned long long)c,
                 (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)b[0], (unsigned long long)b[1],
                 (unsigned long long)df, (unsigned long long)de);
        }
    }
}

static long part_fused(long per, int threads)
{
    static const char *outs[] = {"fp32", "fp16", "bf16", "e5m2", "e4m3", "e4m3ieee", "e3m2", "e2m1"};
    static const char *opts[] = {",zero=ieee,ovf=ieee,nan=prop", ",zero=fixed,ovf=sat,nan=default", ",zero=pos,ovf=inf,nan=canon"};
    long total = 0;
    for (size_t o = 0; o < sizeof outs / sizeof outs[0]; o++)
        for (int r = 0; r < 6; r++)
            for (size_t op = 0; op < sizeof opts / sizeof opts[0]; op++) {
                char fc[256], ec[256], err[512];
                snprintf(fc, sizeof fc, "fused,a=e4m3,c=e4m3,d=%s,k=2,f=48,ezero=none,round=%s%s", outs[o], rnames[r], opts[op]);
                snprintf(ec, sizeof ec, "ieee,a=e4m3,c=e4m3,d=%s,k=2,round=%s%s", outs[o], rnames[r], opts[op]);
                fjob j;
                j.seed = (long)(o * 1000 + (size_t)r * 100 + op) * per;
                if (mma_unit_parse(fc, &j.f, err, sizeof err) || mma_unit_parse(ec, &j.e, err, sizeof err)) { FAIL("%s", err); continue; }
                mma_parallel_for(per, 4096, threads, f_chunk, &j, NULL, NULL);
                total += per;
            }
    return total;
}

/* ---- 5. the host's fma -------------------------------------------------- */
static float f32(uint32_t w) { float f; memcpy(&f, &w, 4); return f; }
static uint32_t w32(float f) { uint32_t w; memcpy(&w, &f, 4); return w; }
static double f64(uint64_t w) { double f; memcpy(&f, &w, 8); return f; }
static uint64_t w64(double f) { uint64_t w; memcpy(&w, &f, 8); return w; }

/* the library's generator (mmaref_rng.h), from a fixed state */
static mma_rng hrng = {{0x243f6a8885a308d3ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull}};
static uint64_t hnext(void) { return mma_rng_next(&hrng); }

/* operands: random bits, exponents near the ends of the range, c near
 * -(a*b) (cancellation), a*b + c near the largest finite and near 2^emin */
static void host_operands(int wide, uint64_t *a, uint64_t *b, uint64_t *c)
{
    uint64_t r = hnext();
    int kind = (int)(r % 8);
    if (!wide) {
        uint32_t x = (uint32_t)hnext(), y = (uint32_t)hnext(), z = (uint32_t)hnext();
        float fa, fb, fc;
        switch (kind) {
        case 0: break;
        case 1: /* cancellation: c = -(a*b) rounded, then nudged */
            fa = f32(x & 0x3fffffff) ; fb = f32(y & 0x3fffffff);
            fc = -(fa * fb);
            z = w32(fc) + (uint32_t)(hnext() % 5) - 2;
            break;
        case 2: /* overflow region */
            x = (x & 0x807fffff) | (uint32_t)(0xc0 + hnext() % 64) << 23;
            y = (y & 0x807fffff) | (uint32_t)(0xc0 + hnext() % 64) << 23;
            z = (z & 0x807fffff) | (uint32_t)(0xfe - hnext() % 3) << 23;
            break;
        case 3: /* tiny region: products near 2^-126 */
            x = (x & 0x807fffff) | (uint32_t)(0x3f - hnext() % 24) << 23;
            y = (y & 0x807fffff) | (uint32_t)(0x3f - hnext() % 24) << 23;
            z = (z & 0x807fffff) | (uint32_t)(hnext() % 3) << 23;
            break;
        case 4: /* specials */
            { static const uint32_t sp[] = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00001, 0x7f800123, 0x1, 0x80000001, 0x7f7fffff};
              if (hnext() & 1) x = sp[hnext() % 9];
              if (hnext() & 1) y = sp[hnext() % 9];
              if (hnext() & 1) z = sp[hnext() % 9]; }
            break;
        default: /* clustered exponents */
            x = (x & 0x807fffff) | (uint32_t)(0x70 + hnext() % 32) << 23;
            y = (y & 0x807fffff) | (uint32_t)(0x70 + hnext() % 32) << 23;
            z = (z & 0x807fffff) | (uint32_t)(0x60 + hnext() % 64) << 23;
        }
        *a = x; *b = y; *c = z;
        return;
    }
    uint64_t x = hnext(), y = hnext(), z = hnext();
    double fa, fb, fc;
    switch (kind) {
    case 0: break;
    case 1:
        fa = f64(x & 0x3fffffffffffffffull); fb = f64(y & 0x3fffffffffffffffull);
        fc = -(fa * fb);
        z = w64(fc) + hnext() % 5 - 2;
        break;
    case 2:
        x = (x & 0x800fffffffffffffull) | (0x600 + hnext() % 512) << 52;
        y = (y & 0x800fffffffffffffull) | (0x600 + hnext() % 512) << 52;
        z = (z & 0x800fffffffffffffull) | (0x7fe - hnext() % 3) << 52;
        break;
    case 3:
        x = (x & 0x800fffffffffffffull) | (0x1ff - hnext() % 60) << 52;
        y = (y & 0x800fffffffffffffull) | (0x1ff - hnext() % 60) << 52;
        z = (z & 0x800fffffffffffffull) | (hnext() % 3) << 52;
        break;
    case 4:
        { static const uint64_t sp[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                        0x7ff8000000000001ull, 0x7ff0000000000123ull, 1, 0x8000000000000001ull, 0x7fefffffffffffffull};
          if (hnext() & 1) x = sp[hnext() % 9];
          if (hnext() & 1) y = sp[hnext() % 9];
          if (hnext() & 1) z = sp[hnext() % 9]; }
        break;
    default:
        x = (x & 0x800fffffffffffffull) | (0x3e0 + hnext() % 64) << 52;
        y = (y & 0x800fffffffffffffull) | (0x3e0 + hnext() % 64) << 52;
        z = (z & 0x800fffffffffffffull) | (0x3c0 + hnext() % 128) << 52;
    }
    *a = x; *b = y; *c = z;
}

static unsigned host_flags(void)
{
    int e = fetestexcept(FE_ALL_EXCEPT);
    return (e & FE_INEXACT ? MMA_FLAG_INEXACT : 0) | (e & FE_UNDERFLOW ? MMA_FLAG_UNDERFLOW : 0) |
           (e & FE_OVERFLOW ? MMA_FLAG_OVERFLOW : 0) | (e & FE_INVALID ? MMA_FLAG_INVALID : 0) |
           (e & FE_DIVBYZERO ? MMA_FLAG_INFINITE : 0);
}

/* fma through volatile operands, so that nothing is folded at compile time */
static float host_fmaf(float a, float b, float c) { volatile float x = a, y = b, z = c; return fmaf(x, y, z); }
static double host_fma(double a, double b, double c) { volatile double x = a, y = b, z = c; return fma(x, y, z); }

/* IEEE 754-2019 7.2(c): fusedMultiplyAdd(0, Inf, c) with c a quiet NaN
 * may or may not signal invalid; x86 does not, RISC-V (and the model)
 * does.  Such cases are compared without the invalid flag, and counted. */
static long host_impl_defined;
static int zero_inf_qnan(int wide, uint64_t a, uint64_t b, uint64_t c)
{
    const ofmt *F = of(wide ? MMA_FMT_FP64 : MMA_FMT_FP32);
    oval x = odecode(F, a), y = odecode(F, b), z = odecode(F, c);
    return ((x.cls == C_ZERO && y.cls == C_INF) || (x.cls == C_INF && y.cls == C_ZERO)) && z.cls == C_NAN && !z.snan;
}

static long part_host(long n)
{
    static const int modes[4] = {FE_TOWARDZERO, FE_TONEAREST, FE_DOWNWARD, FE_UPWARD};
    long total = 0;
    for (int wide = 0; wide < 2; wide++)
        for (int r = 0; r < 4; r++) {
            char cfg[128];
            snprintf(cfg, sizeof cfg, "ieee,a=%s,c=%s,d=%s,k=1,round=%s", wide ? "fp64" : "fp32", wide ? "fp64" : "fp32",
                     wide ? "fp64" : "fp32", rnames[r]);
            tunit t;
            if (tunit_of(&t, cfg)) continue;
            for (long i = 0; i < n; i++) {
                uint64_t a, b, c, hd;
                host_operands(wide, &a, &b, &c);
                fesetround(modes[r]);
                feclearexcept(FE_ALL_EXCEPT);
                if (wide) hd = w64(host_fma(f64(a), f64(b), f64(c)));
                else hd = w32(host_fmaf(f32((uint32_t)a), f32((uint32_t)b), f32((uint32_t)c)));
                unsigned hf = host_flags();
                fesetround(FE_TONEAREST);
                unsigned fl;
                uint64_t d = mma_dot_flags(&t.u, c, &a, &b, NULL, NULL, &fl);
                int hnan = wide ? isnan(f64(hd)) : isnan(f32((uint32_t)hd));
                int mnan = wide ? isnan(f64(d)) : isnan(f32((uint32_t)d));
                unsigned mask = ~0u;
                if (zero_inf_qnan(wide, a, b, c)) { mask = ~MMA_FLAG_INVALID; host_impl_defined++; }
                if ((hnan ? !mnan : d != hd) || (fl & mask) != (hf & mask))
                    FAIL("host %s: a=%llx b=%llx c=%llx: host %llx flags %02x, model %llx flags %02x", cfg,
                         (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)hd, hf,
                         (unsigned long long)d, fl);
                total++;
            }
        }
    return total;
}

/* ---- 6. named cases ------------------------------------------------------ */
static void part_named(void)
{
    static const struct { const char *cfg; uint64_t c, a[2], b[2]; } cs[] = {
        {"ieee,a=e5m2,c=fp16,d=fp16,k=2,round=rz", 0x7b00, {0x59, 0x66}, {0xe6, 0x65}},
        {"ieee,a=bf16,c=fp32,d=fp32,k=2,round=rd", 0x80000000, {0x8ab5, 0x0ab5}, {0x0add, 0x0add}},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        tunit t;
        if (tunit_of(&t, cs[i].cfg)) continue;
        octx x;
        octx_init(&x, t.prec);
        ores w = oracle(&x, &t.o, cs[i].c, cs[i].a, cs[i].b, NULL, NULL);
        char names[96];
        mma_flags_describe(w.flags, names, sizeof names);
        printf("named: %s c=%llx a=%llx,%llx b=%llx,%llx: oracle %0*llx flags %02x (%s)\n", cs[i].cfg,
               (unsigned long long)cs[i].c, (unsigned long long)cs[i].a[0], (unsigned long long)cs[i].a[1],
               (unsigned long long)cs[i].b[0], (unsigned long long)cs[i].b[1], t.o.D->w / 4,
               (unsigned long long)w.bits, w.flags, names);
        check_vec(&x, &t, cs[i].c, cs[i].a, cs[i].b, NULL, NULL);
        octx_clear(&x);
    }
}

/* usage: test_ieee [quick|full] [threads] [part]: part one of decode named
 * k1 k2 units fused host (all when not given) */
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int quick = argc < 2 || strcmp(argv[1], "full");
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    const char *only = argc > 3 ? argv[3] : NULL;
#define PART(name) (!only || !strcmp(only, name))
    if (!mpfr_buildopt_tls_p()) threads = 1;         /* MPFR's flags must be per thread */
    double t0 = mma_now();
    if (PART("decode")) part_decode();
    if (PART("named")) part_named();
    if (PART("k1")) {
        long k1 = 0;
        for (int i = 0; i < NOF; i++)
            if (OF[i].w <= 8) k1 += exhaustive(&OF[i], 0, quick && OF[i].w == 8, threads);
        printf("k1: %ld cases (%s), every rounding, tininess before and after, d and flags as the oracle's\n", k1,
               quick ? "6- and 4-bit formats whole, 8-bit sampled" : "every (a, b, c) of every format of 8 bits or fewer");
    }
    if (PART("k2")) {
        long k2 = 0;
        for (int i = 0; i < NOF; i++)
            if (OF[i].f == MMA_FMT_E5M2 || OF[i].f == MMA_FMT_E4M3) k2 += exhaustive(&OF[i], 1, quick, threads);
        printf("k2: %ld cases (%s)\n", k2, quick ? "sampled" : "every (a0, a1) of e5m2 and e4m3 with 16 b pairs and 16 c");
    }
    if (PART("units")) {
        long un = part_units(quick, threads);
        printf("units: %ld vectors of %zu units x 6 roundings x %s on %zu suites\n", un, sizeof unit_list / sizeof unit_list[0],
               quick ? "one option set" : "9 option sets", sizeof suite_list / sizeof suite_list[0]);
    }
    if (PART("fused")) {
        long fu = part_fused(quick ? 4000 : 400000, threads);
        printf("fused: %ld vectors: the fused tree (F = 48, exact on e4m3 operands) with the IEEE options equals the ieee tree,\n"
               "       8 output formats x 6 roundings x 3 option sets\n", fu);
    }
    if (PART("host")) {
        long h = part_host(quick ? 100000 : 4000000);
        printf("host: %ld fmaf/fma cases in 4 roundings, flags by fetestexcept (%ld of them 0*Inf + quiet NaN, where the\n"
               "      invalid flag is the implementation's choice: compared without it)\n", h, host_impl_defined);
    }
    printf("test_ieee: %s, %.1f s, %ld mismatches\n", quick ? "quick" : "full", mma_now() - t0, fails);
    return fails ? 1 : 0;
}
