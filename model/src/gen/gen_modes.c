/* The random modes of the testbench kit (mmaref_gen.h: mma_rgen): a
 * stream of constrained-random operands per unit, for simulations that
 * draw as they go rather than from a numbered suite. */
#include "../core/internal.h"
#include "mmaref_gen.h"

#include <stdlib.h>
#include <string.h>

/* ---- formats ---------------------------------------------------------------- */
enum { K_IEEE, K_FN, K_FNUZ, K_FINITE };

static int fmt_kind(mma_fmt f)
{
    switch (f) {
    case MMA_FMT_E4M3: return K_FN;
    case MMA_FMT_E4M3FNUZ: case MMA_FMT_E5M2FNUZ: return K_FNUZ;
    case MMA_FMT_E3M2: case MMA_FMT_E2M3: case MMA_FMT_E2M1: return K_FINITE;
    default: return K_IEEE;
    }
}

typedef struct {
    mma_fmt f;
    int kind, w, eb, mb, bias, emin, maxfield;
    uint64_t mmask;
    uint64_t fnmax, nanpat;    /* the FN NaN's field bits, the FNUZ NaN (else ~0) */
} fmtx;

static void fmtx_init(fmtx *x, mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    x->f = f;
    x->kind = fmt_kind(f);
    x->w = fi->width;
    x->eb = fi->ebits;
    x->mb = fi->mbits;
    x->bias = fi->bias;
    x->emin = fi->emin;
    x->maxfield = (1 << fi->ebits) - (x->kind == K_IEEE ? 2 : 1);
    x->mmask = ((uint64_t)1 << fi->mbits) - 1;
    if (f == MMA_FMT_TF32) {        /* the fp32 layout; the low 13 bits are ignored */
        x->mb = 23;
        x->mmask = (uint64_t)0x7fe000;
    }
    x->fnmax = x->kind == K_FN ? (uint64_t)x->maxfield << x->mb : ~(uint64_t)0;
    x->nanpat = x->kind == K_FNUZ ? (uint64_t)1 << (x->w - 1) : ~(uint64_t)0;
}

/* enc() for a field already in range, branch-free: sign (0/1), field
 * shifted into place, significand bits (masked here) */
static inline __attribute__((always_inline)) uint64_t enc_fast(const fmtx *x, uint64_t s, uint64_t fbits,
                                                               uint64_t mant)
{
    uint64_t m = mant & x->mmask;
    m -= (uint64_t)((fbits == x->fnmax) & (m == x->mmask));   /* not the FN NaN */
    uint64_t v = (s << (x->w - 1)) | fbits | m;
    return v == x->nanpat ? 0 : v;                              /* not the FNUZ NaN */
}

static inline __attribute__((always_inline)) uint64_t enc(const fmtx *x, int s, int field, uint64_t mant)
{
    if (field < 0) field = 0;
    if (field > x->maxfield) field = x->maxfield;
    mant &= x->mmask;
    if (x->kind == K_FN && field == x->maxfield && mant == x->mmask) mant--;   /* not NaN */
    if (x->kind == K_FNUZ && field == 0 && mant == 0) s = 0;                  /* not NaN */
    return ((uint64_t)(s & 1) << (x->w - 1)) | ((uint64_t)field << x->mb) | mant;
}

/* field for an unbiased exponent (of the hidden bit); 0 below emin */
static inline __attribute__((always_inline)) int field_of(const fmtx *x, int e)
{
    if (e < x->emin) return 0;
    int fl = e + x->bias;
    return fl > x->maxfield ? x->maxfield : fl;
}

static uint64_t enc_nan(const fmtx *x)
{
    switch (x->kind) {
    case K_FN: return ((uint64_t)1 << (x->w - 1)) - 1;
    case K_FNUZ: return (uint64_t)1 << (x->w - 1);
    case K_FINITE: return enc(x, 0, x->maxfield, x->mmask);
    default: return ((((uint64_t)1 << x->eb) - 1) << x->mb) | ((uint64_t)1 << (x->mb - 1));
    }
}

static uint64_t enc_inf(const fmtx *x, int s)
{
    if (x->kind != K_IEEE) return enc(x, s, x->maxfield, x->mmask);   /* largest finite */
    return ((uint64_t)s << (x->w - 1)) | ((((uint64_t)1 << x->eb) - 1) << x->mb);
}

