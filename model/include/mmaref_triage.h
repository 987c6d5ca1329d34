/*
 * mmaref: what does a unit compute instead?
 *
 * Observations are dot products together with the output some unit gave
 * (a GPU, an RTL simulation, a model): the operands and d as raw encodings.
 * From them
 *   - the probe infers the configuration of the unit (the fraction bits F
 *     kept in alignment, the output rounding, the summation order, where
 *     zero terms sit in the maximum exponent, subnormal inputs, the NaN and
 *     zero rules) and returns the configuration string that reproduces
 *     every observation, or the one that reproduces the most;
 *   - the triage sorts the mismatches against a reference unit into
 *     classes (NaN payload, sign of zero, overflow, one ulp, flushed
 *     subnormals, flags, larger errors) and names the configuration nearest
 *     to what the unit computes ("behaves as f=12 on 99.8% of them").
 */
#ifndef MMAREF_TRIAGE_H
#define MMAREF_TRIAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- observations -------------------------------------------------------- */
typedef struct {
    mma_unit shape;      /* formats, k and block scales of every vector; the
                            probe keeps these and infers the rest          */
    size_t n, cap;
    int ns;              /* scales per operand per vector (0: unscaled)     */
    uint64_t *c, *a, *b; /* c[i], a[i*k .. i*k+k-1], b likewise             */
    uint64_t *sa, *sb;   /* sa[i*ns ..], sb[i*ns ..] (NULL when unscaled)   */
    uint64_t *d;         /* the unit's output                               */
    int has_flags;       /* 1 when flags[] holds the unit's exception flags */
    unsigned char *flags;
    long *tag;           /* where each came from: a file line, or an output
                            element of a tile (row * n + column)            */
} mma_obs;

/* An empty set of observations of units shaped like shape (formats, k,
 * scale format and block). */
void mma_obs_init(mma_obs *o, const mma_unit *shape);
/* Appends one; sa/sb NULL for unscaled shapes; flags < 0: none given.
 * Returns 0, or -1 when out of memory. */
int mma_obs_add(mma_obs *o, uint64_t c, const uint64_t *a, const uint64_t *b,
                const uint64_t *sa, const uint64_t *sb, uint64_t d, int flags, long tag);
/* Appends every vector of a vector file (which must have d); instr
 * overrides its '# instr:'.  The first file read into an empty set gives
 * the shape; later ones must have the same formats and k.  Returns 0, or
 * -1 with "file:line: ..." in err (the set keeps what it had). */
int mma_obs_read(mma_obs *o, const char *path, const char *instr, char *err, size_t len);
/* For the triage of a file against its own unit (or instr): appends every
 * vector the unit does not reproduce and the first keep_matching that it
 * does; *matching gets how many it reproduces in all.  Returns 0, or -1
 * with "file:line: ..." in err. */
int mma_obs_read_mismatches(mma_obs *o, const char *path, const char *instr, long keep_matching,
                            long *matching, char *err, size_t len);
void mma_obs_free(mma_obs *o);

/* ---- the probe -------------------------------------------------------------- */
typedef struct {
    int threads;             /* <= 0: all cores                              */
    const mma_unit *start;   /* also search near this unit (the triage's
                                reference), or NULL                         */
    const size_t *subset;    /* search on these observations only, or NULL  */
    size_t nsubset;
} mma_probe_opts;

/* One inferred property, with the evidence: how many observations the
 * alternatives would get wrong. */
typedef struct {
    char what[48];           /* "fraction bits kept in alignment (F)"      */
    char value[128];         /* "13"                                        */
    char evidence[320];      /* "12: 58748 differ, 14: 21974 differ"        */
} mma_probe_finding;

#define MMA_PROBE_MAX_FINDINGS 12

typedef struct {
    mma_unit unit;           /* the configuration reproducing the most       */
    size_t n, fit;           /* observations searched, those it reproduces  */
    long candidates;         /* configurations evaluated                    */
    long dots;               /* dot products computed                       */
    double seconds;
    int nfindings;
    mma_probe_finding finding[MMA_PROBE_MAX_FINDINGS];
} mma_probe_result;

/* Infers the configuration of the unit that produced o.  Returns 0 (r->fit
 * == r->n when r->unit reproduces every observation), or -1 with a message
 * in err (no observations, nothing to search). */
int mma_probe(const mma_obs *o, const mma_probe_opts *opt, mma_probe_result *r,
              char *err, size_t len);

/* How many of the observations (all, or the subset) u reproduces. */
size_t mma_probe_fit(const mma_unit *u, const mma_obs *o, const size_t *subset, size_t nsubset,
                     int threads);

