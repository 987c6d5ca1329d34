/* The mmaref command: its command table, and list, describe, eval, run and
 * check (the other commands have a file each: gen, metrics, gemm, bench,
 * verify, probe). */
#include "cli.h"
#include "mmaref_triage.h"

#include <stdlib.h>
#include <string.h>

static const char list_help[] =
    "usage: mmaref list [--arch A]\n"
    "  the instruction catalogue, one a line: <arch>:<qualifier> <algorithm> K=<k> F=<f>\n"
    "  (shape ranges in parentheses: any n of that range is the same unit)\n"
    "  --arch A         only A: volta turing ampere ada hopper blackwell rtx-blackwell\n"
    "                   cdna1 cdna2 cdna3 cdna4 x86 armv9 riscv (the last four rest on\n"
    "                   their specifications; x86:vdpbf16ps also on Zen 4: docs/hardware.md)\n";
static const char describe_help[] =
    "usage: mmaref describe <instr|config>\n"
    "  the unit's canonical configuration string and what it computes, in words\n";
static const char eval_help[] =
    "usage: mmaref eval [--flags] <instr|config> <c> <a0,...> <b0,...> [<sa0,...> <sb0,...>]\n"
    "  one dot product d = c + sum of a[k]*b[k]; prints d's encoding in hex\n"
    "  Every operand is a raw encoding in hex in the unit's format (mmaref describe\n"
    "  names them): c one value, a and b exactly K values each, comma-separated;\n"
    "  block-scaled units also take the scales of a and of b, one per block.\n"
    "  --flags          also the IEEE exception flags raised (units of the ieee tree):\n"
    "                   their byte in hex (inexact 01, underflow 02, overflow 04,\n"
    "                   invalid 10) and their names\n";
static const char run_help[] =
    "usage: mmaref run <in.vec> -o <out.vec> [--instr X] [--threads N] [--device D]\n"
    "  fills in d for every vector of a file (.vec, .vec.xz, .vec.gz, .vec.zst; - for stdin)\n"
    "  -o FILE          the output (.vec, or compressed by its name: .vec.xz, .vec.gz,\n"
    "                   .vec.zst, the fastest), written only on success\n"
    "  --instr X        compute with unit X instead of the file's '# instr:'\n"
    "  --threads N      threads (default: one per core); the output is the same for any N\n"
    "  --device D       where the dot products are computed: cpu (default) or cuda (the GPU;\n"
    "                   mmaref built with MMAREF_CUDA=1); the output is the same bytes\n";
static const char check_help[] =
    "usage: mmaref check <file.vec> [--instr X] [--show N] [--threads N] [--device D] [--explain]\n"
    "  recomputes d for every vector and compares bit for bit; the last line is\n"
    "  '<N> vectors, <M> mismatches'; exit 0 without mismatches, 1 with, 2 on bad input;\n"
    "  a file with no vectors is a failure (exit 1: nothing was checked)\n"
    "  --allow-empty    a file with no vectors passes\n"
    "  --instr X        check against unit X instead of the file's '# instr:'\n"
    "  --show N         print the first N mismatches (default 10)\n"
    "  --threads N      threads (default: one per core); the output is the same for any N\n"
    "  --device D       where the model's d is computed: cpu (default) or cuda (the GPU;\n"
    "                   mmaref built with MMAREF_CUDA=1); the same results\n"
    "  --explain        sort the mismatches into classes (one example each) and name the\n"
    "                   configuration nearest to what the unit computes (docs/triage.md)\n"
    "  --mismatches F   write the mismatching vectors (their d the file's, the model's in a\n"
    "                   comment above each) to F, to replay them (mmaref verify --vec F)\n";
static const char version_help[] =
    "usage: mmaref version      (or mmaref --version)\n"
    "  the tool's version\n";

