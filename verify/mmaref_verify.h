/* mmaref verify: a designer's dot-product unit, described by a .dut file,
 * checked against the model (docs/verify.md).  The flow: read the
 * description, elaborate the design to learn its ports, generate the
 * testbench, build it with Verilator, run suites and constrained-random
 * stimulus, and report. */
#ifndef MMAREF_VERIFY_H
#define MMAREF_VERIFY_H

#include <stdint.h>

/* Where the testbench's pieces are: the templates, the headers of the DPI
 * kit, and its library; found from the running program (a build tree or
 * an installation). */
typedef struct {
    char templates[1024];           /* tb.sv, main.cpp */
    char include[2][1024];          /* headers: mmaref_harness.h, mmaref.h */
    char dpilib[1024];              /* libmmaref_dpi.a */
    char verilator[256], cxx[256];
    char version[128];              /* `verilator --version`, for the build key */
    int json;                       /* elaborate with --json-only (5.024 and later; 5.036 dropped --xml-only) */
} mma_verify_kit;

/* 0, or -1 with a message saying what is missing */
int mma_verify_find_kit(mma_verify_kit *kit, char *err, size_t len);

/* Writes a vector suite (the `mmaref gen` generators, which live in the
 * command): 0 on success. */
typedef int (*mma_verify_suite_fn)(const char *unit, const char *suite, long count,
                                   uint64_t seed, const char *out);

#define MMA_VERIFY_LATENCY_DUT (-1)
#define MMA_VERIFY_LATENCY_AUTO (-2)

typedef struct {
    const char *dut;                /* the description */
    const char *workdir;            /* NULL: <name>.verify in the current directory */
    const char *suites;             /* NULL: the description's [run] suites, else these */
    const char *default_suites;     /* when neither names any */
    const char *ieee_suites;        /* added to those for units with IEEE flags */
    long count, random;             /* -1: the description's */
    int have_seed;
    uint64_t seed;
    int shard_i, shard_n;           /* 0/1: the whole campaign */
    double timeout;                 /* seconds of wall clock for the simulation; 0 none */
    long max_wait;                  /* -1: the description's */
    int gaps, backpressure;         /* percent; -1: the description's */
    int latency;                    /* cycles; MMA_VERIFY_LATENCY_DUT: the
                                       description's; _AUTO: measured first */
    const char **vec;               /* replay these vector files instead (nvec of them) */
    int nvec;
    int no_fst;                     /* no waveform of the first mismatch */
    int build_only;                 /* build the testbench and the suites, run nothing */
    int jobs;                       /* parallel compile jobs; 0: 2 */
    long sample;                    /* matching results kept per mode for the triage:
                                       0 the default (20,000), -1 all (the probe) */
    int no_triage;                  /* no triage of the mismatches */
    int quiet;                      /* no report on stdout (the probe reads the files) */
    mma_verify_suite_fn make_suite;
    int stop_first;                 /* end the campaign at the first mismatch */
    int coverage;                   /* a coverage campaign (verify/coverage.c) */
    long mutants;                   /* > 0: a mutation campaign of that many mutants (verify/mutants.c) */
    uint64_t mutants_seed;
    double equiv_seconds;           /* for the survivors' equivalence checks, all together (0: none) */
    const char *augment;            /* with mutants: the minimized suite that kills them, written here
                                       (a unit of several modes: one file a mode, its name before .vec) */
    long augment_budget;            /* vectors searched for each survivor (0: 20,000) */
    /* Writes the plain vector file `from` to `to` whole or not at all
     * (compressed as its name says); from NULL: only checks that `to` can
     * be written.  0, or -1 after a message naming `to`. */
    int (*write_output)(const char *from, const char *to);
} mma_verify_opts;

/* Runs the flow and prints the report (last line "<N> vectors, <M>
 * mismatches").  Returns the exit status: 0 no mismatch, 1 any mismatch
 * (or a unit that stopped answering), 2 a bad description, a build failure
 * or bad input (message on stderr naming file, line and key, or the
 * Verilator error). */
int mma_verify(const mma_verify_opts *o);

/* With o->coverage: the campaign run per suite through a testbench built
 * with Verilator's line, toggle (and, from 5.020, expression) coverage of
 * the user's sources; prints the covered fractions per suite and in all,
 * the least covered lines, and writes coverage.dat, coverage.info (LCOV)
 * and annotated/ in <workdir>/coverage.  With o->mutants: mutants of the
 * user's RTL made by Yosys's mutate, all behind one select input in one
 * build, each run with a stop at its first mismatch; survivors checked for
 * equivalence by Yosys; last line "<N> mutants, <K> killed, <S> survived,
 * <E> equivalent".  Both go through mma_verify. */

/* mmaref probe on a description: runs the unit through the same testbench
 * on the suites (o's, or the description's), keeps every result, and
 * infers the configuration that reproduces them (mma_probe), printed per
 * mode.  0 it reproduces every result, 1 it does not, 2 bad description
 * or build. */
int mma_verify_probe(const mma_verify_opts *o, int threads);

/* Adds up results files of shards (in shard order; a work directory
 * stands for all its run-<i>-of-<n>/results, every shard required) and
 * prints the report; the same exit status. */
int mma_verify_merge(const char *const *files, int n);

#endif
