/* The vector suites (docs/suites.md): named stimulus for one unit.
 * Vector i of a suite depends only on (seed, suite, i), so shards are
 * independent and concatenate to the unsharded file. */
#include "gen_file.h"

#include <pthread.h>
#include <string.h>

typedef struct {
    const mma_unit *u;
    mma_rng *r;
    mma_vec *v;
    int sigbits;   /* significand mode of rnd_fin, set per vector by s_normal */
    int ieee;      /* the unit has IEEE semantics: compliance mixes in the ieee- suites */
} G;

/* ---- encodings ------------------------------------------------------- */
/* format facts, copied once (the generator asks for them per element) */
static mma_format_info fcache[MMA_FMT_COUNT];

/* what enc needs of a format, precomputed: it runs twice per product term */
typedef struct {
    int mb, emin, emax, bias, e4m3;
    uint64_t mmask;        /* significand bits that exist (tf32: the top 10) */
    uint64_t sign;         /* the sign bit; 0 without one */
    int fnuz;              /* -0 is the NaN: a zero stays unsigned */
    uint64_t one;          /* 1.0 */
    uint64_t mark[6];      /* the neighbours suite's landmarks (mark_init) */
    int nmark;
} fenc;
static fenc fenc_of[MMA_FMT_COUNT];
static pthread_once_t fcache_once = PTHREAD_ONCE_INIT;

static void mark_init(mma_fmt f);

static void fcache_init(void)
{
    for (int f = 1; f < MMA_FMT_COUNT; f++) {
        const mma_format_info *fi = mma_format((mma_fmt)f);
        fcache[f] = *fi;
        int top = (1 << fi->ebits) - 1;
        if (fi->has_inf) top--;                /* IEEE: all-ones is Inf/NaN */
        fenc *x = &fenc_of[f];
        x->mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
        x->emin = fi->emin;
        x->emax = top - fi->bias;
        x->bias = fi->bias;
        x->e4m3 = f == MMA_FMT_E4M3;
        x->mmask = (((uint64_t)1 << x->mb) - 1) & (f == MMA_FMT_TF32 ? ~(uint64_t)0x1fff : ~(uint64_t)0);
        x->fnuz = f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ;
        x->sign = !fi->has_sign ? 0 : x->fnuz ? 0x80 : (uint64_t)1 << (fi->width - 1);
        mark_init((mma_fmt)f);
    }
}

#define FI(f) (&fcache[f])
static inline int emax_of(mma_fmt f) { return fenc_of[f].emax; }

/* sign neg (0 or 1), exponent e clamped to the format's normal range, the
 * significand bits m (already masked to the format's); branch-free, for
 * s_normal's vectorized loop */
static inline uint64_t enc_v(const fenc *x, uint64_t neg, int e, uint64_t m)
{
    e = e < x->emin ? x->emin : e;
    e = e > x->emax ? x->emax : e;
    m = (x->e4m3 & (e == x->emax) & (m == 7)) ? 6 : m;        /* 0x7f is NaN */
    uint64_t bits = ((uint64_t)(int64_t)(e + x->bias) << x->mb) | m;
    return bits | ((neg & (uint64_t)(bits != 0 || !x->fnuz)) ? x->sign : 0);
}

static inline uint64_t enc(mma_fmt f, int neg, int e, uint64_t m)
{
    return enc_v(&fenc_of[f], neg != 0, e, m & fenc_of[f].mmask);
}

/* +-2^e, subnormal if needed, 0 if below the format's range */
static uint64_t pow2(mma_fmt f, int neg, int e)
{
    const mma_format_info *fi = FI(f);
    int mb = fi->mbits;
    if (e >= fi->emin) return enc(f, neg, e, 0);
    if (e < fi->emin - mb) return 0;
    uint64_t m = (uint64_t)1 << (mb - (fi->emin - e));
    if (f == MMA_FMT_TF32) m <<= 13;
    uint64_t bits = m;
    if (neg && fi->has_sign) bits |= (f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ) ? 0x80 : (uint64_t)1 << (fi->width - 1);
    return bits;
}

static uint64_t rnd_bits(G *g, mma_fmt f)
{
    int w = FI(f)->width;
    uint64_t x = mma_rng_next(g->r);
    return w == 64 ? x : x & (((uint64_t)1 << w) - 1);
}

/* Significand bits of rnd_fin: all random, or only the top `g->sigbits`
 * random and the rest zero (-1: all random).  Few random bits keep hardware
 * vector files small without weakening what the sums probe: alignment and
 * cancellation are driven by the exponents. */

static inline uint64_t rnd_fin_r(mma_rng *r, int sigbits, mma_fmt f, int elo, int ehi)
{
    const mma_format_info *fi = FI(f);
    int top = emax_of(f);
    if (elo < fi->emin) elo = fi->emin;
    if (ehi > top) ehi = top;
    if (ehi < elo) ehi = elo;
    /* one draw: exponent from the high half, sign and significand below */
    uint64_t x = mma_rng_next(r);
    int e = elo + (int)(((x >> 32) * (uint64_t)(ehi - elo + 1)) >> 32);
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    uint64_t m = x & (((uint64_t)1 << mb) - 1);
    if (sigbits >= 0 && sigbits < mb) m = (m >> (mb - sigbits)) << (mb - sigbits);
    return enc(f, (int)((x >> 31) & 1), e, m);
}

/* the significand bits rnd_fin's mode keeps (see sigbits) */
static uint64_t sigmask_of(mma_fmt f, int sigbits)
{
    int mb = fenc_of[f].mb;
    uint64_t m = ((uint64_t)1 << mb) - 1;
    if (sigbits >= 0 && sigbits < mb) m &= ~(((uint64_t)1 << (mb - sigbits)) - 1);
    return m;
}

static uint64_t rnd_fin(G *g, mma_fmt f, int elo, int ehi)
{
    return rnd_fin_r(g->r, g->sigbits, f, elo, ehi);
}

/* +-0 (fnuz formats and those without a sign have only +0) */
static uint64_t zero(mma_fmt f, int neg)
{
    return neg && !fenc_of[f].fnuz ? fenc_of[f].sign : 0;
}

static int has_inf(mma_fmt f) { return FI(f)->has_inf; }
static int has_nan(mma_fmt f)
{
    return f != MMA_FMT_E3M2 && f != MMA_FMT_E2M3 && f != MMA_FMT_E2M1;
}
static uint64_t nan_of(G *g, mma_fmt f)
{
    const mma_format_info *fi = FI(f);
    if (f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ) return 0x80;
    if (f == MMA_FMT_E4M3) return mma_rng_next(g->r) & 1 ? 0xff : 0x7f;
    uint64_t e = (((uint64_t)1 << fi->ebits) - 1);
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    uint64_t m = mma_rng_next(g->r) & (((uint64_t)1 << mb) - 1);
    if (f == MMA_FMT_TF32) m |= (uint64_t)1 << 22;     /* keep it a NaN as tf32 */
    if (!m) m = 1;
    return (e << mb) | m | ((mma_rng_next(g->r) & 1) << (fi->width - 1));
}

