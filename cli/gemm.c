/* mmaref gemm: a depth-K dot product (one output element of a GEMM) as a
 * sequence of instruction calls, against the exact depth-K result.
 *
 *   tc        the running sum stays in the instruction's accumulator: each
 *             call's output is the next call's c ("tensor-core only")
 *   promote   every Nc products the accumulator is added into an FP32
 *             register with an IEEE round-to-nearest add and restarts from 0
 *             (DeepSeek-V3, Nc = 128)
 *   twostage  every call starts from c = 0 and its output is added into the
 *             FP32 register (the two-stage FP16/16 kernel with FP32 outside);
 *             the same as promote with Nc = the instruction's K
 *
 * --ntrun reproduces the accumulator post's experiment: per block of Nc products the instruction
 * output has its low Ntrun bits zeroed before the FP32 add; for each Ntrun
 * the fraction of results that changed (against Ntrun = 0) is reported, and
 * the first Ntrun that changes any result.  The runs are the library's
 * (mma_gemm_run, mmaref_metrics.h); this file parses and prints. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const mma_metrics_opts *o;
    int nu;
    const mma_unit *u;
    const char *const *names;
    const mma_row *rows;     /* nu * nmodes */
    float **chg;             /* ntrun: per unit, count * (tmax + 1) */
    int tmax;
} gctx;

const char cli_gemm_help[] =
    "usage: mmaref gemm <instr|config>... --k K[,K2,...] [options]\n"
    "       mmaref gemm <instr|config>... --k K --ntrun [--nc N] [options]\n"
    "  a dot product of depth K built from K/k instruction calls, against the exact result\n"
    "  --k K            the GEMM depth, a multiple of every unit's K (required); a comma list\n"
    "                   K1,K2,... runs each depth in turn (a table each)\n"
    "  --mode M,...     tc (the running sum stays in the accumulator), promote (added to an FP32\n"
    "                   register every Nc products), twostage (each call from c = 0, an FP32 add\n"
    "                   after every call); default tc\n"
    "  --nc N           products per promotion or per block (default 128)\n"
    "  --ntrun          zero the low Ntrun bits of every block's output, for every Ntrun, and\n"
    "                   report when the GEMM result first changes (blocks of --nc products)\n"
    "  --dist D         input distribution: normal uniform llm cancel bits (default normal)\n"
    "  --count N        outputs (default 1000)              --seed S   the draws' seed (default 1)\n"
    "  --scale X        the inputs' scale (default 1)\n"
    "  --quant FMT      round the values into FMT first\n"
    "  --threads T      threads (default: all cores; the output is the same for any T)\n"
    "  --csv | --json   machine-readable output instead of the aligned table\n"
    "  --plot FILE      the normwise relative error (agg_rel) against the depth, a line for each\n"
    "                   unit and mode, drawn by gnuplot into FILE (.png or .svg)\n";

static void usage(FILE *f) { fputs(cli_gemm_help, f); }

static void header(FILE *f, mx_outfmt of, const gctx *x)
{
    const mma_metrics_opts *o = x->o;
    if (of != MX_OUT_TABLE) return;
    fprintf(f, "# mmaref gemm%s: K=%d dist=%s scale=%g count=%ld seed=%ld c=0%s%s", o->ntrun ? " --ntrun" : "",
            o->k, mma_dist_name(o->dist), o->scale, o->count, (long)o->seed, o->quant ? " quant=" : "",
            o->quant ? mma_format(o->quant)->name : "");
    if (o->ntrun || o->modes[0] != MMA_GEMM_TC || o->nmodes > 1) fprintf(f, " nc=%d", o->nc);
    fputc('\n', f);
}

