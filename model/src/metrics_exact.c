/* The exact reference of the metrics: a Kulisch accumulator, correct
 * rounding into any format, and the sequential FP32 reference.
 *
 * The accumulator keeps the exact sum as 32-bit digits in signed 64-bit
 * slots covering 2^-2400 .. 2^2464 (every fp64 product and sum), adds each
 * term as three (or, for 106-bit fp64 products, five) digit pieces with no
 * carry propagation, and resolves carries only when the value is read, over
 * the slots actually touched.  That is the same fixed-point idea as the
 * model's mma_exact_dot() (model/src/exact.c, cross-checked against it and
 * against GNU MPFR in tests/metrics/test_exact.c), cut to a few nanoseconds
 * per term so that the error metrics run at millions of dot products per
 * second. */
#include "metrics_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- formats: the largest finite value and encoding -------------------- */
typedef struct { int emax, mb_st, neg0, fnuz; uint64_t maxm; const mma_format_info *fi; } fmt_lim;
static fmt_lim lims[MMA_FMT_COUNT];

static fmt_lim limits_of(mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    fmt_lim l;
    l.fi = fi;
    l.mb_st = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    l.fnuz = f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ;
    l.neg0 = fi->has_sign && !l.fnuz;
    int top = (1 << fi->ebits) - 1;
    l.maxm = ((uint64_t)1 << fi->mbits) - 1;
    if (fi->has_inf) top--;                              /* IEEE-like */
    else if (f == MMA_FMT_E4M3 || f == MMA_FMT_UE4M3) l.maxm--;   /* S.1111.111 is NaN */
    l.emax = top - fi->bias;
    return l;
}

/* filled before main (and before any thread), so that readers on many
 * threads never race with the fill */
__attribute__((constructor)) static void lims_build(void)
{
    for (int f = 1; f < MMA_FMT_COUNT; f++) lims[f] = limits_of((mma_fmt)f);
}

static inline fmt_lim limits(mma_fmt f) { return lims[f]; }

int mx_fmt_emax(mma_fmt f) { return limits(f).emax; }

double mx_fmt_max(mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    fmt_lim l = limits(f);
    if (f == MMA_FMT_UE8M0) return ldexp(1.0, 127);
    return ldexp((double)(l.maxm | ((uint64_t)1 << fi->mbits)), l.emax - fi->mbits);
}

/* ---- decoding -------------------------------------------------------- */
static mx_term *dtab[MMA_FMT_COUNT];
static float *vtab[MMA_FMT_COUNT];
const double *mx_vtab[MMA_FMT_COUNT];
const mx_nterm *mx_ntab[MMA_FMT_COUNT];
uint64_t mx_wmask[MMA_FMT_COUNT];
mx_qtab mx_qtabs[MMA_FMT_COUNT];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static mx_term decode_slow(mma_fmt f, uint64_t bits)
{
    mma_value v = mma_decode(f, bits);
    mx_term t;
    t.cls = (uint8_t)v.cls;
    t.neg = (uint8_t)v.neg;
    t.e = (int16_t)v.exp;
    t.sig = v.sig;
    if (v.cls != MMA_FINITE) { t.sig = 0; t.e = 0; }
    return t;
}

static double term_value(mx_term t)
{
    switch (t.cls) {
    case MMA_NAN: return NAN;
    case MMA_INF: return t.neg ? -INFINITY : INFINITY;
    case MMA_ZERO: return t.neg ? -0.0 : 0.0;
    default: { double v = ldexp((double)t.sig, t.e); return t.neg ? -v : v; }
    }
}

static uint64_t quant_normal(mma_fmt f, const fmt_lim *l, int neg, int32_t e, uint64_t m53);
static void qtab_build(mma_fmt f);

