/* Shared pieces of the mmaref command. */
#ifndef MMAREF_CLI_H
#define MMAREF_CLI_H

#include <stdio.h>
#include "mmaref.h"
#include "mmaref_vec.h"

/* Output written to a temporary file and renamed into place only when the
 * whole command succeeded, so a failed run leaves nothing half-written.
 * A name ending in .xz or .gz is compressed. */
typedef struct {
    FILE *f;
    char path[1024], tmp[1100];
    int is_pipe;
} cli_out;
int cli_out_open(cli_out *o, const char *path);
int cli_out_commit(cli_out *o);     /* 0 on success */
void cli_out_abort(cli_out *o);

int cli_unit(const char *name, mma_unit *u);   /* prints the error; -1 on failure */
int cli_parse_hex(const char *s, int digits, uint64_t *out);

int cmd_gen(int argc, char **argv);
/* Vectors lo .. hi-1 of `mmaref gen`'s suite (by name) for u into out[0 ..
 * hi-lo-1], d and flags filled in: the vectors the command writes.
 * Returns hi - lo, or -1 for an unknown suite. */
long cli_gen_suite(const mma_unit *u, const char *suite, unsigned long long seed, long lo, long hi, mma_vec *out);
int cmd_metrics(int argc, char **argv);
int cmd_gemm(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* Deterministic generator: one stream per (seed, vector index). */
typedef struct { uint64_t s[4]; } cli_rng;
void cli_rng_seed(cli_rng *r, uint64_t seed, uint64_t stream);
/* xoshiro256**; inline because the suites draw ~150 numbers per vector and
 * the call was a fifth of mmaref gen's time */
static inline uint64_t cli_rng_next(cli_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}
/* uniform in [0, n): the high half of a 64x64 product (no division) */
static inline uint64_t cli_rng_below(cli_rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)cli_rng_next(r) * n) >> 64);
}

#endif
