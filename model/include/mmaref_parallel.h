/*
 * mmaref: deterministic parallel loops over many dot products.
 *
 * Work is cut into chunks of a fixed size and handed out to threads; what a
 * chunk computes never depends on which thread runs it, so results are the
 * same bytes for any thread count.  The library prints nothing: a caller
 * that wants a progress line passes a callback.
 */
#ifndef MMAREF_PARALLEL_H
#define MMAREF_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* fn computes items [lo, hi); tid (0 .. threads-1) names the thread, for
 * per-thread scratch space. */
typedef void (*mma_chunk_fn)(void *ctx, int tid, long lo, long hi);
/* Called about four times a second from the calling thread while the loop
 * runs: items done so far, of count, after seconds. */
typedef void (*mma_progress_fn)(void *pctx, long done, long count, double seconds);

/* Runs fn over [0, count) in chunks of `chunk` items on `threads` threads
 * (threads <= 0: one per online core).  If a thread cannot be started, the
 * work it would have done is done by the others (the caller's thread
 * included), so the loop always completes.  progress may be NULL. */
void mma_parallel_for(long count, long chunk, int threads, mma_chunk_fn fn, void *ctx,
                      mma_progress_fn progress, void *pctx);

int mma_default_threads(void);   /* online cores, 1 .. 256 */
double mma_now(void);            /* monotonic seconds */

/* ---- batches of dot products (model/src/batch.c) -------------------------
 *
 * A batch: n dot products of one unit u.  Vector i takes c[i],
 * a[i*k .. i*k+k-1], b[i*k .. i*k+k-1] (k = u->k) and, for block-scaled
 * units, sa and sb at i*mma_unit_nscales(u); it writes d[i] and, when flags
 * is not NULL, flags[i] (the MMA_FLAG_* bits of mma_dot_flags; 0 for units
 * without flags).
 *
 * Each array holds encodings at the width the caller keeps them: elements
 * of 1, 2, 4 or 8 bytes (uint8_t for formats of up to 8 bits, uint16_t up
 * to 16, ...), so that a K=32 fp8 dot product reads 65 bytes rather than
 * 520.  An element size too narrow for its format (1-byte a for bf16, 2-byte
 * d for fp32) is refused, with a message naming the argument; bits above a
 * format's width are passed on as they are, as mma_dot gets them.  d gets
 * the same encodings, and flags the same bits, for any thread count. */
typedef struct {
    size_t n;                        /* dot products */
    const void *c, *a, *b;           /* n, n*k, n*k encodings */
    const void *sa, *sb;             /* n*nscales each; block-scaled units only (else not read) */
    void *d;                         /* n results */
    uint8_t *flags;                  /* NULL, or n exception-flag bytes */
    int c_size, a_size, b_size;      /* bytes per element: 1, 2, 4 or 8 */
    int sa_size, sb_size, d_size;
    int threads;                     /* <= 0: one per online core */
} mma_batch;

/* The natural element size of f: the fewest of 1, 2, 4 and 8 bytes that
 * hold its encodings (1 for fp8 and fp4, 2 for fp16 and bf16, 4 for tf32
 * and fp32), the widths at which the fast kernels read a batch as it lies. */
int mma_natural_size(mma_fmt f);

/* Every element size 8 (uint64_t arrays), threads 0, the rest NULL / 0. */
void mma_batch_init(mma_batch *x);

/* Computes the batch x of u.  Returns 0; or -1 with a message in err
 * (naming the argument: "a: 1-byte elements cannot hold bf16's 16 bits")
 * and nothing written, for an element size other than 1, 2, 4 or 8, one
 * too narrow for its format, or a NULL array the batch needs. */
int mma_batch_dot(const mma_unit *u, const mma_batch *x, char *err, size_t errlen);

/* The checks of mma_batch_dot alone (element sizes, NULL arrays), nothing
 * computed: 0, or -1 with the same message.  For callers that compute the
 * batch elsewhere (the CUDA backend, cuda/mmaref_cuda.h). */
int mma_batch_check(const mma_unit *u, const mma_batch *x, char *err, size_t errlen);

/* The batch of uint64_t arrays (mma_batch_init's sizes): sa and sb NULL
 * for unscaled units; threads <= 0: all cores. */
void mma_dot_batch(const mma_unit *u, size_t n, const uint64_t *c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                   uint64_t *d, int threads);

/* dst[0 .. count-1] = the count elements of `size` bytes (1, 2, 4 or 8) at
 * src, zero-extended: the widening the batches do, for callers with loops
 * of their own (32-byte stores with AVX2, chosen at run time). */
void mma_widen(uint64_t *dst, const void *src, int size, size_t count);

#ifdef __cplusplus
}
#endif
#endif
