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
 * the first Ntrun that changes any result. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 16

enum { M_TC, M_PROMOTE, M_TWOSTAGE, M_N };
static const char *mode_names[M_N] = {"tc", "promote", "twostage"};

typedef struct {
    mx_draw *draw;
    mx_enc **enc;
    mx_acc acc;
    uint64_t *blk;
} tls;

typedef struct {
    int nu, nm, modes[M_N], k, nc, ntrun, tmax;
    mma_unit *u;
    const char **names;
    int *group;
    mx_row *rows;            /* nu * nm */
    float **chg;             /* ntrun: per unit, count * (tmax + 1) */
    mx_gen gen;
    tls *t;
} gctx;

static int ncof(const gctx *x, const mma_unit *u, int mode)
{
    return mode == M_TWOSTAGE ? u->k : x->nc;
}

/* the FP32 (fp64 for fp64-output units) register, promoted every nc */
static uint64_t promote(const mma_unit *u, const mx_enc *e, int k, int nc, mma_fmt *rf)
{
    int ns = mma_unit_nscales(u);
    if (u->d == MMA_FMT_FP64) {
        double r = 0;
        for (int w = 0; w < k; w += nc) {
            int len = k - w < nc ? k - w : nc;
            uint64_t d = mx_chain(u, e->c, e->a + w, e->b + w, ns ? e->sa + w / u->block : NULL,
                                  ns ? e->sb + w / u->block : NULL, len);
            r += mx_value(u->d, d);
        }
        uint64_t b;
        memcpy(&b, &r, 8);
        *rf = MMA_FMT_FP64;
        return b;
    }
    float r = 0;
    for (int w = 0; w < k; w += nc) {
        int len = k - w < nc ? k - w : nc;
        uint64_t d = mx_chain(u, e->c, e->a + w, e->b + w, ns ? e->sa + w / u->block : NULL,
                              ns ? e->sb + w / u->block : NULL, len);
        r += (float)mx_value(u->d, d);
    }
    uint32_t b;
    memcpy(&b, &r, 4);
    *rf = MMA_FMT_FP32;
    return b;
}

static void chunk(void *vctx, int tid, long lo, long hi)
{
    gctx *x = vctx;
    tls *t = &x->t[tid];
    for (long i = lo; i < hi; i++) {
        mx_draw_vector(&x->gen, (uint64_t)i, t->draw);
        for (int g = 0; g < x->nu; g++) {
            if (x->group[g] != g) continue;
            const mma_unit *ug = &x->u[g];
            mx_enc *e = t->enc[g];
            mx_encode_draw(&x->gen, ug, t->draw, e);
            int ns = mma_unit_nscales(ug);
            mx_val v = {MMA_ZERO, 0, 0, 0, 0};
            double ref = 0;
            if (!x->ntrun) {
                mx_acc_reset(&t->acc);
                mx_exact_chain(&t->acc, ug, e->c, e->a, e->b, e->sa, e->sb, x->k);
                v = mx_acc_value(&t->acc);
                ref = mx_fp32_ref(ug, 0.0, e->a, e->b, ns ? e->sa : NULL, ns ? e->sb : NULL, x->k);
            }
            for (int j = g; j < x->nu; j++) {
                if (x->group[j] != g) continue;
                const mma_unit *u = &x->u[j];
                if (x->ntrun) {
                    /* block outputs once, then every truncation */
                    int nb = 0;
                    for (int w = 0; w < x->k; w += x->nc, nb++) {
                        int len = x->k - w < x->nc ? x->k - w : x->nc;
                        t->blk[nb] = mx_chain(u, e->c, e->a + w, e->b + w, ns ? e->sa + w / u->block : NULL,
                                              ns ? e->sb + w / u->block : NULL, len);
                    }
                    float *out = x->chg[j] + (size_t)i * (size_t)(x->tmax + 1);
                    float r0 = 0;
                    for (int tr = 0; tr <= x->tmax; tr++) {
                        float r = 0;
                        uint64_t mask = ~(((uint64_t)1 << tr) - 1);
                        for (int b = 0; b < nb; b++) r += (float)mx_value(u->d, t->blk[b] & mask);
                        if (tr == 0) r0 = r;
                        uint32_t b0, b1;
                        memcpy(&b0, &r0, 4);
                        memcpy(&b1, &r, 4);
                        out[tr] = b0 == b1 ? 0.0f : r0 != 0 ? fabsf((r - r0) / r0) : INFINITY;
                    }
                    continue;
                }
                for (int m = 0; m < x->nm; m++) {
                    int mode = x->modes[m];
                    uint64_t d;
                    mma_fmt rf = u->d;
                    if (mode == M_TC) d = mx_chain(u, e->c, e->a, e->b, e->sa, e->sb, x->k);
                    else d = promote(u, e, x->k, ncof(x, u, mode), &rf);
                    mx_res r;
                    mx_result(rf, d, &t->acc, v, ref, 1, &r);
                    mx_row_put(&x->rows[j * x->nm + m], i, &r);
                }
            }
        }
    }
}

