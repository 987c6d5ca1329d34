/*
 * mmaref: stimulus.  The vector suites of docs/suites.md (what `mmaref gen`
 * writes, `mmaref verify` and `mmaref bench` run, Python's mmaref.gen
 * returns) and the encoder of a value into a format.  Every draw comes
 * from the generator of mmaref_rng.h, so a seed gives the same bytes on
 * any machine, with any thread count and from any caller.
 */
#ifndef MMAREF_GEN_H
#define MMAREF_GEN_H

#include <stdint.h>
#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The encoding of v in f, the inverse of mma_decode: exact when f holds v,
 * else rounded to nearest, ties to even (beyond the largest finite: Inf, or
 * the largest finite in formats without Inf).  A zero keeps its sign where
 * f has -0; NaN gives a quiet NaN of f (formats without NaN: the largest
 * finite).  The bits the unit ignores (tf32's low 13) come back zero. */
uint64_t mma_encode(mma_fmt f, mma_value v);

/* ---- suites ---------------------------------------------------------------
 * Indices 0 .. mma_suite_count()-1, in the order `mmaref gen --list-suites`
 * prints them: random normal cancel order precision rounding specials ezero
 * compliance bits ieee-zero ieee-overflow ieee-tiny ieee-sticky ieee-nan
 * neighbours. */
int mma_suite_count(void);
const char *mma_suite_name(int s);     /* NULL outside the range */
const char *mma_suite_what(int s);     /* what the suite holds, one line */
int mma_suite_find(const char *name);  /* its index, or -1 */

/* One suite of one unit from one seed.  The unit must outlive the record. */
typedef struct {
    const mma_unit *u;
    int suite;
    int ieee;          /* the unit has IEEE semantics: compliance mixes in the ieee- suites */
    uint64_t seed;
    uint64_t *ops;     /* a suite read from a file: its operands, NULL for a named suite */
    long nops;         /* the vectors it holds */
} mma_gen;

/* 0, or -1 for an unknown suite name */
int mma_gen_init(mma_gen *g, const mma_unit *u, const char *suite, uint64_t seed);
/* A suite read from a vector file (a minimized suite of mmaref verify
 * --augment, any suite written by mmaref gen): the operands of its first
 * max vectors (every vector when max < 0), whose unit must have u's
 * configuration; mma_gen_operands gives them back, mma_gen_vectors
 * recomputes d and flags with the model.  0, or -1 with the reason in err
 * ("file:line: field ...: why").  g->nops says how many were read. */
int mma_gen_init_file(mma_gen *g, const mma_unit *u, const char *path, long max, char *err, size_t len);
/* releases what mma_gen_init_file took (nothing for a named suite) */
void mma_gen_free(mma_gen *g);
/* c, a, b (and sa, sb) of vector i into v; d, flags and line untouched.
 * Safe from any number of threads at once. */
void mma_gen_operands(const mma_gen *g, long i, mma_vec *v);
/* vectors lo .. hi-1 into out[0 .. hi-lo-1], d and flags from the model
 * (line 0): the vectors `mmaref gen` writes.  Returns hi - lo. */
long mma_gen_vectors(const mma_gen *g, long lo, long hi, mma_vec *out);

/* ---- random modes ---------------------------------------------------------
 * A stream of constrained-random operands for a testbench that draws as it
 * goes (the DPI kit, the SystemC testbench, verify's [run] random):
 * "uniform" (random encodings), "finite" (random finite encodings),
 * "cluster" (random signs and significands, product exponents clustered so
 * alignment truncation bites, c near the largest product), "cancel" (X, -X
 * pairs and c cancelling a product, small residues), "tiny" (subnormal
 * range), "huge" (overflow range), "special" (finite with NaN/Inf/zero/
 * subnormal operands sprinkled), "carry" (c with an all-ones significand
 * and products near its half ulp: rounding carries), "mix" (each vector
 * picks one of these).  Units without block scales. */
typedef struct mma_rgen mma_rgen;
/* NULL with why in err (an unknown mode, a block-scaled unit) */
mma_rgen *mma_rgen_create(const mma_unit *u, uint64_t seed, const char *mode, char *err, size_t errlen);
void mma_rgen_next(mma_rgen *g, uint64_t *c, uint64_t *a, uint64_t *b);
/* restarts the stream as if created with seed (the mode is kept) */
void mma_rgen_reseed(mma_rgen *g, uint64_t seed);
void mma_rgen_free(mma_rgen *g);
int mma_rgen_mode_ok(const char *mode);   /* 1 for a mode's name */

#ifdef __cplusplus
}
#endif
#endif