/* The encodings an RTL compares against constants, those f has: Inf, a
 * quiet NaN, the largest finite, the smallest normal, the smallest
 * subnormal and 1.0, each once.  Runs inside fcache_init, after f's fenc. */
static void mark_init(mma_fmt f)
{
    fenc *x = &fenc_of[f];
    const mma_format_info *fi = FI(f);
    uint64_t m[6];
    int n = 0;
    x->one = pow2(f, 0, 0);
    if (fi->has_inf) m[n++] = mma_encode(f, (mma_value){MMA_INF, 0, 0, 0});
    if (has_nan(f)) m[n++] = mma_encode(f, (mma_value){MMA_NAN, 0, 0, 0});
    m[n++] = mma_format_max(f);
    m[n++] = pow2(f, 0, fi->emin);
    m[n++] = pow2(f, 0, fi->emin - fi->mbits);
    m[n++] = x->one;
    x->nmark = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < x->nmark; j++) dup |= x->mark[j] == m[i];
        if (!dup) x->mark[x->nmark++] = m[i];
    }
}

/* ---- terms: position j < K is product j, j == K is c ----------------- */
static void fill_zero(G *g)
{
    for (int k = 0; k < g->u->k; k++) { g->v->a[k] = 0; g->v->b[k] = 0; }
    g->v->c = 0;
}

/* Sets term j to about +-2^t (times a random significand if frac);
 * returns 0 if the formats cannot reach it. */
static int set_term(G *g, int j, int neg, int t, int frac)
{
    const mma_unit *u = g->u;
    if (j == u->k) {
        if (t < FI(u->c)->emin - FI(u->c)->mbits || t > emax_of(u->c)) return 0;
        g->v->c = frac && t >= FI(u->c)->emin ? enc(u->c, neg, t, mma_rng_next(g->r)) : pow2(u->c, neg, t);
        return 1;
    }
    int lo_a = FI(u->a)->emin, hi_a = emax_of(u->a);
    int lo_b = FI(u->b)->emin, hi_b = emax_of(u->b);
    int sa = lo_a - FI(u->a)->mbits, sb = lo_b - FI(u->b)->mbits;  /* subnormal floors */
    /* split t = ea + eb with both reachable (subnormals allowed), closest to
     * t/2 (the lower of two equally close) */
    int lo = sa > t - hi_b ? sa : t - hi_b, hi = hi_a < t - sb ? hi_a : t - sb;
    if (lo > hi) return 0;
    int ea = t >= 0 ? t / 2 : -((1 - t) / 2), eb;
    if (ea < lo) ea = lo;
    if (ea > hi) ea = hi;
    eb = t - ea;
    g->v->a[j] = frac && ea >= lo_a ? enc(u->a, neg, ea, mma_rng_next(g->r)) : pow2(u->a, neg, ea);
    g->v->b[j] = pow2(u->b, 0, eb);
    return g->v->a[j] != 0 || t < -1000;
}

static int prod_emax(const mma_unit *u) { return emax_of(u->a) + emax_of(u->b); }
static int prod_emin(const mma_unit *u) { return FI(u->a)->emin + FI(u->b)->emin; }

static void scales(G *g, int wild)
{
    int s = mma_unit_nscales(g->u);
    for (int i = 0; i < s; i++) {
        if (wild) { g->v->sa[i] = rnd_bits(g, g->u->scale); g->v->sb[i] = rnd_bits(g, g->u->scale); continue; }
        if (g->u->scale == MMA_FMT_UE8M0) {
            g->v->sa[i] = 127 + mma_rng_below(g->r, 17) - 8;
            g->v->sb[i] = 127 + mma_rng_below(g->r, 17) - 8;
        } else {
            g->v->sa[i] = 0x30 + mma_rng_below(g->r, 0x20);
            g->v->sb[i] = 0x30 + mma_rng_below(g->r, 0x20);
        }
    }
}

/* ---- suites ----------------------------------------------------------- */
static void s_random(G *g, long i)
{
    const mma_unit *u = g->u;
    g->v->c = rnd_bits(g, u->c);
    for (int k = 0; k < u->k; k++) { g->v->a[k] = rnd_bits(g, u->a); g->v->b[k] = rnd_bits(g, u->b); }
    scales(g, (i & 7) == 0);
}

/* Random bits, but each field's exponent is all zeros (zero, subnormal) or
 * all ones (Inf, NaN) a quarter of the time each: uniform random bits hold
 * few special values in wide formats (a NaN in 1 of 2048 fp64 fields), and
 * the NaN and subnormal rules of a unit only show where they meet. */
static uint64_t rnd_bits_special(G *g, mma_fmt f)
{
    const mma_format_info *fi = FI(f);
    uint64_t x = rnd_bits(g, f), sel = mma_rng_next(g->r) & 3;
    int shift = fi->width - fi->ebits - (fi->has_sign ? 1 : 0);
    uint64_t emask = (((uint64_t)1 << fi->ebits) - 1) << shift;
    return sel == 0 ? x & ~emask : sel == 1 ? x | emask : x;
}

static void s_bits(G *g, long i)
{
    const mma_unit *u = g->u;
    g->v->c = rnd_bits_special(g, u->c);
    for (int k = 0; k < u->k; k++) { g->v->a[k] = rnd_bits_special(g, u->a); g->v->b[k] = rnd_bits_special(g, u->b); }
    scales(g, (i & 7) == 0);
}

/* Random signs and significands; exponents clustered around a centre with
 * a spread of up to F+8 so that alignment truncation bites. */