static void tables_build(void)
{
    for (int f = 1; f < MMA_FMT_COUNT; f++) {
        int w = mma_format((mma_fmt)f)->width;
        mx_wmask[f] = w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
    }
    for (int f = 1; f < MMA_FMT_COUNT; f++) {
        const mma_format_info *fi = mma_format((mma_fmt)f);
        if (fi->width > 16) continue;
        size_t n = (size_t)1 << fi->width;
        dtab[f] = malloc(n * sizeof *dtab[f]);
        vtab[f] = malloc(n * sizeof *vtab[f]);
        double *vd = malloc(n * sizeof *vd);
        mx_nterm *nt = malloc(n * sizeof *nt);
        if (!dtab[f] || !vtab[f] || !vd || !nt) {      /* the slow paths then */
            free(dtab[f]); free(vtab[f]); free(vd); free(nt);
            dtab[f] = NULL; vtab[f] = NULL;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            mx_term t = dtab[f][i] = decode_slow((mma_fmt)f, i);
            vd[i] = term_value(t);
            vtab[f][i] = (float)vd[i];
            /* compact form for the product loop: zeros and specials add 0
             * at the smallest subnormal's weight, flags carry the rest */
            nt[i].e = (int16_t)(t.cls == MMA_FINITE ? t.e : fi->emin - fi->mbits);
            nt[i].sig = (uint16_t)(t.cls == MMA_FINITE ? t.sig : 0);
            nt[i].flags = (uint8_t)(t.neg | (t.cls == MMA_NAN ? 2 : 0) | (t.cls == MMA_INF ? 4 : 0) | (t.cls == MMA_ZERO ? 8 : 0));
        }
        mx_vtab[f] = vd;
        if (fi->mbits <= 11) mx_ntab[f] = nt; else free(nt);
        if (fi->width <= 8 && f != MMA_FMT_UE8M0) qtab_build((mma_fmt)f);
    }
}

void mx_tables_init(void) { pthread_once(&tab_once, tables_build); }

mx_term mx_decode(mma_fmt f, uint64_t bits)
{
    if (dtab[f]) return dtab[f][bits & mx_wmask[f]];
    return decode_slow(f, bits);
}

double mx_value_slow(mma_fmt f, uint64_t bits) { return term_value(decode_slow(f, bits)); }

static inline float valuef(mma_fmt f, uint64_t bits)
{
    if (vtab[f]) return vtab[f][bits & mx_wmask[f]];
    return (float)mx_value(f, bits);
}

static inline uint64_t pack(mma_fmt f, const fmt_lim *l, int neg, uint64_t efield, uint64_t mfield)
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

uint64_t mx_encode(mma_fmt f, int p, mma_rounding rho, int neg, uint64_t mag,
                   int32_t e, int sticky)
{
    fmt_lim l = limits(f);
    const mma_format_info *fi = l.fi;
    if (p < 0 || p > fi->mbits) p = fi->mbits;
    if (!fi->has_sign) neg = 0;
    if (mag == 0) return pack(f, &l, neg && l.neg0, 0, 0);
    int32_t keep = (e < fi->emin ? fi->emin : e) - p;     /* weight of q's lsb */
    int32_t j = keep - (e - 63);                          /* bits dropped */
    uint64_t q;
    int up = 0;
    if (j <= 0) q = mag << -j;                            /* not reached: p <= 52 */
    else if (j >= 64) {
        q = 0;
        if (rho == MMA_RNE && j == 64) up = mag > ((uint64_t)1 << 63) || (mag == ((uint64_t)1 << 63) && sticky);
    } else {
        q = mag >> j;
        uint64_t rem = mag & (((uint64_t)1 << j) - 1), half = (uint64_t)1 << (j - 1);
        if (rho == MMA_RNE) up = rem > half || (rem == half && (sticky || (q & 1)));
    }
    q += (uint64_t)up;
    if (q == 0) return pack(f, &l, neg && l.neg0, 0, 0);
    if (q >> (p + 1)) { q >>= 1; keep++; }                /* carry out */
    uint64_t one = (uint64_t)1 << p;
    if (q < one)                                          /* subnormal */
        return pack(f, &l, neg, 0, q << (fi->mbits - p));
    int32_t eq = keep + p;
    uint64_t mf = (q - one) << (fi->mbits - p);
    if (eq > l.emax || (eq == l.emax && mf > l.maxm)) {
        if (fi->has_inf) return pack(f, &l, neg, (uint64_t)((1 << fi->ebits) - 1), 0);
        return pack(f, &l, neg, (uint64_t)(l.emax + fi->bias), l.maxm);
    }
    return pack(f, &l, neg, (uint64_t)(eq + fi->bias), mf);
}

