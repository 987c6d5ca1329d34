/* The mmaref command: list, describe, eval, run, check, gen, metrics, gemm,
 * bench, verify, probe. */
#include "cli.h"
#include "mmaref_triage.h"

#include <stdlib.h>
#include <string.h>

static int usage(FILE *f)
{
    fprintf(f,
        "usage: mmaref <command> [arguments]\n"
        "  list [--arch A]                      one instruction per line: <arch>:<qualifier> <algorithm> K=<k> F=<f>\n"
        "  describe <instr|config>              configuration string and what it computes\n"
        "  eval <instr|config> <c> <a0,a1,..> <b0,b1,..> [<sa0,..> <sb0,..>]   d in hex (inputs in hex)\n"
        "  run <in.vec> -o <out.vec> [--instr X] [--threads N]   fill in d for every vector\n"
        "  check <file.vec> [--instr X] [--show N] [--threads N] [--explain]   recompute d and compare bit for\n"
        "                                       bit; --explain sorts the mismatches, names the nearest configuration\n"
        "  gen <instr|config> --suite S --count N --seed S [--shard i/n] [--threads N] -o out.vec\n"
        "  metrics <instr|config>... --dist D --count N --seed S   error statistics against the exact result\n"
        "  gemm <instr> --k K --mode tc|promote|twostage [--nc N]   GEMM-depth accumulation study\n"
        "  bench [instr...] [--all] [--threads N] [--seconds S]   dot products per second\n"
        "  verify <unit.dut> [--suites S] [--count N] [--random N] [--seed S] [--shard i/n] [--vec F]\n"
        "                                       check a unit's RTL against the model (mmaref verify --help)\n"
        "  probe <file.vec>... [--instr X]      infer the configuration that reproduces the files' outputs\n"
        "  (--threads N: threads to use; default: one per core; the output is the same for any N)\n"
        "  version\n");
    return f == stderr ? 2 : 0;
}

static int cmd_list(int argc, char **argv)
{
    const char *arch = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
        else { fprintf(stderr, "mmaref list: unknown argument '%s'\n", argv[i]); return 2; }
    }
    size_t n = mma_catalogue_size(), shown = 0;
    for (size_t i = 0; i < n; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        mma_catalogue_get(i, &e, &u);
        if (arch && strcmp(arch, e.arch)) continue;
        printf("%s:%s %s K=%d", e.arch, e.qualifier, mma_unit_algorithm(&u), u.k);
        if (u.tree != MMA_TREE_FMA && u.tree != MMA_TREE_PAIRWISE && u.tree != MMA_TREE_EXACT) printf(" F=%d", u.f);
        if (e.ranges[0]) printf(" (%s)", e.ranges);
        printf("\n");
        shown++;
    }
    if (arch && !shown) { fprintf(stderr, "mmaref list: no instructions for arch '%s'\n", arch); return 2; }
    return 0;
}

static int cmd_describe(int argc, char **argv)
{
    if (argc != 1) { fprintf(stderr, "usage: mmaref describe <instr|config>\n"); return 2; }
    mma_unit u;
    if (cli_unit(argv[0], &u)) return 2;
    char cfg[512], ex[2048];
    mma_unit_config(&u, cfg, sizeof cfg);
    mma_unit_explain(&u, ex, sizeof ex);
    if (u.name[0]) printf("%s\n", u.name);
    printf("config: %s\n%s\n", cfg, ex);
    return 0;
}

static int parse_list(const char *what, const char *s, mma_fmt f, int want, uint64_t *out)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n >= want) { fprintf(stderr, "mmaref eval: operand %s has more than %d values\n", what, want); return -1; }
        if (cli_parse_hex(t, mma_format(f)->hexdigits, &out[n])) {
            fprintf(stderr, "mmaref eval: operand %s[%d] '%s' is not a %s encoding (at most %d hex digits)\n",
                    what, n, t, mma_format(f)->name, mma_format(f)->hexdigits);
            return -1;
        }
        if (mma_format(f)->width < 64 && (out[n] >> mma_format(f)->width)) {
            fprintf(stderr, "mmaref eval: operand %s[%d] 0x%s does not fit %d bits\n", what, n, t, mma_format(f)->width);
            return -1;
        }
        n++;
    }
    if (n != want) { fprintf(stderr, "mmaref eval: operand %s has %d values, %d expected\n", what, n, want); return -1; }
    return 0;
}

static int cmd_eval(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: mmaref eval <instr|config> <c> <a0,a1,...> <b0,b1,...> [<sa,...> <sb,...>]\n"); return 2; }
    mma_unit u;
    if (cli_unit(argv[0], &u)) return 2;
    int s = mma_unit_nscales(&u);
    if (argc != 4 + (s ? 2 : 0)) {
        fprintf(stderr, "mmaref eval: %s takes %s operands\n", argv[0], s ? "c, a, b, sa and sb" : "c, a and b");
        return 2;
    }
    uint64_t c, a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_VEC_MAX_SCALES], sb[MMA_VEC_MAX_SCALES];
    if (parse_list("c", argv[1], u.c, 1, &c) || parse_list("a", argv[2], u.a, u.k, a) ||
        parse_list("b", argv[3], u.b, u.k, b)) return 2;
    if (s && (parse_list("sa", argv[4], u.scale, s, sa) || parse_list("sb", argv[5], u.scale, s, sb))) return 2;
    uint64_t d = mma_dot(&u, c, a, b, s ? sa : NULL, s ? sb : NULL);
    printf("%0*llx\n", mma_format(u.d)->hexdigits, (unsigned long long)d);
    return 0;
}

