/* mmaref_tbkit: constrained-random stimulus, scoreboard and functional
 * coverage for testbenches of dot-product-accumulate units checked against
 * the mmaref C model.  See mmaref_tbkit.h and docs/dpi.md. */
#include "mmaref_tbkit.h"

#include <math.h>
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

/* |x| truncated into format x (c operand of the cancel mode) */
static uint64_t enc_double(const fmtx *x, double v)
{
    int s = v < 0;
    double m = fabs(v);
    if (m == 0) return enc(x, s, 0, 0);
    int e;
    (void)frexp(m, &e);
    e -= 1;                                   /* m in [2^e, 2^(e+1)) */
    if (e < x->emin) {
        double q = ldexp(m, x->mb - x->emin);
        return enc(x, s, 0, (uint64_t)q);
    }
    if (e + x->bias > x->maxfield) return enc(x, s, x->maxfield, x->mmask);
    double q = ldexp(m, x->mb - e) - ldexp(1.0, x->mb);
    return enc(x, s, e + x->bias, (uint64_t)q);
}

static double dec_double(mma_fmt f, uint64_t bits)
{
    mma_value v = mma_decode(f, bits);
    if (v.cls != MMA_FINITE) return 0;
    double m = ldexp((double)v.sig, v.exp);
    return v.neg ? -m : m;
}

/* ---- random numbers (wyrand) -------------------------------------------------
 * A 64-bit counter through one 64x64->128 multiply: four instructions a draw
 * (xoshiro256** took a dozen, a sixth of the stimulus time); passes
 * PractRand and BigCrush, more than constrained-random stimulus needs. */
typedef struct { uint64_t s; } rng;

