/* mmaref gen: a vector suite of the library (mmaref_gen.h, docs/suites.md)
 * written as a vector file, d computed on the CPU or the GPU, in shards. */
#include "cli.h"
#include "mmaref_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cli_gen_help[] =
    "usage: mmaref gen <instr|config> --suite S --count N --seed S [--shard i/n] [--threads N] [--device D] -o out.vec\n"
    "       mmaref gen <instr|config> --dist D --count N --seed S ... -o out.vec\n"
    "       mmaref gen --list-suites\n"
    "  a vector suite for the unit, d (and the flags of units that raise them) computed by the\n"
    "  model (docs/suites.md)\n"
    "  --dist D         instead of a suite, the inputs of mmaref metrics --dist D --seed S\n"
    "                   (normal uniform llm cancel bits; docs/accuracy.md): a realistic workload\n"
    "  --suite S        random normal cancel order precision rounding specials ezero compliance bits\n"
    "                   ieee-zero ieee-overflow ieee-tiny ieee-sticky ieee-nan neighbours\n"
    "                   (--list-suites says what each holds; compliance mixes them), or a vector\n"
    "                   file of the unit (a path with '/', a .vec[.gz|.xz|.zst] name or an existing\n"
    "                   file): its first N vectors' operands, d and flags recomputed\n"
    "  --count N        vectors                             --seed S   the same seed, the same bytes\n"
    "  --shard i/n      only part i of n (0 <= i < n): the parts concatenated are the whole file\n"
    "  -o FILE          the output (.vec, or compressed .vec.zst, .vec.xz, .vec.gz), written only\n"
    "                   on success (a hidden temporary file beside it until then)\n"
    "  --threads N      threads (default: one per core); the bytes are the same for any N\n"
    "  --device D       where d is computed: cpu (default) or cuda (the GPU; mmaref built with\n"
    "                   MMAREF_CUDA=1); the bytes are the same\n";

/* vector i of the suite for cli_gen_pass, which computes d */
static void gen_one(void *ctx, long i, mma_vec *v)
{
    mma_gen_operands(ctx, i, v);
}

/* A --suite argument that names a vector file rather than a suite: a
 * suite's name keeps its meaning; a path with '/', a vector file's name or
 * an existing file is a file. */
static int suite_is_file(const char *s)
{
    static const char *const ext[] = {".vec", ".vec.gz", ".vec.xz", ".vec.zst"};
    if (mma_suite_find(s) >= 0) return 0;
    if (strchr(s, '/') || !access(s, F_OK)) return 1;
    size_t n = strlen(s);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcmp(s + n - e, ext[i])) return 1;
    }
    return 0;
}

/* vector i of mmaref metrics' draws (--dist) */
static void dist_one(void *ctx, long i, mma_vec *v)
{
    const mma_draws *g = ctx;
    v->c = 0;
    mma_draws_vector(g, (uint64_t)i, v->a, v->b, v->sa, v->sb, &v->c);
}

/* more vectors than any disk holds (2^40 of 200 bytes: 220 TB) is a typo */
#define GEN_MAX_COUNT (1L << 40)

/* bytes of a vector line of u, uncompressed */
static double gen_bytes(const mma_unit *u, long count)
{
    int dc = (mma_format(u->c)->width + 3) / 4, da = (mma_format(u->a)->width + 3) / 4;
    int db = (mma_format(u->b)->width + 3) / 4, dd = (mma_format(u->d)->width + 3) / 4;
    int ns = mma_unit_nscales(u);
    double line = dc + 1 + u->k * (da + db + 2) + ns * 2 * 3 + dd + 1 + (mma_unit_has_flags(u) ? 3 : 0);
    return line * (double)count;
}