static int usage(FILE *f);
static int cmd_version(int argc, char **argv)
{
    (void)argv;
    if (argc) { fprintf(stderr, "mmaref version: unexpected argument '%s'\nusage: mmaref version\n", argv[0]); return 2; }
    printf("mmaref %s\n", MMAREF_VERSION);
    return 0;
}

static int cmd_list(int argc, char **argv)
{
    const char *arch = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) arch = argv[++i];
        else if (argv[i][0] == '-') { cli_bad_option("list", argv[i], "--arch"); return 2; }
        else { fprintf(stderr, "mmaref list: unexpected argument '%s'\n", argv[i]); return 2; }
    }
    size_t n = mma_catalogue_size(), shown = 0;
    for (size_t i = 0; i < n; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        mma_catalogue_get(i, &e, &u);
        if (arch && strcmp(arch, e.arch)) continue;
        printf("%s:%s %s K=%d", e.arch, e.qualifier, mma_unit_algorithm(&u), u.k);
        if (u.tree != MMA_TREE_FMA && u.tree != MMA_TREE_PAIRWISE && u.tree != MMA_TREE_EXACT && u.f) printf(" F=%d", u.f);
        if (e.ranges[0]) printf(" (%s)", e.ranges);
        printf("\n");
        shown++;
    }
    if (arch && !shown) { fprintf(stderr, "mmaref list: no instructions for arch '%s'\n", arch); return 2; }
    return 0;
}

static int cmd_describe(int argc, char **argv)
{
    if (argc != 1) { fputs(describe_help, stderr); return 2; }
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
        if (n >= want) { fprintf(stderr, "mmaref eval: operand %s has more than %d value%s\n", what, want, want == 1 ? "" : "s"); return -1; }
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
    /* --flags anywhere (after the operands too); anything else that looks
     * like an option is named rather than taken for an operand */
    int want_flags = 0, n = 0;
    char *ops[8];
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--flags")) want_flags = 1;
        else if (argv[i][0] == '-' && argv[i][1] == '-') { fprintf(stderr, "mmaref eval: unknown option '%s'\n", argv[i]); return 2; }
        else if (n < 8) ops[n++] = argv[i];
        else { fprintf(stderr, "mmaref eval: unexpected argument '%s'\n", argv[i]); return 2; }
    }
    argc = n;
    argv = ops;
    if (argc < 4) { fputs(eval_help, stderr); return 2; }
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

/* The mismatching vectors of in, written whole to out: its headers (but
 * the source), each vector with the file's d and the model's in a comment
 * above it.  0, or the exit status of a failure. */
static int write_mismatches(const char *in, const char *instr, const char *out)
{
    char err[1024];
    mma_vec_reader *r = mma_vec_open(in, instr, err, sizeof err);
    if (!r) { fprintf(stderr, "mmaref: %s\n", err); return 2; }
    const mma_unit *u = mma_vec_unit(r);
    int flags = mma_unit_has_flags(u) && mma_vec_has_flags(r), ns = mma_unit_nscales(u), hd = mma_format(u->d)->hexdigits;
    cli_out o;
    if (cli_out_open(&o, out)) { mma_vec_close(r); return 2; }
    mma_vec_write_header(o.f, u);
    const char **extra;
    int ne = mma_vec_extra_headers(r, &extra);
    /* the headers ("# key: value", a key of one word), not the comments */
    for (int i = 0; i < ne; i++) {
        size_t kl = strcspn(extra[i] + 2, ":");
        if (strncmp(extra[i], "# source:", 9) && extra[i][2 + kl] == ':' && !memchr(extra[i] + 2, ' ', kl))
            fprintf(o.f, "%s\n", extra[i]);
    }
    fprintf(o.f, "# source: mmaref check %s: its mismatching vectors (d is the file's; the model's in the comment above each)\n", in);
    static mma_vec v;
    int rc;
    while ((rc = mma_vec_next(r, &v, err, sizeof err)) == 1) {
        unsigned fl = 0;
        uint64_t d = mma_dot_flags(u, v.c, v.a, v.b, ns ? v.sa : NULL, ns ? v.sb : NULL, &fl);
        if (mma_result_equal(u, d, v.d) && (!flags || fl == v.flags)) continue;
        fprintf(o.f, "# line %ld: model d=%0*llx", v.line, hd, (unsigned long long)d);
        if (flags) fprintf(o.f, ", flags %02x", fl);
        fprintf(o.f, "\n");
        if (!flags) v.flags = fl;
        mma_vec_write(o.f, u, &v);
    }
    mma_vec_close(r);
    if (rc < 0) { fprintf(stderr, "mmaref: %s\n", err); cli_out_abort(&o); return 2; }
    if (cli_out_commit(&o)) return CLI_OUT_STATUS(&o);
    return 0;
}