static void s_normal(G *g, long i)
{
    const mma_unit *u = g->u;
    /* a local copy of the generator: stores to the vector's uint64_t
     * fields could alias g->r, which kept the state out of registers (this
     * loop is most of mmaref gen's time) */
    mma_rng r = *g->r;
    uint64_t *va = g->v->a, *vb = g->v->b;
    int f = u->f ? u->f : 24;
    int lo = prod_emin(u), hi = prod_emax(u);
    int centre = lo + (int)mma_rng_below(&r, (uint64_t)(hi - lo + 1));
    if (mma_rng_next(&r) & 1) centre = (lo + hi) / 2 + (int)mma_rng_below(&r, 9) - 4;
    int spread = (int)mma_rng_below(&r, (uint64_t)f + 9);
    static const int modes[8] = {-1, 3, 2, 1, 3, 2, -1, 4};
    int sigbits = modes[mma_rng_below(&r, 8)];
    /* density: all products, or about a quarter, an eighth, a sixteenth */
    static const int dens[4] = {0, 2, 3, 4};
    int sparse = dens[mma_rng_below(&r, 4)];
    /* The shape of a term (its product's exponent below the centre, how it
     * splits between a and b, a signed zero in a, sparsity) comes from one
     * draw; a's and b's sign and significand from the same draw when both
     * fit in its low 24 bits (8- and 16-bit inputs), else from one draw
     * each.  This loop is most of mmaref gen's time. */
    uint64_t keep = ((uint64_t)1 << sparse) - 1;
    const fenc fa = fenc_of[u->a], fb = fenc_of[u->b];     /* locals: see r */
    uint64_t ma = sigmask_of(u->a, sigbits), mbk = sigmask_of(u->b, sigbits);
    int narrow = fa.mb <= 11 && fb.mb <= 11;
    uint64_t zs[MMA_MAX_K], xs[MMA_MAX_K], ys[MMA_MAX_K];
    for (int k = 0; k < u->k; k++) {
        zs[k] = mma_rng_next(&r);
        if (narrow) { xs[k] = zs[k] << 52; ys[k] = zs[k] << 40; }   /* sign on top */
        else { xs[k] = mma_rng_next(&r); ys[k] = mma_rng_next(&r); }
    }
    /* branch-free, so that the compiler can vectorize it */
    for (int k = 0; k < u->k; k++) {
        uint64_t z = zs[k];
        int t = centre - (int)(((z >> 24 & 0xffff) * (uint64_t)(spread + 1)) >> 16);
        int ea = (t >> 1) + (int)(((z >> 40 & 0xff) * 3) >> 8) - 1;
        uint64_t ak = enc_v(&fa, xs[k] >> 63, ea, (xs[k] >> (narrow ? 52 : 0)) & ma);
        uint64_t bk = enc_v(&fb, ys[k] >> 63, t - ea, (ys[k] >> (narrow ? 52 : 0)) & mbk);
        uint64_t zero_a = (z >> 48 & 15) == 0, zsign = z >> 52 & 1;
        uint64_t drop = (z >> 53 & keep) != 0;
        ak = zero_a ? (zsign && !fa.fnuz ? fa.sign : 0) : ak;
        ak = drop ? 0 : ak;
        bk = drop ? 0 : bk;
        va[k] = ak;
        vb[k] = bk;
    }
    int tc = centre + (int)mma_rng_below(&r, 5) - 2 - (int)mma_rng_below(&r, (uint64_t)spread + 1);
    g->v->c = rnd_fin_r(&r, sigbits, u->c, tc, tc);
    if (mma_rng_below(&r, 8) == 0) g->v->c = zero(u->c, (int)(mma_rng_next(&r) & 1));
    *g->r = r;
    scales(g, 0);
    (void)i;
}

/* Heavy cancellation: pairs X and -X (in products and c) and a small residue. */
static void s_cancel(G *g, long i)
{
    const mma_unit *u = g->u;
    s_normal(g, i);
    int pairs = 1 + (int)mma_rng_below(g->r, (uint64_t)(u->k / 2 > 0 ? u->k / 2 : 1));
    for (int p = 0; p < pairs; p++) {
        int x = (int)mma_rng_below(g->r, (uint64_t)u->k), y = (int)mma_rng_below(g->r, (uint64_t)u->k + 1);
        if (x == y) continue;
        if (y == u->k) {
            /* c = -(a_x * b_x) when representable: use powers of two */
            int t = prod_emin(u) / 2 + (int)mma_rng_below(g->r, (uint64_t)(prod_emax(u) - prod_emin(u) / 2 + 1));
            if (t > emax_of(u->c)) t = emax_of(u->c);
            if (set_term(g, x, 0, t, 0)) set_term(g, u->k, 1, t, 0);
        } else {
            g->v->a[y] = g->v->a[x] ^ ((uint64_t)1 << (FI(u->a)->width - 1));
            g->v->b[y] = g->v->b[x];
            if (u->a == MMA_FMT_E4M3FNUZ || u->a == MMA_FMT_E5M2FNUZ) {
                if (g->v->a[x] == 0 || g->v->a[x] == 0x80) g->v->a[y] = g->v->a[x] = 0x08;
            }
        }
    }
}

/* Summation-order probes (paper section C): X, -X at positions i, j and a
 * small y elsewhere, for every ordered pair of positions including c. */
static void s_order(G *g, long i)
{
    const mma_unit *u = g->u;
    int n = u->k + 1;
    long pair = i % (n * (n - 1));
    int pi = (int)(pair / (n - 1)), pj = (int)(pair % (n - 1));
    if (pj >= pi) pj++;
    int f = u->f ? u->f : 24;
    int hi = prod_emax(u) - 1;
    if (hi > emax_of(u->c) - 1) hi = emax_of(u->c) - 1;
    int x = hi - (int)mma_rng_below(g->r, 4), y = x - f - 3 - (int)mma_rng_below(g->r, 4);
    if (y < prod_emin(u)) y = prod_emin(u);
    fill_zero(g);
    for (int j = 0; j < n; j++) set_term(g, j, 0, y, 0);
    set_term(g, pi, 0, x, 0);
    set_term(g, pj, 1, x, 0);
    scales(g, 0);
}

/* -1 + 1 + eps for every position of eps and every eps down to 2^-(F+4):
 * reveals the fraction bits each position keeps (paper section D). */
static void s_precision(G *g, long i)
{
    const mma_unit *u = g->u;
    int n = u->k + 1, f = u->f ? u->f : 24;
    int depth = f + 5;
    long idx = i % ((long)n * depth);
    int pk = (int)(idx / depth), t = (int)(idx % depth);
    int shift = (int)mma_rng_below(g->r, 5) - 2;
    fill_zero(g);
    int pi = (pk + 1 + (int)mma_rng_below(g->r, (uint64_t)n - 1)) % n;
    int pj = (pi + 1) % n == pk ? (pi + 2) % n : (pi + 1) % n;
    int cancel = (mma_rng_next(g->r) & 3) != 0 && n > 2;
    set_term(g, pi, 0, shift, 0);
    if (cancel && pj != pk) set_term(g, pj, 1, shift, 0);
    set_term(g, pk, (int)(mma_rng_next(g->r) & 1), shift - t, 0);
    scales(g, 0);
}

/* Sums landing at 1 + f*u, f in {0.25, 0.5, 0.75, 1.5}, and negatives: the
 * rounding mode and tie rule of the output (paper section E). */