int cmd_gen(int argc, char **argv)
{
    const char *instr = NULL, *suite = NULL, *dist = NULL, *out = NULL;
    long count = -1, shard_i = 0, shard_n = 1;
    unsigned long long seed = 0;
    int have_seed = 0, threads = 0, device = CLI_DEV_CPU;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--suite") && i + 1 < argc) suite = argv[++i];
        else if (!strcmp(a, "--dist") && i + 1 < argc) dist = argv[++i];
        else if (!strcmp(a, "--count") && i + 1 < argc) { if ((count = cli_count_arg("gen", "--count", argv[++i], GEN_MAX_COUNT)) < 0) return 2; }
        else if (!strcmp(a, "--seed") && i + 1 < argc) {
            char *e;
            const char *t = argv[++i];
            errno = 0;
            seed = strtoull(t, &e, 0);
            have_seed = 1;
            if (!*t || *e || errno || *t == '-') { fprintf(stderr, "mmaref gen: --seed needs an integer from 0 to 2^64-1 (got '%s')\n", t); return 2; }
        }
        else if (!strcmp(a, "--shard") && i + 1 < argc) {
            if (cli_shard_arg(argv[++i], &shard_i, &shard_n)) { fprintf(stderr, "mmaref gen: --shard needs i/n with 0 <= i < n (got '%s')\n", argv[i]); return 2; }
        }
        else if (!strcmp(a, "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(a, "--threads") && i + 1 < argc) { if ((threads = cli_threads(argv[++i])) < 0) return 2; }
        else if (!strcmp(a, "--device") && i + 1 < argc) { if (cli_device_arg("gen", argv[++i], &device)) return 2; }
        else if (!strcmp(a, "--list-suites")) { for (int s = 0; s < mma_suite_count(); s++) printf("%-13s %s\n", mma_suite_name(s), mma_suite_what(s)); return 0; }
        else if (a[0] == '-') { cli_bad_option("gen", a, "--suite --dist --count --seed --shard -o --threads --device"); return 2; }
        else if (!instr) instr = a;
        else { fprintf(stderr, "mmaref gen: unexpected argument '%s'\n", a); return 2; }
    }
    if (!instr || !suite == !dist || count < 0 || !have_seed || !out) {
        if (suite && dist) fprintf(stderr, "mmaref gen: --suite and --dist exclude each other\n");
        fputs(cli_gen_help, stderr);
        return 2;
    }
    int from_file = suite && suite_is_file(suite);
    if (suite && !from_file && mma_suite_find(suite) < 0) { fprintf(stderr, "mmaref gen: unknown suite '%s' (mmaref gen --list-suites)\n", suite); return 2; }
    mma_dist di = MMA_DIST_NORMAL;
    if (dist && mma_dist_parse(dist, &di)) {
        fprintf(stderr, "mmaref gen: unknown distribution '%s' (%s)\n", dist, mma_dist_list());
        return 2;
    }
    mma_unit u;
    if (cli_unit(instr, &u)) return 2;
    mma_draws *draws = NULL;
    if (dist) {
        char err[256];
        if (!(draws = mma_draws_new(&u, di, seed, err, sizeof err))) { fprintf(stderr, "mmaref gen: %s\n", err); return 2; }
    }
    mma_gen g;
    if (from_file) {
        char err[1024];
        if (mma_gen_init_file(&g, &u, suite, count, err, sizeof err)) { fprintf(stderr, "mmaref gen: %s\n", err); return 2; }
    } else if (suite) mma_gen_init(&g, &u, suite, seed);
    cli_out o;
    if (cli_out_fits(out, gen_bytes(&u, count)) || cli_out_open_threads(&o, out, threads)) {
        mma_draws_free(draws);
        if (suite) mma_gen_free(&g);
        return 2;
    }
    if (shard_i == 0) {
        mma_vec_write_header(o.f, &u);
        if (dist) fprintf(o.f, "# dist: %s\n", dist);
        else fprintf(o.f, "# suite: %s\n", suite);
        fprintf(o.f, "# seed: %llu\n# count: %ld\n# source: mmaref %s\n", seed, count, MMAREF_VERSION);
    }
    long lo = count * shard_i / shard_n, hi = count * (shard_i + 1) / shard_n;
    cli_progress_begin("gen", (double)(hi - lo), "vectors");
    int rc = dist ? cli_gen_pass(&u, lo, hi, dist_one, draws, &o, threads, device)
                  : cli_gen_pass(&u, lo, hi, gen_one, &g, &o, threads, device);
    cli_progress_end();
    mma_draws_free(draws);
    if (suite) mma_gen_free(&g);
    if (rc) {
        cli_out_abort(&o);
        return CLI_OUT_STATUS(&o);
    }
    return cli_out_commit(&o) ? CLI_OUT_STATUS(&o) : 0;
}