/* the special operands of special_from, by kind and sign */
static void special_table(const fmtx *x, uint64_t tab[7][2])
{
    for (int s = 0; s < 2; s++) {
        tab[0][s] = enc_nan(x);
        tab[1][s] = tab[2][s] = enc_inf(x, s);
        tab[3][s] = enc(x, s, 0, 0);
        tab[4][s] = enc(x, s, 0, 1);
        tab[5][s] = 0;                                  /* computed per draw */
        tab[6][s] = enc(x, s, x->maxfield, x->mmask);
    }
}

/* -(a * b) in format f, cut toward zero, the largest finite beyond it
 * (c of the cancel mode: it cancels the product exactly when f holds it) */
static uint64_t neg_product(mma_fmt f, mma_fmt fa, uint64_t a, mma_fmt fb, uint64_t b)
{
    mma_value x = mma_decode(fa, a), y = mma_decode(fb, b);
    if (x.cls != MMA_FINITE || y.cls != MMA_FINITE) return 0;
    unsigned __int128 p = (unsigned __int128)x.sig * y.sig;
    int lz = (uint64_t)(p >> 64) ? __builtin_clzll((uint64_t)(p >> 64)) : 64 + __builtin_clzll((uint64_t)p);
    p <<= lz;
    int neg = !(x.neg ^ y.neg);
    uint64_t r = mma_encode_round(f, -1, MMA_RZ, neg, (uint64_t)(p >> 64), x.exp + y.exp + 127 - lz, (uint64_t)p != 0);
    if (mma_decode(f, r).cls == MMA_INF) r = mma_format_max(f) | (uint64_t)neg << (mma_format(f)->width - 1);
    return r;
}

/* ---- random numbers: the library's generator (mmaref_rng.h) ---------------- */
typedef mma_rng rng;
#define rng_next mma_rng_next
static void rng_seed(rng *r, uint64_t seed) { mma_rng_seed(r, seed, 0); }
/* uniform in [lo, hi] */
static inline int rng_range(rng *r, int lo, int hi)
{
    return hi <= lo ? lo : lo + (int)mma_rng_below(r, (uint64_t)(hi - lo + 1));
}

/* ---- the generator ----------------------------------------------------------- */
enum { M_UNIFORM, M_FINITE, M_CLUSTER, M_CANCEL, M_TINY, M_HUGE, M_SPECIAL, M_CARRY, M_MIX, M_COUNT };
static const char *mode_names[M_COUNT] = {"uniform", "finite", "cluster", "cancel", "tiny", "huge", "special", "carry", "mix"};

struct mma_rgen {
    mma_unit u;
    fmtx fa, fb, fc;
    uint64_t spa[7][2], spb[7][2], spc[7][2];   /* special operands (special_from) */
    int mode;
    rng r;
};

int mma_rgen_mode_ok(const char *mode)
{
    for (int i = 0; i < M_COUNT; i++) if (!strcmp(mode, mode_names[i])) return 1;
    return 0;
}

mma_rgen *mma_rgen_create(const mma_unit *u, uint64_t seed, const char *mode,
                              char *err, size_t errlen)
{
    int m = -1;
    for (int i = 0; i < M_COUNT; i++) if (!strcmp(mode, mode_names[i])) m = i;
    if (m < 0) {
        if (err) snprintf(err, errlen, "unknown stimulus mode '%s' (uniform finite cluster cancel tiny huge special carry mix)", mode);
        return NULL;
    }
    if (u->scale != MMA_FMT_NONE) {
        if (err) snprintf(err, errlen, "block-scaled units are not generated by this kit");
        return NULL;
    }
    mma_rgen *g = (mma_rgen *)calloc(1, sizeof *g);
    if (!g) return NULL;
    g->u = *u;
    fmtx_init(&g->fa, u->a);
    fmtx_init(&g->fb, u->b);
    fmtx_init(&g->fc, u->c);
    special_table(&g->fa, g->spa);
    special_table(&g->fb, g->spb);
    special_table(&g->fc, g->spc);
    g->mode = m;
    rng_seed(&g->r, seed);
    return g;
}

void mma_rgen_free(mma_rgen *g) { free(g); }

void mma_rgen_reseed(mma_rgen *g, uint64_t seed) { rng_seed(&g->r, seed); }

static uint64_t rnd_finite(mma_rgen *g, const fmtx *x)
{
    return enc(x, (int)(rng_next(&g->r) & 1), rng_range(&g->r, 0, x->maxfield), rng_next(&g->r));
}

static uint64_t rnd_at(mma_rgen *g, const fmtx *x, int e)
{
    uint64_t v = rng_next(&g->r);
    return enc(x, (int)(v & 1), field_of(x, e), v >> 8);
}