static void s_rounding(G *g, long i)
{
    const mma_unit *u = g->u;
    int n = u->k + 1;
    static const int fr[4][2] = {{2, 99}, {1, 99}, {1, 2}, {0, 1}};   /* exponents below u */
    int which = (int)(i % 8), neg = which >= 4;
    int p = u->p;
    int base = (int)mma_rng_below(g->r, 7) - 3;
    fill_zero(g);
    int p1 = (int)mma_rng_below(g->r, (uint64_t)n);
    set_term(g, p1, neg, base, 0);
    int q = (p1 + 1 + (int)mma_rng_below(g->r, (uint64_t)n - 1)) % n;
    set_term(g, q, neg, base - p - fr[which & 3][0], 0);
    if (fr[which & 3][1] != 99 && n > 2) {  /* K=1 has no third position */
        int r = q;
        while (r == q || r == p1) r = (r + 1) % n;
        set_term(g, r, neg, base - p - fr[which & 3][1], 0);
    }
    if (u->cadd == MMA_CADD_RD || u->cadd == MMA_CADD_RDZ) {
        /* AMD c step: c = 2^base and products 0.5 ulp + 2^-F2 (relative to
         * c): the round-down to F2 bits before the final RNE decides the
         * tie (paper, FDRDA step 8) */
        if ((i / 8) % 2 == 0 && u->k >= 2) {
            if (base - u->f2 - 1 < prod_emin(u)) base = prod_emin(u) + u->f2 + 1 + (int)mma_rng_below(g->r, 3);
            fill_zero(g);
            set_term(g, u->k, neg, base, 0);
            set_term(g, 0, neg, base - p - 1, 0);
            set_term(g, 1, neg, base - u->f2 - (int)mma_rng_below(g->r, 2), 0);
            return;
        }
    }
    if ((i / 8) % 3 == 1 && n > 3) {          /* a 1-ulp "odd" base for ties */
        int r = (q + 1) % n;
        while (r == q || r == p1) r = (r + 1) % n;
        set_term(g, r, neg, base - p, 0);
    }
    scales(g, 0);
}

static void s_specials(G *g, long i)
{
    const mma_unit *u = g->u;
    int n = u->k + 1;
    int kind = (int)(i % 14);
    int pos = (int)((i / 14) % n);
    s_normal(g, i);
    int k = pos < u->k ? pos : (int)mma_rng_below(g->r, (uint64_t)u->k);
    const mma_format_info *fa = FI(u->a), *fc = FI(u->c);
    switch (kind) {
    case 0:  /* subnormal inputs */
        g->v->a[k] = (mma_rng_next(g->r) & ((((uint64_t)1 << fa->mbits) - 1) << (u->a == MMA_FMT_TF32 ? 13 : 0))) | 1u << (u->a == MMA_FMT_TF32 ? 13 : 0);
        if (pos == u->k) g->v->c = (mma_rng_next(g->r) & ((((uint64_t)1 << fc->mbits) - 1))) | 1;
        break;
    case 1: { /* everything tiny: subnormal products and sums, ezero probes */
        fill_zero(g);
        int lo = prod_emin(u) - fa->mbits;
        for (int j = 0; j < u->k; j++)
            if (mma_rng_next(g->r) & 1) set_term(g, j, (int)(mma_rng_next(g->r) & 1), lo + (int)mma_rng_below(g->r, 40), 1);
        if (mma_rng_next(g->r) & 1) g->v->c = mma_rng_next(g->r) & (((uint64_t)1 << fc->mbits) - 1) & (mma_rng_next(g->r) & 1 ? 0xff : ~0ull);
        break; }
    case 2:  /* signed zeros everywhere */
        fill_zero(g);
        for (int j = 0; j < u->k; j++) { g->v->a[j] = zero(u->a, (int)(mma_rng_next(g->r) & 1)); g->v->b[j] = zero(u->b, (int)(mma_rng_next(g->r) & 1)); }
        g->v->c = zero(u->c, (int)(mma_rng_next(g->r) & 1));
        if (mma_rng_next(g->r) & 1) { g->v->a[k] = rnd_fin(g, u->a, 0, 3); g->v->b[k] = zero(u->b, 1); }
        break;
    case 3:  /* Inf in one position */
        if (pos == u->k && has_inf(u->c)) g->v->c = FI(u->c)->width == 64 ? 0x7ff0000000000000ull | (mma_rng_next(g->r) & 1) << 63 : enc(u->c, 0, 0, 0) | (((uint64_t)1 << fc->ebits) - 1) << fc->mbits | ((mma_rng_next(g->r) & 1) << (fc->width - 1));
        else if (has_inf(u->a)) { g->v->a[k] = (((uint64_t)1 << fa->ebits) - 1) << (u->a == MMA_FMT_TF32 ? 23 : fa->mbits) | ((mma_rng_next(g->r) & 1) << (fa->width - 1)); }
        break;
    case 4:  /* 0 * Inf */
        if (has_inf(u->a)) { g->v->a[k] = (((uint64_t)1 << fa->ebits) - 1) << (u->a == MMA_FMT_TF32 ? 23 : fa->mbits); g->v->b[k] = zero(u->b, (int)(mma_rng_next(g->r) & 1)); }
        break;
    case 5:  /* +Inf and -Inf */
        if (has_inf(u->a) && u->k > 1) {
            uint64_t inf = (((uint64_t)1 << fa->ebits) - 1) << (u->a == MMA_FMT_TF32 ? 23 : fa->mbits);
            int k2 = (k + 1) % u->k;
            g->v->a[k] = inf; g->v->a[k2] = inf | ((uint64_t)1 << (fa->width - 1));
            g->v->b[k] = rnd_fin(g, u->b, 0, 2); g->v->b[k2] = rnd_fin(g, u->b, 0, 2);
            g->v->b[k] &= ~((uint64_t)1 << (FI(u->b)->width - 1)); g->v->b[k2] = g->v->b[k];
        }
        break;
    case 6:  /* NaN with payloads, in a, b or c */
        if (pos == u->k && has_nan(u->c)) g->v->c = nan_of(g, u->c);
        else if (has_nan(u->a) && (mma_rng_next(g->r) & 1)) g->v->a[k] = nan_of(g, u->a);
        else if (has_nan(u->b)) g->v->b[k] = nan_of(g, u->b);
        break;
    case 7:  /* tf32 low-bit payloads; garbage low bits on finite values */
        if (u->a == MMA_FMT_TF32) {
            static const uint32_t pat[] = {0x7f800001, 0xff800fff, 0x7f801000, 0x7fc00000, 0x00001fff};
            g->v->a[k] = pat[mma_rng_below(g->r, 5)];
            for (int j = 0; j < u->k; j++) if (j != k) g->v->b[j] |= mma_rng_next(g->r) & 0x1fff;
        } else if (u->c == MMA_FMT_FP32) {
            g->v->c = 0x7f800000 | (mma_rng_next(g->r) & 0x7fffff) | 1;   /* NaN payload in c */
        }
        break;
    case 8: { /* overflow of products and of the sum */
        int hi = prod_emax(u);
        for (int j = 0; j < u->k; j++) set_term(g, j, 0, hi - (int)mma_rng_below(g->r, 2), 1);
        if (mma_rng_next(g->r) & 1) g->v->c = enc(u->c, 0, emax_of(u->c), ~0ull);
        break; }
    case 9:  /* near the output's overflow threshold */
        g->v->c = enc(u->c, (int)(mma_rng_next(g->r) & 1), emax_of(u->c), ~0ull);
        break;
    case 10: /* max finite inputs */
        g->v->a[k] = enc(u->a, (int)(mma_rng_next(g->r) & 1), emax_of(u->a), ~0ull);
        g->v->b[k] = enc(u->b, (int)(mma_rng_next(g->r) & 1), emax_of(u->b), ~0ull);
        break;
    case 11: /* scale NaN and extreme scales */
        if (mma_unit_nscales(u)) {
            int s = (int)mma_rng_below(g->r, (uint64_t)mma_unit_nscales(u));
            if (mma_rng_next(g->r) & 1) g->v->sa[s] = u->scale == MMA_FMT_UE8M0 ? 0xff : 0x7f;
            else g->v->sb[s] = u->scale == MMA_FMT_UE8M0 ? (mma_rng_next(g->r) & 1 ? 0xfe : 0x00) : 0xff;
        }
        break;
    case 12: /* c = 0, products tiny and of mixed sign: where zero terms sit in emax */
        fill_zero(g);
        for (int j = 0; j < u->k; j++)
            if (mma_rng_below(g->r, 3) == 0) set_term(g, j, (int)(mma_rng_next(g->r) & 1), prod_emin(u) + (int)mma_rng_below(g->r, 20), 1);
        set_term(g, k, 0, prod_emin(u) + 20 + (int)mma_rng_below(g->r, 10), 1);
        g->v->c = zero(u->c, (int)(mma_rng_next(g->r) & 1));
        break;
    case 13: /* subnormal output: products near the output's subnormal range */
        fill_zero(g);
        for (int j = 0; j < u->k; j++)
            if (mma_rng_next(g->r) & 1) set_term(g, j, (int)(mma_rng_next(g->r) & 1), fc->emin - (int)mma_rng_below(g->r, (uint64_t)fc->mbits + 4), 1);
        if (mma_rng_next(g->r) & 1) g->v->c = mma_rng_next(g->r) & (((uint64_t)1 << fc->mbits) - 1);
        break;
    }
}

