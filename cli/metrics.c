/* mmaref metrics: error statistics of units against the exact result.
 *
 *   mmaref metrics <instr|config>... [--dist D] [--count N] [--seed S] [--k K]
 *                  [--scale X] [--zero-c] [--quant FMT] [--threads T]
 *                  [--csv | --json] [--hist FILE [--hist-bins B]]
 *
 * Every unit sees the same draws (quantized into its own formats); a depth
 * K larger than a unit's k is computed as K/k chained calls, the running
 * sum kept in the unit's accumulator.  See docs/accuracy.md. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 1024

/* d converted into the unit's c format (the identity when they agree) */
uint64_t mx_to_c(const mma_unit *u, uint64_t d)
{
    if (u->c == u->d) return d;
    return mx_quantize(u->c, mx_value(u->d, d));
}

uint64_t mx_chain(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                  const uint64_t *sa, const uint64_t *sb, int k)
{
    int ns = mma_unit_nscales(u);
    uint64_t d = c;
    for (int s = 0; s < k; s += u->k) {
        d = mma_dot(u, c, a + s, b + s, ns ? sa + s / u->block : NULL, ns ? sb + s / u->block : NULL);
        c = mx_to_c(u, d);
    }
    return d;
}

void mx_exact_chain(mx_acc *acc, const mma_unit *u, uint64_t c, const uint64_t *a,
                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int k)
{
    int ns = mma_unit_nscales(u);
    for (int s = 0; s < k; s += u->k)
        mx_acc_dot(acc, u, c, a + s, b + s, ns ? sa + s / u->block : NULL,
                   ns ? sb + s / u->block : NULL, s == 0);
}

int mx_same_inputs(const mma_unit *x, const mma_unit *y)
{
    return x->a == y->a && x->b == y->b && x->c == y->c && x->scale == y->scale &&
           (x->scale == MMA_FMT_NONE || x->block == y->block);
}

/* ---- the run ----------------------------------------------------------- */
typedef struct {
    mx_draw *draw;
    mx_enc **enc;          /* per group */
    mx_acc acc;
} tls;

typedef struct {
    int nu;
    mma_unit *u;
    int *group;            /* group leader index per unit */
    mx_row *rows;
    mx_gen gen;
    int k;
    tls *t;
} run_ctx;

static void chunk(void *vctx, int tid, long lo, long hi)
{
    run_ctx *x = vctx;
    tls *t = &x->t[tid];
    for (long i = lo; i < hi; i++) {
        mx_draw_vector(&x->gen, (uint64_t)i, t->draw);
        for (int g = 0; g < x->nu; g++) {
            if (x->group[g] != g) continue;
            const mma_unit *ug = &x->u[g];
            mx_enc *e = t->enc[g];
            mx_encode_draw(&x->gen, ug, t->draw, e);
            mx_acc_reset(&t->acc);
            mx_exact_chain(&t->acc, ug, e->c, e->a, e->b, e->sa, e->sb, x->k);
            mx_val v = mx_acc_value(&t->acc);
            int ns = mma_unit_nscales(ug);
            double ref = mx_fp32_ref(ug, mx_value(ug->c, e->c), e->a, e->b, ns ? e->sa : NULL, ns ? e->sb : NULL, x->k);
            for (int j = g; j < x->nu; j++) {
                if (x->group[j] != g) continue;
                const mma_unit *u = &x->u[j];
                uint64_t d = mx_chain(u, e->c, e->a, e->b, e->sa, e->sb, x->k);
                mx_res r;
                mx_result(u->d, d, &t->acc, v, ref, 1, &r);
                mx_row_put(&x->rows[j], i, &r);
            }
        }
    }
}

const char cli_metrics_help[] =
    "usage: mmaref metrics <instr|config>... [options]\n"
    "  error statistics of each unit against the exact result (all units see the same draws)\n"
    "  --dist D         input distribution: normal uniform llm cancel bits (default normal)\n"
    "  --count N        dot products (default 100000)       --seed S   the draws' seed (default 1)\n"
    "  --k K            products per dot product: a multiple of every unit's K, computed as K/k\n"
    "                   chained calls (default: the largest unit K)\n"
    "  --scale X        the inputs' scale (default 1)       --zero-c   c = +0\n"
    "  --quant FMT      round the values into FMT first (e4m3 values given to an fp16 unit, ...)\n"
    "  --threads T      threads (default: all cores; the output is the same for any T)\n"
    "  --csv | --json   machine-readable output instead of the aligned table\n"
    "  --hist FILE      histograms of the signed ulp error and of log2 |error| (gnuplot data)\n"
    "  --hist-bins B    linear bins of the ulp histogram (default 101)\n"
    "  --gemm MODE ...  the same as mmaref gemm --mode MODE ...\n";

