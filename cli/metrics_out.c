/* Output of mmaref metrics and mmaref gemm: the progress line, aligned
 * tables, CSV and JSON strings, histograms, option values. */
#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void eta(char *buf, size_t n, double s)
{
    if (s < 0 || s > 1e7) { snprintf(buf, n, "?"); return; }
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void si(char *buf, size_t n, double x)
{
    if (x >= 1e9) snprintf(buf, n, "%.2fG", x / 1e9);
    else if (x >= 1e6) snprintf(buf, n, "%.2fM", x / 1e6);
    else if (x >= 1e3) snprintf(buf, n, "%.1fk", x / 1e3);
    else snprintf(buf, n, "%.0f", x);
}

static void show_progress(void *pctx, long done, long count, double now)
{
    const progress_line *p = pctx;
    if (done >= count) { fprintf(stderr, "\r%*s\r", 78, ""); return; }
    double rate = now > 0 ? (double)done / now : 0;
    char r[32], e[32];
    si(r, sizeof r, rate * p->evals_per_item);
    eta(e, sizeof e, rate > 0 ? (double)(count - done) / rate : -1);
    fprintf(stderr, "\r%s: %5.1f%%  %ld/%ld  %s eval/s  ETA %s   ", p->what,
            count ? 100.0 * (double)done / (double)count : 100.0, done, count, r, e);
}

void mx_progress(mma_metrics_opts *o, progress_line *p, const char *what, double evals_per_item)
{
    p->what = what;
    p->evals_per_item = evals_per_item;
    o->progress = isatty(2) && !cli_quiet ? show_progress : NULL;
    o->pctx = p;
}

/* Two blocks per row (gnuplot indexes 2r and 2r+1):
 *  - signed error, linear bins over +-(the 99th percentile of |error|), so
 *    that the few results with a near-zero exact value (huge ulp errors) do
 *    not flatten the rest; the results outside are counted in the header;
 *  - log2 |error| in quarter-octave bins from 2^-12 to 2^40 ulp (exact
 *    results counted in the header), for comparing units of very different
 *    accuracy on one axis. */
#define LOG_LO (-12)
#define LOG_HI 40
#define LOG_BINS ((LOG_HI - LOG_LO) * 4)
void mx_write_hist(FILE *f, const mma_row *rows, const char *const *labels, int nrows, int bins)
{
    if (bins < 1) bins = 1;
    long *h = calloc((size_t)bins, sizeof *h), lg[LOG_BINS];
    if (!h) return;
    for (int ri = 0; ri < nrows; ri++) {
        const mma_row *r = &rows[ri];
        double m = r->pulp[2], mx = 0;
        long n = 0, out = 0, zero = 0;
        if (!(m > 0)) m = 0.5;
        memset(h, 0, (size_t)bins * sizeof *h);
        memset(lg, 0, sizeof lg);
        double w = 2 * m / bins;
        for (long i = 0; i < r->count; i++) {
            float x = r->e_ulp[i];
            if (x != x) continue;
            n++;
            double a = fabsf(x);
            if (a > mx) mx = a;
            if (a == 0) zero++;
            else {
                int e;
                double fr = frexp(a, &e);            /* a = fr * 2^e, fr in [0.5, 1) */
                long lb = (long)((e - 1 - LOG_LO) * 4) + (fr >= 0.8408964 ? 3 : fr >= 0.7071068 ? 2 : fr >= 0.5946036 ? 1 : 0);
                if (lb < 0) lb = 0;
                if (lb >= LOG_BINS) lb = LOG_BINS - 1;
                lg[lb]++;
            }
            if (a > m) { out++; continue; }
            long b = (long)floor((x + m) / w);
            if (b < 0) b = 0;
            if (b >= bins) b = bins - 1;
            h[b]++;
        }
        const char *sp = r->mode[0] ? " " : "";
        fprintf(f, "# unit %d: %s%s%s: signed error\n# %ld results; range +-%.6g ulp (99th percentile of |error|); %ld beyond it (max %.6g)\n"
                   "# bin_centre_ulp count fraction_of_all\n", ri + 1, labels[ri], sp, r->mode, n, m, out, mx);
        for (int b = 0; b < bins; b++)
            fprintf(f, "%.6g %ld %.6g\n", -m + (b + 0.5) * w, h[b], n ? (double)h[b] / (double)n : 0.0);
        fprintf(f, "\n\n# unit %d: %s%s%s: log2 |error|\n# %ld results, %ld exact (error 0)\n# log2_ulp_bin_centre count fraction_of_all\n",
                ri + 1, labels[ri], sp, r->mode, n, zero);
        for (int b = 0; b < LOG_BINS; b++)
            fprintf(f, "%.4g %ld %.6g\n", LOG_LO + (b + 0.5) / 4.0, lg[b], n ? (double)lg[b] / (double)n : 0.0);
        fprintf(f, "\n\n");
    }
    free(h);
}

/* ---- output helpers ---------------------------------------------------- */
char *mx_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    if (!s) { fprintf(stderr, "mmaref: out of memory\n"); exit(2); }
    return s;
}