/* Where do zero terms sit when the maximum exponent is found?  c = 0 and
 * every product zero but two: a big one on (RZ) or half-way between (RNE)
 * points of the output's subnormal grid, and a tiny negative one that a
 * zero term's exponent E (ezero) would cut but the big term alone would
 * keep.  The result moves by one unit between the two hypotheses.  Formats
 * whose products cannot reach the output's subnormal range fall back to
 * the specials suite (there ezero cannot matter). */
static void s_ezero(G *g, long i)
{
    const mma_unit *u = g->u;
    const mma_format_info *fd = FI(u->d), *fa = FI(u->a);
    int f = u->f ? u->f : 24;
    int E = (u->flags & MMA_F_NO_EZERO) ? fd->emin - 7 : u->ezero;
    int grid = fd->emin - u->p;
    int rne = u->rho == MMA_RNE;
    int nbmax = fa->mbits;
    while (nbmax > 0 && grid - (rne ? 1 : 0) + nbmax >= E - 1) nbmax--;
    int ebig_lo = grid - (rne ? 1 : 0);
    if (ebig_lo < prod_emin(u) || u->k < 2 || E - f - 1 < ebig_lo - f) { s_specials(g, i); return; }
    fill_zero(g);
    int nb = (int)mma_rng_below(g->r, (uint64_t)nbmax + 1);
    uint64_t odd = ((mma_rng_next(g->r) & (((uint64_t)1 << nb) - 1)) | ((uint64_t)1 << nb) | 1);
    int ebig = ebig_lo + nb;                 /* paper exponent of the big product */
    int ea = ebig / 2, eb = ebig - ea;
    if (ea < fa->emin) { ea = fa->emin; eb = ebig - ea; }
    int j = (int)mma_rng_below(g->r, (uint64_t)u->k);
    uint64_t m = nb ? (odd - ((uint64_t)1 << nb)) << (fa->mbits - nb) : 0;
    if (u->a == MMA_FMT_TF32) m <<= 13;
    g->v->a[j] = enc(u->a, 0, ea, m);
    g->v->b[j] = pow2(u->b, 0, eb);
    int tlo = ebig - f, thi = E - f - 1;
    if (tlo < prod_emin(u) - fa->mbits - FI(u->b)->mbits) tlo = prod_emin(u) - fa->mbits - FI(u->b)->mbits;
    if (thi < tlo) thi = tlo;
    int t = tlo + (int)mma_rng_below(g->r, (uint64_t)(thi - tlo + 1));
    int j2 = (j + 1 + (int)mma_rng_below(g->r, (uint64_t)u->k - 1)) % u->k;
    set_term(g, j2, 1, t, 0);
    g->v->c = zero(u->c, (int)(mma_rng_next(g->r) & 1));
    scales(g, 0);
}

/* ---- IEEE 754 boundaries: zeros, overflow, tininess, sticky bits, NaN
 * operands.  Sums are built from exact powers of two (set_term) so that
 * they land exactly where the output rounding decides; a unit whose
 * formats cannot reach a boundary gets the nearest suite that applies. */

/* block scales of 1, so that set_term's values are the products' values */
static void scales_one(G *g)
{
    int s = mma_unit_nscales(g->u);
    for (int i = 0; i < s; i++) g->v->sa[i] = g->v->sb[i] = g->u->scale == MMA_FMT_UE8M0 ? 127 : 0x38;
}

/* a free position (product or c), or -1 */
static int free_pos(G *g, unsigned char *used)
{
    int n = g->u->k + 1;
    for (int tries = 0; tries < 2 * n; tries++) {
        int j = (int)mma_rng_below(g->r, (uint64_t)n);
        if (!used[j]) { used[j] = 1; return j; }
    }
    for (int j = 0; j < n; j++) if (!used[j]) { used[j] = 1; return j; }
    return -1;
}

/* +-2^t at a free position; 0 when no position or the formats cannot */
static int put(G *g, unsigned char *used, int neg, int t)
{
    int j = free_pos(g, used);
    if (j < 0) return 0;
    if (set_term(g, j, neg, t, 0)) return 1;
    if (j == g->u->k) g->v->c = 0; else g->v->a[j] = g->v->b[j] = 0;
    used[j] = 0;
    return 0;
}

