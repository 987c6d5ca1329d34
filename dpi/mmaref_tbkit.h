/* mmaref_tbkit: testbench services over the mmaref C model, shared by the
 * DPI layer (mmaref_dpi.c) and the SystemC testbench: constrained-random
 * stimulus, a scoreboard with functional coverage, and reporting.  Plain C,
 * no simulator types. */
#ifndef MMAREF_TBKIT_H
#define MMAREF_TBKIT_H

#include <stdint.h>
#include <stdio.h>
#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- stimulus ------------------------------------------------------------ */
/* Modes: "uniform" (random encodings), "finite" (random finite encodings),
 * "cluster" (random signs and significands, product exponents clustered so
 * alignment truncation bites, c near the largest product), "cancel" (X, -X
 * pairs and c cancelling a product, small residues), "tiny" (subnormal
 * range), "huge" (overflow range), "special" (finite with NaN/Inf/zero/
 * subnormal operands sprinkled), "carry" (c with an all-ones significand
 * and products near its half ulp: rounding carries), "mix" (each vector
 * picks one of these). */
typedef struct mmaref_tbk_gen mmaref_tbk_gen;
mmaref_tbk_gen *mmaref_tbk_gen_create(const mma_unit *u, uint64_t seed, const char *mode,
                              char *err, size_t errlen);
void mmaref_tbk_gen_next(mmaref_tbk_gen *g, uint64_t *c, uint64_t *a, uint64_t *b);
void mmaref_tbk_gen_free(mmaref_tbk_gen *g);
/* Restarts the stream as if created with seed (the mode is kept): campaigns
 * split into shards reseed per block of vectors. */
void mmaref_tbk_gen_reseed(mmaref_tbk_gen *g, uint64_t seed);
int  mmaref_tbk_mode_ok(const char *mode);

/* ---- scoreboard and coverage --------------------------------------------- */
/* The RTL coverage word (mma_dpa cov port, docs/rtl.md):
 *   [7:0] largest alignment shift of a nonzero term   [15:8] signed exponent
 *   of the sum's leading bit minus emax   16 NaN operand   17 0*Inf
 *   18 +Inf and -Inf   19 Inf result   20 NaN result   21 bits cut in
 *   alignment   22 exact cancellation to zero   23 all terms zero
 *   24 inexact rounding   25 rounding carry-out   26 subnormal result
 *   27 overflow   28 underflow to zero */
enum {
    MMAREF_COV_NAN_IN = 16, MMAREF_COV_ZINF, MMAREF_COV_INFCONF, MMAREF_COV_INF_OUT,
    MMAREF_COV_NAN_OUT, MMAREF_COV_CUT, MMAREF_COV_CANCEL0, MMAREF_COV_EMPTY,
    MMAREF_COV_INEXACT, MMAREF_COV_RCARRY, MMAREF_COV_SUBOUT, MMAREF_COV_OVF,
    MMAREF_COV_UNF
};

typedef struct mmaref_tbk_sb mmaref_tbk_sb;
mmaref_tbk_sb *mmaref_tbk_sb_create(const mma_unit *u, const char *label);
/* Records one checked vector.  expect: the model's d; got: the DUT's d;
 * has_ref/ref: a reference d from a vector file (hardware capture) also to
 * match.  cov: the DUT's coverage word (or -1 when the DUT has none).
 * Returns 1 on a mismatch. */
int  mmaref_tbk_sb_record(mmaref_tbk_sb *s, uint64_t c, const uint64_t *a, const uint64_t *b,
                      uint64_t expect, uint64_t got, int has_ref, uint64_t ref,
                      int64_t cov);
/* The same with the exception flags (MMA_FLAG_*: nx bit 0, uf 1, of 2,
 * dz 3, nv 4) compared too: expect_flags from mma_dot_flags, got_flags the
 * DUT's.  A vector whose flags differ is a mismatch. */
int  mmaref_tbk_sb_record_flags(mmaref_tbk_sb *s, uint64_t c, const uint64_t *a, const uint64_t *b,
                                uint64_t expect, unsigned expect_flags, uint64_t got, unsigned got_flags,
                                int has_ref, uint64_t ref, int64_t cov);
long mmaref_tbk_sb_count(const mmaref_tbk_sb *s);
long mmaref_tbk_sb_mismatches(const mmaref_tbk_sb *s);
/* Prints "<N> vectors, <M> mismatches" (the first line; scripts grep it),
 * then the first mismatches and the coverage table unless quiet. */
void mmaref_tbk_sb_report(const mmaref_tbk_sb *s, FILE *f, int quiet);
/* The coverage bins hit and the bins that count (those the unit can reach). */
void mmaref_tbk_sb_coverage(const mmaref_tbk_sb *s, int *hit, int *bins);
void mmaref_tbk_sb_free(mmaref_tbk_sb *s);

/* ---- RTL parameters ----------------------------------------------------- */
/* The mma_dpa parameter set realizing u (rtl/mma_dpa.sv; for a
 * block-scaled unit, rtl/mma_dpa_bs.sv's), F shifted by fdelta.  Fills up to max (name, value) pairs and returns their number, or
 * -1 with a message naming the unit field when the RTL does not realize u. */
int mmaref_tbk_rtl_params(const mma_unit *u, int fdelta, const char **names, long *values,
                          int max, char *err, size_t errlen);

/* A vector line (docs/vector-format.md) for u into buf; returns buf. */
char *mmaref_tbk_format_vector(const mma_unit *u, uint64_t c, const uint64_t *a,
                           const uint64_t *b, uint64_t d, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
