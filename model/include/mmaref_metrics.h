/*
 * mmaref: the exact reference and the error metrics.
 *
 * How far is a unit's result from the exact value of c + sum a_k*b_k?
 * This header holds what answers it, for the mmaref command, the DPI layer
 * and the Python package alike:
 *
 *   - values of encodings as doubles, and doubles rounded into any format;
 *   - an exact (Kulisch) accumulator fast enough for millions of dot
 *     products a second, and the correctly rounded result it gives;
 *   - instruction chains over a depth K (the running sum kept in the
 *     accumulator, promoted to FP32 every Nc products, or two-stage), one
 *     output element at a time or a whole GEMM;
 *   - the runs behind `mmaref metrics` and `mmaref gemm`: drawn inputs,
 *     per-vector errors and their statistics (docs/accuracy.md).
 *
 * Nothing here depends on the thread count: every vector's inputs come from
 * its own random stream, every per-vector result lands in its own slot, and
 * the reductions run in index order on one thread.  Nothing prints.
 */
#ifndef MMAREF_METRICS_H
#define MMAREF_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "mmaref.h"
#include "mmaref_parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- encodings and host doubles -------------------------------------- */
/* The value of an encoding as a double (exact: every format fits). */
double mma_to_double(mma_fmt f, uint64_t bits);

/* What a value beyond a format's range (and an infinite one) becomes when
 * a double is rounded into it. */
typedef enum {
    MMA_OVF_INF,       /* Inf where the format has one, else its largest
                          finite value (the metrics' rule)                  */
    MMA_OVF_SATURATE,  /* the largest finite value, Inf inputs too (OCP
                          saturation mode, PTX cvt .satfinite)              */
    MMA_OVF_NAN        /* Inf where the format has one, else NaN where it
                          has one (OCP non-saturating mode, as ml_dtypes
                          converts), else the largest finite value          */
} mma_overflow;

/* v rounded to nearest (ties to even) into f, subnormals kept.  A NaN gives
 * f's NaN (sign and top payload bits kept where f is IEEE-like), or +0 in a
 * format without NaN (fp6, fp4).  ue8m0 rounds to a power of two. */
uint64_t mma_from_double(mma_fmt f, double v, mma_overflow ovf);

/* Block scales (MX, NVFP4).  The scale of a block whose largest finite
 * magnitude is amax, for elements of format f, in scale format sf: ue8m0
 * per the OCP MX rule, 2^(floor(log2 amax) - emax(f)) (2^-127 for a zero
 * block); ue4m3 (NVFP4): amax / max(f) rounded to nearest (1 where that
 * is 0).  *inv gets 1 / the scale's value. */
uint64_t mma_block_scale(mma_fmt sf, mma_fmt f, double amax, double *inv);
/* n values (blocks of `block` in a row; a last short block allowed) into
 * f with one scale per block: scales[n / block rounded up], elements v / the
 * block's scale rounded into f with overflow rule ovf. */
void mma_block_quantize(mma_fmt sf, int block, mma_fmt f, const double *v, long n,
                        uint64_t *out, uint64_t *scales, mma_overflow ovf);

/* ---- the exact accumulator ------------------------------------------- */
/* A Kulisch accumulator: the exact sum as 32-bit digits in signed 64-bit
 * slots covering 2^-2400 .. 2^2464 (every fp64 product and sum); a term is
 * added without carry propagation, carries are resolved when the value is
 * read, over the slots touched.  About 1.2 kB: keep one per thread. */
#define MMA_ACC_SLOT_LO  (-2400)      /* weight of bit 0 of slot 0          */
#define MMA_ACC_SLOTS    152          /* 32-bit digits in int64 containers  */
typedef struct {
    int64_t s[MMA_ACC_SLOTS + 4];
    int lo, hi;                       /* slots touched (lo > hi: none)      */
    int nan, pinf, ninf;
} mma_acc;