/* the output's largest finite as q * 2^(E - p), q of p+1 bits */
static void out_max(const mma_unit *u, int *E, uint64_t *q)
{
    mma_value v = mma_decode(u->d, mma_format_max(u->d));
    int mb = FI(u->d)->mbits;
    *E = v.exp + mb;
    *q = v.sig >> (mb - u->p);
}

/* Overflow boundaries per direction: the output's largest finite (as c,
 * or as 2^(E+1) less one or two ulps), then perturbations of -2 .. +1/16
 * ulp of either sign, mostly outward, and both signs of the whole sum. */
static void s_ieee_overflow(G *g, long i)
{
    const mma_unit *u = g->u;
    int p = u->p, E, neg = (int)(mma_rng_next(g->r) & 1);
    uint64_t q;
    unsigned char used[MMA_MAX_K + 1] = {0};
    out_max(u, &E, &q);
    fill_zero(g);
    scales_one(g);
    const fenc *fc = &fenc_of[u->c];
    int ok = 0;
    if (E <= fc->emax && E >= fc->emin && p <= fc->mb && (u->c != MMA_FMT_E4M3 || u->d == MMA_FMT_E4M3 || E < 8)) {
        g->v->c = enc(u->c, neg, E, (q - ((uint64_t)1 << p)) << (fc->mb - p));
        used[u->k] = 1;
        ok = 1;
    } else if (u->k >= 2) {
        uint64_t gap = ((uint64_t)2 << p) - q;           /* 1, or 2 for e4m3 */
        ok = put(g, used, neg, E + 1) && put(g, used, !neg, E - p + (gap == 2));
    }
    if (!ok) { s_specials(g, i / 2 * 14 + 8 + (i & 1)); return; }
    int nd = 1 + (int)(i & 1);
    for (int t = 0; t < nd; t++) {
        int k = (int)mma_rng_below(g->r, 7) - 1;           /* 2^(E-p+1) .. 2^(E-p-5) */
        int dneg = (mma_rng_next(g->r) & 3) == 0 ? !neg : neg;
        /* beyond the products' reach: the largest they have, a sticky-only push */
        if (!put(g, used, dneg, E - p - k)) put(g, used, dneg, prod_emax(u) - 1 < E - p - k ? prod_emax(u) - 1 : E - p - k);
    }
}

/* Tininess before and after rounding: sums just below 2^emin (the ones
 * that round up to 2^emin are tiny before rounding only), just above it,
 * in the subnormal range, and around half the smallest subnormal. */
static void s_ieee_tiny(G *g, long i)
{
    const mma_unit *u = g->u;
    int p = u->p, emin = FI(u->d)->emin, neg = (int)(mma_rng_next(g->r) & 1);
    unsigned char used[MMA_MAX_K + 1] = {0};
    fill_zero(g);
    scales_one(g);
    int j = (int)mma_rng_below(g->r, 4), ok;
    switch (i % 4) {
    case 0:  ok = put(g, used, neg, emin) && put(g, used, !neg, emin - p - 1 - j); break;
    case 1:  ok = put(g, used, neg, emin) && put(g, used, neg, emin - p - 1 - j); break;
    case 2: {
        int s = (int)mma_rng_below(g->r, (uint64_t)p + 1);
        ok = put(g, used, neg, emin - 1 - s);
        if (ok && (mma_rng_next(g->r) & 1)) put(g, used, (int)(mma_rng_next(g->r) & 1), emin - p - 1 - j);
        break; }
    default: ok = put(g, used, neg, emin - p - 1);
        if (ok && j) put(g, used, (int)(mma_rng_next(g->r) & 1), emin - p - 1 - j);
        break;
    }
    if (!ok) s_specials(g, i / 2 * 14 + 13);        /* products near the subnormal range */
}

/* Signed zeros: every term a zero of random sign (all -0 half the time),
 * exact cancellations X - X among products and c, and cancellations that
 * leave less than half the smallest subnormal (rounded to zero or not). */
static void s_ieee_zero(G *g, long i)
{
    const mma_unit *u = g->u;
    unsigned char used[MMA_MAX_K + 1] = {0};
    fill_zero(g);
    scales_one(g);
    int allneg = (mma_rng_next(g->r) & 1) != 0;
    for (int k = 0; k < u->k; k++) {                    /* zero products of random sign */
        int sn = allneg ? 1 : (int)(mma_rng_next(g->r) & 1);
        int za = (mma_rng_next(g->r) & 1) != 0;        /* which factor is the zero */
        uint64_t x = (mma_rng_next(g->r) & 3) ? rnd_fin(g, za ? u->b : u->a, -4, 4) : zero(za ? u->b : u->a, 0);
        x &= ~fenc_of[za ? u->b : u->a].sign;
        if (za) { g->v->a[k] = zero(u->a, sn); g->v->b[k] = x; }
        else { g->v->a[k] = x; g->v->b[k] = zero(u->b, sn); }
    }
    g->v->c = zero(u->c, allneg ? 1 : (int)(mma_rng_next(g->r) & 1));
    if (i % 3 == 0) return;
    int lo = prod_emin(g->u) + 2, hi = emax_of(u->d) - 2;
    if (hi > prod_emax(u) - 1) hi = prod_emax(u) - 1;
    if (hi < lo) hi = lo;
    int pairs = 1 + (int)mma_rng_below(g->r, (uint64_t)(u->k / 2 > 0 ? (u->k < 8 ? u->k / 2 : 4) : 1));
    for (int pr = 0; pr < pairs; pr++) {
        int t = lo + (int)mma_rng_below(g->r, (uint64_t)(hi - lo + 1)), sn = (int)(mma_rng_next(g->r) & 1);
        if (!put(g, used, sn, t)) continue;
        if (!put(g, used, !sn, t)) break;
    }
    if (i % 3 == 2)                                       /* less than half the smallest subnormal */
        put(g, used, (int)(mma_rng_next(g->r) & 1), FI(u->d)->emin - u->p - 2 - (int)mma_rng_below(g->r, 4));
}

/* Sticky-position cases: a term B with a random significand and small
 * terms of opposite signs below its rounding position (their difference
 * decides a directed rounding, and whether the sum is exact), sometimes
 * with a half-ulp term: a tie that they break, or, when they cancel, a
 * true tie. */