const char cli_gemm_help[] =
    "usage: mmaref gemm <instr|config>... --k K [options]\n"
    "       mmaref gemm <instr|config>... --k K --ntrun [--nc N] [options]\n"
    "  a dot product of depth K built from K/k instruction calls, against the exact result\n"
    "  --k K            the GEMM depth, a multiple of every unit's K (required)\n"
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
    "  --csv | --json   machine-readable output instead of the aligned table\n";

static void usage(FILE *f) { fputs(cli_gemm_help, f); }

static void header(FILE *f, mx_outfmt of, const gctx *x, long count, long seed, double scale, mma_fmt quant)
{
    if (of != MX_OUT_TABLE) return;
    fprintf(f, "# mmaref gemm%s: K=%d dist=%s scale=%g count=%ld seed=%ld c=0%s%s", x->ntrun ? " --ntrun" : "",
            x->k, mx_dist_name(x->gen.dist), scale, count, seed, quant ? " quant=" : "", quant ? mma_format(quant)->name : "");
    if (x->ntrun || x->modes[0] != M_TC || x->nm > 1) fprintf(f, " nc=%d", x->nc);
    fputc('\n', f);
}

static void print_gemm(FILE *f, mx_outfmt of, const gctx *x, long count, long seed, double scale, mma_fmt quant)
{
    static const char *cols[] = {"unit", "mode", "nc", "out", "n", "special", "agg_rel", "mean_rel",
                                 "p50_rel", "p99_rel", "max_rel", "p50_abs", "p90_abs", "p99_abs",
                                 "p99.9_abs", "max_abs", "bias_rel", "mean_ulp", "max_ulp", "not_cr", "ne_fp32"};
    enum { NC = sizeof cols / sizeof cols[0] };
    int nr = x->nu * x->nm;
    header(f, of, x, count, seed, scale, quant);
    if (of == MX_OUT_JSON)
        fprintf(f, "{\"command\":\"gemm\",\"k\":%d,\"dist\":\"%s\",\"scale\":%.17g,\"count\":%ld,\"seed\":%ld,\"quant\":%s%s%s,\"rows\":[",
                x->k, mx_dist_name(x->gen.dist), scale, count, seed, quant ? "\"" : "", quant ? mma_format(quant)->name : "null", quant ? "\"" : "");
    if (of == MX_OUT_CSV) {
        fprintf(f, "unit,config,k,dist,scale,count,seed");
        for (int c = 1; c < NC; c++) fprintf(f, ",%s", cols[c]);
        fputc('\n', f);
    }
    char **cells = calloc((size_t)(nr + 1) * NC, sizeof *cells);
    for (int c = 0; c < NC; c++) cells[c] = mx_fmt("%s", cols[c]);
    for (int ri = 0; ri < nr; ri++) {
        const mx_row *r = &x->rows[ri];
        const mma_unit *u = &x->u[ri / x->nm];
        int mode = x->modes[ri % x->nm];
        const mx_part *t = &r->tot;
        double n = (double)t->n, v[NC];
        for (int c = 0; c < NC; c++) v[c] = NAN;
        v[2] = mode == M_TC ? NAN : ncof(x, u, mode);
        v[4] = n; v[5] = (double)t->special;
        if (t->n) {
            v[6] = t->sum_mag > 0 ? t->sum_abs / t->sum_mag : NAN;
            v[7] = t->n > t->relinf ? t->sum_rel / (double)(t->n - t->relinf) : NAN;
            v[8] = r->prel[0]; v[9] = r->prel[2];
            v[10] = t->n > t->relinf ? t->max_rel : NAN;
            for (int q = 0; q < 4; q++) v[11 + q] = r->pabs[q];
            v[15] = t->max_abs;
            v[16] = t->sum_mag > 0 ? t->sum_sabs / t->sum_mag : NAN;
            v[17] = t->sum_ulp / n; v[18] = t->max_ulp;
            v[19] = (double)t->notcr / n; v[20] = (double)t->nefp32 / n;
        }
        const char *out = mode == M_TC ? mma_format(u->d)->name : u->d == MMA_FMT_FP64 ? "fp64" : "fp32";
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", ri ? "," : "");
            mx_json_str(f, r->label);
            fprintf(f, ",\"config\":");
            mx_json_str(f, r->config);
            fprintf(f, ",\"mode\":\"%s\",\"out\":\"%s\"", mode_names[mode], out);
            for (int c = 2; c < NC; c++) {
                if (c == 3) continue;
                if (v[c] != v[c]) fprintf(f, ",\"%s\":null", cols[c]);
                else if (c == 2 || c == 4 || c == 5) fprintf(f, ",\"%s\":%ld", cols[c], (long)v[c]);
                else fprintf(f, ",\"%s\":%.9g", cols[c], v[c]);
            }
            fputc('}', f);
        } else if (of == MX_OUT_CSV) {
            mx_csv_str(f, r->label); fputc(',', f);
            mx_csv_str(f, r->config);
            fprintf(f, ",%d,%s,%.17g,%ld,%ld,%s", x->k, mx_dist_name(x->gen.dist), scale, count, seed, mode_names[mode]);
            for (int c = 2; c < NC; c++) {
                if (c == 3) { fprintf(f, ",%s", out); continue; }
                if (v[c] != v[c]) fprintf(f, ",");
                else if (c == 2 || c == 4 || c == 5) fprintf(f, ",%ld", (long)v[c]);
                else fprintf(f, ",%.9g", v[c]);
            }
            fputc('\n', f);
        } else {
            char b[32];
            char **row = cells + (size_t)(ri + 1) * NC;
            row[0] = mx_fmt("%s", r->label);
            row[1] = mx_fmt("%s", mode_names[mode]);
            row[2] = mode == M_TC ? mx_fmt("-") : mx_fmt("%d", ncof(x, u, mode));
            row[3] = mx_fmt("%s", out);
            for (int c = 4; c < NC; c++) row[c] = c <= 5 ? mx_fmt("%ld", (long)v[c]) : mx_fmt("%s", mx_g(v[c], b));
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

static void print_ntrun(FILE *f, mx_outfmt of, const gctx *x, long count, long seed, double scale, mma_fmt quant)
{
    header(f, of, x, count, seed, scale, quant);
    if (of == MX_OUT_JSON)
        fprintf(f, "{\"command\":\"gemm\",\"ntrun\":true,\"k\":%d,\"nc\":%d,\"dist\":\"%s\",\"scale\":%.17g,\"count\":%ld,\"seed\":%ld,\"units\":[",
                x->k, x->nc, mx_dist_name(x->gen.dist), scale, count, seed);
    if (of == MX_OUT_CSV) fprintf(f, "unit,k,nc,dist,count,seed,ntrun,changed,max_rel_change,mean_rel_change\n");
    int T = x->tmax + 1;
    int nr = x->nu * T;
    char **cells = calloc((size_t)(nr + 1) * 5, sizeof *cells);
    const char *cols[5] = {"unit", "ntrun", "changed", "max_rel_change", "mean_rel_change"};
    for (int c = 0; c < 5; c++) cells[c] = mx_fmt("%s", cols[c]);
    int *first = calloc((size_t)x->nu, sizeof *first);
    for (int j = 0; j < x->nu; j++) {
        first[j] = -1;
        if (of == MX_OUT_JSON) {
            fprintf(f, "%s{\"unit\":", j ? "," : "");
            mx_json_str(f, x->names[j]);
            fprintf(f, ",\"sweep\":[");
        }
        for (int tr = 0; tr < T; tr++) {
            long changed = 0, n = 0;
            double mx = 0, sum = 0;
            for (long i = 0; i < count; i++) {
                float c = x->chg[j][(size_t)i * (size_t)T + (size_t)tr];
                n++;
                if (c != 0) changed++;
                if (c > mx) mx = c;
                if (isfinite(c)) sum += c;
            }
            if (changed && first[j] < 0) first[j] = tr;
            double fr = n ? (double)changed / (double)n : 0, mean = n ? sum / (double)n : 0;
            char b1[32], b2[32];
            if (of == MX_OUT_JSON)
                fprintf(f, "%s{\"ntrun\":%d,\"changed\":%.9g,\"max_rel_change\":%.9g,\"mean_rel_change\":%.9g}", tr ? "," : "", tr, fr, mx, mean);
            else if (of == MX_OUT_CSV) {
                mx_csv_str(f, x->names[j]);
                fprintf(f, ",%d,%d,%s,%ld,%ld,%d,%.9g,%.9g,%.9g\n", x->k, x->nc, mx_dist_name(x->gen.dist), count, seed, tr, fr, mx, mean);
            } else {
                char **row = cells + (size_t)(1 + j * T + tr) * 5;
                row[0] = mx_fmt("%s", x->names[j]);
                row[1] = mx_fmt("%d", tr);
                row[2] = mx_fmt("%.4g", fr);
                row[3] = mx_fmt("%s", mx_g(mx, b1));
                row[4] = mx_fmt("%s", mx_g(mean, b2));
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
    free(first);
}

int cmd_gemm(int argc, char **argv)
{
    const char *names[64];
    int nu = 0, ntrun = 0, have_nc = 0;
    long count = 1000, k = 0, threads = mx_default_threads(), seed = 1, nc = 128;
    double scale = 1.0;
    mx_dist dist = MX_NORMAL;
    mma_fmt quant = MMA_FMT_NONE;
    mx_outfmt of = MX_OUT_TABLE;
    int modes[M_N], nm = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dist") && v) {
            if (mx_dist_parse(v, &dist)) {
                fprintf(stderr, "mmaref gemm: unknown distribution '%s' (one of: %s)\n", v, mx_dist_list());
                return 2;
            }
            i++;
        }
        else if (!strcmp(a, "--mode") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *sv = NULL, *tok = strtok_r(buf, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
                int m = -1;
                for (int q = 0; q < M_N; q++) if (!strcmp(tok, mode_names[q])) m = q;
                if (m < 0) { fprintf(stderr, "mmaref gemm: unknown mode '%s' (tc, promote, twostage)\n", tok); return 2; }
                int dup = 0;
                for (int q = 0; q < nm; q++) dup |= modes[q] == m;
                if (!dup) modes[nm++] = m;
            }
            i++;
        }
        else if (!strcmp(a, "--count") && v) { if (mx_parse_long("gemm", a, v, 1, 1L << 32, &count)) return 2; i++; }
        else if (!strcmp(a, "--seed") && v) { if (mx_parse_long("gemm", a, v, 0, 0x7fffffffffffffffL, &seed)) return 2; i++; }
        else if (!strcmp(a, "--k") && v) { if (mx_parse_long("gemm", a, v, 1, 1L << 24, &k)) return 2; i++; }
        else if (!strcmp(a, "--nc") && v) { if (mx_parse_long("gemm", a, v, 1, 1L << 24, &nc)) return 2; have_nc = 1; i++; }
        else if (!strcmp(a, "--threads") && v) { if (mx_parse_long("gemm", a, v, 1, 1024, &threads)) return 2; i++; }
        else if (!strcmp(a, "--scale") && v) { if (mx_parse_double("gemm", a, v, &scale)) return 2; i++; }
        else if (!strcmp(a, "--quant") && v) {
            quant = mma_format_by_name(v);
            if (!quant || mma_format(quant)->width > 32) { fprintf(stderr, "mmaref gemm: --quant needs an input format (e4m3, fp16, ...), got '%s'\n", v); return 2; }
            i++;
        }
        else if (!strcmp(a, "--ntrun")) ntrun = 1;
        else if (!strcmp(a, "--csv")) of = MX_OUT_CSV;
        else if (!strcmp(a, "--json")) of = MX_OUT_JSON;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mmaref gemm: unknown option '%s'%s\n", a, v || a[1] != '-' ? "" : " (or it needs a value)");
            usage(stderr);
            return 2;
        }
        else if (nu < 64) names[nu++] = a;
        else { fprintf(stderr, "mmaref gemm: at most 64 units\n"); return 2; }
    }
    if (!nu || !k) {
        if (nu && !k) fprintf(stderr, "mmaref gemm: --k K (the GEMM depth) is required\n");
        usage(stderr);
        return 2;
    }
    if (!nm) modes[nm++] = M_TC;
    gctx x;
    memset(&x, 0, sizeof x);
    x.nu = nu;
    x.nm = ntrun ? 1 : nm;
    memcpy(x.modes, modes, sizeof modes);
    x.k = (int)k;
    x.ntrun = ntrun;
    x.names = names;
    x.u = calloc((size_t)nu, sizeof *x.u);
    x.group = calloc((size_t)nu, sizeof *x.group);
    int rc = 2;
    if (!x.u || !x.group) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    int uses_nc = ntrun;
    for (int m = 0; m < nm; m++) uses_nc |= modes[m] == M_PROMOTE;
    for (int j = 0; j < nu; j++) {
        if (cli_unit(names[j], &x.u[j])) goto out;
        const mma_unit *u = &x.u[j];
        if (k % u->k) { fprintf(stderr, "mmaref gemm: --k %ld is not a multiple of %s's K=%d\n", k, names[j], u->k); goto out; }
        if (ntrun && u->d == MMA_FMT_FP64) { fprintf(stderr, "mmaref gemm: --ntrun needs an fp32, fp16 or bf16 output (%s gives fp64)\n", names[j]); goto out; }
        x.group[j] = j;
        for (int i = 0; i < j; i++) if (x.group[i] == i && mx_same_inputs(&x.u[i], u)) { x.group[j] = i; break; }
    }
    if (ntrun && !have_nc) {
        /* default block: the largest instruction K (the accumulator post's BLOCK_K is 32) */
        nc = 0;
        for (int j = 0; j < nu; j++) if (x.u[j].k > nc) nc = x.u[j].k;
    }
    for (int j = 0; j < nu; j++)
        if (uses_nc && nc % x.u[j].k) {
            fprintf(stderr, "mmaref gemm: --nc %ld is not a multiple of %s's K=%d\n", nc, names[j], x.u[j].k);
            goto out;
        }
    x.nc = (int)nc;
    if (ntrun) {
        x.tmax = 0;
        for (int j = 0; j < nu; j++) if (mma_format(x.u[j].d)->mbits > x.tmax) x.tmax = mma_format(x.u[j].d)->mbits;
        if (!(x.chg = calloc((size_t)nu, sizeof *x.chg))) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        for (int j = 0; j < nu; j++) {
            x.chg[j] = calloc((size_t)count * (size_t)(x.tmax + 1), sizeof(float));
            if (!x.chg[j]) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        }
    } else {
        x.rows = calloc((size_t)nu * (size_t)x.nm, sizeof *x.rows);
        if (!x.rows) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        for (int j = 0; j < nu; j++)
            for (int m = 0; m < x.nm; m++) {
                mx_row *r = &x.rows[j * x.nm + m];
                snprintf(r->label, sizeof r->label, "%s", names[j]);
                mma_unit_config(&x.u[j], r->config, sizeof r->config);
                snprintf(r->mode, sizeof r->mode, "%s", mode_names[modes[m]]);
                if (mx_row_init(r, count, CHUNK, 1)) goto out;
            }
    }
    if (mx_gen_init(&x.gen, dist, scale, (int)k, (uint64_t)seed, 1, quant)) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    if (!(x.t = calloc((size_t)threads, sizeof *x.t))) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
    for (int t = 0; t < threads; t++) {
        x.t[t].draw = mx_draw_new((int)k);
        x.t[t].enc = calloc((size_t)nu, sizeof *x.t[t].enc);
        x.t[t].blk = calloc((size_t)k + 1, sizeof *x.t[t].blk);
        if (!x.t[t].draw || !x.t[t].enc || !x.t[t].blk) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        for (int j = 0; j < nu; j++) if (x.group[j] == j && !(x.t[t].enc[j] = mx_enc_new((int)k))) { fprintf(stderr, "mmaref: out of memory\n"); goto out; }
        mx_acc_clear(&x.t[t].acc);
    }
    mx_parallel(count, CHUNK, (int)threads, chunk, &x, "gemm", (double)nu * x.nm);
    if (ntrun) print_ntrun(stdout, of, &x, count, seed, scale, quant);
    else {
        for (int r = 0; r < nu * x.nm; r++) mx_row_finish(&x.rows[r]);
        print_gemm(stdout, of, &x, count, seed, scale, quant);
    }
    rc = 0;
out:
    if (x.t)
        for (int t = 0; t < threads; t++) {
            mx_draw_free(x.t[t].draw);
            if (x.t[t].enc) for (int j = 0; j < nu; j++) mx_enc_free(x.t[t].enc[j]);
            free(x.t[t].enc);
            free(x.t[t].blk);
        }
    if (x.rows) for (int r = 0; r < nu * x.nm; r++) mx_row_free(&x.rows[r]);
    if (x.chg) for (int j = 0; j < nu; j++) free(x.chg[j]);
    free(x.chg); free(x.rows); free(x.t); free(x.u); free(x.group);
    mx_gen_free(&x.gen);
    if (fflush(stdout)) rc = 2;
    return rc;
}
