/* The exact value of a dot product, for error metrics: c + sum a_k*b_k
 * (times the block scales) with no rounding at all, held in a fixed-point
 * (Kulisch) accumulator wide enough for every format's full range. */
#ifndef MMAREF_EXACT_H
#define MMAREF_EXACT_H

#include "mmaref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    mma_class cls;          /* MMA_FINITE (zero included), MMA_INF, MMA_NAN */
    int inf_neg;
    int32_t lo;             /* weight of the lowest accumulator bit         */
    int n;
    uint64_t w[72];         /* two's complement limbs, little-endian        */
} mma_exact;

/* Exact c + sum a_k*b_k (scales applied as the unit defines them).  Inf and
 * NaN follow IEEE rules on the exact terms. */
void mma_exact_dot(const mma_unit *u, uint64_t c, const uint64_t *a,
                   const uint64_t *b, const uint64_t *sa, const uint64_t *sb,
                   mma_exact *x);
/* Start from zero / add the value of an encoding (exactly) times +-1. */
void mma_exact_zero(mma_exact *x);
void mma_exact_add(mma_exact *x, mma_fmt f, uint64_t bits, int negate);
/* Correctly rounded encoding of x in format d (p fraction bits, rho). */
uint64_t mma_exact_round(const mma_exact *x, mma_fmt d, int p, mma_rounding rho);
/* x as the nearest double (for statistics), and its sign (-1, 0, 1). */
double mma_exact_to_double(const mma_exact *x);
int mma_exact_sign(const mma_exact *x);

#ifdef __cplusplus
}
#endif
#endif