static void s_ieee_sticky(G *g, long i)
{
    const mma_unit *u = g->u;
    int p = u->p, emin = FI(u->d)->emin, E;
    uint64_t q;
    out_max(u, &E, &q);
    for (int tries = 0; tries < 8; tries++) {
        unsigned char used[MMA_MAX_K + 1] = {0};
        fill_zero(g);
        scales_one(g);
        int lo = emin + 1, hi = E - 2;
        if (hi < lo) hi = lo;
        int e = lo + (int)mma_rng_below(g->r, (uint64_t)(hi - lo + 1));
        int neg = (int)(mma_rng_next(g->r) & 1), sg = (int)(mma_rng_next(g->r) & 1);
        int j0 = free_pos(g, used);
        if (j0 < 0 || !set_term(g, j0, neg, e, 1)) continue;
        int j1 = (int)mma_rng_below(g->r, 6), j2 = (int)mma_rng_below(g->r, 6);
        if (i % 4 != 2 && j1 == j2) j2 = (j1 + 1 + (int)mma_rng_below(g->r, 5)) % 6;
        if (!put(g, used, sg, e - p - 2 - j1) || !put(g, used, !sg, e - p - 2 - j2)) continue;
        if (i % 4 == 1 || (i % 4 == 2 && (mma_rng_next(g->r) & 1)))   /* a tie, broken or not */
            put(g, used, (int)(mma_rng_next(g->r) & 1), e - p - 1);
        if (i % 4 == 3) put(g, used, (int)(mma_rng_next(g->r) & 1), e - p - 2 - (int)mma_rng_below(g->r, 8));
        return;
    }
    s_rounding(g, i);
}

/* NaN operands, quiet and signaling, at one or two positions (the order
 * nan=prop follows), beside 0 * Inf or +Inf and -Inf (invalid) */
static uint64_t nan_qs(G *g, mma_fmt f)
{
    uint64_t x = nan_of(g, f);
    const mma_format_info *fi = FI(f);
    if (!fi->has_inf) return x;                       /* one fixed NaN: quiet */
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    uint64_t qb = (uint64_t)1 << (mb - 1);
    x = (mma_rng_next(g->r) & 1) ? x | qb : x & ~qb;
    if (!(x & ((((uint64_t)1 << mb) - 1) & (f == MMA_FMT_TF32 ? ~(uint64_t)0x1fff : ~(uint64_t)0))))
        x |= f == MMA_FMT_TF32 ? (uint64_t)1 << 13 : 1;  /* keep it a NaN */
    return x;
}

static void s_ieee_nan(G *g, long i)
{
    const mma_unit *u = g->u;
    s_normal(g, i);
    int nn = 1 + (int)(i & 1);
    for (int t = 0; t < nn; t++) {
        int pos = (int)mma_rng_below(g->r, (uint64_t)(2 * u->k + 1));
        if (pos == 2 * u->k) { if (has_nan(u->c)) g->v->c = nan_qs(g, u->c); }
        else if (pos & 1) { if (has_nan(u->b)) g->v->b[pos / 2] = nan_qs(g, u->b); }
        else if (has_nan(u->a)) g->v->a[pos / 2] = nan_qs(g, u->a);
    }
    int k = (int)mma_rng_below(g->r, (uint64_t)u->k);
    const mma_format_info *fa = FI(u->a);
    uint64_t inf = has_inf(u->a) ? (((uint64_t)1 << fa->ebits) - 1) << (u->a == MMA_FMT_TF32 ? 23 : fa->mbits) : 0;
    switch ((i / 2) % 3) {
    case 0: if (inf) { g->v->a[k] = inf; g->v->b[k] = zero(u->b, (int)(mma_rng_next(g->r) & 1)); } break;
    case 1: if (inf && u->k > 1) {
        int k2 = (k + 1) % u->k;
        g->v->a[k] = inf; g->v->a[k2] = inf | fenc_of[u->a].sign;
        g->v->b[k] = g->v->b[k2] = pow2(u->b, 0, 0);
    } break;
    default: break;
    }
}

/* Neighbours of the constants an RTL compares against: the mutants a
 * suite of ordinary values misses change one comparison or one bit (an
 * exponent compared with 0xf7 instead of 0xff, a bit of a special value
 * left out), and show only on an encoding one bit away from a landmark.
 * An odd element is a one-hot pattern (a single set bit anywhere: the
 * subnormals and powers of two) or a landmark (mark_init) with one bit
 * flipped; the others are +-0 and +-1, so that the odd one reaches d. */
static uint64_t odd_of(G *g, mma_fmt f)
{
    const fenc *x = &fenc_of[f];
    int w = FI(f)->width;
    uint64_t bit = (uint64_t)1 << mma_rng_below(g->r, (uint64_t)w);
    if (mma_rng_next(g->r) & 1) return bit;
    return x->mark[mma_rng_below(g->r, (uint64_t)x->nmark)] ^ bit;
}

/* +-1 */
static uint64_t one_of(G *g, mma_fmt f)
{
    return fenc_of[f].one | ((mma_rng_next(g->r) & 1) ? fenc_of[f].sign : 0);
}

/* +-0 half the time, +-1 three eighths, an odd element one eighth */
static uint64_t plain_or_odd(G *g, mma_fmt f)
{
    uint64_t x = mma_rng_below(g->r, 8);
    return x < 4 ? zero(f, (int)(x & 1)) : x < 7 ? one_of(g, f) : odd_of(g, f);
}

/* Half the vectors: one odd element, in a, b, c or a block scale (each
 * group equally likely), every other product zero (one factor +-0, the
 * other +-0 or +-1), c +-0, scales 1, the odd element's product +-1 times
 * it.  The other half: every element drawn by plain_or_odd, scales 1 or odd. */
static void s_neighbours(G *g, long i)
{
    const mma_unit *u = g->u;
    int ns = mma_unit_nscales(u), K = u->k;
    (void)i;
    if (mma_rng_next(g->r) & 1) {
        for (int k = 0; k < K; k++) {
            int za = (int)(mma_rng_next(g->r) & 1);
            uint64_t o = mma_rng_next(g->r);
            g->v->a[k] = za ? zero(u->a, (int)(o & 1)) : (o & 2) ? one_of(g, u->a) : zero(u->a, (int)(o >> 2 & 1));
            g->v->b[k] = !za ? zero(u->b, (int)(o & 1)) : (o & 2) ? one_of(g, u->b) : zero(u->b, (int)(o >> 2 & 1));
        }
        g->v->c = zero(u->c, (int)(mma_rng_next(g->r) & 1));
        for (int s = 0; s < ns; s++) g->v->sa[s] = g->v->sb[s] = fenc_of[u->scale].one;
        int group = (int)mma_rng_below(g->r, ns ? 4 : 3);
        int j = (int)mma_rng_below(g->r, (uint64_t)K);
        if (group == 2) { g->v->c = odd_of(g, u->c); return; }
        g->v->a[j] = group == 0 ? odd_of(g, u->a) : one_of(g, u->a);
        g->v->b[j] = group == 1 ? odd_of(g, u->b) : one_of(g, u->b);
        if (group == 3) {
            uint64_t *s = (mma_rng_next(g->r) & 1) ? g->v->sa : g->v->sb;
            s[j / u->block] = odd_of(g, u->scale);
        }
        return;
    }
    for (int k = 0; k < K; k++) { g->v->a[k] = plain_or_odd(g, u->a); g->v->b[k] = plain_or_odd(g, u->b); }
    g->v->c = plain_or_odd(g, u->c);
    for (int s = 0; s < ns; s++) {
        g->v->sa[s] = (mma_rng_next(g->r) & 3) ? fenc_of[u->scale].one : odd_of(g, u->scale);
        g->v->sb[s] = (mma_rng_next(g->r) & 3) ? fenc_of[u->scale].one : odd_of(g, u->scale);
    }
}