/* The exact value read from an accumulator. */
typedef struct {
    mma_class cls;    /* MMA_ZERO, MMA_FINITE, MMA_INF, MMA_NAN            */
    int neg;
    uint64_t mag;     /* leading 64 bits, bit 63 set (finite nonzero)      */
    int32_t e;        /* exponent of mag's bit 63                          */
    int sticky;       /* nonzero bits below mag                            */
} mma_xval;

void mma_acc_clear(mma_acc *a);                 /* first use: zeroes all    */
void mma_acc_reset(mma_acc *a);                 /* the touched slots (cheap)*/
/* Add the value of an encoding of f, negated when negate is set. */
void mma_acc_add_enc(mma_acc *a, mma_fmt f, uint64_t bits, int negate);
/* Add the exact c + sum a_k*b_k (times block scales) of one call of u
 * (c left out when with_c is 0).  Inf and NaN follow IEEE rules on the
 * exact terms: any NaN or 0*Inf, or +Inf with -Inf, makes the sum NaN. */
void mma_acc_dot(mma_acc *a, const mma_unit *u, uint64_t c, const uint64_t *av,
                 const uint64_t *bv, const uint64_t *sa, const uint64_t *sb, int with_c);
/* The same over a depth k (a multiple of u->k), c counted once. */
void mma_acc_chain(mma_acc *a, const mma_unit *u, uint64_t c, const uint64_t *av,
                   const uint64_t *bv, const uint64_t *sa, const uint64_t *sb, int k);
/* Read the exact value (the accumulator is left unchanged). */
mma_xval mma_acc_value(const mma_acc *a);
/* The exact value rounded to nearest even into a double. */
double mma_xval_double(mma_xval v);
/* The exact value rounded into f with p fraction bits (f's own when p < 0)
 * and rounding rho (RNE or RZ); overflow as MMA_OVF_INF. */
uint64_t mma_xval_round(mma_xval v, mma_fmt f, int p, mma_rounding rho);

/* ---- chains of instruction calls over a depth K ------------------------ */
typedef enum {
    MMA_GEMM_TC,        /* the running sum stays in the accumulator: each
                           call's output is the next call's c              */
    MMA_GEMM_PROMOTE,   /* every nc products the accumulator's value is
                           added into an FP32 register (fp64 for fp64-output
                           units) with an IEEE round-to-nearest add, and the
                           accumulator restarts from +0 (DeepSeek-V3)      */
    MMA_GEMM_TWOSTAGE,  /* promote with nc = the instruction's K: every call
                           from c = +0, its output added into the register */
    MMA_GEMM_NMODES
} mma_gemm_mode;
/* A NaN of the promoted sum (promote, twostage) is the canonical NaN that
 * the CUDA cores' FADD/DADD doing the promotion give, whatever the host's
 * addition would give: the same bits on every machine and on the GPU. */
#define MMA_GEMM_NAN32 UINT64_C(0x7fffffff)
#define MMA_GEMM_NAN64 UINT64_C(0x7fffffffffffffff)
const char *mma_gemm_mode_name(mma_gemm_mode m);    /* "tc", "promote", ... */
int mma_gemm_mode_parse(const char *s, mma_gemm_mode *m);    /* -1 if unknown */

/* d converted into u's c format (the identity when they agree). */
uint64_t mma_to_c(const mma_unit *u, uint64_t d);
/* k/u->k chained calls from c (k a multiple of u->k): a + s, b + s and the
 * scales of that block for call s; returns the last call's d. */
uint64_t mma_chain(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                   const uint64_t *sa, const uint64_t *sb, int k);
/* One output element over depth k in a mode (nc for MMA_GEMM_PROMOTE, a
 * multiple of u->k).  tc: the chain from c, in u->d.  promote, twostage:
 * the register starts at c's value and takes each window's chain from +0;
 * the result is an fp32 encoding (fp64 for fp64-output units).  *rf (may be
 * NULL) gets the result's format. */
uint64_t mma_gemm_dot(const mma_unit *u, mma_gemm_mode mode, int nc, uint64_t c,
                      const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                      const uint64_t *sb, int k, mma_fmt *rf);
/* The result format of mma_gemm_dot in a mode. */
mma_fmt mma_gemm_result_format(const mma_unit *u, mma_gemm_mode mode);