static void print_gemm(FILE *f, mx_outfmt of, const gctx *x)
{
    enum { NC = 4 + MMA_GEMM_NFIG };
    const char *cols[NC] = {"unit", "mode", "nc", "out"};
    for (int c = 4; c < NC; c++) cols[c] = mma_gemm_figure[c - 4].name;
    const mma_metrics_opts *o = x->o;
    long count = o->count, seed = (long)o->seed;
    double scale = o->scale;
    mma_fmt quant = o->quant;
    const char *dn = mma_dist_name(o->dist);
    int nm = o->nmodes, nr = x->nu * nm;
    header(f, of, x);
    if (of == MX_OUT_JSON)
        fprintf(f, "{\"command\":\"gemm\",\"k\":%d,\"dist\":\"%s\",\"scale\":%.17g,\"count\":%ld,\"seed\":%ld,\"quant\":%s%s%s,\"rows\":[",
                o->k, dn, scale, count, seed, quant ? "\"" : "", quant ? mma_format(quant)->name : "null", quant ? "\"" : "");
    if (of == MX_OUT_CSV) {
        fprintf(f, "unit,config,k,dist,scale,count,seed");
        for (int c = 1; c < NC; c++) fprintf(f, ",%s", cols[c]);
        fputc('\n', f);
    }
    char **cells = calloc((size_t)(nr + 1) * NC, sizeof *cells);
    for (int c = 0; c < NC; c++) cells[c] = mx_fmt("%s", cols[c]);
    for (int ri = 0; ri < nr; ri++) {
        const mma_row *r = &x->rows[ri];
        const char *label = x->names[ri / nm];
        int tc = o->modes[ri % nm] == MMA_GEMM_TC;
        double v[NC];
        v[2] = tc ? NAN : r->nc;
        mma_gemm_figures(r, v + 4);
        const char *out = mma_format(r->out)->name;
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", ri ? "," : "");
            mx_json_str(f, label);
            fprintf(f, ",\"config\":");
            mx_json_str(f, r->config);
            fprintf(f, ",\"mode\":\"%s\",\"out\":\"%s\"", r->mode, out);
            for (int c = 2; c < NC; c++) {
                if (c == 3) continue;
                if (v[c] != v[c]) fprintf(f, ",\"%s\":null", cols[c]);
                else if (c == 2 || mma_gemm_figure[c - 4].is_count) fprintf(f, ",\"%s\":%ld", cols[c], (long)v[c]);
                else fprintf(f, ",\"%s\":%.9g", cols[c], v[c]);
            }
            fputc('}', f);
        } else if (of == MX_OUT_CSV) {
            mx_csv_str(f, label); fputc(',', f);
            mx_csv_str(f, r->config);
            fprintf(f, ",%d,%s,%.17g,%ld,%ld,%s", o->k, dn, scale, count, seed, r->mode);
            for (int c = 2; c < NC; c++) {
                if (c == 3) { fprintf(f, ",%s", out); continue; }
                if (v[c] != v[c]) fprintf(f, ",");
                else if (c == 2 || mma_gemm_figure[c - 4].is_count) fprintf(f, ",%ld", (long)v[c]);
                else fprintf(f, ",%.9g", v[c]);
            }
            fputc('\n', f);
        } else {
            char b[32];
            char **row = cells + (size_t)(ri + 1) * NC;
            row[0] = mx_fmt("%s", label);
            row[1] = mx_fmt("%s", r->mode);
            row[2] = tc ? mx_fmt("-") : mx_fmt("%d", r->nc);
            row[3] = mx_fmt("%s", out);
            for (int c = 4; c < NC; c++) row[c] = mma_gemm_figure[c - 4].is_count ? mx_fmt("%ld", (long)v[c]) : mx_fmt("%s", mx_g(v[c], b));
        }
    }
    if (of == MX_OUT_JSON) fprintf(f, "]}\n");
    if (of == MX_OUT_TABLE) {
        mx_table_print(f, cells, nr + 1, NC);
        fprintf(f, "# agg_rel: sum|err|/sum|exact| (normwise); rel: |err|/|exact| per result; abs: |err|;\n"
                   "# bias_rel: sum(err)/sum|exact|; ulp: of the result format (fp32 after promotion) at the exact value;\n"
                   "# not_cr: fraction != RNE(exact); ne_fp32: fraction != sequential FP32 fmaf over K\n");
    }
    for (int i = 0; i < (nr + 1) * NC; i++) free(cells[i]);
    free(cells);
}

