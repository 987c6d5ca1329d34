/* Error metrics against the exact result (mmaref metrics, mmaref gemm).
 *
 *   metrics_rng.c    deterministic normal / Student-t draws (own exp, log)
 *   metrics_exact.c  the exact reference: a Kulisch accumulator over 32-bit
 *                    digits, table decoding, correct rounding, encoding
 *   metrics_dist.c   input distributions, quantized into each unit's formats
 *   metrics_stats.c  statistics, percentiles, table / CSV / JSON, histograms
 *   metrics_par.c    deterministic parallel loop with a progress line
 *   metrics.c        mmaref metrics;   gemm.c   mmaref gemm
 *
 * Nothing here depends on the thread count: every vector's inputs come from
 * its own RNG stream, every per-vector result lands in its own slot, and the
 * reductions run in index order on one thread. */
#ifndef MMAREF_METRICS_H
#define MMAREF_METRICS_H

#include <stdint.h>
#include <stdio.h>
#include "cli.h"
#include "mmaref_exact.h"

/* ---- deterministic random draws (metrics_rng.c) ---------------------- */
/* the generator of cli.h (inline there) */
static inline uint64_t mx_rng_next(cli_rng *r) { return cli_rng_next(r); }
double mx_exp(double x);                 /* IEEE + - * / and sqrt only, so  */
double mx_log(double x);                 /* same on every machine            */
void mx_rng_init(void);                  /* before any draw (tables)         */
double mx_uniform(cli_rng *r);           /* [0, 1), 53 bits                  */
/* N(0,1), 256-layer ziggurat: the first layer test inline, the rest in
 * mx_normal_slow() */
extern double mx_zx[257], mx_zf[257];
double mx_normal_slow(cli_rng *r, uint64_t bits);
static inline double mx_normal(cli_rng *r)
{
    uint64_t bits = mx_rng_next(r);
    int i = (int)(bits & 0xff);
    double x = ((double)(bits >> 11) * 0x1p-52 - 1.0) * mx_zx[i];
    if (__builtin_fabs(x) < mx_zx[i + 1]) return x;
    return mx_normal_slow(r, bits);
}
double mx_student3(cli_rng *r);          /* Student t with 3 degrees         */

/* ---- formats: decoding, rounding, encoding (metrics_exact.c) ---------- */
typedef struct {
    uint8_t cls;      /* mma_class */
    uint8_t neg;
    int16_t e;        /* exponent of the significand's last bit */
    uint64_t sig;     /* integer significand (up to 53 bits)                 */
} mx_term;

/* Decoded term of an encoding (tables for formats of 16 bits or fewer,
 * built by mx_tables_init() before any thread starts). */
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
/* Round (-1)^neg * mag * 2^(e - 63) (+ a sticky bit below) to format f,
 * keeping p fraction bits (the format's own when p < 0), RNE or RZ.
 * Overflow: Inf where the format has one (NVIDIA rule also for RZ),
 * otherwise the largest finite value (saturation).  mag has bit 63 set or
 * is 0 (then the result is +0, or -0 when neg and the format has -0). */
uint64_t mx_encode(mma_fmt f, int p, mma_rounding rho, int neg, uint64_t mag,
                   int32_t e, int sticky);
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
#define MX_SLOT_LO  (-2400)           /* weight of bit 0 of slot 0          */
#define MX_SLOTS    152               /* 32-bit digits in int64 containers  */
typedef struct {
    int64_t s[MX_SLOTS + 4];
    int lo, hi;                       /* slots touched (lo > hi: none)      */
    int nan, pinf, ninf;
} mx_acc;

typedef struct {
    mma_class cls;    /* MMA_ZERO, MMA_FINITE, MMA_INF, MMA_NAN            */
    int neg;
    uint64_t mag;     /* leading 64 bits, bit 63 set (finite nonzero)      */
    int32_t e;        /* exponent of mag's bit 63                          */
    int sticky;       /* nonzero bits below mag                            */
} mx_val;

void mx_acc_clear(mx_acc *a);                       /* first use: zeroes all */
void mx_acc_term(mx_acc *a, mx_term t);             /* add a decoded value   */
void mx_acc_prod(mx_acc *a, mx_term x, mx_term y);  /* add x*y exactly       */
/* Add (-1)^neg * sig * 2^lsb exactly (sig up to 128 bits). */
void mx_acc_add(mx_acc *a, int neg, unsigned __int128 sig, int32_t lsb);
/* Read the exact value (the accumulator is left unchanged). */
mx_val mx_acc_value(const mx_acc *a);
/* Reset the touched slots to zero (cheap). */
void mx_acc_reset(mx_acc *a);

double mx_val_double(mx_val v);
/* Exponent of one ulp of v in format d (p fraction bits of d). */
int32_t mx_ulp_exp(mx_val v, mma_fmt d);

/* Exact c + sum a_k*b_k (times block scales) of one unit call, added into
 * a (which the caller resets).  Same rules as mma_exact_dot(). */
