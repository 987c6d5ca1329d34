/* mmaref metrics: error statistics of units against the exact result
 * (the run is the library's mma_metrics_run; this file parses and prints).
 *
 *   mmaref metrics <instr|config>... [--dist D] [--count N] [--seed S] [--k K]
 *                  [--scale X] [--zero-c] [--quant FMT] [--threads T]
 *                  [--csv | --json] [--hist FILE [--hist-bins B]] [--plot FILE.png|svg]
 *
 * Every unit sees the same draws (quantized into its own formats); a depth
 * K larger than a unit's k is computed as K/k chained calls, the running
 * sum kept in the unit's accumulator.  See docs/accuracy.md. */
#include "metrics.h"

#include <stdlib.h>
#include <string.h>

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
    "  --plot FILE      the two histograms drawn by gnuplot into FILE (.png or .svg)\n"
    "  --gemm MODE ...  the same as mmaref gemm --mode MODE ...\n";

static void usage(FILE *f) { fputs(cli_metrics_help, f); }

static void print_metrics(FILE *f, mx_outfmt of, const mma_metrics_opts *o, const mma_unit *u, int nu,
                          const mma_row *rows, const char *const *labels)
{
    enum { NC = 2 + MMA_METRICS_NFIG };
    const char *cols[NC] = {"unit", "out"};
    for (int c = 2; c < NC; c++) cols[c] = mma_metrics_figure[c - 2].name;
    const char *dn = mma_dist_name(o->dist);
    long count = o->count;
    uint64_t seed = o->seed;
    double scale = o->scale;
    int zero_c = o->zero_c;
    mma_fmt quant = o->quant;
    if (of == MX_OUT_JSON) {
        fprintf(f, "{\"command\":\"metrics\",\"dist\":\"%s\",\"scale\":%.17g,\"k\":%d,\"count\":%ld,"
                   "\"seed\":%llu,\"zero_c\":%s,\"quant\":", dn, scale, o->k, count,
                (unsigned long long)seed, zero_c ? "true" : "false");
        if (quant) fprintf(f, "\"%s\"", mma_format(quant)->name); else fprintf(f, "null");
        fprintf(f, ",\"units\":[");
    } else if (of == MX_OUT_CSV) {
        fprintf(f, "unit,config,out,dist,scale,k,count,seed");
        for (int c = 2; c < NC; c++) fprintf(f, ",%s", cols[c]);
        fputc('\n', f);
    } else {
        fprintf(f, "# mmaref metrics: dist=%s scale=%g k=%d count=%ld seed=%llu c=%s%s%s\n", dn, scale,
                o->k, count, (unsigned long long)seed, zero_c ? "0" : (o->dist == MMA_DIST_CANCEL ? "-sum*(1+eta)" : "drawn"),
                quant ? " quant=" : "", quant ? mma_format(quant)->name : "");
    }
    char **cells = calloc((size_t)(nu + 1) * NC, sizeof *cells);
    for (int c = 0; c < NC; c++) cells[c] = mx_fmt("%s", cols[c]);
    for (int j = 0; j < nu; j++) {
        const mma_row *r = &rows[j];
        double v[NC];
        mma_metrics_figures(r, v + 2);
        const char *out = mma_format(u[j].d)->name;
        char outs[32];
        if (u[j].p != mma_format(u[j].d)->mbits) snprintf(outs, sizeof outs, "%s(p=%d)", out, u[j].p);
        else snprintf(outs, sizeof outs, "%s", out);
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", j ? "," : "");
            mx_json_str(f, labels[j]);
            fprintf(f, ",\"config\":");
            mx_json_str(f, r->config);
            fprintf(f, ",\"out\":\"%s\"", outs);
            for (int c = 2; c < NC; c++) {
                if (v[c] != v[c]) fprintf(f, ",\"%s\":null", cols[c]);
                else if (mma_metrics_figure[c - 2].is_count) fprintf(f, ",\"%s\":%ld", cols[c], (long)v[c]);
                else fprintf(f, ",\"%s\":%.9g", cols[c], v[c]);
            }
            fprintf(f, "}");
        } else if (of == MX_OUT_CSV) {
            mx_csv_str(f, labels[j]); fputc(',', f);
            mx_csv_str(f, r->config);
            fprintf(f, ",%s,%s,%.17g,%d,%ld,%llu", outs, dn, scale, o->k, count, (unsigned long long)seed);
            for (int c = 2; c < NC; c++) {
                if (v[c] != v[c]) fprintf(f, ",");
                else if (mma_metrics_figure[c - 2].is_count) fprintf(f, ",%ld", (long)v[c]);
                else fprintf(f, ",%.9g", v[c]);
            }
            fputc('\n', f);
        } else {
            char b[32];
            char **row = cells + (size_t)(j + 1) * NC;
            row[0] = mx_fmt("%s", labels[j]);
            row[1] = mx_fmt("%s", outs);
            for (int c = 2; c < NC; c++) row[c] = mma_metrics_figure[c - 2].is_count ? mx_fmt("%ld", (long)v[c]) : mx_fmt("%s", mx_g(v[c], b));
        }
    }
    if (of == MX_OUT_JSON) fprintf(f, "]}\n");
    if (of == MX_OUT_TABLE) {
        mx_table_print(f, cells, nu + 1, NC);
        fprintf(f, "# ulp: of the output format at the exact value; special: exact or output not finite (excluded;\n"
                   "# sp_diff: of those, output kind differs from RNE(exact)); not_cr: fraction != RNE(exact);\n"
                   "# ne_fp32: fraction != sequential FP32 fmaf reference; bias: mean signed error;\n"
                   "# rel: |error|/|exact|, over results with exact != 0 (rel_inf: exact 0, output not 0)\n");
    }
    for (int i = 0; i < (nu + 1) * NC; i++) free(cells[i]);
    free(cells);
}