static inline uint64_t rng_next(rng *r)
{
    r->s += 0xa0761d6478bd642full;
    unsigned __int128 t = (unsigned __int128)r->s * (r->s ^ 0xe7037ed1a0b428dbull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}
static void rng_seed(rng *r, uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull;          /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    r->s = z ^ (z >> 31);
}
/* uniform in [lo, hi] (multiply-shift, no division) */
static inline int rng_range(rng *r, int lo, int hi)
{
    if (hi <= lo) return lo;
    return lo + (int)(((unsigned __int128)rng_next(r) * (uint64_t)(hi - lo + 1)) >> 64);
}

/* ---- the generator ----------------------------------------------------------- */
enum { M_UNIFORM, M_FINITE, M_CLUSTER, M_CANCEL, M_TINY, M_HUGE, M_SPECIAL, M_CARRY, M_MIX, M_COUNT };
static const char *mode_names[M_COUNT] = {"uniform", "finite", "cluster", "cancel", "tiny", "huge", "special", "carry", "mix"};

struct mmaref_tbk_gen {
    mma_unit u;
    fmtx fa, fb, fc;
    uint64_t spa[7][2], spb[7][2], spc[7][2];   /* special operands (special_from) */
    int mode;
    rng r;
};

int mmaref_tbk_mode_ok(const char *mode)
{
    for (int i = 0; i < M_COUNT; i++) if (!strcmp(mode, mode_names[i])) return 1;
    return 0;
}

mmaref_tbk_gen *mmaref_tbk_gen_create(const mma_unit *u, uint64_t seed, const char *mode,
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
    mmaref_tbk_gen *g = (mmaref_tbk_gen *)calloc(1, sizeof *g);
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

void mmaref_tbk_gen_free(mmaref_tbk_gen *g) { free(g); }

void mmaref_tbk_gen_reseed(mmaref_tbk_gen *g, uint64_t seed) { rng_seed(&g->r, seed); }

static uint64_t rnd_finite(mmaref_tbk_gen *g, const fmtx *x)
{
    return enc(x, (int)(rng_next(&g->r) & 1), rng_range(&g->r, 0, x->maxfield), rng_next(&g->r));
}

static uint64_t rnd_at(mmaref_tbk_gen *g, const fmtx *x, int e)
{
    uint64_t v = rng_next(&g->r);
    return enc(x, (int)(v & 1), field_of(x, e), v >> 8);
}

static int emax_of(const fmtx *x) { return x->maxfield - x->bias; }

static void gen_cluster(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b, int spread_max)
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

static void gen_cancel(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
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
        *c = enc_double(&g->fc, -dec_double(g->u.a, a[keep]) * dec_double(g->u.b, b[keep]));
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
static void gen_edge(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b, int top)
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
static void gen_carry(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
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

static void gen_special(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
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

void mmaref_tbk_gen_next(mmaref_tbk_gen *g, uint64_t *restrict c, uint64_t *restrict a, uint64_t *restrict b)
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

/* ---- scoreboard ----------------------------------------------------------- */
enum {   /* input classes, from the operands */
    B_A_NAN, B_A_INF, B_A_ZERO, B_A_SUB, B_B_NAN, B_B_INF, B_B_ZERO, B_B_SUB,
    B_C_NAN, B_C_INF, B_C_ZERO, B_C_SUB,
    /* output classes, from the model's d */
    B_D_NAN, B_D_PINF, B_D_NINF, B_D_ZERO, B_D_SUB, B_D_NORM,
    /* RTL events, from the cov word bits 16..28 */
    B_EV0,
    B_DM0 = B_EV0 + 13, B_DM1, B_DM2, B_DM3, B_DM4, B_DM5,        /* alignment shift */
    B_LD0, B_LD1, B_LD2, B_LD3, B_LD4, B_LD5, B_LD6,              /* leading bit - emax */
    B_COUNT
};
static const char *bin_names[B_COUNT] = {
    "a NaN", "a Inf", "a zero", "a subnormal", "b NaN", "b Inf", "b zero", "b subnormal",
    "c NaN", "c Inf", "c zero", "c subnormal",
    "d NaN", "d +Inf", "d -Inf", "d zero", "d subnormal", "d normal",
    "NaN operand", "0*Inf", "+Inf and -Inf", "Inf result", "NaN result",
    "bits cut in alignment", "exact cancellation to 0", "all terms zero", "inexact rounding",
    "rounding carry-out", "subnormal result", "overflow to Inf", "underflow to zero",
    "shift 0", "shift 1..F/2", "shift F/2+1..F+1", "shift F+2..F+8 (term cut off)",
    "shift F+9..254", "shift >=255",
    "lead >= emax+3 (carry 3+)", "lead = emax+2", "lead = emax+1", "lead = emax",
    "lead = emax-1", "lead emax-2..emax-F/2 (cancellation)", "lead < emax-F/2 (deep cancellation)",
};

#define SB_KEEP 8
struct mmaref_tbk_sb {
    mma_unit u;
    char label[128];
    long n, mism, ref_mism, model_ref_mism, nref;
    long nflags, flags_mism;        /* vectors whose flags were compared, wrong */
    int has_cov;
    int impossible[B_COUNT];
    fmtx fa, fb, fc, fd;
    unsigned char *tab_a, *tab_b;   /* classes of every encoding, for <= 16 bits */
    /* per-vector histograms, folded into the bins by the report (a few
     * increments a vector instead of one per bin) */
    long h_in[1 << 12];             /* operand classes: a | b << 4 | c << 8 */
    long h_d[6];                    /* d: NaN, +Inf, -Inf, zero, subnormal, normal */
    long h_ev[1 << 13];             /* the DUT's event bits 16..28 */
    long h_dm[6], h_ld[7];          /* alignment shift, leading bit buckets */
    int nkeep;
    char keep[SB_KEEP][1400];
};

/* class bits of an encoding: 1 NaN, 2 Inf, 4 zero, 8 subnormal */
static unsigned cls_fast(const fmtx *x, uint64_t bits)
{
    uint64_t m = bits & x->mmask, e = (bits >> x->mb) & (((uint64_t)1 << x->eb) - 1);
    uint64_t eall = ((uint64_t)1 << x->eb) - 1;
    switch (x->kind) {
    case K_IEEE: if (e == eall) return m ? 1 : 2; break;
    case K_FN:   if (e == eall && m == x->mmask) return 1; break;
    case K_FNUZ: if (bits == (uint64_t)1 << (x->w - 1)) return 1; break;
    default: break;
    }
    return e ? 0 : m ? 8 : 4;
}

static unsigned char *cls_table(const fmtx *x)
{
    if (x->w > 16) return NULL;
    size_t n = (size_t)1 << x->w;
    unsigned char *t = (unsigned char *)malloc(n);
    if (t) for (size_t i = 0; i < n; i++) t[i] = (unsigned char)cls_fast(x, i);
    return t;
}

/* the OR of cls_fast over n encodings: a table lookup per element for 8-
 * and 16-bit formats, else one loop per kind, branch-free (it vectorizes,
 * but on 64-bit lanes: slower than the table where there is one) */
static unsigned cls_or(const fmtx *x, const unsigned char *tab, const uint64_t *restrict v, int n)
{
    if (x->w <= 8 && x->kind != K_FNUZ) {
        /* 8-bit formats: narrowed to bytes, classified 32 or 64 at a time */
        uint8_t t[MMA_MAX_K];
        for (int i = 0; i < n; i++) t[i] = (uint8_t)v[i];
        uint8_t m8 = (uint8_t)x->mmask, e8 = (uint8_t)((((unsigned)1 << x->eb) - 1) << x->mb);
        uint8_t inf8 = x->kind == K_IEEE ? e8 : 0xff, nan_fn = x->kind == K_FN ? (uint8_t)(e8 | m8) : 0xff;
        uint8_t nan = 0, inf = 0, zero = 0, sub = 0;
        for (int i = 0; i < n; i++) {
            uint8_t y = t[i] & (uint8_t)(e8 | m8), e = y & e8, m = y & m8;
            nan |= (uint8_t)(x->kind == K_IEEE ? (e == e8) & (m != 0) : y == nan_fn);
            inf |= (uint8_t)(y == inf8);
            zero |= (uint8_t)(y == 0);
            sub |= (uint8_t)((e == 0) & (m != 0));
        }
        return (unsigned)(nan | inf << 1 | zero << 2 | sub << 3);
    }
    if (tab) {
        unsigned c = 0;
        uint64_t wm = ((uint64_t)1 << x->w) - 1;
        for (int i = 0; i < n; i++) c |= tab[v[i] & wm];
        return c;
    }
    uint64_t mm = x->mmask, eall = ((uint64_t)1 << x->eb) - 1, top = (uint64_t)1 << (x->w - 1);
    int mb = x->mb;
    uint64_t nan = 0, inf = 0, zero = 0, sub = 0;
    switch (x->kind) {
    case K_IEEE:
        for (int i = 0; i < n; i++) {
            uint64_t m = v[i] & mm, e = (v[i] >> mb) & eall;
            nan |= (e == eall) & (m != 0); inf |= (e == eall) & (m == 0);
            zero |= (e == 0) & (m == 0); sub |= (e == 0) & (m != 0);
        }
        break;
    case K_FN:
        for (int i = 0; i < n; i++) {
            uint64_t m = v[i] & mm, e = (v[i] >> mb) & eall;
            nan |= (e == eall) & (m == mm);
            zero |= (e == 0) & (m == 0); sub |= (e == 0) & (m != 0);
        }
        break;
    case K_FNUZ:
        for (int i = 0; i < n; i++) {
            uint64_t m = v[i] & mm, e = (v[i] >> mb) & eall;
            nan |= v[i] == top;
            zero |= (e == 0) & (m == 0) & (v[i] != top); sub |= (e == 0) & (m != 0);
        }
        break;
    default:
        for (int i = 0; i < n; i++) {
            uint64_t m = v[i] & mm, e = (v[i] >> mb) & eall;
            zero |= (e == 0) & (m == 0); sub |= (e == 0) & (m != 0);
        }
        break;
    }
    return (unsigned)(nan | inf << 1 | zero << 2 | sub << 3);
}

static int exact_window(const mma_unit *u);

/* the fraction bits of the unit's alignment: an exact unit's window (the
 * F of rtl/mma_dpa.sv's TREE=5), F otherwise */
static int align_f(const mma_unit *u) { return u->tree == MMA_TREE_EXACT ? exact_window(u) : u->f; }

mmaref_tbk_sb *mmaref_tbk_sb_create(const mma_unit *u, const char *label)
{
    mmaref_tbk_sb *s = (mmaref_tbk_sb *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->u = *u;
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    fmtx_init(&s->fa, u->a);
    fmtx_init(&s->fb, u->b);
    fmtx_init(&s->fc, u->c);
    fmtx_init(&s->fd, u->d);
    s->tab_a = cls_table(&s->fa);
    s->tab_b = cls_table(&s->fb);
    /* bins the unit cannot reach */
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    const mma_format_info *fc = mma_format(u->c), *fd = mma_format(u->d);
    int prod_inf = fa->has_inf || fb->has_inf || (u->flags & MMA_F_PROD_OVF);
    if (!fa->has_inf) s->impossible[B_A_INF] = 1;
    if (!fb->has_inf) s->impossible[B_B_INF] = 1;
    if (fmt_kind(u->a) == K_FINITE) s->impossible[B_A_NAN] = 1;
    if (fmt_kind(u->b) == K_FINITE) s->impossible[B_B_NAN] = 1;
    if (!fa->has_inf && !fb->has_inf) s->impossible[B_EV0 + 1] = 1;             /* 0*Inf */
    if (!prod_inf) s->impossible[B_EV0 + 2] = 1;                                /* +Inf and -Inf: c alone */
    if (u->cadd == MMA_CADD_FUSED && !(u->flags & MMA_F_NO_EZERO))
        s->impossible[B_EV0 + 7] = 1;                                           /* zeros count in emax */
    if (u->rho == MMA_RZ) s->impossible[B_EV0 + 9] = 1;                         /* no rounding carry */
    /* overflow: only when the products can move c by an output ulp, or c's
     * format reaches beyond d's */
    double ma = ldexp(2.0 - ldexp(1.0, -fa->mbits), ((1 << fa->ebits) - 1 - (fmt_kind(u->a) == K_IEEE)) - fa->bias);
    double mb = ldexp(2.0 - ldexp(1.0, -fb->mbits), ((1 << fb->ebits) - 1 - (fmt_kind(u->b) == K_IEEE)) - fb->bias);
    int emax_c = (1 << (fc->ebits - 1)) - 1, emax_d = (1 << (fd->ebits - 1)) - 1;
    if (u->k * ma * mb < ldexp(1.0, emax_d - u->p - 1) && emax_c <= emax_d) s->impossible[B_EV0 + 11] = 1;
    /* underflow to zero: a nonzero sum is a multiple of 2^max(emax - F,
     * smallest term LSB), emax at least the smallest term exponent */
    int plo = fa->emin + fb->emin, phi = (int)ilogb(ma) + (int)ilogb(mb);
    int clo = fc->emin < fd->emin ? fc->emin : fd->emin;
    int chi = emax_c > emax_d ? emax_c : emax_d;
    int plsb = fa->emin - fa->mbits + fb->emin - fb->mbits;
    int clsb = fc->emin - fc->mbits < fd->emin - fd->mbits ? fc->emin - fc->mbits : fd->emin - fd->mbits;
    int minlsb = plsb < clsb ? plsb : clsb;
    int mine = plo < clo ? plo : clo;
    int fsum = u->cadd == MMA_CADD_FUSED ? align_f(u) : u->f2 + 1;
    int qmin = mine - fsum > minlsb ? mine - fsum : minlsb;
    int qout = fd->emin - u->p - (u->rho == MMA_RNE ? 1 : 0);
    if (qmin >= qout) s->impossible[B_EV0 + 12] = 1;
    /* alignment shifts beyond the exponent range of the terms: the largest
     * and the smallest exponent belong to two different terms (one c) */
    int span = phi - plo;
    if (u->cadd == MMA_CADD_FUSED) {
        if (phi - clo > span) span = phi - clo;
        if (chi - plo > span) span = chi - plo;
        if (!(u->flags & MMA_F_NO_EZERO)) {
            if (u->ezero - plo > span) span = u->ezero - plo;
            if (u->ezero - clo > span) span = u->ezero - clo;
        }
    }
    int f = align_f(u), lows[6] = {0, 1, f / 2 + 1, f + 2, f + 9, 255};
    if (u->tree == MMA_TREE_EXACT) s->impossible[B_EV0 + 5] = 1;              /* an exact sum cuts nothing */
    for (int i = 0; i < 6; i++) if (lows[i] > span) s->impossible[B_DM0 + i] = 1;
    /* the cov word holds the shift saturated at 255 and the leading bit's
     * position at -128..127: with a wide window (exact units) the bins
     * beyond them cannot be observed */
    for (int i = 2; i < 6; i++) if (f / 2 + 1 > 255 || (i < 5 && lows[i] > 254)) s->impossible[B_DM0 + i] = 1;
    if (f / 2 >= 128) s->impossible[B_LD0 + 6] = 1;
    /* output rounding that is always exact: the fused sum has at most
     * 2 + F + log2(terms) significant bits and its last bit is on the
     * output grid */
    if (u->cadd == MMA_CADD_FUSED) {
        int lg = 0;
        while ((1 << lg) < u->lmax + 1) lg++;
        if (2 + f + lg <= u->p + 1 && mine - f >= fd->emin - u->p) {
            s->impossible[B_EV0 + 8] = 1;
            s->impossible[B_EV0 + 9] = 1;
        }
    }
    return s;
}

void mmaref_tbk_sb_free(mmaref_tbk_sb *s)
{
    if (!s) return;
    free(s->tab_a);
    free(s->tab_b);
    free(s);
}

long mmaref_tbk_sb_count(const mmaref_tbk_sb *s) { return s->n; }
long mmaref_tbk_sb_mismatches(const mmaref_tbk_sb *s) { return s->mism; }

char *mmaref_tbk_format_vector(const mma_unit *u, uint64_t c, const uint64_t *a,
                           const uint64_t *b, uint64_t d, char *buf, size_t len)
{
    static const char hx[] = "0123456789abcdef";
    int da = mma_format(u->a)->hexdigits, db = mma_format(u->b)->hexdigits;
    int dc = mma_format(u->c)->hexdigits, dd = mma_format(u->d)->hexdigits;
    size_t n = 0;
#define PUT(v, dg) do { if (n + (size_t)(dg) + 2 >= len) goto out; \
        for (int i_ = (dg) - 1; i_ >= 0; i_--) buf[n + (size_t)((dg) - 1 - i_)] = hx[((v) >> (4 * i_)) & 15]; \
        n += (size_t)(dg); buf[n++] = ' '; } while (0)
    PUT(c, dc);
    for (int k = 0; k < u->k; k++) PUT(a[k], da);
    for (int k = 0; k < u->k; k++) PUT(b[k], db);
    PUT(d, dd);
#undef PUT
out:
    if (n) n--;
    buf[n] = 0;
    return buf;
}

/* the bins' counts, from the histograms */
static void sb_bins(const mmaref_tbk_sb *s, long *hits)
{
    memset(hits, 0, sizeof(long) * B_COUNT);
    for (unsigned key = 0; key < (1u << 12); key++) {
        if (!s->h_in[key]) continue;
        for (int i = 0; i < 4; i++) {
            if (key & (1u << i)) hits[B_A_NAN + i] += s->h_in[key];
            if (key & (1u << (4 + i))) hits[B_B_NAN + i] += s->h_in[key];
            if (key & (1u << (8 + i))) hits[B_C_NAN + i] += s->h_in[key];
        }
    }
    for (int i = 0; i < 6; i++) hits[B_D_NAN + i] = s->h_d[i];
    for (unsigned w = 0; w < (1u << 13); w++)
        if (s->h_ev[w])
            for (int i = 0; i < 13; i++) if (w & (1u << i)) hits[B_EV0 + i] += s->h_ev[w];
    for (int i = 0; i < 6; i++) hits[B_DM0 + i] = s->h_dm[i];
    for (int i = 0; i < 7; i++) hits[B_LD0 + i] = s->h_ld[i];
}

/* got_flags < 0: the DUT's flags not compared */
static int sb_record(mmaref_tbk_sb *s, uint64_t c, const uint64_t *a, const uint64_t *b, uint64_t expect,
                     unsigned expect_flags, uint64_t got, int got_flags, int has_ref, uint64_t ref, int64_t cov)
{
    const mma_unit *u = &s->u;
    int bad = !mma_result_equal(u, expect, got);
    int rbad = has_ref && !mma_result_equal(u, ref, got);
    int fbad = got_flags >= 0 && (unsigned)got_flags != expect_flags;
    s->n++;
    if (got_flags >= 0) {
        s->nflags++;
        if (fbad) s->flags_mism++;
    }
    if (has_ref) {
        s->nref++;
        if (rbad) s->ref_mism++;
        if (!mma_result_equal(u, ref, expect)) s->model_ref_mism++;
    }
    if (bad || rbad || fbad) {
        s->mism++;
        if (s->nkeep < SB_KEEP) {
            char line[1200];
            mmaref_tbk_format_vector(u, c, a, b, got, line, sizeof line);
            int dd = mma_format(u->d)->hexdigits;
            char refs[64] = "", fls[200] = "";
            if (has_ref) snprintf(refs, sizeof refs, " file d=%0*llx", dd, (unsigned long long)ref);
            if (got_flags >= 0) {
                char gn[64], en[64];
                mma_flags_describe((unsigned)got_flags, gn, sizeof gn);
                mma_flags_describe(expect_flags, en, sizeof en);
                snprintf(fls, sizeof fls, "\n    dut flags=%02x (%s) model flags=%02x (%s)", (unsigned)got_flags, gn,
                         expect_flags, en);
            }
            /* a line longer than the entry is cut (the return value
             * looked at: GCC's truncation warning is then quiet) */
            char *k = s->keep[s->nkeep++];
            if (snprintf(k, sizeof s->keep[0], "  vector %ld: %s\n    dut d=%0*llx model d=%0*llx%s%s\n", s->n, line, dd,
                         (unsigned long long)got, dd, (unsigned long long)expect, refs, fls) >= (int)sizeof s->keep[0])
                memcpy(k + sizeof s->keep[0] - 5, "...\n", 5);
        }
    }
    /* coverage: operands */
    unsigned ca = cls_or(&s->fa, s->tab_a, a, u->k), cb = cls_or(&s->fb, s->tab_b, b, u->k);
    s->h_in[ca | cb << 4 | cls_fast(&s->fc, c) << 8]++;
    /* the model's d */
    unsigned cd = cls_fast(&s->fd, expect);
    int neg = (int)((expect >> (s->fd.w - 1)) & 1);
    s->h_d[cd & 1 ? 0 : cd & 2 ? 1 + neg : cd & 4 ? 3 : cd & 8 ? 4 : 5]++;
    /* coverage: the DUT's observation word */
    if (cov >= 0) {
        s->has_cov = 1;
        uint32_t w = (uint32_t)cov;
        s->h_ev[(w >> 16) & 0x1fff]++;
        int fin = !(w & ((1u << 19) | (1u << 20)));
        if (fin && !(w & (1u << 23))) {
            int dm = (int)(w & 0xff), f = align_f(u);
            s->h_dm[dm == 0 ? 0 : dm <= f / 2 ? 1 : dm <= f + 1 ? 2 : dm <= f + 8 ? 3 : dm < 255 ? 4 : 5]++;
            if (!(w & (1u << 22)) && !(w & (1u << 27))) {
                int ld = (int)(int8_t)((w >> 8) & 0xff);
                s->h_ld[ld >= 3 ? 0 : ld == 2 ? 1 : ld == 1 ? 2 : ld == 0 ? 3 : ld == -1 ? 4 : ld >= -f / 2 ? 5 : 6]++;
            }
        }
    }
    return bad || rbad || fbad;
}

int mmaref_tbk_sb_record(mmaref_tbk_sb *s, uint64_t c, const uint64_t *a, const uint64_t *b,
                     uint64_t expect, uint64_t got, int has_ref, uint64_t ref, int64_t cov)
{
    return sb_record(s, c, a, b, expect, 0, got, -1, has_ref, ref, cov);
}

int mmaref_tbk_sb_record_flags(mmaref_tbk_sb *s, uint64_t c, const uint64_t *a, const uint64_t *b,
                               uint64_t expect, unsigned expect_flags, uint64_t got, unsigned got_flags,
                               int has_ref, uint64_t ref, int64_t cov)
{
    return sb_record(s, c, a, b, expect, expect_flags, got, (int)(got_flags & 0xffu), has_ref, ref, cov);
}

/* the bins that count (reachable, and the DUT's only when it reports a
 * coverage word): hit, total, and the names of those not hit */
static void sb_cover(const mmaref_tbk_sb *s, const long *hits, int *got, int *total, char *missing, size_t len)
{
    size_t mn = 0;
    *got = *total = 0;
    missing[0] = 0;
    for (int b = 0; b < B_COUNT; b++) {
        if (!s->has_cov && b >= B_EV0) break;
        if (s->impossible[b]) continue;
        (*total)++;
        if (hits[b]) (*got)++;
        else if (mn + strlen(bin_names[b]) + 4 < len)
            mn += (size_t)snprintf(missing + mn, len - mn, "%s%s", mn ? ", " : "", bin_names[b]);
    }
}

void mmaref_tbk_sb_coverage(const mmaref_tbk_sb *s, int *hit, int *bins)
{
    long hits[B_COUNT];
    char missing[4096];
    sb_bins(s, hits);
    sb_cover(s, hits, hit, bins, missing, sizeof missing);
}

void mmaref_tbk_sb_report(const mmaref_tbk_sb *s, FILE *f, int quiet)
{
    fprintf(f, "%ld vectors, %ld mismatches\n", s->n, s->mism);
    if (s->nref)
        fprintf(f, "  with the file's d on %ld vectors: the DUT differs on %ld, the model on %ld\n",
                s->nref, s->ref_mism, s->model_ref_mism);
    if (s->nflags)
        fprintf(f, "  exception flags compared on %ld vectors: wrong on %ld\n", s->nflags, s->flags_mism);
    for (int i = 0; i < s->nkeep; i++) fputs(s->keep[i], f);
    if (quiet) return;
    long hits[B_COUNT];
    sb_bins(s, hits);
    int total, got;
    char missing[4096];
    sb_cover(s, hits, &got, &total, missing, sizeof missing);
    fprintf(f, "coverage%s%s:\n", s->label[0] ? " of " : "", s->label);
    for (int b = 0; b < B_COUNT; b++) {
        if (!s->has_cov && b >= B_EV0) break;
        if (!s->impossible[b]) fprintf(f, "  %-42s %12ld\n", bin_names[b], hits[b]);
    }
    fprintf(f, "coverage: %d of %d bins hit%s%s\n", got, total, missing[0] ? "; not hit: " : "", missing);
}

/* ---- RTL parameters ----------------------------------------------------- */
static int spec_of(mma_fmt f)
{
    switch (fmt_kind(f)) {
    case K_FN: return 1;
    case K_FNUZ: return 2;
    case K_FINITE: return 3;
    default: return 0;
    }
}

static int input_ok(mma_fmt f)
{
    return f == MMA_FMT_FP16 || f == MMA_FMT_BF16 || f == MMA_FMT_E4M3 || f == MMA_FMT_E5M2 ||
           f == MMA_FMT_E4M3FNUZ || f == MMA_FMT_E5M2FNUZ || f == MMA_FMT_E3M2 ||
           f == MMA_FMT_E2M3 || f == MMA_FMT_E2M1;
}

static int acc_ok(mma_fmt f) { return f == MMA_FMT_FP32 || f == MMA_FMT_FP16 || f == MMA_FMT_BF16; }

/* The parameters of the block-scaled top, rtl/mma_dpa_bs.sv: one fused
 * step, ST-FDPA (tree fused) or GDFS (tree groups), NVIDIA's conventions. */
static int rtl_params_scaled(const mma_unit *u, int f, const char **names, long *values,
                             int max, char *err, size_t errlen)
{
#define NO(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    int groups = u->tree == MMA_TREE_GROUPS;
    if (u->tree != MMA_TREE_FUSED && !groups)
        NO("algorithm %s with block scales is not realized in RTL (field 'tree': fused or groups)", mma_unit_algorithm(u));
    if (mma_format(u->a)->width > 8 || mma_format(u->b)->width > 8)
        NO("block-scaled units take inputs of up to 8 bits in RTL (fields 'a', 'b')");
    if (u->lmax != u->k) NO("a block-scaled unit is one fused step in RTL (field 'l' must equal k)");
    if (u->k / u->block > 16) NO("at most 16 blocks per operand in RTL (field 'block')");
    if (u->flags & MMA_F_PROD_OVF) NO("product overflow with block scales is not realized in RTL (field 'povf')");
    if (groups && (u->flags & MMA_F_FTZ_IN)) NO("flushing inputs of a groups unit is not realized in RTL (field 'ftz')");
    if (f < 8 || f > 45) NO("F=%d is outside the block-scaled RTL's 8..45 (field 'f')", f);
#undef NO
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    const mma_format_info *fc = mma_format(u->c), *fd = mma_format(u->d);
    int ez = !(u->flags & MMA_F_NO_EZERO);
    const char *n[] = {"A_EB", "A_MB", "A_BIAS", "A_SPEC", "B_EB", "B_MB", "B_BIAS", "B_SPEC",
                       "C_EB", "C_MB", "C_BIAS", "D_EB", "D_MB", "D_BIAS", "P", "K",
                       "TREE", "G", "SCALE", "BLOCK", "F", "ALIGN", "RHO", "ZERO_POS", "NAN_CANON",
                       "EZERO_EN", "EZERO", "FTZ"};
    long v[] = {fa->ebits, fa->mbits, fa->bias, spec_of(u->a), fb->ebits, fb->mbits, fb->bias,
                spec_of(u->b), fc->ebits, fc->mbits, fc->bias, fd->ebits, fd->mbits, fd->bias,
                u->p, u->k, groups ? 2 : 0, groups ? u->g : 0, u->scale == MMA_FMT_UE8M0 ? 1 : 2,
                u->block, f, u->align, u->rho, (u->flags & MMA_F_ZERO_POS) != 0,
                (u->flags & MMA_F_NAN_CANON) != 0, ez, ez ? u->ezero : 0,
                (u->flags & MMA_F_FTZ_IN) != 0};
    int cnt = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < cnt && i < max; i++) { names[i] = n[i]; values[i] = v[i]; }
    return cnt;
}

/* The alignment window of an exact unit (TREE=5 in rtl/mma_dpa.sv, which
 * computes the same): fraction bits that cut no bit of any term, the
 * largest exponent distance between two terms (products, c) above the
 * terms' common fraction bits. */
static int emax_normal(mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    return (1 << fi->ebits) - (fmt_kind(f) == K_IEEE ? 2 : 1) - fi->bias;
}

static int exact_window(const mma_unit *u)
{
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    const mma_format_info *fc = mma_format(u->c), *fd = mma_format(u->d);
    int pmax = emax_normal(u->a) + emax_normal(u->b), pmin = fa->emin + fb->emin;
    int cmax = emax_normal(u->c) > emax_normal(u->d) ? emax_normal(u->c) : emax_normal(u->d);
    int cmin = fc->emin < fd->emin ? fc->emin : fd->emin;
    int tf = fa->mbits + fb->mbits, x = pmax - pmin;
    if (fc->mbits > tf) tf = fc->mbits;
    if (fd->mbits > tf) tf = fd->mbits;
    if (pmax - cmin > x) x = pmax - cmin;
    if (cmax - pmin > x) x = cmax - pmin;
    return tf + x;
}

int mmaref_tbk_rtl_params(const mma_unit *u, int fdelta, const char **names, long *values,
                          int max, char *err, size_t errlen)
{
#define NO(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    int exact = u->tree == MMA_TREE_EXACT;
    if (u->scale == MMA_FMT_NONE && u->tree != MMA_TREE_FUSED && u->tree != MMA_TREE_EVENODD && !exact)
        NO("algorithm %s is not realized in RTL (field 'tree': fused, evenodd or exact)", mma_unit_algorithm(u));
    if (exact && (u->flags & MMA_F_FTZ_IN)) NO("flushing inputs of an exact unit is not realized in RTL (field 'ftz')");
    if (!input_ok(u->a)) NO("input format %s is not realized in RTL (field 'a')", mma_format(u->a)->name);
    if (!input_ok(u->b)) NO("input format %s is not realized in RTL (field 'b')", mma_format(u->b)->name);
    if (!acc_ok(u->c)) NO("c format %s is not realized in RTL (field 'c')", mma_format(u->c)->name);
    if (!acc_ok(u->d)) NO("output format %s is not realized in RTL (field 'd')", mma_format(u->d)->name);
    if (u->flags & MMA_F_FTZ_SUM) NO("flushing of sums is not realized in RTL (field 'ftz')");
    if (u->lmax < u->k && u->c != u->d) NO("a chained unit needs c and d of one format (fields 'c', 'd')");
    if (u->interleave) NO("interleaved steps are not realized in RTL (field 'interleave')");
    if (u->cadd != MMA_CADD_FUSED && u->cadd != MMA_CADD_RD && u->cadd != MMA_CADD_RDZ)
        NO("cadd=after (c added by a separate IEEE addition) is not realized in RTL (field 'cadd')");
    if (u->rho > MMA_RU) NO("round=%s is not realized in RTL (field 'round': rz, rne, rd, ru)", u->rho == MMA_RMM ? "rmm" : "rodd");
    /* mma_pack.sv: Inf under RZ and RNE, IEEE's rule under RD and RU (0: the tree's default, the same) */
    unsigned ovf = u->flags & MMA_F_OVF_MASK;
    if (ovf && !(u->rho == MMA_RZ ? ovf == MMA_F_OVF_INF : u->rho == MMA_RNE ? ovf != MMA_F_OVF_SAT : ovf == MMA_F_OVF_IEEE))
        NO("this overflow rule is not realized in RTL (field 'ovf': inf under RZ, inf or ieee under RNE, ieee under RD and RU)");
    if (u->flags & MMA_F_ZERO_IEEE) NO("zero=ieee is not realized in RTL (field 'zero': pos or fixed)");
    if (u->flags & MMA_F_NAN_PROP) NO("nan=prop is not realized in RTL (field 'nan': canon or default)");
    int f = u->f + fdelta;
    if (u->scale != MMA_FMT_NONE) return rtl_params_scaled(u, f, names, values, max, err, errlen);
    const mma_format_info *fa = mma_format(u->a), *fb = mma_format(u->b);
    const mma_format_info *fc = mma_format(u->c), *fd = mma_format(u->d);
    if (exact) f = exact_window(u) + fdelta;
    else if (f < 8 || f > 40) NO("F=%d is outside the RTL's 8..40 (field 'f')", f);
#undef NO
    int fused = u->cadd == MMA_CADD_FUSED, ez = fused && !exact && !(u->flags & MMA_F_NO_EZERO);
    const char *n[] = {"A_EB", "A_MB", "A_BIAS", "A_SPEC", "B_EB", "B_MB", "B_BIAS", "B_SPEC",
                       "C_EB", "C_MB", "C_BIAS", "D_EB", "D_MB", "D_BIAS", "P", "K", "L",
                       "TREE", "CADD", "F", "F2", "ALIGN", "RHO", "ZERO_POS", "NAN_CANON", "EZERO_EN",
                       "EZERO", "POVF", "FTZ"};
    long v[] = {fa->ebits, fa->mbits, fa->bias, spec_of(u->a), fb->ebits, fb->mbits, fb->bias,
                spec_of(u->b), fc->ebits, fc->mbits, fc->bias, fd->ebits, fd->mbits, fd->bias,
                u->p, u->k, u->lmax, exact ? 5 : u->tree == MMA_TREE_EVENODD, u->cadd, f,
                fused ? 31 : u->f2, fused ? u->align : 0, u->rho,
                (u->flags & MMA_F_ZERO_POS) != 0, !fused || (u->flags & MMA_F_NAN_CANON) != 0,
                ez, ez ? u->ezero : 0,
                (u->flags & MMA_F_PROD_OVF) != 0, (u->flags & MMA_F_FTZ_IN) != 0};
    int cnt = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < cnt && i < max; i++) { names[i] = n[i]; values[i] = v[i]; }
    return cnt;
}