/* Rounding a normal double into f (RNE): the significand with its hidden
 * bit is cut at the format's precision (fewer bits for subnormal results);
 * adding the rounded significand to the biased exponent field lets a carry
 * (or a subnormal rounding up to the smallest normal) move the exponent. */
static uint64_t quant_normal(mma_fmt f, const fmt_lim *l, int neg, int32_t e, uint64_t m53)
{
    const mma_format_info *fi = l->fi;
    int p = fi->mbits;
    int drop = 52 - p + (e < fi->emin ? fi->emin - e : 0);
    uint64_t q;
    if (drop >= 54) q = 0;
    else if (drop == 53) q = m53 > ((uint64_t)1 << 52);      /* above half the least subnormal */
    else if (drop == 0) q = m53;                              /* fp64: exact */
    else {
        q = m53 >> drop;
        uint64_t rem = m53 & (((uint64_t)1 << drop) - 1), half = (uint64_t)1 << (drop - 1);
        q += rem > half || (rem == half && (q & 1));
    }
    uint64_t bits;
    if (e < fi->emin) bits = q;                               /* exp field 0 (+carry) */
    else {
        if (q >> (p + 1)) { q >>= 1; e++; }
        if (e > l->emax || (e == l->emax && (q - ((uint64_t)1 << p)) > l->maxm)) {
            if (fi->has_inf) return pack(f, l, neg, (uint64_t)((1 << fi->ebits) - 1), 0);
            return pack(f, l, neg, (uint64_t)(l->emax + fi->bias), l->maxm);
        }
        bits = ((uint64_t)(e + fi->bias - 1) << fi->mbits) + q;
    }
    if (!bits && !l->neg0) return 0;
    return pack(f, l, neg, bits >> fi->mbits, bits & (((uint64_t)1 << fi->mbits) - 1));
}

/* Formats of 8 bits or fewer: a table indexed by the double's exponent
 * (clamped to where the result can vary), its top p+1 significand bits and
 * a sticky bit holds every positive result of quant_normal. */
static void qtab_build(mma_fmt f)
{
    const fmt_lim *l = &lims[f];
    mx_qtab *q = &mx_qtabs[f];
    q->nb = l->fi->mbits + 1;
    q->elo = l->fi->emin - l->fi->mbits - 2;
    q->ehi = l->emax + 1;
    q->neg0 = l->neg0;
    q->neg_bit = !l->fi->has_sign ? 0 : l->fnuz ? 0x80 : (uint64_t)1 << (l->fi->width - 1);
    size_t n = (size_t)(q->ehi - q->elo + 1) << (q->nb + 1);
    uint8_t *t = malloc(n);
    if (!t) return;                                   /* the slow path then */
    for (size_t i = 0; i < n; i++) {
        int32_t e = q->elo + (int32_t)(i >> (q->nb + 1));
        uint64_t top = (i >> 1) & (((uint64_t)1 << q->nb) - 1);
        uint64_t m53 = ((uint64_t)1 << 52) | (top << (52 - q->nb)) | (i & 1);
        t[i] = (uint8_t)quant_normal(f, l, 0, e, m53);
    }
    q->t = t;
}

