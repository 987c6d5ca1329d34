/* Input distributions for the metrics (docs/accuracy.md, "Distributions").
 * A draw is real-valued (or raw words for `bits`) and depends only on
 * (seed, distribution, vector index, k); each unit then quantizes the same
 * draw into its own formats, so units with the same input formats see the
 * same encodings. */
#include "metrics_internal.h"
#include "../core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *names[MMA_DIST_COUNT] = {"normal", "uniform", "llm", "cancel", "bits"};

const char *mma_dist_name(mma_dist d) { return d >= 0 && d < MMA_DIST_COUNT ? names[d] : "?"; }
const char *mma_dist_list(void) { return "normal uniform llm cancel bits"; }

int mma_dist_parse(const char *s, mma_dist *d)
{
    for (int i = 0; i < MMA_DIST_COUNT; i++)
        if (!strcmp(s, names[i])) { *d = (mma_dist)i; return 0; }
    return -1;
}

int mx_gen_init(mx_gen *g, mma_dist d, double scale, int k, uint64_t seed,
                int zero_c, mma_fmt quant)
{
    memset(g, 0, sizeof *g);
    g->dist = d;
    g->scale = scale;
    g->k = k;
    g->seed = seed;
    g->zero_c = zero_c;
    g->quant = quant;
    mx_tables_init();
    mx_rng_init();
    if (d == MMA_DIST_LLM) {
        /* outlier channels: a property of the "model", fixed by the seed
         * (about 1 in 128 channels, at least one), 20x to 100x louder */
        g->outlier = calloc((size_t)k, 1);
        g->gain = calloc((size_t)k, sizeof *g->gain);
        if (!g->outlier || !g->gain) return -1;
        mma_rng r;
        mma_rng_seed(&r, seed ^ 0x6c6c6d0000000000ull, ~(uint64_t)0);
        int any = 0;
        for (int i = 0; i < k; i++) {
            g->outlier[i] = mma_rng_below(&r, 128) == 0;
            any |= g->outlier[i];
        }
        if (!any) g->outlier[mma_rng_below(&r, (uint64_t)k)] = 1;
        for (int i = 0; i < k; i++) g->gain[i] = g->outlier[i] ? 20.0 + 80.0 * mx_uniform(&r) : 1.0;
    }
    return 0;
}

void mx_gen_free(mx_gen *g)
{
    free(g->outlier);
    free(g->gain);
    g->outlier = NULL;
    g->gain = NULL;
}

mx_draw *mx_draw_new(int k)
{
    mx_draw *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->k = k;
    d->a = calloc((size_t)k, sizeof *d->a);
    d->b = calloc((size_t)k, sizeof *d->b);
    d->wa = calloc((size_t)k, sizeof *d->wa);
    d->wb = calloc((size_t)k, sizeof *d->wb);
    d->wsa = calloc((size_t)k, sizeof *d->wsa);
    d->wsb = calloc((size_t)k, sizeof *d->wsb);
    if (!d->a || !d->b || !d->wa || !d->wb || !d->wsa || !d->wsb) { mx_draw_free(d); return NULL; }
    return d;
}

void mx_draw_free(mx_draw *d)
{
    if (!d) return;
    free(d->a); free(d->b); free(d->wa); free(d->wb); free(d->wsa); free(d->wsb);
    free(d);
}

void mx_draw_vector(const mx_gen *g, uint64_t i, mx_draw *d)
{
    mma_rng r;
    mma_rng_seed(&r, g->seed ^ ((uint64_t)(g->dist + 1) << 56), i);
    int k = g->k;
    double s = g->scale;
    switch (g->dist) {
    case MMA_DIST_NORMAL:
        for (int j = 0; j < k; j++) { d->a[j] = s * mx_normal(&r); d->b[j] = s * mx_normal(&r); }
        d->c = mx_normal(&r);
        break;
    case MMA_DIST_UNIFORM:
        for (int j = 0; j < k; j++) {
            d->a[j] = s * (2 * mx_uniform(&r) - 1);
            d->b[j] = s * (2 * mx_uniform(&r) - 1);
        }
        d->c = mx_normal(&r);
        break;
    case MMA_DIST_LLM:
        for (int j = 0; j < k; j++) { d->a[j] = mx_student3(&r) * g->gain[j]; d->b[j] = mx_normal(&r); }
        d->c = mx_normal(&r);
        break;
    case MMA_DIST_CANCEL:
        for (int j = 0; j < k; j++) { d->a[j] = s * mx_normal(&r); d->b[j] = s * mx_normal(&r); }
        for (int j = 0; j < k / 2; j++)
            if (mma_rng_next(&r) & 1) { d->a[j + k / 2] = -d->a[j]; d->b[j + k / 2] = d->b[j]; }
        /* c will be -(sum of products) * (1 + eta), |eta| = 2^-(4..24) */
        d->c = ldexp(mma_rng_next(&r) & 1 ? 1.0 : -1.0, -(4 + (int)mma_rng_below(&r, 21)));
        break;
    case MMA_DIST_BITS:
        for (int j = 0; j < k; j++) { d->wa[j] = mma_rng_next(&r); d->wb[j] = mma_rng_next(&r); }
        for (int j = 0; j < k; j++) { d->wsa[j] = mma_rng_next(&r); d->wsb[j] = mma_rng_next(&r); }
        d->wc = mma_rng_next(&r);
        break;
    default:
        break;
    }
}

