/* Chains of instruction calls over a depth K, and the runs of mmaref
 * metrics and mmaref gemm: every vector's inputs drawn from its own stream,
 * its exact value, each unit's result and its error, in fixed chunks (the
 * same bytes for any thread count).  docs/accuracy.md says what is measured
 * and why; the DeepSeek-V3 promotion and the two-stage kernel are the
 * experiments of its "DeepSeek-V3" and "two-stage post" sections. */
#include "metrics_internal.h"
#include "../core/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode_names[MMA_GEMM_NMODES] = {"tc", "promote", "twostage"};

const char *mma_gemm_mode_name(mma_gemm_mode m)
{
    return m >= 0 && m < MMA_GEMM_NMODES ? mode_names[m] : "?";
}

int mma_gemm_mode_parse(const char *s, mma_gemm_mode *m)
{
    for (int i = 0; i < MMA_GEMM_NMODES; i++)
        if (!strcmp(s, mode_names[i])) { *m = (mma_gemm_mode)i; return 0; }
    return -1;
}

/* ---- chains ------------------------------------------------------------- */
uint64_t mma_to_c(const mma_unit *u, uint64_t d)
{
    if (u->c == u->d) return d;
    return mx_quantize(u->c, mx_value(u->d, d));
}

uint64_t mma_chain(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                   const uint64_t *sa, const uint64_t *sb, int k)
{
    int ns = mma_unit_nscales(u);
    uint64_t d = c;
    for (int s = 0; s < k; s += u->k) {
        d = mma_dot(u, c, a + s, b + s, ns ? sa + s / u->block : NULL, ns ? sb + s / u->block : NULL);
        c = mma_to_c(u, d);
    }
    return d;
}

void mma_acc_chain(mma_acc *acc, const mma_unit *u, uint64_t c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k)
{
    int ns = mma_unit_nscales(u);
    for (int s = 0; s < k; s += u->k)
        mma_acc_dot(acc, u, c, a + s, b + s, ns ? sa + s / u->block : NULL,
                    ns ? sb + s / u->block : NULL, s == 0);
}

int mx_same_inputs(const mma_unit *x, const mma_unit *y)
{
    return x->a == y->a && x->b == y->b && x->c == y->c && x->scale == y->scale &&
           (x->scale == MMA_FMT_NONE || x->block == y->block);
}

mma_fmt mma_gemm_result_format(const mma_unit *u, mma_gemm_mode mode)
{
    if (mode == MMA_GEMM_TC) return u->d;
    return u->d == MMA_FMT_FP64 ? MMA_FMT_FP64 : MMA_FMT_FP32;
}

/* the chain of one window of len products from +0 */
static uint64_t window(const mma_unit *u, const uint64_t *a, const uint64_t *b,
                       const uint64_t *sa, const uint64_t *sb, int w, int len)
{
    int ns = mma_unit_nscales(u);
    return mma_chain(u, 0, a + w, b + w, ns ? sa + w / u->block : NULL, ns ? sb + w / u->block : NULL, len);
}

uint64_t mma_gemm_dot(const mma_unit *u, mma_gemm_mode mode, int nc, uint64_t c,
                      const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                      const uint64_t *sb, int k, mma_fmt *rf)
{
    mx_tables_init();
    if (rf) *rf = mma_gemm_result_format(u, mode);
    if (mode == MMA_GEMM_TC) return mma_chain(u, c, a, b, sa, sb, k);
    if (mode == MMA_GEMM_TWOSTAGE) nc = u->k;
    if (u->d == MMA_FMT_FP64) {
        double r = mx_value(u->c, c);
        for (int w = 0; w < k; w += nc)
            r += mx_value(u->d, window(u, a, b, sa, sb, w, k - w < nc ? k - w : nc));
        uint64_t bits;
        memcpy(&bits, &r, 8);
        return r != r ? MMA_GEMM_NAN64 : bits;
    }
    float r = (float)mx_value(u->c, c);
    for (int w = 0; w < k; w += nc)
        r += (float)mx_value(u->d, window(u, a, b, sa, sb, w, k - w < nc ? k - w : nc));
    uint32_t bits;
    memcpy(&bits, &r, 4);
    /* a NaN of the promoted sum is the canonical NaN of the CUDA cores'
     * FADD that does the promotion (the host's addition would give its own:
     * x86 the first operand's payload, or 0xffc00000 for Inf - Inf) */
    return r != r ? MMA_GEMM_NAN32 : bits;
}