uint64_t mx_quantize_slow(mma_fmt f, double v)
{
    uint64_t db;
    memcpy(&db, &v, 8);
    uint64_t be = (db >> 52) & 0x7ff;
    const fmt_lim *lp = &lims[f];
    if (be != 0 && be != 0x7ff && f != MMA_FMT_UE8M0)        /* normal double */
        return quant_normal(f, lp, (int)(db >> 63), (int32_t)be - 1023,
                            (db & 0xfffffffffffffull) | 0x10000000000000ull);
    fmt_lim l = *lp;
    const mma_format_info *fi = l.fi;
    if (v != v) {
        if (l.fnuz) return 0x80;
        if (f == MMA_FMT_E4M3) return 0x7f;
        if (!fi->has_inf) return 0;
        return pack(f, &l, 0, (uint64_t)((1 << fi->ebits) - 1), (uint64_t)1 << (fi->mbits - 1));
    }
    int neg = signbit(v) != 0;
    double a = fabs(v);
    if (isinf(a)) {
        if (fi->has_inf) return pack(f, &l, neg, (uint64_t)((1 << fi->ebits) - 1), 0);
        return pack(f, &l, neg, (uint64_t)(l.emax + fi->bias), l.maxm);
    }
    if (a == 0) return mx_encode(f, -1, MMA_RNE, neg, 0, 0, 0);
    int ex;
    double m = frexp(a, &ex);                             /* [0.5, 1) */
    uint64_t mag = (uint64_t)ldexp(m, 64);                /* exact: 53 bits */
    return mx_encode(f, -1, MMA_RNE, neg, mag, ex - 1, 0);
}

/* ---- the accumulator ---------------------------------------------------- */
void mma_acc_clear(mma_acc *a)
{
    memset(a->s, 0, sizeof a->s);
    a->lo = MMA_ACC_SLOTS + 4;
    a->hi = -1;
    a->nan = a->pinf = a->ninf = 0;
}

void mma_acc_reset(mma_acc *a)
{
    if (a->lo <= a->hi) memset(a->s + a->lo, 0, sizeof(int64_t) * (size_t)(a->hi - a->lo + 1));
    a->lo = MMA_ACC_SLOTS + 4;
    a->hi = -1;
    a->nan = a->pinf = a->ninf = 0;
}

static inline void add64(mma_acc *a, int neg, uint64_t sig, int32_t lsb)
{
    int32_t pos = lsb - MMA_ACC_SLOT_LO;
    int s = pos >> 5, off = pos & 31;
    unsigned __int128 v = (unsigned __int128)sig << off;
    int64_t p0 = (int64_t)(uint32_t)v, p1 = (int64_t)(uint32_t)(v >> 32), p2 = (int64_t)(uint32_t)(v >> 64);
    if (neg) { a->s[s] -= p0; a->s[s + 1] -= p1; a->s[s + 2] -= p2; }
    else     { a->s[s] += p0; a->s[s + 1] += p1; a->s[s + 2] += p2; }
    if (s < a->lo) a->lo = s;
    if (s + 2 > a->hi) a->hi = s + 2;
}

void mx_acc_add(mma_acc *a, int neg, unsigned __int128 sig, int32_t lsb)
{
    if (!sig) return;
    if (lsb < MMA_ACC_SLOT_LO || lsb > MMA_ACC_SLOT_LO + 32 * MMA_ACC_SLOTS - 256) {
        abort();          /* cannot happen: every format's products fit */
    }
    while (sig) {
        add64(a, neg, (uint64_t)sig & 0xffffffffffffffffull, lsb);
        sig >>= 64;
        lsb += 64;
    }
}

void mx_acc_term(mma_acc *a, mx_term t)
{
    switch (t.cls) {
    case MMA_NAN: a->nan = 1; break;
    case MMA_INF: if (t.neg) a->ninf = 1; else a->pinf = 1; break;
    case MMA_FINITE: add64(a, t.neg, t.sig, t.e); break;
    default: break;
    }
}

