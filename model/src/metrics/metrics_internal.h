/* The exact reference and the metrics inside the library (not installed;
 * the public side is mmaref_metrics.h).
 *
 *   metrics_draw.c   deterministic normal / Student-t draws (own exp, log)
 *   metrics_exact.c  the exact accumulator, table decoding, correct
 *                    rounding, encoding, the sequential FP32 reference
 *   metrics_dist.c   input distributions, quantized into each unit's formats
 *   metrics_stats.c  statistics of a row, percentiles, the figures
 *   metrics_run.c    chains over a depth K, the runs of metrics and gemm
 *   matmul.c         a whole GEMM (mma_gemm) */
#ifndef MMAREF_METRICS_INTERNAL_H
#define MMAREF_METRICS_INTERNAL_H

#include <stdint.h>
#include "mmaref_metrics.h"
#include "mmaref_rng.h"

/* ---- deterministic random draws (metrics_draw.c) ---------------------- */
double mx_exp(double x);                 /* IEEE + - * / and sqrt only, so  */
double mx_log(double x);                 /* same on every machine            */
void mx_rng_init(void);                  /* before any draw (tables)         */
double mx_uniform(mma_rng *r);           /* [0, 1), 53 bits                  */
/* N(0,1), 256-layer ziggurat: the first layer test inline, the rest in
 * mx_normal_slow() */
extern double mx_zx[257], mx_zf[257];
double mx_normal_slow(mma_rng *r, uint64_t bits);
static inline double mx_normal(mma_rng *r)
{
    uint64_t bits = mma_rng_next(r);
    int i = (int)(bits & 0xff);
    double x = ((double)(bits >> 11) * 0x1p-52 - 1.0) * mx_zx[i];
    if (__builtin_fabs(x) < mx_zx[i + 1]) return x;
    return mx_normal_slow(r, bits);
}
double mx_student3(mma_rng *r);          /* Student t with 3 degrees         */

/* ---- formats: decoding, rounding, encoding (metrics_exact.c) ---------- */
typedef struct {
    uint8_t cls;      /* mma_class */
    uint8_t neg;
    int16_t e;        /* exponent of the significand's last bit */
    uint64_t sig;     /* integer significand (up to 53 bits)                 */
} mx_term;

/* Decoded term of an encoding (tables for formats of 16 bits or fewer,
 * built by mx_tables_init() before any thread starts; without them, or
 * when memory for them ran out, everything works on the slow paths). */
void mx_tables_init(void);
mx_term mx_decode(mma_fmt f, uint64_t bits);

/* compact terms for the product loop (formats of <= 16 bits, <= 11-bit
 * significands): flags bit 0 sign, 1 NaN, 2 Inf, 3 zero */
typedef struct { int16_t e; uint16_t sig; uint8_t flags; } mx_nterm;
extern const mx_nterm *mx_ntab[MMA_FMT_COUNT];
extern const double *mx_vtab[MMA_FMT_COUNT];
extern uint64_t mx_wmask[MMA_FMT_COUNT];

/* The value of an encoding as a double (exact: every format fits). */
double mx_value_slow(mma_fmt f, uint64_t bits);
static inline double mx_value(mma_fmt f, uint64_t bits)
{
    if (mx_vtab[f]) return mx_vtab[f][bits & mx_wmask[f]];
    return mx_value_slow(f, bits);
}

/* Largest finite value, and the exponent of its leading bit. */
double mx_fmt_max(mma_fmt f);
int mx_fmt_emax(mma_fmt f);
/* Round a double into f (RNE; overflow gives Inf where f has one, else
 * the largest finite value).  Formats of 8 bits or fewer use a table
 * indexed by the double's exponent, top p+1 significand bits and sticky. */
typedef struct { const uint8_t *t; int elo, ehi, nb, neg0; uint64_t neg_bit; } mx_qtab;
extern mx_qtab mx_qtabs[MMA_FMT_COUNT];
uint64_t mx_quantize_slow(mma_fmt f, double v);
static inline uint64_t mx_quantize_q(const mx_qtab *q, mma_fmt f, double v)
{
    uint64_t db;
    __builtin_memcpy(&db, &v, 8);
    uint64_t be = (db >> 52) & 0x7ff;
    if (!q->t || be == 0 || be == 0x7ff) return mx_quantize_slow(f, v);
    int32_t e = (int32_t)be - 1023;
    uint64_t r = 0;
    if (e >= q->elo) {
        if (e > q->ehi) e = q->ehi;
        r = q->t[((size_t)(e - q->elo) << (q->nb + 1)) |
                 (size_t)(((db >> (52 - q->nb)) & (((uint64_t)1 << q->nb) - 1)) << 1) |
                 (size_t)((db & (((uint64_t)1 << (52 - q->nb)) - 1)) != 0)];
    }
    uint64_t sign = (db >> 63) & (uint64_t)(r != 0 || q->neg0);   /* no branch */
    return r | (q->neg_bit & (0 - sign));
}
static inline uint64_t mx_quantize(mma_fmt f, double v) { return mx_quantize_q(&mx_qtabs[f], f, v); }

