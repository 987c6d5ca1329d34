/* mmaref verify: arguments to the verify flow (verify/mmaref_verify.h). */
#include "cli.h"
#include "mmaref_verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_SUITES "random normal cancel order precision rounding specials ezero"
#define IEEE_SUITES "ieee-zero ieee-overflow ieee-tiny ieee-sticky ieee-nan"

const char cli_verify_help[] =
    "usage: mmaref verify <unit.dut> [options]      check a unit's RTL against the model\n"
    "       mmaref verify --merge <workdir|results>...   add up the results of shards\n"
    "  --suites S1,S2      the suites of mmaref gen to run (default: the description's [run] suites,\n"
    "                      else " DEFAULT_SUITES ",\n"
    "                      and " IEEE_SUITES " for units with flags)\n"
    "  --count N           vectors per suite            --random N   constrained-random vectors per mode\n"
    "  --seed S            the campaign's seed          --shard i/n  run part i (0-based) of n\n"
    "  --vec FILE          replay a vector file (a mismatch file of an earlier run), repeatable\n"
    "  --timeout S         stop the simulation after S seconds (reported as a failure)\n"
    "  --max-wait N        cycles without progress before the unit counts as not answering\n"
    "  --gaps P            input gaps, percent of cycles  --backpressure P  output not ready, percent\n"
    "  --latency N|auto    a unit without out_valid answers N clock edges after it took a vector\n"
    "                      (default: the description's); auto: measured by a short run first\n"
    "  --workdir DIR       where the testbench is built and run (default <name>.verify)\n"
    "  --no-fst            no waveform of the first mismatch   --jobs N  parallel compile jobs\n"
    "  --build-only        build the testbench and the suites, run nothing (before shards)\n"
    "  --coverage          line, toggle (expression) coverage of the unit's sources, per suite and in all;\n"
    "                      coverage.dat, coverage.info (LCOV) and annotated/ in <workdir>/coverage\n"
    "  --mutants [N]       N (200) mutants of the unit by Yosys's mutate, in one build, each run to its\n"
    "                      first mismatch; last line \"<N> mutants, <K> killed, <S> survived, <E> equivalent\"\n"
    "  --mutants-seed S    the seed of Yosys's choice of mutations (1)\n"
    "  --equiv-seconds S   time for the equivalence checks of all survivors (600; 0: none)\n"
    "                      (--jobs: mutants run at a time, default every core; --shard i/n: part of them;\n"
    "                      --vec FILE: the mutants run that file instead of the suites)\n"
    "  --augment OUT.vec   with --mutants: search vectors that kill the survivors, then write the smallest\n"
    "                      suite found (greedy set cover) that kills what the campaign and the search killed\n"
    "                      (.xz .gz .zst compress; a unit of several modes: one file a mode, OUT.<mode>.vec)\n"
    "  --augment-budget N  vectors searched for each survivor, every suite and distribution (20000)\n"
    "prints \"<mode> <suite>: <N> vectors, <M> mismatches\" per suite, and last \"<N> vectors, <M> mismatches\";\n"
    "exit status 0: no mismatch, 1: any mismatch or a unit that stops answering, 2: a bad description,\n"
    "a build failure or bad arguments\n";

static int make_suite(const char *unit, const char *suite, long count, uint64_t seed, const char *out)
{
    char cnt[32], sd[32];
    snprintf(cnt, sizeof cnt, "%ld", count);
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)seed);
    char *argv[] = {(char *)unit, "--suite", (char *)suite, "--count", cnt, "--seed", sd, "-o", (char *)out, NULL};
    return cmd_gen(9, argv);
}

/* the minimized suite of --augment: written whole or not at all, compressed
 * as its name says; from NULL checks that `to` can be written */
static int write_output(const char *from, const char *to)
{
    cli_out o;
    if (cli_out_open(&o, to)) return -1;
    if (!from) { cli_out_abort(&o); return 0; }
    FILE *in = fopen(from, "rb");
    if (!in) { fprintf(stderr, "mmaref verify: %s: cannot read\n", from); cli_out_abort(&o); return -1; }
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, o.f);
    int bad = ferror(in);
    fclose(in);
    if (bad) { fprintf(stderr, "mmaref verify: %s: cannot read\n", from); cli_out_abort(&o); return -1; }
    return cli_out_commit(&o) ? -1 : 0;
}