/* ---- checks -------------------------------------------------------------- */
/* the unit as a user would name it */
static const char *unit_name(const mma_unit *u, char *buf, size_t len)
{
    if (u->name[0]) return u->name;
    mma_unit_config(u, buf, len);
    return buf;
}

static int check_depth(const mma_unit *u, int k, int nc, int uses_nc, char *err, size_t len)
{
    char nb[600];
    if (k < 1 || k % u->k)
        return mma_errf(err, len, "k=%d is not a positive multiple of %s's K=%d", k, unit_name(u, nb, sizeof nb), u->k);
    if (uses_nc && (nc < 1 || nc % u->k))
        return mma_errf(err, len, "nc=%d is not a positive multiple of %s's K=%d", nc, unit_name(u, nb, sizeof nb), u->k);
    return 0;
}

void mma_metrics_defaults(mma_metrics_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dist = MMA_DIST_NORMAL;
    o->scale = 1.0;
    o->count = 100000;
    o->seed = 1;
    o->quant = MMA_FMT_NONE;
    o->nc = 128;
}

/* what every run shares: the draw, per-thread scratch, groups of units
 * with the same input formats (one draw and one exact value serve all) */
typedef struct {
    mx_draw *draw;
    mx_enc **enc;          /* per group */
    mma_acc acc;
    uint64_t *blk;
} tls;

typedef struct {
    const mma_metrics_opts *o;
    int nu, nm, k, threads, tmax;
    const mma_unit *u;
    int *group;            /* group leader index per unit */
    mma_row *rows;
    float **chg;
    mx_gen gen;
    tls *t;
} run_ctx;

static void run_free(run_ctx *x)
{
    if (x->t)
        for (int t = 0; t < x->threads; t++) {
            mx_draw_free(x->t[t].draw);
            if (x->t[t].enc) for (int j = 0; j < x->nu; j++) mx_enc_free(x->t[t].enc[j]);
            free(x->t[t].enc);
            free(x->t[t].blk);
        }
    free(x->t);
    free(x->group);
    mx_gen_free(&x->gen);
}

static int run_init(run_ctx *x, const mma_metrics_opts *o, const mma_unit *u, int nu, int zero_c,
                    char *err, size_t len)
{
    memset(x, 0, sizeof *x);
    x->o = o;
    x->nu = nu;
    x->u = u;
    x->k = o->k;
    x->threads = o->threads > 0 ? o->threads : mma_default_threads();
    mx_tables_init();
    if (nu < 1) return mma_errf(err, len, "no unit");
    if (!x->k)
        for (int j = 0; j < nu; j++) if (u[j].k > x->k) x->k = u[j].k;
    if (o->count < 1) return mma_errf(err, len, "count=%ld: at least one vector", o->count);
    if (o->dist < 0 || o->dist >= MMA_DIST_COUNT) return mma_errf(err, len, "unknown distribution %d", (int)o->dist);
    if (!(o->scale > 0) || isinf(o->scale)) return mma_errf(err, len, "scale=%g: a positive number", o->scale);
    if (!(x->group = calloc((size_t)nu, sizeof *x->group))) return mma_errf(err, len, "out of memory");
    for (int j = 0; j < nu; j++) {
        x->group[j] = j;
        for (int i = 0; i < j; i++) if (x->group[i] == i && mx_same_inputs(&u[i], &u[j])) { x->group[j] = i; break; }
    }
    if (mx_gen_init(&x->gen, o->dist, o->scale, x->k, o->seed, zero_c, o->quant)) return mma_errf(err, len, "out of memory");
    if (!(x->t = calloc((size_t)x->threads, sizeof *x->t))) return mma_errf(err, len, "out of memory");
    for (int t = 0; t < x->threads; t++) {
        x->t[t].draw = mx_draw_new(x->k);
        x->t[t].enc = calloc((size_t)nu, sizeof *x->t[t].enc);
        x->t[t].blk = calloc((size_t)x->k + 1, sizeof *x->t[t].blk);
        if (!x->t[t].draw || !x->t[t].enc || !x->t[t].blk) return mma_errf(err, len, "out of memory");
        for (int j = 0; j < nu; j++)
            if (x->group[j] == j && !(x->t[t].enc[j] = mx_enc_new(x->k))) return mma_errf(err, len, "out of memory");
        mma_acc_clear(&x->t[t].acc);
    }
    return 0;
}