static int emax_of(const fmtx *x) { return x->maxfield - x->bias; }

static void gen_cluster(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b, int spread_max)
{
    static const int spreads[] = {0, 1, 2, 3, 5, 8, 12};
    int ns = 1;
    while (ns < 7 && spreads[ns] <= spread_max) ns++;
    int wa = spreads[rng_range(&g->r, 0, ns - 1)], wb = spreads[rng_range(&g->r, 0, ns - 1)];
    int ea0 = rng_range(&g->r, g->fa.emin - 1, emax_of(&g->fa));
    int eb0 = rng_range(&g->r, g->fb.emin - 1, emax_of(&g->fb));
    int zp = rng_range(&g->r, 0, 3);          /* zero density: none, 1/32, 1/8, 1/2 */
    static const int zmask[4] = {0, 31, 7, 1};
    /* per vector, the exponent fields of the two clusters as tables of 32
     * (offsets -w..w spread evenly, clamped to the format); per element one
     * random word for both operands: sign, field index, significand, zero */
    const fmtx *xa = &g->fa, *xb = &g->fb;
    uint32_t zm = (uint32_t)zmask[zp];
    /* the field of exponent e0 + offset, offset spread evenly over -w..w by
     * 5 random bits, clamped to the format (0 below emin) */
    int ba = ea0 + xa->bias - wa, bb = eb0 + xb->bias - wb, sa = 2 * wa + 1, sb = 2 * wb + 1;
    int mfa = xa->maxfield, mfb = xb->maxfield, mba = xa->mb, mbb = xb->mb;
    /* the draws first (the generator's state stays in registers), then a
     * branch-free loop over local copies of the formats (stores to a and b
     * cannot alias them), which the compiler vectorizes */
    int K = g->u.k;
    uint64_t rr[MMA_MAX_K];
    rng lr = g->r;
    for (int k = 0; k < K; k++) rr[k] = rng_next(&lr);
    const fmtx la = *xa, lb = *xb;
    uint64_t zneg = la.kind == K_FNUZ ? 0 : (uint64_t)1 << (la.w - 1);   /* enc(xa, 1, 0, 0) */
    if (la.w <= 16 && lb.w <= 16) {
        /* 8- and 16-bit formats: the same in 32-bit lanes (twice as many a
         * vector instruction), widened at the end */
        uint32_t oa[MMA_MAX_K], ob[MMA_MAX_K];
        uint32_t mma = (uint32_t)la.mmask, mmb = (uint32_t)lb.mmask;
        uint32_t fna = (uint32_t)la.fnmax, fnb = (uint32_t)lb.fnmax;     /* ~0 when none */
        uint32_t npa = (uint32_t)la.nanpat, npb = (uint32_t)lb.nanpat;
        uint32_t sha = (uint32_t)(la.w - 1), shb = (uint32_t)(lb.w - 1), zn = (uint32_t)zneg;
        for (int k = 0; k < K; k++) {
            uint32_t ra = (uint32_t)rr[k], rb = (uint32_t)(rr[k] >> 32);
            int fa = ba + (int)((((ra >> 1) & 31) * (uint32_t)sa) >> 5);
            int fb = bb + (int)((((rb >> 1) & 31) * (uint32_t)sb) >> 5);
            fa = fa < 0 ? 0 : fa > mfa ? mfa : fa;
            fb = fb < 0 ? 0 : fb > mfb ? mfb : fb;
            uint32_t fba = (uint32_t)fa << mba, fbb = (uint32_t)fb << mbb;
            uint32_t ma = (ra >> 7) & mma, mb = (rb >> 7) & mmb;
            ma -= (uint32_t)((fba == fna) & (ma == mma));                    /* not the FN NaN */
            mb -= (uint32_t)((fbb == fnb) & (mb == mmb));
            uint32_t av = ((ra & 1) << sha) | fba | ma, bv = ((rb & 1) << shb) | fbb | mb;
            av = av == npa ? 0 : av;                                          /* not the FNUZ NaN */
            bv = bv == npb ? 0 : bv;
            int z = zp && ((ra >> 24) & zm) == 0;
            oa[k] = z ? (((ra >> 30) & 1) ? zn : 0) : av;
            ob[k] = bv;
        }
        for (int k = 0; k < K; k++) { a[k] = oa[k]; b[k] = ob[k]; }
    } else for (int k = 0; k < K; k++) {
        uint64_t r = rr[k];
        uint32_t ra = (uint32_t)r, rb = (uint32_t)(r >> 32);
        int fa = ba + (int)((((ra >> 1) & 31) * (uint32_t)sa) >> 5);
        int fb = bb + (int)((((rb >> 1) & 31) * (uint32_t)sb) >> 5);
        fa = fa < 0 ? 0 : fa > mfa ? mfa : fa;
        fb = fb < 0 ? 0 : fb > mfb ? mfb : fb;
        uint64_t av = enc_fast(&la, ra & 1, (uint64_t)fa << mba, ra >> 7);
        uint64_t bv = enc_fast(&lb, rb & 1, (uint64_t)fb << mbb, rb >> 7);
        int z = zp && ((ra >> 24) & zm) == 0;
        a[k] = z ? (((ra >> 30) & 1) ? zneg : 0) : av;
        b[k] = bv;
    }
    g->r = lr;
    int f = g->u.f > 0 ? g->u.f : 24;
    int ce = ea0 + eb0 + rng_range(&g->r, -(f + 6), 3);
    *c = (rng_next(&g->r) & 15) == 0 ? enc(&g->fc, (int)(rng_next(&g->r) & 1), 0, 0)
                                      : rnd_at(g, &g->fc, ce);
}