/* ---- the exact accumulator (metrics_exact.c) --------------------------- */
void mx_acc_term(mma_acc *a, mx_term t);             /* add a decoded value   */
void mx_acc_prod(mma_acc *a, mx_term x, mx_term y);  /* add x*y exactly       */
/* Add (-1)^neg * sig * 2^lsb exactly (sig up to 128 bits). */
void mx_acc_add(mma_acc *a, int neg, unsigned __int128 sig, int32_t lsb);
/* Exponent of one ulp of v in format d (p fraction bits of d). */
int32_t mx_ulp_exp(mma_xval v, mma_fmt d);

/* ---- inputs (metrics_dist.c) ------------------------------------------- */
typedef struct {
    mma_dist dist;
    double scale;        /* sigma of normal, half-width of uniform          */
    int k;               /* dot product length                              */
    int zero_c;          /* c = +0 instead of a draw                         */
    mma_fmt quant;       /* MMA_FMT_NONE, or quantize into this first        */
    uint64_t seed;
    uint8_t *outlier;    /* llm: outlier channels (k entries)               */
    double *gain;        /* llm: channel gains (20..100 on outliers, else 1) */
} mx_gen;

/* Draw of vector i: a[k], b[k] and c as reals (c is a unit draw that the
 * encoding scales), or raw 64-bit words for MMA_DIST_BITS. */
typedef struct {
    double *a, *b, c;
    uint64_t *wa, *wb, wc, *wsa, *wsb;
    int k;
} mx_draw;

int mx_gen_init(mx_gen *g, mma_dist d, double scale, int k, uint64_t seed,
                int zero_c, mma_fmt quant);
void mx_gen_free(mx_gen *g);
mx_draw *mx_draw_new(int k);
void mx_draw_free(mx_draw *d);
void mx_draw_vector(const mx_gen *g, uint64_t i, mx_draw *d);

/* Encodings of a draw in unit u's formats (a, b: k entries; sa, sb:
 * k/block entries for block-scaled units). */
typedef struct {
    uint64_t *a, *b, *sa, *sb, c;
    int k;
} mx_enc;
mx_enc *mx_enc_new(int k);
void mx_enc_free(mx_enc *e);
void mx_encode_draw(const mx_gen *g, const mma_unit *u, const mx_draw *d, mx_enc *e);

/* ---- per-vector results and statistics (metrics_stats.c) --------------- */
enum {
    MX_R_SPECIAL = 1,     /* exact or output not finite: not in statistics */
    MX_R_SPMISMATCH = 2,  /* special, and the output's kind (finite, +Inf, */
                          /* -Inf, NaN) differs from RNE(exact)'s          */
    MX_R_NOTCR = 4,       /* output differs from RNE(exact) in d           */
    MX_R_NEFP32 = 8,      /* output differs from the sequential FP32 ref   */
    MX_R_RELINF = 16      /* exact 0, output not 0: relative error infinite */
};
typedef struct {
    double ulp;           /* signed error in ulps of the result format     */
    double abs;           /* signed absolute error d - x                   */
    double rel;           /* |d - x| / |x| (0 when x = 0)                  */
    double mag;           /* |x|                                           */
    unsigned flags;
} mx_res;

extern const double mx_pct[4];
int mx_row_init(mma_row *r, long count, long chunk, int keep_abs_rel);
void mx_row_put(mma_row *r, long i, const mx_res *x);   /* one thread per chunk */
void mx_row_finish(mma_row *r, int threads);            /* index order       */

/* ---- computing one vector's result -------------------------------------- */
/* The value of output encoding d (format df) against exact v: fills x.
 * fp32ref: the sequential reference's value (when has_ref). */
void mx_result(mma_fmt df, uint64_t d, mma_acc *exact, mma_xval v,
               double fp32ref, int has_ref, mx_res *x);

/* Sequential FP32 reference in k order starting from c (fmaf, RNE): what
 * a CUDA-core FP32 kernel computes; fp64 output units use fma in double. */
double mx_fp32_ref(const mma_unit *u, double acc, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k);

/* Do two units take the same inputs (so that one draw serves both)? */
int mx_same_inputs(const mma_unit *x, const mma_unit *y);

#endif
