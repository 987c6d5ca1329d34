/* mmaref_timing: does the unit answer when its description says?  The
 * harness of `mmaref verify` (mmaref_harness.c) records the model's
 * results of the first vectors, the clock edges at which the unit takes
 * them and, for a unit without out_valid, its result bus at every edge;
 * afterwards the result stream is tried against the vectors shifted in
 * time: by -4..+8 cycles around the description's latency (0..lmax when
 * it is measured), or, for a unit with out_valid, by one transaction
 * either way.  A wrong `latency` then reads "latency 3 is wrong: the unit
 * answers after 4 cycles" instead of a flood of unrelated mismatches.
 * Plain C, no simulator types. */
#ifndef MMAREF_TIMING_H
#define MMAREF_TIMING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* vectors watched from the start of the campaign */
#define MMAREF_TW_VECTORS 20000L

typedef struct mmaref_tw mmaref_tw;

/* latency: the description's (-1: the unit has out_valid); lmax: the
 * largest latency the testbench can wait for (its shift register) */
mmaref_tw *mmaref_tw_create(int latency, int lmax);
void mmaref_tw_free(mmaref_tw *w);
/* A vector pushed (in the order the unit takes them): the model's d and
 * the vector's mode. */
void mmaref_tw_push(mmaref_tw *w, uint64_t d, int mode);
/* A clock edge after reset: taken, whether the unit took a vector at it;
 * d, its result bus.  1 while the watch wants more edges, 0 when it has
 * enough (the testbench then stops calling). */
int mmaref_tw_edge(mmaref_tw *w, int taken, uint64_t d);
/* A result taken from a unit with out_valid, in order. */
void mmaref_tw_pop(mmaref_tw *w, uint64_t d);

/* Whether the unit's result `got` is the model's `want` of a vector of
 * mode (the mode's rules and output width). */
typedef int (*mmaref_tw_equal)(void *ctx, int mode, uint64_t want, uint64_t got);

typedef struct {
    int shift;             /* the best latency (a unit without out_valid), or
                              the best transaction shift (-1, 0, +1)          */
    long match, compared;  /* vectors it explains, of those it could         */
    long match_given;      /* vectors the description's timing explains      */
} mmaref_tw_fit;

/* The timing that explains the most watched vectors: 0, or -1 when none
 * was watched.  measure: every latency 0..lmax (else the description's
 * -4..+8, or one transaction either way). */
int mmaref_tw_best(const mmaref_tw *w, int measure, mmaref_tw_equal eq, void *ctx, mmaref_tw_fit *fit);
/* The finding as a sentence (for the report), when another timing
 * explains (nearly) every vector where the description's does not: 1 and
 * the text in out, else 0. */
int mmaref_tw_note(const mmaref_tw *w, const mmaref_tw_fit *fit, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