/* The fields of a's canonical configuration string that differ from b's,
 * as "f=12 instead of 13, round=rne instead of rz, ftz=in instead of
 * none"; "" when none. */
int mma_unit_diff(const mma_unit *a, const mma_unit *b, char *buf, size_t len);

/* Prints the findings, the configuration string and how much it
 * reproduces; catalogue entries of the same shape that reproduce every
 * observation too are named. */
void mma_probe_write(FILE *f, const mma_obs *o, const mma_probe_result *r, int threads);

/* ---- the triage ------------------------------------------------------------- */
typedef enum {
    MMA_MM_NAN_PAYLOAD,      /* both NaN, other encodings                    */
    MMA_MM_ZERO_SIGN,        /* both zero, other signs                       */
    MMA_MM_OVERFLOW,         /* Inf against the largest finite, or back      */
    MMA_MM_ULP_TOWARD_ZERO,  /* one ulp (of the unit's output precision)
                                smaller in magnitude                        */
    MMA_MM_ULP_AWAY,         /* one ulp larger in magnitude                  */
    MMA_MM_SUBNORMAL_IN,     /* what the unit gives with subnormal inputs
                                flushed to zero                              */
    MMA_MM_SUBNORMAL_OUT,    /* a subnormal result given as zero             */
    MMA_MM_FLAGS_ONLY,       /* d right, exception flags not                 */
    MMA_MM_LARGER,           /* anything else                                */
    MMA_MM_COUNT
} mma_mismatch_class;

const char *mma_mismatch_class_name(mma_mismatch_class c);

/* The class of one mismatch: the reference u gives want, the unit gave got
 * (want != got under u's rules, or the flags differ). */
mma_mismatch_class mma_mismatch_classify(const mma_unit *u, uint64_t c, const uint64_t *a,
                                         const uint64_t *b, const uint64_t *sa,
                                         const uint64_t *sb, uint64_t want, uint64_t got);

#define MMA_TRIAGE_MAX_GROUPS 16

typedef struct {
    size_t n, mismatches;                /* observations, and those wrong    */
    size_t count[MMA_MM_COUNT];
    size_t example[MMA_MM_COUNT];        /* an observation of each class     */
    uint64_t example_want[MMA_MM_COUNT]; /* the reference's d for it         */
    /* the nearest configuration to what the unit computes (when any d
     * mismatched): how many of the mismatching observations it reproduces,
     * and how many of the matching ones it keeps */
    int have_nearest;
    mma_probe_result nearest;
    size_t nearest_fit_mismatching, nearest_fit_matching;
    size_t nearest_of;                   /* the mismatching observations it is
                                            judged on (those with d wrong; with
                                            flags, every one)               */
    char diff[256];                      /* mma_unit_diff(nearest, reference)*/
    /* tiles (observations tagged by output element, tags < tile_elems):
     * the elements that mismatch, grouped by the configuration nearest to
     * each (a processing element with a narrower accumulator shows up as
     * its own group) */
    long tile_elems;                     /* 0: not a tile                    */
    int ngroups;
    struct {
        char diff[256];                  /* how its elements differ from u   */
        size_t fit, n;                   /* their observations reproduced    */
        long nelems;
        long elems[64];                  /* the first of its elements        */
    } group[MMA_TRIAGE_MAX_GROUPS];
} mma_triage_report;

typedef struct {
    int threads;             /* <= 0: all cores                              */
    int nearest;             /* 1: search the nearest configuration          */
    long tile_elems;         /* > 0: tags are output elements 0..tile_elems-1,
                                grouped by configuration (with nearest)      */
} mma_triage_opts;

/* Sorts the observations that u does not reproduce.  Returns 0, or -1 with
 * a message in err (observations of another shape than u). */
int mma_triage(const mma_unit *u, const mma_obs *o, const mma_triage_opts *opt,
               mma_triage_report *r, char *err, size_t len);

/* Prints the classes with counts and one example each, then the nearest
 * configuration ("the unit behaves as f=12 on 99.8% of them").  tile_cols:
 * the columns of a tile whose tags are output elements, -1 when the tags
 * are lanes, 0 file lines. */
void mma_triage_write(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                      long tile_cols);
/* Its two halves: the classes (first line "triage: ..."), and the nearest
 * configuration with the groups of elements (nothing without them), so
 * that the classes can be shown before the nearest one is searched. */
void mma_triage_write_classes(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                              long tile_cols);
void mma_triage_write_nearest(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                              long tile_cols);

#ifdef __cplusplus
}
#endif
#endif
