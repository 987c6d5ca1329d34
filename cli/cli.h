/* Shared pieces of the mmaref command. */
#ifndef MMAREF_CLI_H
#define MMAREF_CLI_H

#include <stdio.h>
#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_rng.h"
#include "mmaref_parallel.h"

/* Output written to a temporary file in the target's folder and renamed
 * into place only when the whole command succeeded, so a failed or
 * interrupted run leaves nothing (cli/outfile.c).  A name ending in .xz,
 * .gz or .zst is compressed in this process; other compressed names are
 * refused.  A path that exists and is not a regular file (/dev/null, a
 * FIFO, a terminal) is written directly: a rename over it would replace
 * the device with a plain file.  "-" is standard output. */
typedef struct {
    FILE *f;
    char path[1024], tmp[1100];
    int is_pipe;       /* a stream (compressed): not written with pwrite */
    int direct;
    int slot;          /* the temporary file's place in the signal handler's list */
    int io_err;        /* errno of a failed write (a full disk), else 0 */
    void *codec;
} cli_out;
int cli_out_open(cli_out *o, const char *path);          /* prints why; -1 on failure */
/* compressing with up to `threads` threads (0: all cores) */
int cli_out_open_threads(cli_out *o, const char *path, int threads);
int cli_out_commit(cli_out *o);     /* 0 on success; prints why and removes the file otherwise */
void cli_out_abort(cli_out *o);
/* the exit status after a failed output: 1 when the system refused the
 * write (a full disk), 2 for anything else */
#define CLI_OUT_STATUS(o) ((o)->io_err ? 1 : 2)

int cli_unit(const char *name, mma_unit *u);   /* prints the error; -1 on failure */
int cli_parse_hex(const char *s, int digits, uint64_t *out);

/* a count argument 0 .. max, or -1 after a message naming the option and
 * the limit (a number past the limit is refused, not clamped) */
long cli_count_arg(const char *cmd, const char *opt, const char *arg, long max);
/* 0 if about `bytes` of output (before compression) fit on the disk of
 * path's folder, else -1 after a message with both sizes */
int cli_out_fits(const char *path, double bytes);

/* An option the command does not take, or one of `valued` (its options
 * that take a value, space-separated) given last without one: -1 after
 * the message that says which. */
int cli_bad_option(const char *cmd, const char *opt, const char *valued);

/* "i/n" with 0 <= i < n <= 10^6 (digits only): 0, else -1 (no message) */
int cli_shard_arg(const char *arg, long *i, long *n);

/* "--threads N": N >= 1, or -1 after a message */
int cli_threads(const char *arg);

/* --device (cli/device.c): where the dot products are computed.
 * cli_device_arg parses "cpu" or "cuda" for command cmd; -1 after a
 * message (also for cuda in a command built without the backend). */
enum { CLI_DEV_CPU = 0, CLI_DEV_CUDA = 1 };
int cli_device_arg(const char *cmd, const char *arg, int *device);
/* A handle for one thread's batches on the device (its own stream and
 * buffers): NULL with why in err when no device can be used. */
typedef struct cli_dev cli_dev;
cli_dev *cli_dev_open(char *err, size_t len);
/* the batch x (host arrays, natural widths) computed on the device; returns when done */
int cli_dev_batch(cli_dev *d, const mma_unit *u, const mma_batch *x, char *err, size_t len);
void cli_dev_close(cli_dev *d);
/* the kernel's launch shape: threads per block, blocks per multiprocessor (0: defaults) */
void cli_dev_launch(int block, int per_sm);
int cli_dev_name(char *buf, size_t len, char *err, size_t errlen);
/* reps runs of the kernel over x (copied once), timed on the device; info:
 * what the kernel uses */
int cli_dev_bench(const mma_unit *u, const mma_batch *x, int reps, double *seconds, char *info, size_t infolen,
                  char *err, size_t errlen);

/* run (check = 0, output to o) or check (check = 1, up to show mismatches
 * printed) every vector of r on `threads` threads (0: all cores), the dot
 * products on `device` (CLI_DEV_*: a piece of the file at a time, as one
 * batch); the same output for any thread count and device.  0, or -1
 * after a message. */
int cli_vec_pass(mma_vec_reader *r, const char *in, int check, long show, cli_out *o, int threads, int device,
                 long *nvec, long *nbad);
/* gen: vectors lo..hi-1, fn filling vector i (called from several threads
 * at once, each with its own v), d from the model on `device`, written to o */
typedef void (*cli_gen_fn)(void *ctx, long i, mma_vec *v);
int cli_gen_pass(const mma_unit *u, long lo, long hi, cli_gen_fn fn, void *ctx, cli_out *o, int threads, int device);

/* The status line of long work (cli/progress.c): on a terminal only, off
 * with the global option --quiet (cli_quiet).  total > 0: done counts
 * toward it; else fraction (0..1, or 0 when unknown) says how far. */
extern int cli_quiet;
void cli_progress_begin(const char *what, double total, const char *unit);
void cli_progress_update(double done, double fraction);
void cli_progress_end(void);

int cmd_gen(int argc, char **argv);
int cli_suite_known(const char *name);   /* a suite of mmaref gen */
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
/* bench --device cuda (cli/bench_gpu.c): the units (or files) of list */
int cli_bench_gpu(const char **list, int nl, int files, long count, double secs, const char *suite, const char *launch);
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