static int row_init(mma_row *r, const mma_unit *u, const char *mode, mma_fmt out, int nc,
                    long count, long chunk, int keep_abs_rel, char *err, size_t len)
{
    memset(r, 0, sizeof *r);
    mma_unit_config(u, r->config, sizeof r->config);
    snprintf(r->mode, sizeof r->mode, "%s", mode);
    r->out = out;
    r->nc = nc;
    if (mx_row_init(r, count, chunk, keep_abs_rel))
        return mma_errf(err, len, "out of memory for %ld vectors (4 to 12 bytes per vector and row)", count);
    return 0;
}

/* Vector i: drawn once, encoded once per group of units with the same input
 * formats, fn called for each group's leader g */
typedef void (*group_fn)(run_ctx *x, tls *t, long i, int g, const mx_enc *e);
static void each_group(run_ctx *x, tls *t, long i, group_fn fn)
{
    mx_draw_vector(&x->gen, (uint64_t)i, t->draw);
    for (int g = 0; g < x->nu; g++) {
        if (x->group[g] != g) continue;
        mx_enc *e = t->enc[g];
        mx_encode_draw(&x->gen, &x->u[g], t->draw, e);
        fn(x, t, i, g, e);
    }
}

/* ---- mmaref metrics ------------------------------------------------------- */
static void metrics_group(run_ctx *x, tls *t, long i, int g, const mx_enc *e)
{
    const mma_unit *ug = &x->u[g];
    mma_acc_reset(&t->acc);
    mma_acc_chain(&t->acc, ug, e->c, e->a, e->b, e->sa, e->sb, x->k);
    mma_xval v = mma_acc_value(&t->acc);
    int ns = mma_unit_nscales(ug);
    double ref = mx_fp32_ref(ug, mx_value(ug->c, e->c), e->a, e->b, ns ? e->sa : NULL, ns ? e->sb : NULL, x->k);
    for (int j = g; j < x->nu; j++) {
        if (x->group[j] != g) continue;
        const mma_unit *u = &x->u[j];
        uint64_t d = mma_chain(u, e->c, e->a, e->b, e->sa, e->sb, x->k);
        mx_res r;
        mx_result(u->d, d, &t->acc, v, ref, 1, &r);
        mx_row_put(&x->rows[j], i, &r);
    }
}

static void metrics_chunk(void *vctx, int tid, long lo, long hi)
{
    run_ctx *x = vctx;
    for (long i = lo; i < hi; i++) each_group(x, &x->t[tid], i, metrics_group);
}

/* Can every value of format q be held by format in? */
static int holds(mma_fmt in, mma_fmt q)
{
    return q == in || (mma_format(q)->mbits <= mma_format(in)->mbits && mma_format(q)->ebits <= mma_format(in)->ebits);
}

