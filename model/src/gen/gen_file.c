/* A suite read from a vector file (mma_gen_init_file): the operands of a
 * file written by `mmaref gen` or `mmaref verify --augment`, replayed as a
 * suite with d and flags recomputed by the model, so that a minimized
 * suite of one unit is rerun like the library's own suites. */
#include "gen_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* operands per vector: c, a[k], b[k], sa[ns], sb[ns] */
static size_t row_words(const mma_unit *u)
{
    return (size_t)(1 + 2 * u->k + 2 * mma_unit_nscales(u));
}

/* 0 when the file's unit computes as u does, else -1 naming its instr line */
static int same_unit(mma_vec_reader *r, const mma_unit *u, const char *path, char *err, size_t len)
{
    char want[512], got[512];
    const mma_unit *fu = mma_vec_unit(r);
    mma_unit_config(u, want, sizeof want);
    mma_unit_config(fu, got, sizeof got);
    if (!strcmp(want, got)) return 0;
    snprintf(err, len, "%s:%ld: field instr: the file is for %s (%s), not for %s (%s)", path, mma_vec_instr_line(r),
             *fu->name ? fu->name : "a configuration", got, *u->name ? u->name : "the configuration", want);
    return -1;
}

static void put_row(uint64_t *row, const mma_unit *u, const mma_vec *v)
{
    int k = u->k, ns = mma_unit_nscales(u);
    row[0] = v->c;
    memcpy(row + 1, v->a, (size_t)k * sizeof *row);
    memcpy(row + 1 + k, v->b, (size_t)k * sizeof *row);
    memcpy(row + 1 + 2 * k, v->sa, (size_t)ns * sizeof *row);
    memcpy(row + 1 + 2 * k + ns, v->sb, (size_t)ns * sizeof *row);
}

int mma_gen_init_file(mma_gen *g, const mma_unit *u, const char *path, long max, char *err, size_t len)
{
    memset(g, 0, sizeof *g);
    if (mma_gen_init(g, u, "random", 0)) return -1;     /* the format tables */
    g->suite = -1;
    mma_vec_reader *r = mma_vec_open(path, NULL, err, len);
    if (!r) {
        /* the reader's hint is for commands with --instr: a replayed suite
         * is checked against its file's unit, which the file must name */
        char *hint = strstr(err, " (give --instr)");
        if (hint) snprintf(hint, len - (size_t)(hint - err), " (a vector file replayed as a suite must name its unit)");
        return -1;
    }
    if (same_unit(r, u, path, err, len)) { mma_vec_close(r); return -1; }
    size_t w = row_words(u);
    long cap = 0, n = 0;
    uint64_t *ops = NULL;
    /* 8.5 kB: not on the stack, and not in thread-local storage, whose
     * static block a library loaded by Python (dlopen) cannot grow */
    mma_vec *vp = malloc(sizeof *vp);
    if (!vp) { snprintf(err, len, "%s: out of memory", path); mma_vec_close(r); return -1; }
    int rc = 0;
    while ((max < 0 || n < max) && (rc = mma_vec_next(r, vp, err, len)) == 1) {
        if (n == cap) {
            long nc = cap ? 2 * cap : 1024;
            uint64_t *p = realloc(ops, (size_t)nc * w * sizeof *ops);
            if (!p) { snprintf(err, len, "%s: out of memory after %ld vectors", path, n); rc = -1; break; }
            ops = p;
            cap = nc;
        }
        put_row(ops + (size_t)n * w, u, vp);
        n++;
    }
    if (max >= 0 && n == max) rc = 0;
    else if (rc == 0 && mma_vec_finish(r, err, len)) rc = -1;
    if (rc == 0 && max >= 0 && n < max) {
        snprintf(err, len, "%s:%ld: the file holds %ld vectors, fewer than the %ld asked for", path, mma_vec_lineno(r), n, max);
        rc = -1;
    }
    free(vp);
    mma_vec_close(r);
    if (rc) { free(ops); return -1; }
    g->ops = ops;
    g->nops = n;
    return 0;
}

void mma_gen_free(mma_gen *g)
{
    free(g->ops);
    g->ops = NULL;
    g->nops = 0;
}

void gen_file_operands(const mma_gen *g, long i, mma_vec *v)
{
    const mma_unit *u = g->u;
    int k = u->k, ns = mma_unit_nscales(u);
    if (i < 0 || i >= g->nops) return;
    const uint64_t *row = g->ops + (size_t)i * row_words(u);
    v->c = row[0];
    memcpy(v->a, row + 1, (size_t)k * sizeof *row);
    memcpy(v->b, row + 1 + k, (size_t)k * sizeof *row);
    memcpy(v->sa, row + 1 + 2 * k, (size_t)ns * sizeof *row);
    memcpy(v->sb, row + 1 + 2 * k + ns, (size_t)ns * sizeof *row);
}