static int cmd_run_check(int argc, char **argv, int check)
{
    const char *in = NULL, *out = NULL, *instr = NULL, *mis_out = NULL;
    long show = 10;
    int threads = 0, explain = 0, allow_empty = 0, device = CLI_DEV_CPU;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc && !check) out = argv[++i];
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            if (cli_device_arg(check ? "check" : "run", argv[++i], &device)) return 2;
        }
        else if (!strcmp(argv[i], "--allow-empty") && check) allow_empty = 1;
        else if (!strcmp(argv[i], "--instr") && i + 1 < argc) instr = argv[++i];
        else if (!strcmp(argv[i], "--show") && i + 1 < argc && check) {
            if ((show = cli_count_arg("check", "--show", argv[++i], 1L << 40)) < 0) return 2;
        }
        else if (!strcmp(argv[i], "--explain") && check) explain = 1;
        else if (!strcmp(argv[i], "--mismatches") && i + 1 < argc && check) mis_out = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if ((threads = cli_threads(argv[++i])) < 0) return 2;
        }
        else if (argv[i][0] == '-' && argv[i][1]) {
            cli_bad_option(check ? "check" : "run", argv[i], check ? "--instr --show --threads --device" : "--instr --threads -o --device");
            return 2;
        }
        else if (!in) in = argv[i];
        else { fprintf(stderr, "mmaref %s: unexpected argument '%s'\n", check ? "check" : "run", argv[i]); return 2; }
    }
    if (!in || (!check && !out)) {
        fputs(check ? check_help : run_help, stderr);
        return 2;
    }
    char err[1024];
    if (instr) {                      /* the argument's mistake, named as such */
        mma_unit iu;
        if (mma_unit_parse(instr, &iu, err, sizeof err)) {
            fprintf(stderr, "mmaref %s: --instr: %s\n", check ? "check" : "run", err);
            return 2;
        }
    }
    mma_vec_reader *r = mma_vec_open(in, instr, err, sizeof err);
    if (!r) { fprintf(stderr, "mmaref: %s\n", err); return 2; }
    const mma_unit *u = mma_vec_unit(r);
    if (check && !mma_vec_has_d(r)) { fprintf(stderr, "mmaref: %s: field d: the file has no d column to check\n", in); mma_vec_close(r); return 2; }
    cli_out o;
    if (!check) {
        if (cli_out_open_threads(&o, out, threads)) { mma_vec_close(r); return 2; }
        mma_vec_write_header(o.f, u);
        const char **extra;
        int ne = mma_vec_extra_headers(r, &extra);
        for (int i = 0; i < ne; i++) if (strncmp(extra[i], "# source:", 9)) fprintf(o.f, "%s\n", extra[i]);
        fprintf(o.f, "# source: mmaref %s\n", MMAREF_VERSION);
    }
    long n = 0, bad = 0;
    cli_progress_begin(check ? "check" : "run", 0, "vectors");
    int rc = cli_vec_pass(r, in, check, show, check ? NULL : &o, threads, device, &n, &bad);
    cli_progress_end();
    mma_vec_close(r);
    if (rc) {
        if (!check) { cli_out_abort(&o); return CLI_OUT_STATUS(&o); }
        return 2;
    }
    if (check && explain && bad && explain_mismatches(in, instr, threads, n, bad)) return 2;
    if (check && mis_out && bad && (rc = write_mismatches(in, instr, mis_out))) return rc;
    if (check) {
        printf("%ld vectors, %ld mismatches\n", n, bad);
        /* an empty DUT dump must not turn a CI gate green (the DPI
         * scoreboard treats "nothing checked" the same way) */
        if (!n && !allow_empty) {
            fprintf(stderr, "mmaref check: %s: 0 vectors: nothing was checked (--allow-empty to accept)\n", in);
            return 1;
        }
        return bad ? 1 : 0;
    }
    if (cli_out_commit(&o)) return CLI_OUT_STATUS(&o);
    fprintf(stderr, "%ld vectors\n", n);
    return 0;
}

