/* A whole GEMM through a unit: every output element is one chain of
 * instruction calls over the depth K (mma_gemm_dot), or its exact value,
 * computed on all cores in fixed chunks, so the result does not depend on
 * the thread count. */
#include "metrics_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const mma_unit *u;
    mma_gemm_mode mode;
    int nc, k, ns;
    long n;
    const uint64_t *A, *B, *sa, *sb, *C;
    uint64_t *D;
    double *X;
    mma_acc *acc;          /* one per thread, for the exact values */
} mm_ctx;

static void mm_chunk(void *vctx, int tid, long lo, long hi)
{
    const mm_ctx *x = vctx;
    size_t k = (size_t)x->k, ns = (size_t)x->ns;
    for (long i = lo; i < hi; i++) {
        size_t r = (size_t)(i / x->n), col = (size_t)(i % x->n);
        const uint64_t *a = x->A + r * k, *b = x->B + col * k;
        const uint64_t *sa = ns ? x->sa + r * ns : NULL, *sb = ns ? x->sb + col * ns : NULL;
        uint64_t c = x->C ? x->C[i] : 0;
        if (x->X) {
            mma_acc *acc = &x->acc[tid];
            mma_acc_reset(acc);
            mma_acc_chain(acc, x->u, c, a, b, sa, sb, x->k);
            x->X[i] = mma_xval_double(mma_acc_value(acc));
        } else {
            x->D[i] = mma_gemm_dot(x->u, x->mode, x->nc, c, a, b, sa, sb, x->k, NULL);
        }
    }
}

int mma_gemm(const mma_unit *u, mma_gemm_mode mode, int nc, long m, long n, int k,
             const uint64_t *A, const uint64_t *B, const uint64_t *sa, const uint64_t *sb,
             const uint64_t *C, uint64_t *D, double *exact, int threads,
             char *err, size_t errlen)
{
    if (mode < 0 || mode >= MMA_GEMM_NMODES) { snprintf(err, errlen, "unknown mode %d", (int)mode); return -1; }
    if (k < 1 || k % u->k) { snprintf(err, errlen, "k=%d is not a positive multiple of the unit's K=%d", k, u->k); return -1; }
    if (mode == MMA_GEMM_PROMOTE && (nc < 1 || nc % u->k)) {
        snprintf(err, errlen, "nc=%d is not a positive multiple of the unit's K=%d", nc, u->k);
        return -1;
    }
    if (m < 0 || n < 0) { snprintf(err, errlen, "m=%ld, n=%ld: sizes cannot be negative", m, n); return -1; }
    int ns = mma_unit_nscales(u) ? k / u->block : 0;
    if (ns && (!sa || !sb)) { snprintf(err, errlen, "the unit is block-scaled: sa and sb are needed"); return -1; }
    if (threads <= 0) threads = mma_default_threads();
    mx_tables_init();
    mm_ctx x = {u, mode, nc, k, ns, n, A, B, sa, sb, C, D, exact, NULL};
    if (exact) {
        if (!(x.acc = malloc(sizeof *x.acc * (size_t)threads))) { snprintf(err, errlen, "out of memory"); return -1; }
        for (int t = 0; t < threads; t++) mma_acc_clear(&x.acc[t]);
    }
    /* 64 outputs a chunk: even a deep K (a few microseconds an output)
     * hands out chunks often enough to keep every core busy */
    mma_parallel_for(m * n, 64, threads, mm_chunk, &x, NULL, NULL);
    free(x.acc);
    return 0;
}

/* ---- scales applied outside the unit ------------------------------------ */

typedef struct {
    const mma_unit *u;
    mma_gemm_mode mode;
    int nc, w, k, ns, nw;
    long n;
    const uint64_t *A, *B, *sa, *sb, *C;
    const float *xa, *xb;
    uint64_t *D;
} sc_ctx;

static void sc_chunk(void *vctx, int tid, long lo, long hi)
{
    (void)tid;
    const sc_ctx *x = vctx;
    const mma_unit *u = x->u;
    size_t k = (size_t)x->k, ns = (size_t)x->ns, nw = (size_t)x->nw;
    int wide = u->d == MMA_FMT_FP64;
    for (long i = lo; i < hi; i++) {
        size_t r = (size_t)(i / x->n), col = (size_t)(i % x->n);
        const uint64_t *a = x->A + r * k, *b = x->B + col * k;
        const uint64_t *sa = ns ? x->sa + r * ns : NULL, *sb = ns ? x->sb + col * ns : NULL;
        const float *xa = x->xa + r * nw, *xb = x->xb + col * nw;
        double accd = x->C ? mx_value(u->c, x->C[i]) : 0.0;
        float acc = (float)accd;
        for (size_t t = 0; t < nw; t++) {
            size_t w0 = t * (size_t)x->w;
            mma_fmt rf;
            uint64_t p = mma_gemm_dot(u, x->mode, x->nc, 0, a + w0, b + w0,
                                      ns ? sa + w0 / (size_t)u->block : NULL, ns ? sb + w0 / (size_t)u->block : NULL,
                                      x->w, &rf);
            if (wide) accd = fma(mx_value(rf, p), (double)xa[t] * (double)xb[t], accd);
            else acc = fmaf((float)mx_value(rf, p), xa[t] * xb[t], acc);
        }
        if (wide) memcpy(&x->D[i], &accd, 8);
        else {
            uint32_t bits;
            memcpy(&bits, &acc, 4);
            x->D[i] = bits;
        }
    }
}

int mma_gemm_scaled(const mma_unit *u, mma_gemm_mode mode, int nc, int w, long m, long n, int k,
                    const uint64_t *A, const uint64_t *B, const uint64_t *sa, const uint64_t *sb,
                    const float *xa, const float *xb, const uint64_t *C, uint64_t *D, int threads,
                    char *err, size_t errlen)
{
    if (mode < 0 || mode >= MMA_GEMM_NMODES) { snprintf(err, errlen, "unknown mode %d", (int)mode); return -1; }
    if (w < 1 || w % u->k || k < 1 || k % w) {
        snprintf(err, errlen, "window %d: not a positive multiple of the unit's K=%d dividing k=%d", w, u->k, k);
        return -1;
    }
    if (mode == MMA_GEMM_PROMOTE && (nc < 1 || nc % u->k)) {
        snprintf(err, errlen, "nc=%d is not a positive multiple of the unit's K=%d", nc, u->k);
        return -1;
    }
    if (m < 0 || n < 0) { snprintf(err, errlen, "m=%ld, n=%ld: sizes cannot be negative", m, n); return -1; }
    int ns = mma_unit_nscales(u) ? k / u->block : 0;
    if (ns && (!sa || !sb)) { snprintf(err, errlen, "the unit is block-scaled: sa and sb are needed"); return -1; }
    if (ns && w % u->block) { snprintf(err, errlen, "window %d: not a multiple of the unit's block %d", w, u->block); return -1; }
    if (threads <= 0) threads = mma_default_threads();
    mx_tables_init();
    sc_ctx x = {u, mode, nc, w, k, ns, k / w, n, A, B, sa, sb, C, xa, xb, D};
    mma_parallel_for(m * n, 64, threads, sc_chunk, &x, NULL, NULL);
    return 0;
}