static int number(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (*e || !*s || v < lo || v > hi) {
        fprintf(stderr, "mmaref verify: %s needs a number from %ld to %ld ('%s')\n", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int takes_value(const char *opt)
{
    static const char *const opts[] = {"--suites", "--count", "--random", "--max-wait", "--gaps", "--backpressure",
                                       "--jobs", "--seed", "--shard", "--timeout", "--vec", "--workdir", "--threads", "--latency",
                                       "--mutants-seed", "--equiv-seconds", "--augment", "--augment-budget", NULL};
    for (int i = 0; opts[i]; i++) if (!strcmp(opt, opts[i])) return 1;
    return 0;
}

/* verify, or (probe) the probe of a description's unit */
static int verify_main(int argc, char **argv, int probe)
{
    int threads = 0;
    mma_verify_opts o;
    memset(&o, 0, sizeof o);
    o.count = o.random = o.max_wait = -1;
    o.gaps = o.backpressure = -1;
    o.latency = MMA_VERIFY_LATENCY_DUT;
    o.shard_n = 1;
    o.default_suites = DEFAULT_SUITES;
    o.ieee_suites = IEEE_SUITES;
    o.make_suite = make_suite;
    const char **vec = calloc((size_t)argc + 1, sizeof *vec);
    int merge = 0, nfiles = 0, rc = 2, have_mseed = 0, have_eq = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    char suites[512];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(cli_verify_help, stdout); rc = 0; goto out; }
        else if (!strcmp(a, "--merge")) merge = 1;
        else if (!strcmp(a, "--no-fst")) o.no_fst = 1;
        else if (!strcmp(a, "--build-only")) o.build_only = 1;
        else if (!strcmp(a, "--coverage") && !probe) o.coverage = 1;
        else if (!strcmp(a, "--mutants") && !probe) {
            /* the count is optional: a number next, else the default */
            o.mutants = 200;
            if (v && v[0] >= '0' && v[0] <= '9') { if (number(a, v, 1, 100000, &o.mutants)) goto out; i++; }
            else if (v && v[0] == '-' && v[1] >= '0' && v[1] <= '9') { number(a, v, 1, 100000, &n); goto out; }
        }
        else if (a[0] == '-' && a[1] && !takes_value(a)) {
            fprintf(stderr, "mmaref verify: unknown option '%s' (mmaref verify --help)\n", a);
            goto out;
        }
        else if (a[0] == '-' && !v) { fprintf(stderr, "mmaref verify: %s needs a value\n", a); goto out; }
        else if (!strcmp(a, "--suites")) {
            snprintf(suites, sizeof suites, "%s", v);
            for (char *p = suites; *p; p++) if (*p == ',') *p = ' ';
            /* a typo is named now, not after the testbench is built */
            char names[512];
            snprintf(names, sizeof names, "%s", suites);
            for (char *sv = NULL, *t = strtok_r(names, " ", &sv); t; t = strtok_r(NULL, " ", &sv))
                if (mma_suite_find(t) < 0) { fprintf(stderr, "mmaref verify: --suites: unknown suite '%s' (mmaref gen --list-suites)\n", t); goto out; }
            o.suites = suites;
            i++;
        }
        else if (!strcmp(a, "--count")) { if (number(a, v, 0, 1000000000L, &o.count)) goto out; i++; }
        else if (!strcmp(a, "--random")) { if (number(a, v, 0, 1000000000000L, &o.random)) goto out; i++; }
        else if (!strcmp(a, "--max-wait")) { if (number(a, v, 1, 100000000L, &o.max_wait)) goto out; i++; }
        else if (!strcmp(a, "--gaps")) { if (number(a, v, 0, 90, &n)) goto out; o.gaps = (int)n; i++; }
        else if (!strcmp(a, "--backpressure")) { if (number(a, v, 0, 90, &n)) goto out; o.backpressure = (int)n; i++; }
        else if (!strcmp(a, "--latency")) {
            if (!strcmp(v, "auto")) o.latency = MMA_VERIFY_LATENCY_AUTO;
            else if (number(a, v, 0, 4096, &n)) goto out;
            else o.latency = (int)n;
            i++;
        }
        else if (!strcmp(a, "--jobs")) { if (number(a, v, 1, 256, &n)) goto out; o.jobs = (int)n; i++; }
        else if (!strcmp(a, "--seed")) {
            char *e;
            errno = 0;
            o.seed = strtoull(v, &e, 0);
            if (*e || !*v || errno || *v < '0' || *v > '9') { fprintf(stderr, "mmaref verify: --seed needs an integer from 0 to 2^64-1 ('%s')\n", v); goto out; }
            o.have_seed = 1;
            i++;
        }
        else if (!strcmp(a, "--shard")) {
            char tail;
            if (sscanf(v, "%d/%d%c", &o.shard_i, &o.shard_n, &tail) != 2 || o.shard_n < 1 || o.shard_i < 0 || o.shard_i >= o.shard_n) {
                fprintf(stderr, "mmaref verify: --shard needs i/n with 0 <= i < n ('%s')\n", v);
                goto out;
            }
            i++;
        }
        else if (!strcmp(a, "--timeout")) {
            char *e;
            o.timeout = strtod(v, &e);
            if (*e || !*v || o.timeout <= 0) { fprintf(stderr, "mmaref verify: --timeout needs seconds ('%s')\n", v); goto out; }
            i++;
        }
        else if (!strcmp(a, "--vec")) {
            FILE *t = fopen(v, "r");
            if (!t) { fprintf(stderr, "mmaref verify: --vec: %s: cannot open (%s)\n", v, strerror(errno)); goto out; }
            fclose(t);
            vec[o.nvec++] = v;
            i++;
        }
        else if (!strcmp(a, "--workdir")) { o.workdir = v; i++; }
        else if (!strcmp(a, "--equiv-seconds") && !probe) { if (number(a, v, 0, 1000000, &n)) goto out; o.equiv_seconds = (double)n; have_eq = 1; i++; }
        else if (!strcmp(a, "--mutants-seed") && !probe) {
            char *e;
            errno = 0;
            o.mutants_seed = strtoull(v, &e, 10);
            if (*e || !*v || errno || *v < '0' || *v > '9' || o.mutants_seed > 0x7fffffffULL) { fprintf(stderr, "mmaref verify: --mutants-seed needs an integer from 0 to 2147483647 ('%s')\n", v); goto out; }
            have_mseed = 1;
            i++;
        }
        else if (!strcmp(a, "--augment") && !probe) {
            if (!strcmp(v, "-") || !*v) { fprintf(stderr, "mmaref verify: --augment needs a file name ('%s')\n", v); goto out; }
            o.augment = v;
            i++;
        }
        else if (!strcmp(a, "--augment-budget") && !probe) { if (number(a, v, 1, 100000000L, &o.augment_budget)) goto out; i++; }
        else if (!strcmp(a, "--threads") && probe) { if (number(a, v, 1, 256, &n)) goto out; threads = (int)n; i++; }
        else files[nfiles++] = a;
    }
    if (merge) {
        if (!nfiles) { fprintf(stderr, "usage: mmaref verify --merge <results>...\n"); goto out; }
        rc = mma_verify_merge(files, nfiles);
        goto out;
    }
    if (nfiles != 1) { fputs(nfiles ? "mmaref verify: one description at a time\n" : cli_verify_help, stderr); goto out; }
    o.dut = files[0];
    struct stat st;
    if (!stat(o.dut, &st) && S_ISDIR(st.st_mode)) { fprintf(stderr, "mmaref verify: %s: is a directory, not a description\n", o.dut); goto out; }
    o.vec = vec;
    if (!have_mseed) o.mutants_seed = 1;
    if (!have_eq) o.equiv_seconds = 600;
    if (have_eq && !o.mutants) { fprintf(stderr, "mmaref verify: --equiv-seconds needs --mutants\n"); goto out; }
    if (o.coverage && o.mutants) { fprintf(stderr, "mmaref verify: --coverage and --mutants: one at a time\n"); goto out; }
    if (have_mseed && !o.mutants) { fprintf(stderr, "mmaref verify: --mutants-seed needs --mutants\n"); goto out; }
    if (o.coverage && o.nvec) { fprintf(stderr, "mmaref verify: --coverage runs the suites, not --vec files\n"); goto out; }
    if ((o.augment || o.augment_budget) && !o.mutants) { fprintf(stderr, "mmaref verify: --augment%s needs --mutants\n", o.augment ? "" : "-budget"); goto out; }
    if (o.augment_budget && !o.augment) { fprintf(stderr, "mmaref verify: --augment-budget needs --augment\n"); goto out; }
    o.write_output = write_output;
    if (probe) {
        /* the directed suites; constrained-random stimulus only when asked */
        if (o.random < 0) o.random = 0;
        rc = mma_verify_probe(&o, threads);
    } else {
        rc = mma_verify(&o);
    }
out:
    free(vec);
    free(files);
    return rc;
}

int cmd_verify(int argc, char **argv) { return verify_main(argc, argv, 0); }
int cmd_probe_dut(int argc, char **argv) { return verify_main(argc, argv, 1); }