/* A whole GEMM, D = A*B + C, on `threads` threads (<= 0: all cores), the
 * same bytes for any thread count.  A: m x k row-major encodings of u->a;
 * B: given as its transpose, n x k row-major (row j is column j of B, as a
 * dot product reads it); C: m x n encodings of u->c, or NULL for +0;
 * block-scaled units: sa m x k/block, sb n x k/block (the scales of A's
 * rows and B's columns), NULL otherwise.  D: m x n encodings of
 * mma_gemm_result_format().  With exact non-NULL, D is ignored and exact
 * gets the exact results (C included) rounded to nearest doubles.
 * Returns 0, or -1 with a message in err when k or nc does not fit u. */
int mma_gemm(const mma_unit *u, mma_gemm_mode mode, int nc, long m, long n, int k,
             const uint64_t *A, const uint64_t *B, const uint64_t *sa, const uint64_t *sb,
             const uint64_t *C, uint64_t *D, double *exact, int threads,
             char *err, size_t errlen);

/* The same with scales that the software around the unit applies in FP32
 * (FP8 GEMMs with per-tensor, per-row or per-block scales, DeepSeek-V3's
 * recipe): the depth is cut into windows of w products (a multiple of
 * u->k; w = k: one window); each window's chain from +0 in `mode` (nc as
 * mma_gemm_dot) gives p, and for output (i, j) the FP32 register, which
 * starts at C's value (+0 without C), takes
 *     acc = fmaf(p, xa[i][win] * xb[j][win], acc)
 * window by window: the scales' product rounded to FP32, then one fused
 * multiply-add, as the CUDA compiler contracts DeepGEMM's
 * `acc += scale_a * scale_b * partial` (fp64-output units: the same in
 * binary64).  xa: m x (k / w), xb: n x (k / w) (B's scales by column, as B
 * is given transposed).  sa, sb: a block-scaled unit's own block scales, as
 * mma_gemm.  D: m x n fp32 encodings (fp64 for fp64-output units).  0, or
 * -1 with a message when w, nc or k do not fit u. */
int mma_gemm_scaled(const mma_unit *u, mma_gemm_mode mode, int nc, int w, long m, long n, int k,
                    const uint64_t *A, const uint64_t *B, const uint64_t *sa, const uint64_t *sb,
                    const float *xa, const float *xb, const uint64_t *C, uint64_t *D, int threads,
                    char *err, size_t errlen);

/* ---- input distributions of the metrics --------------------------------- */
typedef enum {
    MMA_DIST_NORMAL, MMA_DIST_UNIFORM, MMA_DIST_LLM, MMA_DIST_CANCEL, MMA_DIST_BITS,
    MMA_DIST_COUNT
} mma_dist;
const char *mma_dist_name(mma_dist d);
int mma_dist_parse(const char *s, mma_dist *d);    /* -1 if unknown */
const char *mma_dist_list(void);                   /* "normal uniform ..." */

/* The inputs that `mmaref metrics <u> --dist d --seed s` draws (scale 1, c
 * drawn), one vector at a time, for other tools to replay: `mmaref gen
 * --dist`, power estimation on a realistic stimulus.  Vector i depends only
 * on (d, seed, u's formats and K, i), as in the metrics. */
typedef struct mma_draws mma_draws;
/* NULL with a message for an unknown distribution or no memory. */
mma_draws *mma_draws_new(const mma_unit *u, mma_dist d, uint64_t seed, char *err, size_t errlen);
/* Vector i: a[K], b[K], the block scales sa[], sb[] (mma_unit_nscales
 * entries each, untouched for unscaled units) and c, as encodings of u's
 * formats.  Thread-safe on one g. */
void mma_draws_vector(const mma_draws *g, uint64_t i, uint64_t *a, uint64_t *b,
                      uint64_t *sa, uint64_t *sb, uint64_t *c);
void mma_draws_free(mma_draws *g);