typedef void (*suite_fn)(G *, long);
static const struct { const char *name; suite_fn fn; const char *what; } suites[] = {
    {"random", s_random, "uniform random bit patterns in every field"},
    {"normal", s_normal, "random signs and significands, exponents clustered so alignment truncation bites"},
    {"cancel", s_cancel, "heavy cancellation: X and -X pairs with a small residue"},
    {"order", s_order, "X, -X and small y at every ordered pair of positions (summation order)"},
    {"precision", s_precision, "-1 + 1 + eps at every position (fraction bits kept)"},
    {"rounding", s_rounding, "sums at 1 + {0.25, 0.5, 0.75, 1.5} ulp and negatives (rounding, ties)"},
    {"specials", s_specials, "subnormals, signed zeros, Inf, NaN payloads, 0*Inf, overflow, tf32 low bits, scale NaN"},
    {"ezero", s_ezero, "c = 0, one big and one tiny product near the output's subnormal grid: where zero terms sit in emax"},
    {"compliance", NULL, "random to ezero above in fixed proportions (with the ieee- suites below for units with IEEE semantics)"},
    /* appended: a suite's index seeds its draws and the compliance mix */
    {"bits", s_bits, "random bit patterns, each field's exponent all zeros or all ones half the time: NaN/Inf/subnormal-heavy"},
    {"ieee-zero", s_ieee_zero, "signed zeros: all terms +-0 (all -0 half the time), exact cancellations, sums below half the smallest subnormal"},
    {"ieee-overflow", s_ieee_overflow, "the output's largest finite and perturbations of -2 .. +1/16 ulp of either sign: overflow per direction"},
    {"ieee-tiny", s_ieee_tiny, "sums just below and above 2^emin, subnormal sums, half the smallest subnormal: tininess before and after rounding"},
    {"ieee-sticky", s_ieee_sticky, "a term and small terms of opposite signs below its rounding position (and a half-ulp term): sticky bits and directed rounding"},
    {"ieee-nan", s_ieee_nan, "quiet and signaling NaNs at one or two positions, beside 0*Inf or +Inf with -Inf"},
    {"neighbours", s_neighbours, "one-hot patterns and Inf/NaN/max/min normal/min subnormal/1 with one bit flipped, among +-0 and +-1"},
};

/* Units with IEEE semantics: the ieee tree, or a configuration that asks
 * for IEEE zeros, propagated NaNs, RMM or round-to-odd, or an overflow
 * rule other than its tree's default. */
static int ieee_semantics(const mma_unit *u)
{
    char cfg[512];
    if (u->tree == MMA_TREE_IEEE || u->rho == MMA_RMM || u->rho == MMA_RODD ||
        (u->flags & (MMA_F_ZERO_IEEE | MMA_F_NAN_PROP))) return 1;
    if (u->tree == MMA_TREE_FMA || u->tree == MMA_TREE_PAIRWISE) return 0;
    mma_unit_config(u, cfg, sizeof cfg);
    return strstr(cfg, ",ovf=") != NULL;               /* written only when not the default */
}

static void s_compliance(G *g, long i)
{
    /* fixed proportions out of 20: random 1, normal 7, cancel 3, order 1,
     * precision 2, rounding 2, specials 3, ezero 1; for units with IEEE
     * semantics: random 1, normal 3, cancel 2, order 1, precision 1,
     * rounding 2, specials 2, ieee-zero 2, ieee-overflow 2, ieee-tiny 1,
     * ieee-sticky 2, ieee-nan 1 */
    static const signed char pick[20] = {0,1,2,6,4,1,1,5,6,2,1,3,7,4,1,6,5,2,1,1};
    static const signed char pick_ieee[20] = {10,1,11,13,2,5,12,14,6,3,10,0,11,4,13,5,1,2,6,1};
    int s = g->ieee ? pick_ieee[i % 20] : pick[i % 20];
    suites[s].fn(g, i / 20);
}

int mma_suite_count(void) { return (int)(sizeof suites / sizeof suites[0]); }

const char *mma_suite_name(int s) { return s >= 0 && s < mma_suite_count() ? suites[s].name : NULL; }

const char *mma_suite_what(int s) { return s >= 0 && s < mma_suite_count() ? suites[s].what : NULL; }

int mma_suite_find(const char *name)
{
    for (int s = 0; s < mma_suite_count(); s++) if (!strcmp(name, suites[s].name)) return s;
    return -1;
}

int mma_gen_init(mma_gen *g, const mma_unit *u, const char *suite, uint64_t seed)
{
    int si = mma_suite_find(suite);
    if (si < 0) return -1;
    pthread_once(&fcache_once, fcache_init);
    g->u = u;
    g->suite = si;
    g->ieee = ieee_semantics(u);
    g->seed = seed;
    g->ops = NULL;
    g->nops = 0;
    return 0;
}

/* The operands depend only on (seed, suite, i), so any thread may make
 * any vector; the suite's index is part of the stream, so suites with the
 * same seed draw differently. */
void mma_gen_operands(const mma_gen *gen, long i, mma_vec *v)
{
    const mma_unit *u = gen->u;
    mma_rng r;
    G g = {u, &r, v, -1, gen->ieee};
    mma_rng_seed(&r, gen->seed ^ ((uint64_t)gen->suite << 56), (uint64_t)i);
    /* only what the unit uses: the whole struct is 8.5 kB */
    v->c = 0;
    memset(v->a, 0, (size_t)u->k * sizeof v->a[0]);
    memset(v->b, 0, (size_t)u->k * sizeof v->b[0]);
    memset(v->sa, 0, sizeof v->sa);
    memset(v->sb, 0, sizeof v->sb);
    if (gen->ops) { gen_file_operands(gen, i, v); return; }
    (suites[gen->suite].fn ? suites[gen->suite].fn : s_compliance)(&g, i);
}

long mma_gen_vectors(const mma_gen *g, long lo, long hi, mma_vec *out)
{
    int ns = mma_unit_nscales(g->u);
    for (long i = lo; i < hi; i++) {
        mma_vec *v = &out[i - lo];
        v->line = 0;
        mma_gen_operands(g, i, v);
        v->d = mma_dot_flags(g->u, v->c, v->a, v->b, ns ? v->sa : NULL, ns ? v->sb : NULL, &v->flags);
    }
    return hi - lo;
}
