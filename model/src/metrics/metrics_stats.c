/* Statistics of the metrics: per-chunk partial sums (each chunk is filled
 * by one thread in index order, and the chunks are reduced in order, so the
 * sums do not depend on the thread count), per-vector errors for the
 * percentiles (nearest rank) and histograms, and the figures of a row
 * (the columns mmaref metrics and gemm print). */
#include "metrics_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const double mx_pct[4] = {0.5, 0.9, 0.99, 0.999};

int mx_row_init(mma_row *r, long count, long chunk, int keep_abs_rel)
{
    memset(&r->count, 0, sizeof *r - offsetof(mma_row, count));
    r->count = count;
    r->chunk = chunk;
    r->nparts = count ? (count + chunk - 1) / chunk : 0;
    r->parts = calloc((size_t)r->nparts + 1, sizeof *r->parts);
    r->e_ulp = malloc(((size_t)count + 1) * sizeof(float));
    if (keep_abs_rel) {
        r->e_abs = malloc(((size_t)count + 1) * sizeof(float));
        r->e_rel = malloc(((size_t)count + 1) * sizeof(float));
    }
    if (!r->parts || !r->e_ulp || (keep_abs_rel && (!r->e_abs || !r->e_rel))) return -1;
    return 0;
}

void mma_row_free(mma_row *r)
{
    free(r->parts); free(r->e_ulp); free(r->e_abs); free(r->e_rel);
    r->parts = NULL; r->e_ulp = r->e_abs = r->e_rel = NULL;
}

void mx_row_put(mma_row *r, long i, const mx_res *x)
{
    mma_part *p = &r->parts[i / r->chunk];
    if (x->flags & MX_R_SPECIAL) {
        p->special++;
        if (x->flags & MX_R_SPMISMATCH) p->spmismatch++;
        r->e_ulp[i] = NAN;
        if (r->e_abs) { r->e_abs[i] = NAN; r->e_rel[i] = NAN; }
        return;
    }
    p->n++;
    if (x->flags & MX_R_NOTCR) p->notcr++;
    if (x->flags & MX_R_NEFP32) p->nefp32++;
    double au = fabs(x->ulp), aa = fabs(x->abs);
    p->sum_ulp += au;
    p->sum_sulp += x->ulp;
    if (au > p->max_ulp) p->max_ulp = au;
    p->sum_abs += aa;
    p->sum_sabs += x->abs;
    if (aa > p->max_abs) p->max_abs = aa;
    p->sum_mag += x->mag;
    if (x->flags & MX_R_RELINF) p->relinf++;
    else {
        p->sum_rel += x->rel;
        if (x->rel > p->max_rel) p->max_rel = x->rel;
    }
    r->e_ulp[i] = (float)x->ulp;
    if (r->e_abs) {
        r->e_abs[i] = (float)x->abs;
        r->e_rel[i] = (x->flags & MX_R_RELINF) ? INFINITY : (float)x->rel;
    }
}

/* The percentiles (nearest rank) of |v| over its entries that are not NaN,
 * by a radix select on the bit patterns (non-negative floats order as
 * their bits) rather than a sort: three passes over v, on the digits of
 * bits 31-21, 20-10 and 9-0, each a histogram counted on all threads in
 * fixed chunks, narrow each wanted rank down to one bit pattern.  The
 * counts are integers, so the result is the sorted array's element for
 * any thread count.  (The serial radix sort took 12 ms a million numbers
 * here, about a tenth of a 16-core metrics run.) */
#define SEL_BINS 2048
typedef struct {
    const float *v;
    int shift, pass;
    uint32_t mask, prefix[4];
    uint64_t *hist;        /* per thread: 4 histograms */
} select_pass;

static void select_chunk(void *ctx, int tid, long lo, long hi)
{
    const select_pass *s = ctx;
    uint64_t *h = s->hist + (size_t)tid * 4 * SEL_BINS;
    for (long i = lo; i < hi; i++) {
        float x = s->v[i];
        if (x != x) continue;
        x = fabsf(x);
        uint32_t b;
        memcpy(&b, &x, 4);
        uint32_t d = (b >> s->shift) & (SEL_BINS - 1);
        if (s->pass == 0) { h[d]++; continue; }
        for (int q = 0; q < 4; q++) if ((b & s->mask) == s->prefix[q]) h[q * SEL_BINS + d]++;
    }
}

static void percentiles(const float *v, long count, int threads, double out[4])
{
    for (int q = 0; q < 4; q++) out[q] = NAN;
    if (!v || !count) return;
    if (threads <= 0) threads = mma_default_threads();
    long nchunks = (count + 65535) / 65536;
    if (threads > nchunks) threads = (int)nchunks;
    select_pass s = {v, 21, 0, 0, {0, 0, 0, 0}, calloc((size_t)threads * 4 * SEL_BINS, sizeof(uint64_t))};
    if (!s.hist) return;
    static const int shifts[3] = {21, 10, 0};
    uint64_t rank[4] = {0, 0, 0, 0}, sum[4 * SEL_BINS];
    for (int pass = 0; pass < 3; pass++) {
        s.pass = pass;
        s.shift = shifts[pass];
        s.mask = pass ? ~(uint32_t)0 << shifts[pass - 1] : 0;
        memset(s.hist, 0, (size_t)threads * 4 * SEL_BINS * sizeof(uint64_t));
        mma_parallel_for(count, 65536, threads, select_chunk, &s, NULL, NULL);
        memset(sum, 0, sizeof sum);
        for (int t = 0; t < threads; t++)
            for (int i = 0; i < 4 * SEL_BINS; i++) sum[i] += s.hist[(size_t)t * 4 * SEL_BINS + (size_t)i];
        if (pass == 0) {                 /* the ranks, now that the count of numbers is known */
            uint64_t n = 0;
            for (int i = 0; i < SEL_BINS; i++) n += sum[i];
            if (!n) { free(s.hist); return; }
            for (int q = 0; q < 4; q++) {
                rank[q] = (uint64_t)ceil(mx_pct[q] * (double)n);
                if (rank[q] < 1) rank[q] = 1;
                memcpy(sum + q * SEL_BINS, sum, SEL_BINS * sizeof *sum);
            }
        }
        for (int q = 0; q < 4; q++) {   /* the digit of the rank-th number; the rank within it */
            const uint64_t *h = sum + q * SEL_BINS;
            int d = 0;
            while (d < SEL_BINS - 1 && rank[q] > h[d]) rank[q] -= h[d++];
            s.prefix[q] |= (uint32_t)d << s.shift;
        }
    }
    for (int q = 0; q < 4; q++) {
        float x;
        memcpy(&x, &s.prefix[q], 4);
        out[q] = x;
    }
    free(s.hist);
}