static void usage(FILE *f) { fputs(cli_metrics_help, f); }

static void print_metrics(FILE *f, mx_outfmt of, const run_ctx *x, long count, uint64_t seed,
                          double scale, int zero_c, mma_fmt quant)
{
    static const char *cols[] = {"unit", "out", "n", "special", "sp_diff", "max_ulp", "mean_ulp",
                                 "p50_ulp", "p90_ulp", "p99_ulp", "p99.9_ulp", "bias_ulp",
                                 "max_rel", "mean_rel", "rel_inf", "not_cr", "ne_fp32"};
    enum { NC = sizeof cols / sizeof cols[0] };
    const char *dn = mx_dist_name(x->gen.dist);
    if (of == MX_OUT_JSON) {
        fprintf(f, "{\"command\":\"metrics\",\"dist\":\"%s\",\"scale\":%.17g,\"k\":%d,\"count\":%ld,"
                   "\"seed\":%llu,\"zero_c\":%s,\"quant\":", dn, scale, x->k, count,
                (unsigned long long)seed, zero_c ? "true" : "false");
        if (quant) fprintf(f, "\"%s\"", mma_format(quant)->name); else fprintf(f, "null");
        fprintf(f, ",\"units\":[");
    } else if (of == MX_OUT_CSV) {
        fprintf(f, "unit,config,out,dist,scale,k,count,seed");
        for (int c = 2; c < NC; c++) fprintf(f, ",%s", cols[c]);
        fputc('\n', f);
    } else {
        fprintf(f, "# mmaref metrics: dist=%s scale=%g k=%d count=%ld seed=%llu c=%s%s%s\n", dn, scale,
                x->k, count, (unsigned long long)seed, zero_c ? "0" : (x->gen.dist == MX_CANCEL ? "-sum*(1+eta)" : "drawn"),
                quant ? " quant=" : "", quant ? mma_format(quant)->name : "");
    }
    char **cells = calloc((size_t)(x->nu + 1) * NC, sizeof *cells);
    for (int c = 0; c < NC; c++) cells[c] = mx_fmt("%s", cols[c]);
    for (int j = 0; j < x->nu; j++) {
        const mx_row *r = &x->rows[j];
        const mx_part *t = &r->tot;
        double n = (double)t->n;
        double v[NC];
        v[2] = (double)t->n; v[3] = (double)t->special; v[4] = (double)t->spmismatch;
        v[5] = t->n ? t->max_ulp : NAN; v[6] = t->n ? t->sum_ulp / n : NAN;
        for (int q = 0; q < 4; q++) v[7 + q] = r->pulp[q];
        v[11] = t->n ? t->sum_sulp / n : NAN;
        v[12] = t->n > t->relinf ? t->max_rel : NAN;
        v[13] = t->n > t->relinf ? t->sum_rel / (double)(t->n - t->relinf) : NAN;
        v[14] = (double)t->relinf;
        v[15] = t->n ? (double)t->notcr / n : NAN;
        v[16] = t->n ? (double)t->nefp32 / n : NAN;
        const char *out = mma_format(x->u[j].d)->name;
        char outs[32];
        if (x->u[j].p != mma_format(x->u[j].d)->mbits) snprintf(outs, sizeof outs, "%s(p=%d)", out, x->u[j].p);
        else snprintf(outs, sizeof outs, "%s", out);
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", j ? "," : "");
            mx_json_str(f, r->label);
            fprintf(f, ",\"config\":");
            mx_json_str(f, r->config);
            fprintf(f, ",\"out\":\"%s\"", outs);
            for (int c = 2; c < NC; c++) {
                if (v[c] != v[c]) fprintf(f, ",\"%s\":null", cols[c]);
                else if (c <= 4 || c == 14) fprintf(f, ",\"%s\":%ld", cols[c], (long)v[c]);
                else fprintf(f, ",\"%s\":%.9g", cols[c], v[c]);
            }
            fprintf(f, "}");
        } else if (of == MX_OUT_CSV) {
            mx_csv_str(f, r->label); fputc(',', f);
            mx_csv_str(f, r->config);
            fprintf(f, ",%s,%s,%.17g,%d,%ld,%llu", outs, dn, scale, x->k, count, (unsigned long long)seed);
            for (int c = 2; c < NC; c++) {
                if (v[c] != v[c]) fprintf(f, ",");
                else if (c <= 4 || c == 14) fprintf(f, ",%ld", (long)v[c]);
                else fprintf(f, ",%.9g", v[c]);
            }
            fputc('\n', f);
        } else {
            char b[32];
            char **row = cells + (size_t)(j + 1) * NC;
            row[0] = mx_fmt("%s", r->label);
            row[1] = mx_fmt("%s", outs);
            for (int c = 2; c < NC; c++) row[c] = c <= 4 || c == 14 ? mx_fmt("%ld", (long)v[c]) : mx_fmt("%s", mx_g(v[c], b));
        }
    }
    if (of == MX_OUT_JSON) fprintf(f, "]}\n");
    if (of == MX_OUT_TABLE) {
        mx_table_print(f, cells, x->nu + 1, NC);
        fprintf(f, "# ulp: of the output format at the exact value; special: exact or output not finite (excluded;\n"
                   "# sp_diff: of those, output kind differs from RNE(exact)); not_cr: fraction != RNE(exact);\n"
                   "# ne_fp32: fraction != sequential FP32 fmaf reference; bias: mean signed error;\n"
                   "# rel: |error|/|exact|, over results with exact != 0 (rel_inf: exact 0, output not 0)\n");
    }
    for (int i = 0; i < (x->nu + 1) * NC; i++) free(cells[i]);
    free(cells);
}

