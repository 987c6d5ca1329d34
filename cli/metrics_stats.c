/* Statistics of the metrics: per-chunk partial sums (each chunk is filled
 * by one thread in index order, and the chunks are reduced in order, so the
 * sums do not depend on the thread count), per-vector errors for the
 * percentiles (nearest rank) and histograms, and the output helpers. */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const double mx_pct[4] = {0.5, 0.9, 0.99, 0.999};

int mx_row_init(mx_row *r, long count, long chunk, int keep_abs_rel)
{
    memset(&r->count, 0, sizeof *r - offsetof(mx_row, count));
    r->count = count;
    r->chunk = chunk;
    r->nparts = count ? (count + chunk - 1) / chunk : 0;
    r->parts = calloc((size_t)r->nparts + 1, sizeof *r->parts);
    r->e_ulp = malloc(((size_t)count + 1) * sizeof(float));
    if (keep_abs_rel) {
        r->e_abs = malloc(((size_t)count + 1) * sizeof(float));
        r->e_rel = malloc(((size_t)count + 1) * sizeof(float));
    }
    if (!r->parts || !r->e_ulp || (keep_abs_rel && (!r->e_abs || !r->e_rel))) {
        fprintf(stderr, "mmaref: out of memory for %ld vectors (4 to 12 bytes per vector and row)\n", count);
        return -1;
    }
    return 0;
}

void mx_row_free(mx_row *r)
{
    free(r->parts); free(r->e_ulp); free(r->e_abs); free(r->e_rel);
    r->parts = NULL; r->e_ulp = r->e_abs = r->e_rel = NULL;
}

void mx_row_put(mx_row *r, long i, const mx_res *x)
{
    mx_part *p = &r->parts[i / r->chunk];
    if (x->flags & MX_R_SPECIAL) {
        p->special++;
        if (x->flags & MX_R_SPMISMATCH) p->spmismatch++;
        r->e_ulp[i] = NAN;
        if (r->e_abs) { r->e_abs[i] = NAN; r->e_rel[i] = NAN; }
        return;
    }
    p->n++;
    if (x->flags & MX_R_NOTCR) p->notcr++;
    if (x->flags & MX_R_NEFP32) p->nefp32++;
    double au = fabs(x->ulp), aa = fabs(x->abs);
    p->sum_ulp += au;
    p->sum_sulp += x->ulp;
    if (au > p->max_ulp) p->max_ulp = au;
    p->sum_abs += aa;
    p->sum_sabs += x->abs;
    if (aa > p->max_abs) p->max_abs = aa;
    p->sum_mag += x->mag;
    if (x->flags & MX_R_RELINF) p->relinf++;
    else {
        p->sum_rel += x->rel;
        if (x->rel > p->max_rel) p->max_rel = x->rel;
    }
    r->e_ulp[i] = (float)x->ulp;
    if (r->e_abs) {
        r->e_abs[i] = (float)x->abs;
        r->e_rel[i] = (x->flags & MX_R_RELINF) ? INFINITY : (float)x->rel;
    }
}

/* LSD radix sort of non-negative floats by their bit patterns */
static void sort_f(uint32_t *a, uint32_t *tmp, size_t n)
{
    for (int sh = 0; sh < 32; sh += 8) {
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; i++) cnt[((a[i] >> sh) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (size_t i = 0; i < n; i++) tmp[cnt[(a[i] >> sh) & 0xff]++] = a[i];
        memcpy(a, tmp, n * sizeof *a);
    }
}

static void percentiles(const float *v, long count, double out[4])
{
    for (int q = 0; q < 4; q++) out[q] = NAN;
    if (!v || !count) return;
    uint32_t *a = malloc((size_t)count * 4), *t = malloc((size_t)count * 4);
    if (!a || !t) { free(a); free(t); return; }
    size_t n = 0;
    for (long i = 0; i < count; i++) {
        float x = v[i];
        if (x != x) continue;
        x = fabsf(x);
        memcpy(&a[n++], &x, 4);
    }
    if (n) {
        sort_f(a, t, n);
        for (int q = 0; q < 4; q++) {
            size_t rank = (size_t)ceil(mx_pct[q] * (double)n);
            if (rank < 1) rank = 1;
            float x;
            memcpy(&x, &a[rank - 1], 4);
            out[q] = x;
        }
    }
    free(a);
    free(t);
}

void mx_row_finish(mx_row *r)
{
    mx_part t;
    memset(&t, 0, sizeof t);
    for (long c = 0; c < r->nparts; c++) {
        const mx_part *p = &r->parts[c];
        t.n += p->n; t.special += p->special; t.spmismatch += p->spmismatch;
        t.notcr += p->notcr; t.nefp32 += p->nefp32; t.relinf += p->relinf;
        t.sum_ulp += p->sum_ulp; t.sum_sulp += p->sum_sulp; t.sum_rel += p->sum_rel;
        t.sum_abs += p->sum_abs; t.sum_sabs += p->sum_sabs; t.sum_mag += p->sum_mag;
        if (p->max_ulp > t.max_ulp) t.max_ulp = p->max_ulp;
        if (p->max_rel > t.max_rel) t.max_rel = p->max_rel;
        if (p->max_abs > t.max_abs) t.max_abs = p->max_abs;
    }
    r->tot = t;
    percentiles(r->e_ulp, r->count, r->pulp);
    percentiles(r->e_abs, r->count, r->pabs);
    percentiles(r->e_rel, r->count, r->prel);
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
void mx_write_hist(FILE *f, mx_row *rows, int nrows, int bins)
{
    if (bins < 1) bins = 1;
    long *h = calloc((size_t)bins, sizeof *h), lg[LOG_BINS];
    if (!h) return;
    for (int ri = 0; ri < nrows; ri++) {
        mx_row *r = &rows[ri];
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
                   "# bin_centre_ulp count fraction_of_all\n", ri + 1, r->label, sp, r->mode, n, m, out, mx);
        for (int b = 0; b < bins; b++)
            fprintf(f, "%.6g %ld %.6g\n", -m + (b + 0.5) * w, h[b], n ? (double)h[b] / (double)n : 0.0);
        fprintf(f, "\n\n# unit %d: %s%s%s: log2 |error|\n# %ld results, %ld exact (error 0)\n# log2_ulp_bin_centre count fraction_of_all\n",
                ri + 1, r->label, sp, r->mode, n, zero);
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
    long x = strtol(v, &e, 0);
    if (!*v || *e || x < lo || x > hi) {
        fprintf(stderr, "mmaref %s: %s needs an integer in %ld..%ld (got '%s')\n", cmd, opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
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
