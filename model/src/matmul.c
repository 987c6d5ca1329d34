/* A whole GEMM through a unit: every output element is one chain of
 * instruction calls over the depth K (mma_gemm_dot), or its exact value,
 * computed on all cores in fixed chunks, so the result does not depend on
 * the thread count. */
#include "metrics_internal.h"

#include <stdio.h>
#include <stdlib.h>

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