/* ---- runs: mmaref metrics and mmaref gemm -------------------------------- */
typedef struct {
    mma_dist dist;
    double scale;        /* sigma of normal, half-width of uniform          */
    int k;               /* depth: a multiple of every unit's K             */
    long count;          /* vectors (output elements for gemm)              */
    uint64_t seed;
    int zero_c;          /* metrics: c = +0 instead of a draw (gemm: always) */
    mma_fmt quant;       /* MMA_FMT_NONE, or round the draws into this first */
    int threads;         /* <= 0: all cores                                 */
    /* gemm only */
    int nmodes;
    mma_gemm_mode modes[MMA_GEMM_NMODES];
    int nc;              /* promotion interval (products)                    */
    int ntrun;           /* the output-truncation sweep instead of modes     */
    mma_progress_fn progress;   /* may be NULL */
    void *pctx;
} mma_metrics_opts;

/* mma_metrics_opts with the defaults of mmaref metrics (normal, scale 1,
 * count 100000, seed 1, k 0 = the largest unit K, all cores; nc 128). */
void mma_metrics_defaults(mma_metrics_opts *o);

/* Statistics of one chunk of vectors (reduced in chunk order). */
typedef struct {
    long n, special, spmismatch, notcr, nefp32, relinf;
    double sum_ulp, sum_sulp, max_ulp, sum_rel, max_rel;
    double sum_abs, sum_sabs, max_abs, sum_mag;
} mma_part;

/* One row of a report: a unit (and for gemm a mode). */
typedef struct {
    char config[600];     /* canonical configuration string                */
    char mode[64];        /* gemm mode ("" for metrics)                    */
    mma_fmt out;          /* format the errors are measured in             */
    int nc;               /* gemm: products per promotion (0 for tc)       */
    long count, chunk, nparts;
    mma_part *parts, tot;
    float *e_ulp, *e_abs, *e_rel;   /* per vector; NaN for specials        */
    double pulp[4], pabs[4], prel[4];   /* percentiles 50 90 99 99.9 of |.| */
} mma_row;
void mma_row_free(mma_row *r);

/* mmaref metrics: nu units (every one with the same draws, quantized into
 * its own formats), one row each (rows[nu], filled here).  Returns 0, or -1
 * with a message in err (a k that is not a multiple of a unit's K, a quant
 * format a unit's input cannot hold, no memory). */
int mma_metrics_run(const mma_metrics_opts *o, const mma_unit *u, int nu, mma_row *rows,
                    char *err, size_t errlen);

/* mmaref gemm: rows[nu * o->nmodes] (unit-major), c = +0.  With o->ntrun,
 * rows are not used: chg[j] (allocated here, count * (tmax + 1) floats, free
 * with free()) gets, for unit j and vector i, the relative change of the
 * FP32 sum of the nc-product block outputs when their low t bits are zeroed
 * (t = 0 .. tmax, the largest output fraction bits; 0 when the bits are
 * unchanged, Inf when the sum was 0); *tmax is set. */
int mma_gemm_run(const mma_metrics_opts *o, const mma_unit *u, int nu, mma_row *rows,
                 float **chg, int *tmax, char *err, size_t errlen);

/* The figures of a row, under the names the mmaref command prints them:
 * mma_metrics_figures for metrics rows, mma_gemm_figures for gemm rows
 * (NaN where a figure is undefined, e.g. no finite result).  names[i] and
 * whether figure i is a count (integer) come from the tables. */
typedef struct { const char *name; int is_count; } mma_figure;
extern const mma_figure mma_metrics_figure[];
#define MMA_METRICS_NFIG 15
extern const mma_figure mma_gemm_figure[];
#define MMA_GEMM_NFIG 17
void mma_metrics_figures(const mma_row *r, double v[MMA_METRICS_NFIG]);
void mma_gemm_figures(const mma_row *r, double v[MMA_GEMM_NFIG]);

/* The ntrun sweep of one unit summed up: for each t, the fraction of results
 * that changed, the largest and the mean relative change; returns the first
 * t that changed any result (-1 if none). */
int mma_ntrun_summary(const float *chg, long count, int tmax, double *changed,
                      double *max_change, double *mean_change);

#ifdef __cplusplus
}
#endif
#endif