static inline void acc_prod(mma_acc *a, mx_term x, mx_term y)
{
    if (x.cls == MMA_FINITE && y.cls == MMA_FINITE) {
        unsigned __int128 s = (unsigned __int128)x.sig * y.sig;
        int32_t e = (int32_t)x.e + y.e;
        if (!(s >> 64)) add64(a, x.neg ^ y.neg, (uint64_t)s, e);
        else mx_acc_add(a, x.neg ^ y.neg, s, e);
        return;
    }
    if (x.cls == MMA_NAN || y.cls == MMA_NAN) { a->nan = 1; return; }
    if (x.cls == MMA_INF || y.cls == MMA_INF) {
        if (x.cls == MMA_ZERO || y.cls == MMA_ZERO) { a->nan = 1; return; }
        if (x.neg ^ y.neg) a->ninf = 1; else a->pinf = 1;
    }
}

void mx_acc_prod(mma_acc *a, mx_term x, mx_term y) { acc_prod(a, x, y); }

static void acc_prod_special(mma_acc *a, mx_term x, mx_term y)
{
    if (x.cls == MMA_NAN || y.cls == MMA_NAN) { a->nan = 1; return; }
    if (x.cls == MMA_ZERO || y.cls == MMA_ZERO) { a->nan = 1; return; }   /* 0 * Inf */
    if (x.neg ^ y.neg) a->ninf = 1; else a->pinf = 1;
}

/* product of two terms as a term (scales: small significands) */
static mx_term term_mul(mx_term x, mx_term y, unsigned __int128 *sig)
{
    mx_term p;
    p.neg = x.neg ^ y.neg;
    p.e = 0;
    p.sig = 0;
    *sig = 0;
    if (x.cls == MMA_NAN || y.cls == MMA_NAN) p.cls = MMA_NAN;
    else if (x.cls == MMA_INF || y.cls == MMA_INF)
        p.cls = (x.cls == MMA_ZERO || y.cls == MMA_ZERO) ? MMA_NAN : MMA_INF;
    else if (x.cls == MMA_ZERO || y.cls == MMA_ZERO) p.cls = MMA_ZERO;
    else { p.cls = MMA_FINITE; *sig = (unsigned __int128)x.sig * y.sig; }
    return p;
}

void mma_acc_dot(mma_acc *a, const mma_unit *u, uint64_t c, const uint64_t *av,
                const uint64_t *bv, const uint64_t *sa, const uint64_t *sb,
                int with_c)
{
    int neg = (u->flags & MMA_F_NEG) != 0;     /* neg=1: c - sum a*b */
    if (u->scale == MMA_FMT_NONE) {
        const mx_nterm *na = mx_ntab[u->a], *nb = mx_ntab[u->b];
        if (neg) {
            for (int k = 0; k < u->k; k++) {
                mx_term x = mx_decode(u->a, av[k]);
                x.neg ^= 1;
                acc_prod(a, x, mx_decode(u->b, bv[k]));
            }
        } else if (na && nb) {
            /* significands of at most 11 bits: a product shifted into place
             * spans two 32-bit digits; zeros add 0; no branch per term */
            uint64_t ma = mx_wmask[u->a], mb = mx_wmask[u->b];
            int lo = a->lo, hi = a->hi;
            unsigned fl = 0;
            for (int k = 0; k < u->k; k++) {
                mx_nterm x = na[av[k] & ma], y = nb[bv[k] & mb];
                fl |= x.flags | y.flags;
                int32_t pos = (int32_t)x.e + y.e - MMA_ACC_SLOT_LO;
                int s = pos >> 5;
                uint64_t v = (uint64_t)((uint32_t)x.sig * y.sig) << (pos & 31);
                int64_t m = -(int64_t)((x.flags ^ y.flags) & 1);
                a->s[s] += (((int64_t)(uint32_t)v) ^ m) - m;
                a->s[s + 1] += (((int64_t)(v >> 32)) ^ m) - m;
                lo = s < lo ? s : lo;
                hi = s + 1 > hi ? s + 1 : hi;
            }
            a->lo = lo;
            a->hi = hi;
            if (fl & 6)                                  /* NaN or Inf: the IEEE rules */
                for (int k = 0; k < u->k; k++) {
                    mx_term x = mx_decode(u->a, av[k]), y = mx_decode(u->b, bv[k]);
                    if (x.cls == MMA_NAN || x.cls == MMA_INF || y.cls == MMA_NAN || y.cls == MMA_INF)
                        acc_prod_special(a, x, y);
                }
        } else {
            for (int k = 0; k < u->k; k++) acc_prod(a, mx_decode(u->a, av[k]), mx_decode(u->b, bv[k]));
        }
    } else {
        for (int k = 0; k < u->k; k++) {
            int blk = k / u->block;
            mx_term x = mx_decode(u->a, av[k]), y = mx_decode(u->b, bv[k]);
            mx_term sx = mx_decode(u->scale, sa[blk]), sy = mx_decode(u->scale, sb[blk]);
            unsigned __int128 s1, s2, s3;
            mx_term q = term_mul(term_mul(x, y, &s1), term_mul(sx, sy, &s2), &s3);
            q.neg ^= neg;
            if (q.cls == MMA_FINITE)                      /* 4 small significands */
                mx_acc_add(a, q.neg, s1 * s2, (int32_t)x.e + y.e + sx.e + sy.e);
            else mx_acc_term(a, q);
        }
    }
    if (with_c) mx_acc_term(a, mx_decode(u->c, c));
}

