/* Shared pieces of the mmaref command. */
#ifndef MMAREF_CLI_H
#define MMAREF_CLI_H

#include <stdio.h>
#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_rng.h"
#include "mmaref_parallel.h"

/* Output written to a temporary file and renamed into place only when the
 * whole command succeeded, so a failed run leaves nothing half-written.
 * A name ending in .xz or .gz is compressed.  A path that exists and is not
 * a regular file (/dev/null, a FIFO, a terminal) is written directly: a
 * rename over it would replace the device with a plain file. */
typedef struct {
    FILE *f;
    char path[1024], tmp[1100];
    int is_pipe, direct;
} cli_out;
int cli_out_open(cli_out *o, const char *path);
int cli_out_commit(cli_out *o);     /* 0 on success */
void cli_out_abort(cli_out *o);

int cli_unit(const char *name, mma_unit *u);   /* prints the error; -1 on failure */
int cli_parse_hex(const char *s, int digits, uint64_t *out);

/* "--threads N": N >= 1, or -1 after a message */
int cli_threads(const char *arg);

/* run (check = 0, output to o) or check (check = 1, up to show mismatches
 * printed) every vector of r on `threads` threads (0: all cores); the
 * same output for any thread count.  0, or -1 after a message. */
int cli_vec_pass(mma_vec_reader *r, const char *in, int check, long show, cli_out *o, int threads,
                 long *nvec, long *nbad);
/* gen: vectors lo..hi-1, fn filling vector i (called from several threads
 * at once, each with its own v), d from the model, written to o */
typedef void (*cli_gen_fn)(void *ctx, long i, mma_vec *v);
int cli_gen_pass(const mma_unit *u, long lo, long hi, cli_gen_fn fn, void *ctx, cli_out *o, int threads);

int cmd_gen(int argc, char **argv);
/* Vectors lo .. hi-1 of `mmaref gen`'s suite (by name) for u into out[0 ..
 * hi-lo-1], d and flags filled in: the vectors the command writes.
 * Returns hi - lo, or -1 for an unknown suite. */
long cli_gen_suite(const mma_unit *u, const char *suite, unsigned long long seed, long lo, long hi, mma_vec *out);
/* The n vectors v as a batch of u at their natural widths
 * (mma_natural_size; mmaref bench --file):
 * c, a, b, sa and sb in buffers put in mem (free each), d and threads
 * left to the caller.  0, or -1 when out of memory. */
int cli_batch_natural(mma_batch *x, void *mem[6], const mma_unit *u, const mma_vec *v, long n);
int cmd_metrics(int argc, char **argv);
int cmd_gemm(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_probe_dut(int argc, char **argv);   /* probe <unit.dut>: through verify's testbench */
/* Every option of a command: `mmaref <command> --help` prints its text,
 * `mmaref --help` all of them (the table in main.c). */
extern const char cli_gen_help[], cli_metrics_help[], cli_gemm_help[], cli_bench_help[], cli_verify_help[],
    cli_probe_help[];

/* The library's generator (mmaref_rng.h) under the names the commands use */
typedef mma_rng cli_rng;
#define cli_rng_seed mma_rng_seed
#define cli_rng_next mma_rng_next
#define cli_rng_below mma_rng_below

#endif