void mx_row_finish(mma_row *r, int threads)
{
    mma_part t;
    memset(&t, 0, sizeof t);
    for (long c = 0; c < r->nparts; c++) {
        const mma_part *p = &r->parts[c];
        t.n += p->n; t.special += p->special; t.spmismatch += p->spmismatch;
        t.notcr += p->notcr; t.nefp32 += p->nefp32; t.relinf += p->relinf;
        t.sum_ulp += p->sum_ulp; t.sum_sulp += p->sum_sulp; t.sum_rel += p->sum_rel;
        t.sum_abs += p->sum_abs; t.sum_sabs += p->sum_sabs; t.sum_mag += p->sum_mag;
        if (p->max_ulp > t.max_ulp) t.max_ulp = p->max_ulp;
        if (p->max_rel > t.max_rel) t.max_rel = p->max_rel;
        if (p->max_abs > t.max_abs) t.max_abs = p->max_abs;
    }
    r->tot = t;
    percentiles(r->e_ulp, r->count, threads, r->pulp);
    percentiles(r->e_abs, r->count, threads, r->pabs);
    percentiles(r->e_rel, r->count, threads, r->prel);
}


/* ---- the figures of a row ------------------------------------------------ */
const mma_figure mma_metrics_figure[MMA_METRICS_NFIG] = {
    {"n", 1}, {"special", 1}, {"sp_diff", 1}, {"max_ulp", 0}, {"mean_ulp", 0},
    {"p50_ulp", 0}, {"p90_ulp", 0}, {"p99_ulp", 0}, {"p99.9_ulp", 0}, {"bias_ulp", 0},
    {"max_rel", 0}, {"mean_rel", 0}, {"rel_inf", 1}, {"not_cr", 0}, {"ne_fp32", 0}};

void mma_metrics_figures(const mma_row *r, double v[MMA_METRICS_NFIG])
{
    const mma_part *t = &r->tot;
    double n = (double)t->n;
    v[0] = (double)t->n; v[1] = (double)t->special; v[2] = (double)t->spmismatch;
    v[3] = t->n ? t->max_ulp : NAN; v[4] = t->n ? t->sum_ulp / n : NAN;
    for (int q = 0; q < 4; q++) v[5 + q] = r->pulp[q];
    v[9] = t->n ? t->sum_sulp / n : NAN;
    v[10] = t->n > t->relinf ? t->max_rel : NAN;
    v[11] = t->n > t->relinf ? t->sum_rel / (double)(t->n - t->relinf) : NAN;
    v[12] = (double)t->relinf;
    v[13] = t->n ? (double)t->notcr / n : NAN;
    v[14] = t->n ? (double)t->nefp32 / n : NAN;
}

const mma_figure mma_gemm_figure[MMA_GEMM_NFIG] = {
    {"n", 1}, {"special", 1}, {"agg_rel", 0}, {"mean_rel", 0}, {"p50_rel", 0}, {"p99_rel", 0},
    {"max_rel", 0}, {"p50_abs", 0}, {"p90_abs", 0}, {"p99_abs", 0}, {"p99.9_abs", 0},
    {"max_abs", 0}, {"bias_rel", 0}, {"mean_ulp", 0}, {"max_ulp", 0}, {"not_cr", 0}, {"ne_fp32", 0}};

void mma_gemm_figures(const mma_row *r, double v[MMA_GEMM_NFIG])
{
    const mma_part *t = &r->tot;
    double n = (double)t->n;
    for (int c = 0; c < MMA_GEMM_NFIG; c++) v[c] = NAN;
    v[0] = n; v[1] = (double)t->special;
    if (!t->n) return;
    v[2] = t->sum_mag > 0 ? t->sum_abs / t->sum_mag : NAN;
    v[3] = t->n > t->relinf ? t->sum_rel / (double)(t->n - t->relinf) : NAN;
    v[4] = r->prel[0]; v[5] = r->prel[2];
    v[6] = t->n > t->relinf ? t->max_rel : NAN;
    for (int q = 0; q < 4; q++) v[7 + q] = r->pabs[q];
    v[11] = t->max_abs;
    v[12] = t->sum_mag > 0 ? t->sum_sabs / t->sum_mag : NAN;
    v[13] = t->sum_ulp / n; v[14] = t->max_ulp;
    v[15] = (double)t->notcr / n; v[16] = (double)t->nefp32 / n;
}