mma_xval mma_acc_value(const mma_acc *a)
{
    mma_xval v = {MMA_ZERO, 0, 0, 0, 0};
    if (a->nan || (a->pinf && a->ninf)) { v.cls = MMA_NAN; return v; }
    if (a->pinf || a->ninf) { v.cls = MMA_INF; v.neg = a->ninf; return v; }
    if (a->lo > a->hi) return v;
    uint32_t d[MMA_ACC_SLOTS + 8];
    int lo = a->lo, top = a->hi;
    int64_t carry = 0;
    for (int i = lo; i <= top; i++) {
        int64_t x = a->s[i] + carry;
        d[i] = (uint32_t)x;
        carry = (x - (int64_t)(uint32_t)x) >> 32;
    }
    while (carry != 0 && carry != -1) {
        d[++top] = (uint32_t)carry;
        carry = (carry - (int64_t)(uint32_t)carry) >> 32;
    }
    if (carry == -1) {                                   /* negative: negate */
        v.neg = 1;
        uint64_t c1 = 1;
        for (int i = lo; i <= top; i++) {
            uint64_t x = (uint64_t)(uint32_t)~d[i] + c1;
            d[i] = (uint32_t)x;
            c1 = x >> 32;
        }
    }
    int t = top;
    while (t >= lo && d[t] == 0) t--;
    if (t < lo) { v.neg = 0; return v; }
    v.cls = MMA_FINITE;
    int lz = __builtin_clz(d[t]);
    uint32_t d1 = t - 1 >= lo ? d[t - 1] : 0, d2 = t - 2 >= lo ? d[t - 2] : 0;
    unsigned __int128 w = ((unsigned __int128)d[t] << 64) | ((unsigned __int128)d1 << 32) | d2;
    int sh = 32 - lz;                                    /* leading bit at 95-lz -> 63 */
    v.mag = (uint64_t)(w >> sh);
    int sticky = (w & (((unsigned __int128)1 << sh) - 1)) != 0;
    for (int i = t - 3; i >= lo && !sticky; i--) sticky = d[i] != 0;
    v.sticky = sticky;
    v.e = MMA_ACC_SLOT_LO + 32 * t + (31 - lz);
    return v;
}

