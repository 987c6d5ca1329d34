/*
 * mmaref: the deterministic random generator of the test suites and the
 * error metrics.  xoshiro256** (Blackman and Vigna), seeded through
 * splitmix64 from a (seed, stream) pair, so that vector i of a run draws
 * from its own stream and the same seed gives the same bytes on any machine
 * and with any thread count.
 */
#ifndef MMAREF_RNG_H
#define MMAREF_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t s[4]; } mma_rng;

void mma_rng_seed(mma_rng *r, uint64_t seed, uint64_t stream);

/* inline because the suites draw ~150 numbers per vector and the call was
 * a fifth of mmaref gen's time */
static inline uint64_t mma_rng_next(mma_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* uniform in [0, n): the high half of a 64x64 product (no division) */
static inline uint64_t mma_rng_below(mma_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mma_rng_next(r) * n) >> 64);
}

#ifdef __cplusplus
}
#endif
#endif