int cmd_gemm(int argc, char **argv);

int cmd_metrics(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--gemm")) {           /* metrics --gemm == gemm */
            char **v = malloc(sizeof *v * (size_t)(argc + 1));
            int n = 0;
            for (int j = 0; j < argc; j++) {
                if (j == i) { if (j + 1 < argc && argv[j + 1][0] != '-') { v[n++] = "--mode"; } continue; }
                v[n++] = argv[j];
            }
            int rc = cmd_gemm(n, v);
            free(v);
            return rc;
        }
    const char *names[256];
    int nu = 0;
    long count = 100000, k = 0, threads = mx_default_threads(), bins = 101;
    long seed = 1;
    double scale = 1.0;
    int zero_c = 0;
    mx_dist dist = MX_NORMAL;
    mma_fmt quant = MMA_FMT_NONE;
    mx_outfmt of = MX_OUT_TABLE;
    const char *hist = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dist") && v) {
            if (mx_dist_parse(v, &dist)) {
                fprintf(stderr, "mmaref metrics: unknown distribution '%s' (one of: %s)\n", v, mx_dist_list());
                return 2;
            }
            i++;
        }
        else if (!strcmp(a, "--count") && v) { if (mx_parse_long("metrics", a, v, 1, 1L << 40, &count)) return 2; i++; }
        else if (!strcmp(a, "--seed") && v) { if (mx_parse_long("metrics", a, v, 0, 0x7fffffffffffffffL, &seed)) return 2; i++; }
        else if (!strcmp(a, "--k") && v) { if (mx_parse_long("metrics", a, v, 1, 1L << 24, &k)) return 2; i++; }
        else if (!strcmp(a, "--threads") && v) { if (mx_parse_long("metrics", a, v, 1, 1024, &threads)) return 2; i++; }
        else if (!strcmp(a, "--hist-bins") && v) { if (mx_parse_long("metrics", a, v, 1, 100000, &bins)) return 2; i++; }
        else if (!strcmp(a, "--scale") && v) { if (mx_parse_double("metrics", a, v, &scale)) return 2; i++; }
        else if (!strcmp(a, "--quant") && v) {
            quant = mma_format_by_name(v);
            if (!quant || mma_format(quant)->width > 32) { fprintf(stderr, "mmaref metrics: --quant needs an input format (e4m3, fp16, ...), got '%s'\n", v); return 2; }
            i++;
        }
        else if (!strcmp(a, "--hist") && v) { hist = v; i++; }
        else if (!strcmp(a, "--zero-c")) zero_c = 1;
        else if (!strcmp(a, "--csv")) of = MX_OUT_CSV;
        else if (!strcmp(a, "--json")) of = MX_OUT_JSON;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mmaref metrics: unknown option '%s'%s\n", a, v || a[1] != '-' ? "" : " (or it needs a value)");
            usage(stderr);
            return 2;
        }
        else if (nu < 256) names[nu++] = a;
        else { fprintf(stderr, "mmaref metrics: at most 256 units\n"); return 2; }
    }
    if (!nu) { usage(stderr); return 2; }
    run_ctx x;
    memset(&x, 0, sizeof x);
    x.nu = nu;
    x.u = calloc((size_t)nu, sizeof *x.u);
    x.group = calloc((size_t)nu, sizeof *x.group);
    x.rows = calloc((size_t)nu, sizeof *x.rows);
    int rc = 2, ht = 0;
    cli_out o;
    if (!x.u || !x.group || !x.rows) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    int kmax = 0;
    for (int j = 0; j < nu; j++) {
        if (cli_unit(names[j], &x.u[j])) goto out;
        if (x.u[j].k > kmax) kmax = x.u[j].k;
    }
    if (!k) k = kmax;
    for (int j = 0; j < nu; j++) {
        const mma_unit *u = &x.u[j];
        if (k % u->k) {
            fprintf(stderr, "mmaref metrics: --k %ld is not a multiple of %s's K=%d\n", k, names[j], u->k);
            goto out;
        }
        for (int ab = 0; ab < 2 && quant && dist != MX_BITS; ab++) {
            mma_fmt in = ab ? u->b : u->a;
            if (quant != in && (mma_format(quant)->mbits > mma_format(in)->mbits || mma_format(quant)->ebits > mma_format(in)->ebits)) {
                fprintf(stderr, "mmaref metrics: --quant %s values are not all representable in %s's input format %s\n",
                        mma_format(quant)->name, names[j], mma_format(in)->name);
                goto out;
            }
        }
        x.group[j] = j;
        for (int i = 0; i < j; i++) if (x.group[i] == i && mx_same_inputs(&x.u[i], u)) { x.group[j] = i; break; }
        mx_row *r = &x.rows[j];
        snprintf(r->label, sizeof r->label, "%s", names[j]);
        mma_unit_config(u, r->config, sizeof r->config);
        if (mx_row_init(r, count, CHUNK, 0)) goto out;
    }
    x.k = (int)k;
    if (mx_gen_init(&x.gen, dist, scale, (int)k, (uint64_t)seed, zero_c, quant)) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    if (!(x.t = calloc((size_t)threads, sizeof *x.t))) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    for (int t = 0; t < threads; t++) {
        x.t[t].draw = mx_draw_new((int)k);
        x.t[t].enc = calloc((size_t)nu, sizeof *x.t[t].enc);
        if (!x.t[t].draw || !x.t[t].enc) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        for (int j = 0; j < nu; j++) if (x.group[j] == j && !(x.t[t].enc[j] = mx_enc_new((int)k))) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        mx_acc_clear(&x.t[t].acc);
    }
    if (hist) {                                      /* before any work: fail early */
        if (cli_out_open(&o, hist)) goto out;
        ht = 1;
    }
    mx_parallel(count, CHUNK, (int)threads, chunk, &x, "metrics", nu);
    for (int j = 0; j < nu; j++) mx_row_finish(&x.rows[j]);
    print_metrics(stdout, of, &x, count, (uint64_t)seed, scale, zero_c, quant);
    rc = 0;
    if (ht) {
        fprintf(o.f, "# mmaref metrics histogram: dist=%s scale=%g k=%ld count=%ld seed=%ld\n",
                mx_dist_name(dist), scale, k, count, seed);
        mx_write_hist(o.f, x.rows, nu, (int)bins);
        ht = 0;
        if (cli_out_commit(&o)) rc = 2;
    }
out:
    if (ht) cli_out_abort(&o);
    if (x.t)
        for (int t = 0; t < threads; t++) {
            mx_draw_free(x.t[t].draw);
            if (x.t[t].enc) for (int j = 0; j < nu; j++) mx_enc_free(x.t[t].enc[j]);
            free(x.t[t].enc);
        }
    if (x.rows) for (int j = 0; j < nu; j++) mx_row_free(&x.rows[j]);
    mx_gen_free(&x.gen);
    free(x.t); free(x.u); free(x.group); free(x.rows);
    if (fflush(stdout)) rc = 2;
    return rc;
}