double mma_xval_double(mma_xval v)
{
    switch (v.cls) {
    case MMA_NAN: return NAN;
    case MMA_INF: return v.neg ? -INFINITY : INFINITY;
    case MMA_ZERO: return 0.0;
    default: {
        /* round to 53 bits with the sticky bit (RNE), then scale */
        uint64_t m = v.mag >> 11, rem = v.mag & 0x7ff;
        if (rem > 0x400 || (rem == 0x400 && (v.sticky || (m & 1)))) m++;
        double x = ldexp((double)m, v.e - 52);
        return v.neg ? -x : x;
    }
    }
}

int32_t mx_ulp_exp(mma_xval v, mma_fmt d)
{
    const mma_format_info *fi = mma_format(d);
    int32_t e = v.cls == MMA_FINITE && v.e > fi->emin ? v.e : fi->emin;
    return e - fi->mbits;
}

/* ---- one result against the exact value --------------------------------- */
static int is_zero_bits(mma_fmt f, uint64_t x)
{
    mx_term t = mx_decode(f, x);
    return t.cls == MMA_ZERO;
}

/* 0 finite, 1 +Inf, 2 -Inf, 3 NaN */
static int special_kind(mx_term t)
{
    if (t.cls == MMA_NAN) return 3;
    if (t.cls == MMA_INF) return t.neg ? 2 : 1;
    return 0;
}

void mx_result(mma_fmt df, uint64_t d, mma_acc *exact, mma_xval v, double ref,
               int has_ref, mx_res *x)
{
    memset(x, 0, sizeof *x);
    mx_term td = mx_decode(df, d);
    uint64_t cr = 0;
    int ck;                                              /* kind of RNE(exact) */
    if (v.cls == MMA_NAN) ck = 3;
    else if (v.cls == MMA_INF) ck = v.neg ? 2 : 1;
    else {
        cr = v.cls == MMA_ZERO ? 0 : mx_encode(df, -1, MMA_RNE, v.neg, v.mag, v.e, v.sticky);
        ck = special_kind(mx_decode(df, cr));
    }
    int dk = special_kind(td);
    if (ck || dk) {
        x->flags = MX_R_SPECIAL | (ck != dk ? MX_R_SPMISMATCH : 0);
        return;
    }
    if (!(d == cr || (td.cls == MMA_ZERO && is_zero_bits(df, cr)))) x->flags |= MX_R_NOTCR;
    /* residual d - x, exactly, then rounded to a double */
    mx_term neg = td;
    neg.neg ^= 1;
    mx_acc_term(exact, neg);
    mma_xval r = mma_acc_value(exact);
    mx_acc_term(exact, td);
    double rd = -mma_xval_double(r);                        /* d - x */
    double xd = mma_xval_double(v);
    x->abs = rd;
    x->ulp = ldexp(rd, -mx_ulp_exp(v, df));
    x->mag = fabs(xd);
    if (v.cls == MMA_ZERO) {
        if (rd != 0) x->flags |= MX_R_RELINF;
        x->rel = 0;
    } else {
        x->rel = fabs(rd) / fabs(xd);
    }
    if (has_ref) {
        double dv = term_value(td);
        if (!(dv == ref)) x->flags |= MX_R_NEFP32;
    }
}

/* ---- the sequential FP32 reference ---------------------------------------- */
double mx_fp32_ref(const mma_unit *u, double acc, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k)
{
    if (u->d == MMA_FMT_FP64) {
        double s = acc;
        for (int i = 0; i < k; i++) {
            double x = mx_value(u->a, a[i]), y = mx_value(u->b, b[i]);
            if (sa) { x = ldexp(x, (int)mx_decode(u->scale, sa[i / u->block]).e); y = ldexp(y, (int)mx_decode(u->scale, sb[i / u->block]).e); }
            s = fma(x, y, s);
        }
        return s;
    }
    float s = (float)acc;
    if (!sa) {
        for (int i = 0; i < k; i++) s = fmaf(valuef(u->a, a[i]), valuef(u->b, b[i]), s);
        return s;
    }
    for (int i = 0; i < k; i++) {
        double x = mx_value(u->a, a[i]) * mx_value(u->scale, sa[i / u->block]);
        double y = mx_value(u->b, b[i]) * mx_value(u->scale, sb[i / u->block]);
        s = fmaf((float)x, (float)y, s);
    }
    return s;
}