int mma_metrics_run(const mma_metrics_opts *o, const mma_unit *u, int nu, mma_row *rows,
                    char *err, size_t errlen)
{
    run_ctx x;
    int rc = -1;
    if (nu > 0) memset(rows, 0, sizeof *rows * (size_t)nu);
    if (run_init(&x, o, u, nu, o->zero_c, err, errlen)) goto out;
    x.rows = rows;
    for (int j = 0; j < nu; j++) {
        char nb[600];
        if (check_depth(&u[j], x.k, 0, 0, err, errlen)) goto out;
        if (o->quant && o->dist != MMA_DIST_BITS && (!holds(u[j].a, o->quant) || !holds(u[j].b, o->quant))) {
            mma_errf(err, errlen, "quant=%s: its values are not all representable in %s's input formats %s, %s",
                 mma_format(o->quant)->name, unit_name(&u[j], nb, sizeof nb), mma_format(u[j].a)->name, mma_format(u[j].b)->name);
            goto out;
        }
        if (row_init(&rows[j], &u[j], "", u[j].d, 0, o->count, 1024, 0, err, errlen)) goto out;
    }
    mma_parallel_for(o->count, 1024, x.threads, metrics_chunk, &x, o->progress, o->pctx);
    for (int j = 0; j < nu; j++) mx_row_finish(&rows[j], x.threads);
    rc = 0;
out:
    if (rc) for (int j = 0; j < nu; j++) mma_row_free(&rows[j]);
    run_free(&x);
    return rc;
}

/* ---- mmaref gemm ------------------------------------------------------------ */
static int ncof(const run_ctx *x, const mma_unit *u, mma_gemm_mode mode)
{
    return mode == MMA_GEMM_TWOSTAGE ? u->k : mode == MMA_GEMM_PROMOTE ? x->o->nc : 0;
}

/* the accumulator post's experiment: block outputs once, then the FP32 sum of the blocks with the
 * low tr bits of each zeroed, for every tr */
static void ntrun_sweep(const run_ctx *x, tls *t, const mma_unit *u, const mx_enc *e, float *out)
{
    int nb = 0, nc = x->o->nc;
    for (int w = 0; w < x->k; w += nc, nb++)
        t->blk[nb] = window(u, e->a, e->b, e->sa, e->sb, w, x->k - w < nc ? x->k - w : nc);
    float r0 = 0;
    for (int tr = 0; tr <= x->tmax; tr++) {
        float r = 0;
        uint64_t mask = ~(((uint64_t)1 << tr) - 1);
        for (int b = 0; b < nb; b++) r += (float)mx_value(u->d, t->blk[b] & mask);
        if (tr == 0) r0 = r;
        uint32_t b0, b1;
        memcpy(&b0, &r0, 4);
        memcpy(&b1, &r, 4);
        out[tr] = b0 == b1 ? 0.0f : r0 != 0 ? fabsf((r - r0) / r0) : INFINITY;
    }
}

static void gemm_group(run_ctx *x, tls *t, long i, int g, const mx_enc *e)
{
    const mma_unit *ug = &x->u[g];
    int ns = mma_unit_nscales(ug);
    mma_xval v = {MMA_ZERO, 0, 0, 0, 0};
    double ref = 0;
    if (!x->o->ntrun) {
        mma_acc_reset(&t->acc);
        mma_acc_chain(&t->acc, ug, e->c, e->a, e->b, e->sa, e->sb, x->k);
        v = mma_acc_value(&t->acc);
        ref = mx_fp32_ref(ug, 0.0, e->a, e->b, ns ? e->sa : NULL, ns ? e->sb : NULL, x->k);
    }
    for (int j = g; j < x->nu; j++) {
        if (x->group[j] != g) continue;
        const mma_unit *u = &x->u[j];
        if (x->o->ntrun) {
            ntrun_sweep(x, t, u, e, x->chg[j] + (size_t)i * (size_t)(x->tmax + 1));
            continue;
        }
        for (int m = 0; m < x->nm; m++) {
            mma_gemm_mode mode = x->o->modes[m];
            mma_fmt rf;
            uint64_t d = mma_gemm_dot(u, mode, ncof(x, u, mode), e->c, e->a, e->b, e->sa, e->sb, x->k, &rf);
            mx_res r;
            mx_result(rf, d, &t->acc, v, ref, 1, &r);
            mx_row_put(&x->rows[j * x->nm + m], i, &r);
        }
    }
}