static int cmd_run(int argc, char **argv) { return cmd_run_check(argc, argv, 0); }
static int cmd_check(int argc, char **argv) { return cmd_run_check(argc, argv, 1); }

/* The commands: `mmaref <name> ...` runs run(argc, argv) on what follows the
 * name; `mmaref <name> --help` prints help. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"list", cmd_list, list_help},
    {"describe", cmd_describe, describe_help},
    {"eval", cmd_eval, eval_help},
    {"run", cmd_run, run_help},
    {"check", cmd_check, check_help},
    {"gen", cmd_gen, cli_gen_help},
    {"metrics", cmd_metrics, cli_metrics_help},
    {"gemm", cmd_gemm, cli_gemm_help},
    {"bench", cmd_bench, cli_bench_help},
    {"verify", cmd_verify, cli_verify_help},
    {"probe", cmd_probe, cli_probe_help},
    {"version", cmd_version, version_help},
};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

/* on stdout (mmaref --help): every command with every option; on stderr
 * (no command given): the command names */
static int usage(FILE *f)
{
    fprintf(f, "mmaref %s: bit-exact models of GPU matrix-multiply units\n"
               "usage: mmaref <command> [arguments]     (mmaref <command> --help: that command alone)\n", MMAREF_VERSION);
    if (f == stderr) {
        fprintf(f, "commands:");
        for (int i = 0; i < NCOMMANDS; i++) fprintf(f, " %s", commands[i].name);
        fprintf(f, "\nmmaref --help describes every command and option\n");
        return 2;
    }
    fprintf(f, "A unit is an instruction name (<arch>:<qualifier>, see mmaref list) or a configuration\n"
               "string (fused,a=e4m3,b=e4m3,k=32,f=13,...; docs/algorithms.md).\n"
               "Long work (gen, run, check, metrics, gemm) shows a status line when stderr is a\n"
               "terminal; --quiet or -q (any command, anywhere) turns it off.\n");
    for (int i = 0; i < NCOMMANDS; i++) fprintf(f, "\n%s", commands[i].help);
    return 0;
}

int main(int argc, char **argv)
{
    /* --quiet, anywhere: no status lines on the terminal (every command) */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) cli_quiet = 1;
        else argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = NULL;
    if (argc < 2) return usage(stderr);
    const char *c = argv[1];
    if (!strcmp(c, "help") || !strcmp(c, "--help") || !strcmp(c, "-h")) {
        if (argc > 2)
            for (int i = 0; i < NCOMMANDS; i++)
                if (!strcmp(argv[2], commands[i].name)) { fputs(commands[i].help, stdout); return 0; }
        return usage(stdout);
    }
    if (!strcmp(c, "--version")) c = "version";
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(c, commands[i].name)) {
            if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) { fputs(commands[i].help, stdout); return 0; }
            return commands[i].run(argc - 2, argv + 2);
        }
    fprintf(stderr, "mmaref: unknown command '%s' (mmaref --help lists them)\n", c);
    return 2;
}