static void print_ntrun(FILE *f, mx_outfmt of, const gctx *x)
{
    const mma_metrics_opts *o = x->o;
    long count = o->count, seed = (long)o->seed;
    const char *dn = mma_dist_name(o->dist);
    header(f, of, x);
    if (of == MX_OUT_JSON)
        fprintf(f, "{\"command\":\"gemm\",\"ntrun\":true,\"k\":%d,\"nc\":%d,\"dist\":\"%s\",\"scale\":%.17g,\"count\":%ld,\"seed\":%ld,\"units\":[",
                o->k, o->nc, dn, o->scale, count, seed);
    if (of == MX_OUT_CSV) fprintf(f, "unit,k,nc,dist,count,seed,ntrun,changed,max_rel_change,mean_rel_change\n");
    int T = x->tmax + 1;
    int nr = x->nu * T;
    char **cells = calloc((size_t)(nr + 1) * 5, sizeof *cells);
    const char *cols[5] = {"unit", "ntrun", "changed", "max_rel_change", "mean_rel_change"};
    for (int c = 0; c < 5; c++) cells[c] = mx_fmt("%s", cols[c]);
    int *first = calloc((size_t)x->nu, sizeof *first);
    double *fr = calloc((size_t)T, sizeof *fr), *mx = calloc((size_t)T, sizeof *mx), *mean = calloc((size_t)T, sizeof *mean);
    for (int j = 0; j < x->nu; j++) {
        first[j] = mma_ntrun_summary(x->chg[j], count, x->tmax, fr, mx, mean);
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", j ? "," : "");
            mx_json_str(f, x->names[j]);
            fprintf(f, ",\"sweep\":[");
        }
        for (int tr = 0; tr < T; tr++) {
            char b1[32], b2[32];
            if (of == MX_OUT_JSON)
                fprintf(f, "%s{\"ntrun\":%d,\"changed\":%.9g,\"max_rel_change\":%.9g,\"mean_rel_change\":%.9g}", tr ? "," : "", tr, fr[tr], mx[tr], mean[tr]);
            else if (of == MX_OUT_CSV) {
                mx_csv_str(f, x->names[j]);
                fprintf(f, ",%d,%d,%s,%ld,%ld,%d,%.9g,%.9g,%.9g\n", o->k, o->nc, dn, count, seed, tr, fr[tr], mx[tr], mean[tr]);
            } else {
                char **row = cells + (size_t)(1 + j * T + tr) * 5;
                row[0] = mx_fmt("%s", x->names[j]);
                row[1] = mx_fmt("%d", tr);
                row[2] = mx_fmt("%.4g", fr[tr]);
                row[3] = mx_fmt("%s", mx_g(mx[tr], b1));
                row[4] = mx_fmt("%s", mx_g(mean[tr], b2));
            }
        }
        if (of == MX_OUT_JSON) fprintf(f, "],\"first_change\":%d}", first[j]);
    }
    if (of == MX_OUT_JSON) fprintf(f, "]}\n");
    if (of == MX_OUT_TABLE) {
        mx_table_print(f, cells, nr + 1, 5);
        for (int j = 0; j < x->nu; j++) {
            if (first[j] < 0) fprintf(f, "# %s: no result changed up to Ntrun=%d\n", x->names[j], x->tmax);
            else fprintf(f, "# %s: results first change at Ntrun=%d: the low %d bit%s of every block output %s zero\n",
                         x->names[j], first[j], first[j] - 1, first[j] - 1 == 1 ? "" : "s", first[j] - 1 == 1 ? "was" : "were");
        }
    }
    for (int i = 0; i < (nr + 1) * 5; i++) free(cells[i]);
    free(cells);
    free(first); free(fr); free(mx); free(mean);
}

/* --plot: agg_rel of each (unit, mode) at each depth */
#define MAX_KS 32
typedef struct {
    const char *const *names;
    const mma_metrics_opts *o;
    int nu, nm, nk;
    long ks[MAX_KS];
    const char *modes[MMA_GEMM_NMODES];
    double *agg;          /* [k][unit][mode] */
} gplot;

static void gplot_data(FILE *f, void *vctx)
{
    const gplot *p = vctx;
    for (int j = 0; j < p->nu; j++)
        for (int m = 0; m < p->nm; m++) {
            fprintf(f, "# %s %s\n", p->names[j], p->modes[m]);
            for (int q = 0; q < p->nk; q++) {
                double v = p->agg[((size_t)q * (size_t)p->nu + (size_t)j) * (size_t)p->nm + (size_t)m];
                if (v > 0) fprintf(f, "%ld %.9g\n", p->ks[q], v);   /* (log axes: exact results left out) */
            }
            fprintf(f, "\n\n");
        }
}