const char *mx_g(double x, char *buf)
{
    if (x != x) return "-";
    snprintf(buf, 32, "%.4g", x);
    return buf;
}

void mx_table_print(FILE *f, char **cells, int nrows, int ncol)
{
    int *w = calloc((size_t)ncol, sizeof *w);
    if (!w) return;
    for (int r = 0; r < nrows; r++)
        for (int c = 0; c < ncol; c++) {
            int l = (int)strlen(cells[r * ncol + c]);
            if (l > w[c]) w[c] = l;
        }
    for (int r = 0; r < nrows; r++) {
        for (int c = 0; c < ncol; c++) {
            const char *s = cells[r * ncol + c];
            if (c == 0) fprintf(f, "%-*s", w[c], s);      /* names left */
            else fprintf(f, "  %*s", w[c], s);            /* numbers right */
        }
        fputc('\n', f);
    }
    free(w);
}

void mx_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void mx_csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}

int mx_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    long x = strtol(v, &e, 0);
    if (!*v || *e || errno || ((*v < '0' || *v > '9') && *v != '-') || x < lo || x > hi) {
        fprintf(stderr, "mmaref %s: %s needs an integer in %ld..%ld (got '%s')\n", cmd, opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

int mx_common_option(const char *cmd, const char *a, const char *v, long count_max, mma_metrics_opts *o)
{
    long x;
    if (!v) return 0;
    if (!strcmp(a, "--dist")) {
        if (mma_dist_parse(v, &o->dist)) {
            fprintf(stderr, "mmaref %s: --dist: unknown distribution '%s' (one of: %s)\n", cmd, v, mma_dist_list());
            return -1;
        }
    }
    else if (!strcmp(a, "--count")) { if (mx_parse_long(cmd, a, v, 1, count_max, &o->count)) return -1; }
    else if (!strcmp(a, "--seed")) { if (mx_parse_long(cmd, a, v, 0, 0x7fffffffffffffffL, &x)) return -1; o->seed = (uint64_t)x; }
    else if (!strcmp(a, "--k")) { if (mx_parse_long(cmd, a, v, 1, 1L << 24, &x)) return -1; o->k = (int)x; }
    else if (!strcmp(a, "--threads")) { if (mx_parse_long(cmd, a, v, 1, 1024, &x)) return -1; o->threads = (int)x; }
    else if (!strcmp(a, "--scale")) { if (mx_parse_double(cmd, a, v, &o->scale)) return -1; }
    else if (!strcmp(a, "--quant")) {
        o->quant = mma_format_by_name(v);
        if (!o->quant || mma_format(o->quant)->width > 32) {
            fprintf(stderr, "mmaref %s: --quant: unknown format '%s' (an input format: e4m3, fp16, ...)\n", cmd, v);
            return -1;
        }
    }
    else return 0;
    return 1;
}

int mx_parse_double(const char *cmd, const char *opt, const char *v, double *out)
{
    char *e;
    double x = strtod(v, &e);
    if (!*v || *e || !(x > 0) || isinf(x)) {
        fprintf(stderr, "mmaref %s: %s needs a positive number (got '%s')\n", cmd, opt, v);
        return -1;
    }
    *out = x;
    return 0;
}
