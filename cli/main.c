/* The mmaref command: list, describe, eval, run, check, gen, metrics, gemm, bench, verify. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int usage(FILE *f)
{
    fprintf(f,
        "usage: mmaref <command> [arguments]\n"
        "  list [--arch A]                      one instruction per line: <arch>:<qualifier> <algorithm> K=<k> F=<f>\n"
        "  describe <instr|config>              configuration string and what it computes\n"
        "  eval [--flags] <instr|config> <c> <a0,a1,..> <b0,b1,..> [<sa0,..> <sb0,..>]   d in hex (inputs in hex)\n"
        "  run <in.vec> -o <out.vec> [--instr X]   fill in d for every vector\n"
        "  check <file.vec> [--instr X] [--show N] recompute d and compare bit for bit\n"
        "  gen <instr|config> --suite S --count N --seed S [--shard i/n] -o out.vec\n"
        "  metrics <instr|config>... --dist D --count N --seed S   error statistics against the exact result\n"
        "  gemm <instr> --k K --mode tc|promote|twostage [--nc N]   GEMM-depth accumulation study\n"
        "  bench [instr...] [--threads N] [--seconds S]   dot products per second\n"
        "  verify <unit.dut> [--suites S] [--count N] [--random N] [--seed S] [--shard i/n] [--vec F]\n"
        "                                       check a unit's RTL against the model (mmaref verify --help)\n"
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
    int want_flags = argc > 0 && !strcmp(argv[0], "--flags");
    if (want_flags) { argc--; argv++; }
    if (argc < 4) { fprintf(stderr, "usage: mmaref eval [--flags] <instr|config> <c> <a0,a1,...> <b0,b1,...> [<sa,...> <sb,...>]\n"); return 2; }
    mma_unit u;
    if (cli_unit(argv[0], &u)) return 2;
    if (want_flags && !mma_unit_has_flags(&u)) {
        fprintf(stderr, "mmaref eval: --flags: %s defines no exception flags (the ieee tree does: ieee,a=...,k=...)\n", argv[0]);
        return 2;
    }
    int s = mma_unit_nscales(&u);
    if (argc != 4 + (s ? 2 : 0)) {
        fprintf(stderr, "mmaref eval: %s takes %s operands\n", argv[0], s ? "c, a, b, sa and sb" : "c, a and b");
        return 2;
    }
    uint64_t c, a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_VEC_MAX_SCALES], sb[MMA_VEC_MAX_SCALES];
    if (parse_list("c", argv[1], u.c, 1, &c) || parse_list("a", argv[2], u.a, u.k, a) ||
        parse_list("b", argv[3], u.b, u.k, b)) return 2;
    if (s && (parse_list("sa", argv[4], u.scale, s, sa) || parse_list("sb", argv[5], u.scale, s, sb))) return 2;
    unsigned fl = 0;
    uint64_t d = mma_dot_flags(&u, c, a, b, s ? sa : NULL, s ? sb : NULL, &fl);
    printf("%0*llx", mma_format(u.d)->hexdigits, (unsigned long long)d);
    if (want_flags) {
        char names[96];
        mma_flags_describe(fl, names, sizeof names);
        printf(" %02x (%s)", fl, names);
    }
    printf("\n");
    return 0;
}

static int cmd_run_check(int argc, char **argv, int check)
{
    const char *in = NULL, *out = NULL, *instr = NULL;
    long show = 10;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc && !check) out = argv[++i];
        else if (!strcmp(argv[i], "--instr") && i + 1 < argc) instr = argv[++i];
        else if (!strcmp(argv[i], "--show") && i + 1 < argc && check) show = atol(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "mmaref %s: unknown option '%s'\n", check ? "check" : "run", argv[i]); return 2; }
        else if (!in) in = argv[i];
        else { fprintf(stderr, "mmaref %s: unexpected argument '%s'\n", check ? "check" : "run", argv[i]); return 2; }
    }
    if (!in || (!check && !out)) {
        fprintf(stderr, check ? "usage: mmaref check <file.vec> [--instr X] [--show N]\n"
                              : "usage: mmaref run <in.vec> -o <out.vec> [--instr X]\n");
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
    mma_vec *v = malloc(sizeof *v);
    long n = 0, bad = 0;
    int rc;
    int s = mma_unit_nscales(u);
    int flags = mma_vec_has_flags(r), hd = mma_format(u->d)->hexdigits;
    while ((rc = mma_vec_next(r, v, err, sizeof err)) == 1) {
        unsigned fl = 0;
        uint64_t d = mma_dot_flags(u, v->c, v->a, v->b, s ? v->sa : NULL, s ? v->sb : NULL, &fl);
        n++;
        if (check) {
            if (!mma_result_equal(u, d, v->d) || (flags && fl != v->flags)) {
                if (bad < show) {
                    char line[MMA_MAX_K * 40 + 256];
                    size_t ll = mma_vec_format(line, u, v);
                    if (!flags && mma_unit_has_flags(u) && ll >= 4) strcpy(line + ll - 4, "\n");   /* as in the file: no flags */
                    if (flags)
                        printf("mismatch %s:%ld: file d=%0*llx flags=%02x model d=%0*llx flags=%02x\n  %s", in, v->line,
                               hd, (unsigned long long)v->d, v->flags, hd, (unsigned long long)d, fl, line);
                    else
                        printf("mismatch %s:%ld: file d=%0*llx model d=%0*llx\n  %s", in, v->line,
                               hd, (unsigned long long)v->d, hd, (unsigned long long)d, line);
                }
                bad++;
            }
        } else {
            v->d = d;
            v->flags = fl;
            mma_vec_write(o.f, u, v);
        }
    }
    free(v);
    mma_vec_close(r);
    if (rc < 0) {
        fprintf(stderr, "mmaref: %s\n", err);
        if (!check) cli_out_abort(&o);
        return 2;
    }
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
    if (!strcmp(c, "version") || !strcmp(c, "--version")) { printf("mmaref %s\n", MMAREF_VERSION); return 0; }
    if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) return usage(stdout);
    fprintf(stderr, "mmaref: unknown command '%s'\n", c);
    return usage(stderr);
}