static void gplot_script(FILE *g, const char *data, void *vctx)
{
    const gplot *p = vctx;
    fprintf(g, "set title \"mmaref gemm: dist=%s count=%ld seed=%ld nc=%d\"\n", mma_dist_name(p->o->dist), p->o->count,
            (long)p->o->seed, p->o->nc);
    fprintf(g, "set logscale xy 2\nset format y '2^{%%L}'\nset grid\nset key outside below font ',9'\n"
               "set xlabel 'GEMM depth K'\nset ylabel 'normwise relative error (agg_rel)'\nplot ");
    for (int j = 0; j < p->nu; j++)
        for (int m = 0; m < p->nm; m++) {
            char lab[160];
            mx_plot_label(lab, sizeof lab, p->names[j]);
            fprintf(g, "%s\"%s\" index %d using 1:2 with linespoints lw 1.5 %s title \"%s, %s\"", j || m ? ", " : "",
                    data, j * p->nm + m, m ? "dt 2" : "", lab, p->modes[m]);
        }
    fprintf(g, "\n");
}

int cmd_gemm(int argc, char **argv)
{
    const char *names[64];
    int nu = 0, ntrun = 0, have_nc = 0;
    long nc = 128;
    mx_outfmt of = MX_OUT_TABLE;
    mma_gemm_mode modes[MMA_GEMM_NMODES];
    int nm = 0;
    mma_metrics_opts opt;
    mma_metrics_defaults(&opt);
    opt.count = 1000;
    const char *plot = NULL;
    long ks[MAX_KS];
    int nk = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--k") && v && strchr(v, ',')) {       /* a list of depths */
            char buf[512], one[64];
            snprintf(buf, sizeof buf, "%s", v);
            nk = 0;
            for (char *sv = buf, *tok; (tok = strsep(&sv, ",")) != NULL;) {
                if (nk == MAX_KS) { fprintf(stderr, "mmaref gemm: --k: at most %d depths\n", MAX_KS); return 2; }
                snprintf(one, sizeof one, "%s", tok);
                if (mx_parse_long("gemm", a, one, 1, 1L << 24, &ks[nk])) return 2;
                nk++;
            }
            opt.k = (int)ks[0];
            i++;
            continue;
        }
        if (!strcmp(a, "--plot") && v) { plot = v; i++; continue; }
        int c = mx_common_option("gemm", a, v, 1L << 32, &opt);
        if (c == 1 && !strcmp(a, "--k")) nk = 0;
        if (c < 0) return 2;
        if (c) { i++; continue; }
        if (!strcmp(a, "--mode") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            /* (strsep, not strtok: "tc," names an empty mode) */
            for (char *sv = buf, *tok; (tok = strsep(&sv, ",")) != NULL; ) {
                mma_gemm_mode m;
                if (mma_gemm_mode_parse(tok, &m)) { fprintf(stderr, "mmaref gemm: --mode: unknown mode '%s' (tc, promote, twostage)\n", tok); return 2; }
                int dup = 0;
                for (int q = 0; q < nm; q++) dup |= modes[q] == m;
                if (!dup) modes[nm++] = m;
            }
            i++;
        }
        else if (!strcmp(a, "--nc") && v) { if (mx_parse_long("gemm", a, v, 1, 1L << 24, &nc)) return 2; have_nc = 1; i++; }
        else if (!strcmp(a, "--ntrun")) ntrun = 1;
        else if (!strcmp(a, "--csv") || !strcmp(a, "--json")) {
            mx_outfmt want = a[2] == 'c' ? MX_OUT_CSV : MX_OUT_JSON;
            if (of != MX_OUT_TABLE && of != want) { fprintf(stderr, "mmaref gemm: --csv and --json: give one\n"); return 2; }
            of = want;
        }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) {
            cli_bad_option("gemm", a, "--dist --count --seed --k --scale --quant --threads --mode --nc --plot");
            return 2;
        }
        else if (nu < 64) names[nu++] = a;
        else { fprintf(stderr, "mmaref gemm: at most 64 units\n"); return 2; }
    }
    if (!nk && opt.k) ks[nk++] = opt.k;
    long k = opt.k;
    if (!nu || !k) {
        if (nu && !k) fprintf(stderr, "mmaref gemm: --k K (the GEMM depth) is required\n");
        usage(stderr);
        return 2;
    }
    if (!nm) modes[nm++] = MMA_GEMM_TC;
    mma_unit *u = calloc((size_t)nu, sizeof *u);
    mma_row *rows = NULL;
    float **chg = NULL;
    int rc = 2, ran = 0, uses_nc = ntrun;
    if (!u) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    for (int m = 0; m < nm; m++) uses_nc |= modes[m] == MMA_GEMM_PROMOTE;
    if (plot && ntrun) { fprintf(stderr, "mmaref gemm: --plot draws the error against the depth, not --ntrun\n"); goto out; }
    if (plot && mx_plot_check("gemm", plot)) goto out;
    for (int j = 0; j < nu; j++) {
        if (cli_unit(names[j], &u[j])) goto out;
        for (int q = 0; q < nk; q++)
            if (ks[q] % u[j].k) { fprintf(stderr, "mmaref gemm: --k %ld is not a multiple of %s's K=%d\n", ks[q], names[j], u[j].k); goto out; }
        if (ntrun && u[j].d == MMA_FMT_FP64) { fprintf(stderr, "mmaref gemm: --ntrun needs an fp32, fp16 or bf16 output (%s gives fp64)\n", names[j]); goto out; }
    }
    if (ntrun && !have_nc) {
        /* default block: the largest instruction K (the accumulator post's BLOCK_K is 32) */
        nc = 0;
        for (int j = 0; j < nu; j++) if (u[j].k > nc) nc = u[j].k;
    }
    for (int j = 0; j < nu; j++)
        if (uses_nc && nc % u[j].k) {
            fprintf(stderr, "mmaref gemm: --nc %ld is not a multiple of %s's K=%d\n", nc, names[j], u[j].k);
            goto out;
        }
    opt.nmodes = ntrun ? 1 : nm;
    memcpy(opt.modes, modes, sizeof modes);
    opt.nc = (int)nc;
    opt.ntrun = ntrun;
    progress_line pl;
    mx_progress(&opt, &pl, "gemm", (double)nu * opt.nmodes);
    gctx x = {&opt, nu, u, names, NULL, NULL, 0};
    if (!(rows = calloc((size_t)nu * (size_t)nm, sizeof *rows)) || !(chg = calloc((size_t)nu, sizeof *chg))) {
        fprintf(stderr, "mmaref: out of memory\n");
        goto out;
    }
    char err[1024];
    gplot gp = {names, &opt, nu, nm, nk, {0}, {0}, calloc((size_t)nk * (size_t)nu * (size_t)nm, sizeof(double))};
    if (!gp.agg) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    memcpy(gp.ks, ks, sizeof ks);
    for (int q = 0; q < nk; q++) {
        opt.k = (int)ks[q];
        if (mma_gemm_run(&opt, u, nu, rows, chg, &x.tmax, err, sizeof err)) {
            fprintf(stderr, "mmaref gemm: %s\n", err);
            free(gp.agg);
            goto out;
        }
        ran = 1;
        x.rows = rows;
        x.chg = chg;
        if (ntrun) print_ntrun(stdout, of, &x);
        else print_gemm(stdout, of, &x);
        if (!ntrun)
            for (int r = 0; r < nu * nm; r++) {
                double v[MMA_GEMM_NFIG];
                mma_gemm_figures(&rows[r], v);
                gp.agg[(size_t)q * (size_t)nu * (size_t)nm + (size_t)r] = v[2];      /* agg_rel */
                gp.modes[r % nm] = rows[r].mode;
            }
        if (q + 1 < nk) {
            if (!ntrun) for (int r = 0; r < nu * nm; r++) mma_row_free(&rows[r]);
            if (chg) for (int j = 0; j < nu; j++) { free(chg[j]); chg[j] = NULL; }
            memset(rows, 0, sizeof *rows * (size_t)nu * (size_t)nm);
            ran = 0;
        }
    }
    rc = 0;
    if (plot && mx_plot("gemm", plot, gplot_data, gplot_script, &gp)) rc = 2;
    free(gp.agg);
out:
    if (ran && !ntrun) for (int r = 0; r < nu * nm; r++) mma_row_free(&rows[r]);
    if (chg) for (int j = 0; j < nu; j++) free(chg[j]);
    free(chg); free(rows); free(u);
    if (fflush(stdout)) rc = 2;
    return rc;
}