/* --plot: the histograms of --hist, one panel each */
typedef struct {
    const mma_metrics_opts *o;
    const mma_row *rows;
    const char *const *names;
    int nu, bins;
} plot_ctx;

static void plot_data(FILE *f, void *vctx)
{
    const plot_ctx *p = vctx;
    mx_write_hist(f, p->rows, p->names, p->nu, p->bins);
}

static void plot_script(FILE *g, const char *data, void *vctx)
{
    const plot_ctx *p = vctx;
    fprintf(g, "set multiplot layout 1,2 title \"mmaref metrics: dist=%s k=%d count=%ld seed=%ld\"\n",
            mma_dist_name(p->o->dist), p->o->k, p->o->count, (long)p->o->seed);
    fprintf(g, "set grid\nset key top left font ',8'\nset ylabel 'fraction of results'\n");
    for (int panel = 0; panel < 2; panel++) {
        fprintf(g, "set title '%s'\nset xlabel '%s'\nplot ", panel ? "log2 |error|, quarter octaves" : "signed error",
                panel ? "log2 |error| (ulp of the output)" : "error (ulp of the output; +-99th percentile of |error|)");
        for (int j = 0; j < p->nu; j++) {
            char lab[160];
            mx_plot_label(lab, sizeof lab, p->names[j]);
            fprintf(g, "%s\"%s\" index %d using 1:3 with steps lw 1.5 title \"%s\"", j ? ", " : "", data,
                    2 * j + panel, lab);
        }
        fprintf(g, "\n");
    }
    fprintf(g, "unset multiplot\n");
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
    long bins = 101;
    mx_outfmt of = MX_OUT_TABLE;
    const char *hist = NULL, *plot = NULL;
    mma_metrics_opts opt;
    mma_metrics_defaults(&opt);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int c = mx_common_option("metrics", a, v, 1L << 40, &opt);
        if (c < 0) return 2;
        if (c) { i++; continue; }
        if (!strcmp(a, "--hist-bins") && v) { if (mx_parse_long("metrics", a, v, 1, 100000, &bins)) return 2; i++; }
        else if (!strcmp(a, "--hist") && v) { hist = v; i++; }
        else if (!strcmp(a, "--plot") && v) { plot = v; i++; }
        else if (!strcmp(a, "--zero-c")) opt.zero_c = 1;
        else if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            mx_outfmt want = a[2] == 'c' ? MX_OUT_CSV : MX_OUT_JSON;
            if (of != MX_OUT_TABLE && of != want) { fprintf(stderr, "mmaref metrics: --csv and --json: give one\n"); return 2; }
            of = want;
        }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) {
            cli_bad_option("metrics", a, "--dist --count --seed --k --scale --quant --threads --hist --hist-bins --plot");
            return 2;
        }
        else if (nu < 256) names[nu++] = a;
        else { fprintf(stderr, "mmaref metrics: at most 256 units\n"); return 2; }
    }
    if (!nu) { usage(stderr); return 2; }
    mma_unit *u = calloc((size_t)nu, sizeof *u);
    mma_row *rows = calloc((size_t)nu, sizeof *rows);
    int rc = 2, ht = 0, ran = 0;
    cli_out o;
    if (!u || !rows) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    int kmax = 0;
    for (int j = 0; j < nu; j++) {
        if (cli_unit(names[j], &u[j])) goto out;
        if (u[j].k > kmax) kmax = u[j].k;
    }
    if (!opt.k) opt.k = kmax;
    for (int j = 0; j < nu; j++) {
        if (opt.k % u[j].k) {
            fprintf(stderr, "mmaref metrics: --k %d is not a multiple of %s's K=%d\n", opt.k, names[j], u[j].k);
            goto out;
        }
        for (int ab = 0; ab < 2 && opt.quant && opt.dist != MMA_DIST_BITS; ab++) {
            mma_fmt in = ab ? u[j].b : u[j].a, q = opt.quant;
            if (q != in && (mma_format(q)->mbits > mma_format(in)->mbits || mma_format(q)->ebits > mma_format(in)->ebits)) {
                fprintf(stderr, "mmaref metrics: --quant %s values are not all representable in %s's input format %s\n",
                        mma_format(q)->name, names[j], mma_format(in)->name);
                goto out;
            }
        }
    }
    if (plot && mx_plot_check("metrics", plot)) goto out;
    if (hist) {                                      /* before any work: fail early */
        if (cli_out_open(&o, hist)) goto out;
        ht = 1;
    }
    progress_line pl;
    mx_progress(&opt, &pl, "metrics", nu);
    char err[1024];
    if (mma_metrics_run(&opt, u, nu, rows, err, sizeof err)) { fprintf(stderr, "mmaref metrics: %s\n", err); goto out; }
    ran = 1;
    print_metrics(stdout, of, &opt, u, nu, rows, names);
    rc = 0;
    if (ht) {
        fprintf(o.f, "# mmaref metrics histogram: dist=%s scale=%g k=%d count=%ld seed=%ld\n",
                mma_dist_name(opt.dist), opt.scale, opt.k, opt.count, (long)opt.seed);
        mx_write_hist(o.f, rows, names, nu, (int)bins);
        ht = 0;
        if (cli_out_commit(&o)) rc = 2;
    }
    if (plot && rc == 0) {
        plot_ctx pc = {&opt, rows, names, nu, (int)bins};
        if (mx_plot("metrics", plot, plot_data, plot_script, &pc)) rc = 2;
    }
out:
    if (ht) cli_out_abort(&o);
    if (ran) for (int j = 0; j < nu; j++) mma_row_free(&rows[j]);
    free(u); free(rows);
    if (fflush(stdout)) rc = 2;
    return rc;
}
