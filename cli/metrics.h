/* mmaref metrics and mmaref gemm: argument handling and printing over the
 * library's runs (mmaref_metrics.h).
 *
 *   metrics.c      mmaref metrics;   gemm.c   mmaref gemm
 *   metrics_out.c  the progress line, tables, CSV / JSON strings,
 *                  histograms, option values */
#ifndef MMAREF_CLI_METRICS_H
#define MMAREF_CLI_METRICS_H

#include <stdio.h>
#include "cli.h"
#include "mmaref_metrics.h"

/* A progress line on stderr while a run goes, when stderr is a terminal:
 * sets o->progress and o->pctx (p must outlive the run). */
typedef struct { const char *what; double evals_per_item; } progress_line;
void mx_progress(mma_metrics_opts *o, progress_line *p, const char *what, double evals_per_item);

/* Gnuplot-friendly histogram of the signed ulp errors, one block per row. */
void mx_write_hist(FILE *f, const mma_row *rows, const char *const *labels, int nrows, int bins);

typedef enum { MX_OUT_TABLE, MX_OUT_CSV, MX_OUT_JSON } mx_outfmt;

/* An aligned text table: cells[r*ncol + c], row 0 the header. */
void mx_table_print(FILE *f, char **cells, int nrows, int ncol);
char *mx_fmt(const char *fmt, ...);            /* malloc'd snprintf */
const char *mx_g(double x, char *buf);         /* %.4g, "-" for NaN */

/* The options metrics and gemm share, into o: --dist --count (1..count_max)
 * --seed --k --threads --scale --quant.  1: a (with its value v) was one of
 * them; 0: it was not; -1: a message was printed (exit 2). */
int mx_common_option(const char *cmd, const char *a, const char *v, long count_max, mma_metrics_opts *o);
int mx_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);
int mx_parse_double(const char *cmd, const char *opt, const char *v, double *out);
void mx_json_str(FILE *f, const char *s);
void mx_csv_str(FILE *f, const char *s);

/* --plot (plot.c): the name checked (.png or .svg) and gnuplot looked
 * for before any work (-1: a message was printed); a label cut to what a
 * gnuplot string may hold; the picture drawn and written whole or not at
 * all (write_data and write_script write the data and the plot commands,
 * the data file's path given). */
int mx_plot_check(const char *cmd, const char *path);
void mx_plot_label(char *out, size_t len, const char *s);
int mx_plot(const char *cmd, const char *path, void (*write_data)(FILE *, void *),
            void (*write_script)(FILE *, const char *data, void *), void *ctx);

#endif