void mx_acc_dot(mx_acc *a, const mma_unit *u, uint64_t c, const uint64_t *a_,
                const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                int with_c);

/* ---- inputs (metrics_dist.c) ------------------------------------------- */
typedef enum { MX_NORMAL, MX_UNIFORM, MX_LLM, MX_CANCEL, MX_BITS, MX_NDIST } mx_dist;
const char *mx_dist_name(mx_dist d);
int mx_dist_parse(const char *s, mx_dist *d);   /* -1 if unknown */
const char *mx_dist_list(void);

typedef struct {
    mx_dist dist;
    double scale;        /* sigma of normal, half-width of uniform          */
    int k;               /* dot product length                              */
    int zero_c;          /* c = +0 instead of a draw                         */
    mma_fmt quant;       /* MMA_FMT_NONE, or quantize into this first        */
    uint64_t seed;
    uint8_t *outlier;    /* llm: outlier channels (k entries)               */
    double *gain;        /* llm: channel gains (20..100 on outliers, else 1) */
} mx_gen;

/* Draw of vector i: a[k], b[k] and c as reals (c is a unit draw that the
 * encoding scales), or raw 64-bit words for MX_BITS. */
typedef struct {
    double *a, *b, c;
    uint64_t *wa, *wb, wc, *wsa, *wsb;
    int k;
} mx_draw;

int mx_gen_init(mx_gen *g, mx_dist d, double scale, int k, uint64_t seed,
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

typedef struct {
    long n, special, spmismatch, notcr, nefp32, relinf;
    double sum_ulp, sum_sulp, max_ulp, sum_rel, max_rel;
    double sum_abs, sum_sabs, max_abs, sum_mag;
} mx_part;

/* One row of a report: a unit (and for gemm a mode). */
typedef struct {
    char label[600];      /* as the user named it                          */
    char config[600];     /* canonical configuration string                */
    char mode[64];        /* gemm mode ("" for metrics)                    */
    long count, chunk, nparts;
    mx_part *parts, tot;
    float *e_ulp, *e_abs, *e_rel;   /* per vector; NaN for specials        */
    double pulp[4], pabs[4], prel[4];   /* percentiles 50 90 99 99.9 of |.| */
} mx_row;

extern const double mx_pct[4];
int mx_row_init(mx_row *r, long count, long chunk, int keep_abs_rel);
void mx_row_free(mx_row *r);
void mx_row_put(mx_row *r, long i, const mx_res *x);   /* one thread per chunk */
void mx_row_finish(mx_row *r);                         /* index order       */
/* Gnuplot-friendly histogram of the signed ulp errors, one block per row. */
void mx_write_hist(FILE *f, mx_row *rows, int nrows, int bins);

typedef enum { MX_OUT_TABLE, MX_OUT_CSV, MX_OUT_JSON } mx_outfmt;

/* An aligned text table: cells[r*ncol + c], row 0 the header. */
void mx_table_print(FILE *f, char **cells, int nrows, int ncol);
char *mx_fmt(const char *fmt, ...);            /* malloc'd snprintf */
const char *mx_g(double x, char *buf);         /* %.4g, "-" for NaN */

/* ---- computing one vector's result -------------------------------------- */
/* The value of output encoding d (format df) against exact v: fills x.
 * cr: RNE of the exact value in df; fp32ref: the sequential reference's
 * value (NaN if none). */
void mx_result(mma_fmt df, uint64_t d, mx_acc *exact, mx_val v,
               double fp32ref, int has_ref, mx_res *x);

/* Sequential FP32 reference in k order starting from c (fmaf, RNE): what
 * a CUDA-core FP32 kernel computes; fp64 output units use fma in double. */
double mx_fp32_ref(const mma_unit *u, double acc, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k);

/* ---- unit calls over a depth k (metrics.c) ------------------------------ */
uint64_t mx_to_c(const mma_unit *u, uint64_t d);     /* d into u's c format */
/* k/u->k chained calls, the running sum in the unit's accumulator */
uint64_t mx_chain(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                  const uint64_t *sa, const uint64_t *sb, int k);
/* the exact value of the same (c counted once) added into acc */
void mx_exact_chain(mx_acc *acc, const mma_unit *u, uint64_t c, const uint64_t *a,
                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k);
int mx_same_inputs(const mma_unit *x, const mma_unit *y);

/* ---- parallel loop (metrics_par.c) ---------------------------------------- */
typedef void (*mx_chunk_fn)(void *ctx, int tid, long lo, long hi);
/* Runs fn over [0, count) in chunks of `chunk`, on `threads` threads,
 * showing a progress line on stderr when it is a terminal. */
void mx_parallel(long count, long chunk, int threads, mx_chunk_fn fn, void *ctx,
                 const char *what, double evals_per_item);
int mx_default_threads(void);
double mx_now(void);

/* ---- common option parsing --------------------------------------------- */
int mx_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);
int mx_parse_double(const char *cmd, const char *opt, const char *v, double *out);
void mx_json_str(FILE *f, const char *s);
void mx_csv_str(FILE *f, const char *s);

#endif