/* check --explain: every mismatching vector and the first 100,000
 * matching ones (enough to tell which configurations keep them) read again
 * and sorted by the triage */
static int explain_mismatches(const char *in, const char *instr, int threads, long n, long bad)
{
    const long keep = 100000;
    char err[1024];
    mma_obs o;
    memset(&o, 0, sizeof o);
    long matching = 0;
    if (mma_obs_read_mismatches(&o, in, instr, keep, &matching, err, sizeof err)) {
        fprintf(stderr, "mmaref: %s\n", err);
        mma_obs_free(&o);
        return -1;
    }
    mma_unit u = o.shape;
    mma_triage_opts topt = {threads, 1, 0};
    mma_triage_report rep;
    if (mma_triage(&u, &o, &topt, &rep, err, sizeof err) == 0) {
        mma_triage_write(stdout, &u, &o, &rep, 0);
        if (matching > keep)
            printf("  (the triage saw all %ld mismatching vectors and the first %ld of the %ld matching ones)\n",
                   bad, keep, n - bad);
    } else fprintf(stderr, "mmaref: %s\n", err);
    mma_obs_free(&o);
    return 0;
}

static int cmd_run_check(int argc, char **argv, int check)
{
    const char *in = NULL, *out = NULL, *instr = NULL;
    long show = 10;
    int threads = 0, explain = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc && !check) out = argv[++i];
        else if (!strcmp(argv[i], "--instr") && i + 1 < argc) instr = argv[++i];
        else if (!strcmp(argv[i], "--show") && i + 1 < argc && check) show = atol(argv[++i]);
        else if (!strcmp(argv[i], "--explain") && check) explain = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if ((threads = cli_threads(argv[++i])) < 0) return 2;
        }
        else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "mmaref %s: unknown option '%s'\n", check ? "check" : "run", argv[i]); return 2; }
        else if (!in) in = argv[i];
        else { fprintf(stderr, "mmaref %s: unexpected argument '%s'\n", check ? "check" : "run", argv[i]); return 2; }
    }
    if (!in || (!check && !out)) {
        fprintf(stderr, check ? "usage: mmaref check <file.vec> [--instr X] [--show N] [--threads N] [--explain]\n"
                              : "usage: mmaref run <in.vec> -o <out.vec> [--instr X] [--threads N]\n");
        return 2;
    }
    char err[1024];
    mma_vec_reader *r = mma_vec_open(in, instr, err, sizeof err);
    if (!r) { fprintf(stderr, "mmaref: %s\n", err); return 2; }
    const mma_unit *u = mma_vec_unit(r);
    if (check && !mma_vec_has_d(r)) { fprintf(stderr, "mmaref: %s: field d: the file has no d column to check\n", in); mma_vec_close(r); return 2; }
    cli_out o;
    if (!check) {
        if (cli_out_open(&o, out)) { mma_vec_close(r); return 2; }
        mma_vec_write_header(o.f, u);
        const char **extra;
        int ne = mma_vec_extra_headers(r, &extra);
        for (int i = 0; i < ne; i++) if (strncmp(extra[i], "# source:", 9)) fprintf(o.f, "%s\n", extra[i]);
        fprintf(o.f, "# source: mmaref %s\n", MMAREF_VERSION);
    }
    long n = 0, bad = 0;
    int rc = cli_vec_pass(r, in, check, show, check ? NULL : &o, threads, &n, &bad);
    mma_vec_close(r);
    if (rc) {
        if (!check) cli_out_abort(&o);
        return 2;
    }
    if (check && explain && bad && explain_mismatches(in, instr, threads, n, bad)) return 2;
    if (check) {
        printf("%ld vectors, %ld mismatches\n", n, bad);
        return bad ? 1 : 0;
    }
    if (cli_out_commit(&o)) return 2;
    fprintf(stderr, "%ld vectors\n", n);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage(stderr);
    const char *c = argv[1];
    if (!strcmp(c, "list")) return cmd_list(argc - 2, argv + 2);
    if (!strcmp(c, "describe")) return cmd_describe(argc - 2, argv + 2);
    if (!strcmp(c, "eval")) return cmd_eval(argc - 2, argv + 2);
    if (!strcmp(c, "run")) return cmd_run_check(argc - 2, argv + 2, 0);
    if (!strcmp(c, "check")) return cmd_run_check(argc - 2, argv + 2, 1);
    if (!strcmp(c, "gen")) return cmd_gen(argc - 2, argv + 2);
    if (!strcmp(c, "metrics")) return cmd_metrics(argc - 2, argv + 2);
    if (!strcmp(c, "gemm")) return cmd_gemm(argc - 2, argv + 2);
    if (!strcmp(c, "bench")) return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(c, "verify")) return cmd_verify(argc - 2, argv + 2);
    if (!strcmp(c, "probe")) return cmd_probe(argc - 2, argv + 2);
    if (!strcmp(c, "version") || !strcmp(c, "--version")) { printf("mmaref %s\n", MMAREF_VERSION); return 0; }
    if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) return usage(stdout);
    fprintf(stderr, "mmaref: unknown command '%s'\n", c);
    return usage(stderr);
}