static void gen_cancel(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
{
    int K = g->u.k;
    gen_cluster(g, c, a, b, 3);
    /* pairs: (i, i ^ m) for a random nonzero m when K is a power of two
     * (scattered pairs; m = 1: adjacent), else adjacent (i, i + 1) */
    int pow2 = (K & (K - 1)) == 0 && K >= 2;
    int m = pow2 ? rng_range(&g->r, 1, K - 1) : 1;
    int keep = -1;
    uint64_t r = rng_next(&g->r);
    /* the pairs in increasing i: for a power of two, the i without m's top
     * bit h (their partner i ^ m is above them); else the even i */
    int h = 0;
    while (pow2 && (m >> (h + 1))) h++;
    int npairs = K / 2;
    uint64_t sbit = (uint64_t)1 << (g->fa.w - 1), mm = g->fa.mmask;
    int fnuz = g->fa.kind == K_FNUZ;
    /* every a negated (vectorizes), then the pairs pick theirs */
    uint64_t an[MMA_MAX_K];
    for (int k = 0; k < K; k++) {
        uint64_t t = a[k] ^ sbit;
        an[k] = fnuz && t == sbit ? 0 : t;
    }
    uint64_t hmask = ((uint64_t)1 << h) - 1;
    for (int p = 0; p < npairs; p++) {
        int i = pow2 ? (int)((((uint64_t)p & ~hmask) << 1) | ((uint64_t)p & hmask)) : 2 * p;
        int j = pow2 ? i ^ m : i + 1;
        uint64_t aj = an[i];
        uint64_t up = (aj & ~mm) | ((aj + ((r >> 8) & 1 ? 1 : (uint64_t)-1)) & mm);
        aj = (r & 0x30) == 0 ? up : aj;
        if (r & 7) { a[j] = aj; b[j] = b[i]; }              /* else left alone */
        else keep = i;
        r = (r >> 9) | (r << 55);
    }
    if (keep < 0) keep = K - 1;
    switch (rng_range(&g->r, 0, 3)) {
    case 0:   /* c cancels the kept product (exactly when representable) */
        *c = neg_product(g->u.c, g->u.a, a[keep], g->u.b, b[keep]);
        break;
    case 1:   /* c zero */
        *c = enc(&g->fc, (int)(rng_next(&g->r) & 1), 0, 0);
        break;
    default:
        break;
    }
}

/* tiny (top = 0: exponents at the bottom of the formats, zero products,
 * pairs that cancel, a subnormal c) and huge (top = 1: exponents at the
 * top).  One draw per operand: bit 0 sign, bits 1-2 the exponent offset,
 * bits 3-5 (a's draw) the zero-product choice, bits 8 up the significand. */
static void gen_edge(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b, int top)
{
    int K = g->u.k;
    int sub = top ? 3 : rng_range(&g->r, 0, 2);
    uint64_t ra[MMA_MAX_K], rb[MMA_MAX_K];
    rng lr = g->r;
    for (int k = 0; k < K; k++) { ra[k] = rng_next(&lr); rb[k] = rng_next(&lr); }
    g->r = lr;
    const fmtx la = g->fa, lb = g->fb;
    /* exponent = base + offset, offset 0..3 from two bits: top: emax - {0, 0, 1, 2},
     * tiny: emin + {-1, 0, 1, 2}; the four exponent fields of a and of b,
     * shifted into place, once per vector */
    uint64_t fa4[4], fb4[4];
    for (int o = 0; o < 4; o++) {
        int off = top ? -((o * 3) >> 2) : o - 1;
        int ea = (top ? emax_of(&la) : la.emin) + off, eb = (top ? emax_of(&lb) : lb.emin) + off;
        fa4[o] = (uint64_t)field_of(&la, ea) << la.mb;
        fb4[o] = (uint64_t)field_of(&lb, eb) << lb.mb;
    }
    uint64_t za = la.kind == K_FNUZ ? 0 : (uint64_t)1 << (la.w - 1);   /* enc(x, 1, 0, 0) */
    uint64_t zb = lb.kind == K_FNUZ ? 0 : (uint64_t)1 << (lb.w - 1);
    uint64_t zall = sub == 0 ? ~(uint64_t)0 : 0, zsome = sub == 1 ? ~(uint64_t)0 : 0;
    for (int k = 0; k < K; k++) {
        uint64_t x = ra[k], y = rb[k];
        uint64_t oa = (x >> 1) & 3, ob = (y >> 1) & 3;
        uint64_t fa = oa == 0 ? fa4[0] : oa == 1 ? fa4[1] : oa == 2 ? fa4[2] : fa4[3];
        uint64_t fb = ob == 0 ? fb4[0] : ob == 1 ? fb4[1] : ob == 2 ? fb4[2] : fb4[3];
        uint64_t av = enc_fast(&la, x & 1, fa, x >> 8);
        uint64_t bv = enc_fast(&lb, y & 1, fb, y >> 8);
        uint64_t zp = zall | (zsome & (0 - ((x >> 3) & 1)));          /* a zero product */
        uint64_t in_a = 0 - ((x >> 4) & 1), zs = 0 - ((x >> 5) & 1);
        a[k] = (zp & in_a) ? (za & zs) : av;
        b[k] = (zp & ~in_a) ? (zb & zs) : bv;
    }
    if (sub == 2)                           /* the products cancel in pairs */
        for (int k = 0; k + 1 < K; k += 2) {
            a[k + 1] = a[k] ^ ((uint64_t)1 << (g->fa.w - 1));
            b[k + 1] = b[k];
            if (g->fa.kind == K_FNUZ && a[k + 1] == ((uint64_t)1 << (g->fa.w - 1))) a[k + 1] = 0;
        }
    int ce = top ? emax_of(&g->fc) - rng_range(&g->r, 0, 3)
                 : g->fc.emin - rng_range(&g->r, -2, g->fc.mb + 1);
    *c = rnd_at(g, &g->fc, ce);
    if (!top && ce < g->fc.emin) {          /* a subnormal c: any significand */
        uint64_t m = rng_next(&g->r) >> (64 - g->fc.mb + rng_range(&g->r, 0, g->fc.mb - 1));
        *c = enc(&g->fc, (int)(rng_next(&g->r) & 1), 0, m ? m : 1);
    }
    if (!top && (rng_next(&g->r) & 3) == 0) *c = enc(&g->fc, (int)(rng_next(&g->r) & 1), 0, 0);
}

/* c with an all-ones significand and products near its half ulp: output
 * rounding that carries into the next binade */
static void gen_carry(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
{
    int K = g->u.k, s = (int)(rng_next(&g->r) & 1);
    gen_cluster(g, c, a, b, 1);
    int ea = g->fa.emin + rng_range(&g->r, 0, emax_of(&g->fa) - g->fa.emin);
    int eb = g->fb.emin + rng_range(&g->r, 0, emax_of(&g->fb) - g->fb.emin);
    int nz = rng_range(&g->r, 1, 3);
    for (int k = 0; k < K; k++) {
        if (k < nz) {
            a[k] = enc(&g->fa, s, field_of(&g->fa, ea), rng_next(&g->r));
            b[k] = enc(&g->fb, 0, field_of(&g->fb, eb), rng_next(&g->r));
        } else {
            a[k] = enc(&g->fa, 0, 0, 0);
        }
    }
    int p = g->u.p > 0 ? g->u.p : g->fc.mb;
    int ce = ea + eb + p - rng_range(&g->r, -1, 2);
    uint64_t m = g->fc.mmask;
    if (p < g->fc.mb) m &= ~(((uint64_t)1 << (g->fc.mb - p)) - 1) | (rng_next(&g->r) & (((uint64_t)1 << (g->fc.mb - p)) - 1));
    *c = enc(&g->fc, s, field_of(&g->fc, ce), m);
}

/* A special operand from one draw y: bit 0 the sign, bits 1-16 the kind
 * (NaN, Inf twice, zero, the smallest subnormal, a random subnormal from
 * bits 20 up, the largest finite: uniform over seven), branch-free. */
static inline uint64_t special_from(const fmtx *x, const uint64_t tab[7][2], uint64_t y)
{
    uint64_t s = y & 1, kind = (((y >> 1) & 0xffff) * 7) >> 16;
    uint64_t m = (y >> 20) & x->mmask;
    uint64_t sub = (m == 0 && x->kind == K_FNUZ) ? 0 : (s << (x->w - 1)) | m;   /* enc(x, s, 0, m) */
    return kind == 5 ? sub : tab[kind][s];
}

static void gen_special(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
{
    int K = g->u.k;
    gen_cluster(g, c, a, b, 12);
    uint64_t rate = rng_range(&g->r, 0, 2) == 0 ? 3 : 31;      /* 1/4 or 1/32 */
    /* one draw per element decides; a special draws its own (most vectors
     * have few: a branch is cheaper than computing every element's) */
    rng lr = g->r;
    for (int k = 0; k < K; k++) {
        uint64_t z = rng_next(&lr);
        if ((z & rate) == 0) a[k] = special_from(&g->fa, g->spa, rng_next(&lr));
        if (((z >> 8) & rate) == 0) b[k] = special_from(&g->fb, g->spb, rng_next(&lr));
    }
    g->r = lr;
    if ((rng_next(&g->r) & 3) == 0) *c = special_from(&g->fc, g->spc, rng_next(&g->r));
}

void mma_rgen_next(mma_rgen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
{
    int m = g->mode;
    if (m == M_MIX) {
        /* out of 32: uniform 3, finite 4, cluster 10, cancel 7, tiny 2, huge 2,
         * special 3, carry 1 */
        static const unsigned char pick[32] = {0,0,0,1,1,1,1,2,2,2,2,2,2,2,2,2,2,
                                               3,3,3,3,3,3,3,4,4,5,5,6,6,6,7};
        m = pick[rng_next(&g->r) & 31];
    }
    int K = g->u.k;
    switch (m) {
    case M_UNIFORM: {
        uint64_t wa = g->fa.w == 64 ? ~0ull : ((uint64_t)1 << g->fa.w) - 1;
        uint64_t wb = g->fb.w == 64 ? ~0ull : ((uint64_t)1 << g->fb.w) - 1;
        if (g->fa.w <= 16 && g->fb.w <= 16) {
            for (int k = 0; k < K; k++) { uint64_t r = rng_next(&g->r); a[k] = r & wa; b[k] = (r >> 32) & wb; }
        } else {
            for (int k = 0; k < K; k++) { a[k] = rng_next(&g->r) & wa; b[k] = rng_next(&g->r) & wb; }
        }
        *c = rng_next(&g->r) & (g->fc.w == 64 ? ~0ull : ((uint64_t)1 << g->fc.w) - 1);
        break;
    }
    case M_FINITE: {
        uint64_t na = (uint64_t)g->fa.maxfield + 1, nb = (uint64_t)g->fb.maxfield + 1;
        uint64_t rr[MMA_MAX_K];
        rng lr = g->r;
        for (int k = 0; k < K; k++) rr[k] = rng_next(&lr);
        g->r = lr;
        const fmtx la = g->fa, lb = g->fb;
        for (int k = 0; k < K; k++) {
            uint32_t ra = (uint32_t)rr[k], rb = (uint32_t)(rr[k] >> 32);
            a[k] = enc_fast(&la, ra & 1, (((ra >> 16) * na) >> 16) << la.mb, ra >> 1);
            b[k] = enc_fast(&lb, rb & 1, (((rb >> 16) * nb) >> 16) << lb.mb, rb >> 1);
        }
        *c = rnd_finite(g, &g->fc);
        break;
    }
    case M_CLUSTER: gen_cluster(g, c, a, b, 12); break;
    case M_CANCEL:  gen_cancel(g, c, a, b); break;
    case M_TINY:    gen_edge(g, c, a, b, 0); break;
    case M_HUGE:    gen_edge(g, c, a, b, 1); break;
    case M_CARRY:   gen_carry(g, c, a, b); break;
    default:        gen_special(g, c, a, b); break;
    }
}

