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
                                       "--jobs", "--seed", "--shard", "--timeout", "--vec", "--workdir", "--threads", "--latency", NULL};
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
    int merge = 0, nfiles = 0, rc = 2;
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
                if (!cli_suite_known(t)) { fprintf(stderr, "mmaref verify: --suites: unknown suite '%s' (mmaref gen --list-suites)\n", t); goto out; }
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