static void gemm_chunk(void *vctx, int tid, long lo, long hi)
{
    run_ctx *x = vctx;
    for (long i = lo; i < hi; i++) each_group(x, &x->t[tid], i, gemm_group);
}

int mma_gemm_run(const mma_metrics_opts *o, const mma_unit *u, int nu, mma_row *rows,
                 float **chg, int *tmax, char *err, size_t errlen)
{
    run_ctx x;
    int rc = -1, nr = 0;
    if (run_init(&x, o, u, nu, 1, err, errlen)) goto out;
    x.rows = rows;
    x.chg = chg;
    x.nm = o->ntrun ? 1 : o->nmodes;
    if (x.nm < 1 || x.nm > MMA_GEMM_NMODES) { mma_errf(err, errlen, "%d modes: between 1 and %d", x.nm, MMA_GEMM_NMODES); goto out; }
    int uses_nc = o->ntrun;
    for (int m = 0; m < o->nmodes && !o->ntrun; m++) {
        if (o->modes[m] < 0 || o->modes[m] >= MMA_GEMM_NMODES) { mma_errf(err, errlen, "unknown mode %d", (int)o->modes[m]); goto out; }
        uses_nc |= o->modes[m] == MMA_GEMM_PROMOTE;
    }
    for (int j = 0; j < nu; j++) {
        char nb[600];
        if (check_depth(&u[j], x.k, o->nc, uses_nc, err, errlen)) goto out;
        if (o->ntrun && u[j].d == MMA_FMT_FP64) {
            mma_errf(err, errlen, "the ntrun sweep needs an fp32, fp16 or bf16 output (%s gives fp64)", unit_name(&u[j], nb, sizeof nb));
            goto out;
        }
    }
    if (o->ntrun) {
        for (int j = 0; j < nu; j++) chg[j] = NULL;
        x.tmax = 0;
        for (int j = 0; j < nu; j++) if (mma_format(u[j].d)->mbits > x.tmax) x.tmax = mma_format(u[j].d)->mbits;
        *tmax = x.tmax;
        for (int j = 0; j < nu; j++)
            if (!(chg[j] = calloc((size_t)o->count * (size_t)(x.tmax + 1), sizeof(float)))) { mma_errf(err, errlen, "out of memory"); goto out; }
    } else {
        memset(rows, 0, sizeof *rows * (size_t)nu * (size_t)x.nm);
        for (int j = 0; j < nu; j++)
            for (int m = 0; m < x.nm; m++, nr++) {
                mma_gemm_mode mode = o->modes[m];
                if (row_init(&rows[j * x.nm + m], &u[j], mode_names[mode], mma_gemm_result_format(&u[j], mode),
                             ncof(&x, &u[j], mode), o->count, 16, 1, err, errlen)) goto out;
            }
    }
    mma_parallel_for(o->count, 16, x.threads, gemm_chunk, &x, o->progress, o->pctx);
    if (!o->ntrun) for (int r = 0; r < nr; r++) mx_row_finish(&rows[r], x.threads);
    rc = 0;
out:
    if (rc) {
        for (int r = 0; r < nr; r++) mma_row_free(&rows[r]);
        if (o->ntrun && chg) for (int j = 0; j < nu; j++) { free(chg[j]); chg[j] = NULL; }
    }
    run_free(&x);
    return rc;
}

int mma_ntrun_summary(const float *chg, long count, int tmax, double *changed,
                      double *max_change, double *mean_change)
{
    int first = -1, T = tmax + 1;
    for (int tr = 0; tr < T; tr++) {
        long nch = 0, n = 0;
        double mx = 0, sum = 0;
        for (long i = 0; i < count; i++) {
            float c = chg[(size_t)i * (size_t)T + (size_t)tr];
            n++;
            if (c != 0) nch++;
            if (c > mx) mx = c;
            if (isfinite(c)) sum += c;
        }
        if (nch && first < 0) first = tr;
        changed[tr] = n ? (double)nch / (double)n : 0;
        max_change[tr] = mx;
        mean_change[tr] = n ? sum / (double)n : 0;
    }
    return first;
}