mx_enc *mx_enc_new(int k)
{
    mx_enc *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->k = k;
    e->a = calloc((size_t)k, 8);
    e->b = calloc((size_t)k, 8);
    e->sa = calloc((size_t)k, 8);
    e->sb = calloc((size_t)k, 8);
    if (!e->a || !e->b || !e->sa || !e->sb) { mx_enc_free(e); return NULL; }
    return e;
}

void mx_enc_free(mx_enc *e)
{
    if (!e) return;
    free(e->a); free(e->b); free(e->sa); free(e->sb);
    free(e);
}

static uint64_t wmask(mma_fmt f)
{
    int w = mma_format(f)->width;
    return w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* value -> encoding in f, through the --quant format first when given */
static inline uint64_t q2(const mx_gen *g, mma_fmt f, double v)
{
    if (g->quant != MMA_FMT_NONE) v = mx_value(g->quant, mx_quantize(g->quant, v));
    return mx_quantize(f, v);
}

/* narrow formats get per-vector absmax scaling into their range (llm) */
static double absmax_gain(mma_fmt f, const double *v, int k)
{
    double fm = mx_fmt_max(f);
    if (fm > 65504.0) return 1.0;
    double m = 0;
    for (int j = 0; j < k; j++) if (fabs(v[j]) > m) m = fabs(v[j]);
    return m > 0 ? fm / m : 1.0;
}

uint64_t mma_block_scale(mma_fmt sf, mma_fmt f, double amax, double *inv)
{
    mx_tables_init();
    if (sf == MMA_FMT_UE8M0) {
        int e = -127;
        if (amax > 0 && amax <= 0x1.fffffffffffffp1023) { int ex; frexp(amax, &ex); e = ex - 1 - mx_fmt_emax(f); }
        if (e < -127) e = -127;
        if (e > 127) e = 127;
        *inv = ldexp(1.0, -e);
        return (uint64_t)(e + 127);
    }
    uint64_t sc = mx_quantize(sf, amax / mx_fmt_max(f));
    double sv = mx_value(sf, sc);
    if (!(sv > 0) || isinf(sv)) { sc = mx_quantize(sf, 1.0); sv = 1.0; }
    *inv = 1.0 / sv;
    return sc;
}

static double block_amax(const double *x, int n)
{
    double m = 0;
    for (int j = 0; j < n; j++) if (fabs(x[j]) > m && !isinf(x[j])) m = fabs(x[j]);
    return m;
}

void mma_block_quantize(mma_fmt sf, int block, mma_fmt f, const double *v, long n,
                        uint64_t *out, uint64_t *scales, mma_overflow ovf)
{
    for (long bi = 0; bi * block < n; bi++) {
        const double *x = v + bi * block;
        int len = n - bi * block < block ? (int)(n - bi * block) : block;
        double inv;
        scales[bi] = mma_block_scale(sf, f, block_amax(x, len), &inv);
        for (int j = 0; j < len; j++) out[bi * block + j] = mma_from_double(f, x[j] * inv, ovf);
    }
}

/* block scales for the draws (elements through --quant first) */
static void block_quant(const mx_gen *g, const mma_unit *u, mma_fmt f, const double *v,
                        uint64_t *out, uint64_t *sc)
{
    int nb = g->k / u->block;
    for (int bi = 0; bi < nb; bi++) {
        const double *x = v + bi * u->block;
        double inv;
        sc[bi] = mma_block_scale(u->scale, f, block_amax(x, u->block), &inv);
        for (int j = 0; j < u->block; j++) out[bi * u->block + j] = q2(g, f, x[j] * inv);
    }
}

void mx_encode_draw(const mx_gen *g, const mma_unit *u, const mx_draw *d, mx_enc *e)
{
    int k = g->k;
    int scaled = u->scale != MMA_FMT_NONE;
    if (g->dist == MMA_DIST_BITS) {
        uint64_t ma = wmask(u->a), mb = wmask(u->b);
        for (int j = 0; j < k; j++) { e->a[j] = d->wa[j] & ma; e->b[j] = d->wb[j] & mb; }
        if (scaled) {
            uint64_t ms = wmask(u->scale);
            for (int j = 0; j < k / u->block; j++) { e->sa[j] = d->wsa[j] & ms; e->sb[j] = d->wsb[j] & ms; }
        }
        e->c = g->zero_c ? 0 : d->wc & wmask(u->c);
        return;
    }
    if (scaled) {
        block_quant(g, u, u->a, d->a, e->a, e->sa);
        block_quant(g, u, u->b, d->b, e->b, e->sb);
    } else if (g->dist == MMA_DIST_LLM) {
        double ga = absmax_gain(u->a, d->a, k), gb = absmax_gain(u->b, d->b, k);
        for (int j = 0; j < k; j++) { e->a[j] = q2(g, u->a, d->a[j] * ga); e->b[j] = q2(g, u->b, d->b[j] * gb); }
    } else if (g->quant == MMA_FMT_NONE) {
        /* local copies: the stores to e->a cannot alias them */
        const mx_qtab qa = mx_qtabs[u->a], qb = mx_qtabs[u->b];
        if (qa.t && qb.t)
            for (int j = 0; j < k; j++) { e->a[j] = mx_quantize_q(&qa, u->a, d->a[j]); e->b[j] = mx_quantize_q(&qb, u->b, d->b[j]); }
        else
            for (int j = 0; j < k; j++) { e->a[j] = mx_quantize(u->a, d->a[j]); e->b[j] = mx_quantize(u->b, d->b[j]); }
    } else {
        for (int j = 0; j < k; j++) { e->a[j] = q2(g, u->a, d->a[j]); e->b[j] = q2(g, u->b, d->b[j]); }
    }
    if (g->zero_c) { e->c = 0; return; }
    /* c from the quantized products: the scale of a partial sum (normal,
     * uniform, llm) or minus their sum, perturbed (cancel) */
    double s = 0, s2 = 0;
    const double *va = mx_vtab[u->a], *vb = mx_vtab[u->b];
    if (va && vb && !scaled) {
        uint64_t ma = mx_wmask[u->a], mb = mx_wmask[u->b];
        for (int j = 0; j < k; j++) {
            double p = va[e->a[j] & ma] * vb[e->b[j] & mb];
            s += p;
            s2 += p * p;
        }
    } else
        for (int j = 0; j < k; j++) {
            double p = mx_value(u->a, e->a[j]) * mx_value(u->b, e->b[j]);
            if (scaled) p *= mx_value(u->scale, e->sa[j / u->block]) * mx_value(u->scale, e->sb[j / u->block]);
            s += p;
            s2 += p * p;
        }
    double c = g->dist == MMA_DIST_CANCEL ? -s * (1.0 + d->c) : d->c * sqrt(s2);
    e->c = mx_quantize(u->c, c);
}

/* ---- the draws for other tools (mmaref_metrics.h) ---------------------- */
struct mma_draws {
    mx_gen gen;
    mma_unit u;
};

mma_draws *mma_draws_new(const mma_unit *u, mma_dist d, uint64_t seed, char *err, size_t errlen)
{
    if (d < 0 || d >= MMA_DIST_COUNT) {
        mma_errf(err, errlen, "unknown distribution %d (%s)", (int)d, mma_dist_list());
        return NULL;
    }
    mma_draws *g = calloc(1, sizeof *g);
    if (!g || mx_gen_init(&g->gen, d, 1.0, u->k, seed, 0, MMA_FMT_NONE)) {
        if (g) mx_gen_free(&g->gen);
        free(g);
        mma_errf(err, errlen, "out of memory");
        return NULL;
    }
    g->u = *u;
    return g;
}

void mma_draws_vector(const mma_draws *g, uint64_t i, uint64_t *a, uint64_t *b,
                      uint64_t *sa, uint64_t *sb, uint64_t *c)
{
    /* on the stack: no allocation per vector, nothing to fail */
    int k = g->u.k, ns = mma_unit_nscales(&g->u);
    double da[MMA_MAX_K], db[MMA_MAX_K];
    uint64_t wa[MMA_MAX_K], wb[MMA_MAX_K], wsa[MMA_MAX_K], wsb[MMA_MAX_K];
    uint64_t esa[MMA_MAX_K], esb[MMA_MAX_K];
    mx_draw d = {da, db, 0, wa, wb, 0, wsa, wsb, k};
    mx_enc e = {a, b, esa, esb, 0, k};
    mx_draw_vector(&g->gen, i, &d);
    mx_encode_draw(&g->gen, &g->u, &d, &e);
    if (ns) {
        memcpy(sa, esa, (size_t)ns * sizeof *sa);
        memcpy(sb, esb, (size_t)ns * sizeof *sb);
    }
    *c = e.c;
}

void mma_draws_free(mma_draws *g)
{
    if (!g) return;
    mx_gen_free(&g->gen);
    free(g);
}