/* ---- the public side (mmaref_metrics.h) ----------------------------------- */
static int valid_fmt(mma_fmt f) { return f > MMA_FMT_NONE && f < MMA_FMT_COUNT; }

double mma_to_double(mma_fmt f, uint64_t bits)
{
    if (!valid_fmt(f)) return NAN;
    mx_tables_init();
    return mx_value(f, bits);
}

/* f's NaN for a NaN double: IEEE-like formats keep the sign and the top
 * payload bits and are quiet; the 8-bit formats have one NaN (per sign) */
static uint64_t nan_of(mma_fmt f, const fmt_lim *l, double v)
{
    const mma_format_info *fi = l->fi;
    uint64_t db;
    memcpy(&db, &v, 8);
    int neg = (int)(db >> 63);
    if (f == MMA_FMT_FP64) return db;
    if (l->fnuz) return 0x80;
    if (f == MMA_FMT_UE8M0) return 0xff;
    if (f == MMA_FMT_E4M3 || f == MMA_FMT_UE4M3) return pack(f, l, neg, (uint64_t)((1 << fi->ebits) - 1), l->maxm + 1);
    if (!fi->has_inf) return 0;
    uint64_t pay = (db & 0xfffffffffffffull) >> (52 - fi->mbits);
    pay |= (uint64_t)1 << (fi->mbits - 1);               /* quiet */
    return pack(f, l, neg, (uint64_t)((1 << fi->ebits) - 1), pay);
}

uint64_t mma_from_double(mma_fmt f, double v, mma_overflow ovf)
{
    if (!valid_fmt(f)) return 0;
    mx_tables_init();
    fmt_lim l = limits(f);
    const mma_format_info *fi = l.fi;
    if (v != v) return nan_of(f, &l, v);
    uint64_t r = mx_quantize(f, v);
    if (ovf == MMA_OVF_INF) return r;
    int neg = signbit(v) != 0;
    uint64_t maxfin = pack(f, &l, neg, (uint64_t)(l.emax + fi->bias), l.maxm);
    if (ovf == MMA_OVF_SATURATE) return mma_decode(f, r).cls == MMA_INF ? maxfin : r;
    /* MMA_OVF_NAN: only formats with a NaN but no Inf differ from the rule
     * above, where v rounds (exponent unbounded) beyond the largest value */
    if (fi->has_inf || r != maxfin || f == MMA_FMT_E2M1 || f == MMA_FMT_E3M2 || f == MMA_FMT_E2M3)
        return r;
    double a = fabs(v);
    if (!isinf(a)) {
        int e;
        frexp(a, &e);                                     /* a in [2^(e-1), 2^e) */
        double ulp = ldexp(1.0, e - 1 - fi->mbits);
        if (nearbyint(a / ulp) * ulp <= mx_fmt_max(f)) return r;
    }
    return nan_of(f, &l, copysign(NAN, v));
}

void mma_acc_add_enc(mma_acc *a, mma_fmt f, uint64_t bits, int negate)
{
    mx_term t = mx_decode(f, bits);
    t.neg ^= (uint8_t)(negate != 0);
    mx_acc_term(a, t);
}

uint64_t mma_xval_round(mma_xval v, mma_fmt f, int p, mma_rounding rho)
{
    if (!valid_fmt(f)) return 0;
    mx_tables_init();
    if (v.cls == MMA_NAN) return nan_of(f, &lims[f], NAN);
    if (v.cls == MMA_INF) return mx_quantize(f, v.neg ? -INFINITY : INFINITY);
    if (v.cls == MMA_ZERO) return mx_encode(f, p, rho, 0, 0, 0, 0);
    return mx_encode(f, p, rho, v.neg, v.mag, v.e, v.sticky);
}
