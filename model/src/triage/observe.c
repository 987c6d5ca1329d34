/* Observations: dot products with the output a unit gave, held column by
 * column so that the probe runs many candidate units over them. */
#include "../core/internal.h"
#include "mmaref_triage.h"
#include "mmaref_vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mma_obs_init(mma_obs *o, const mma_unit *shape)
{
    memset(o, 0, sizeof *o);
    o->shape = *shape;
    o->ns = mma_unit_nscales(shape);
}

void mma_obs_free(mma_obs *o)
{
    free(o->c); free(o->a); free(o->b); free(o->sa); free(o->sb);
    free(o->d); free(o->flags); free(o->tag);
    memset(o, 0, sizeof *o);
}

static int grow(void **p, size_t cap, size_t each)
{
    void *q = realloc(*p, cap * each);
    if (!q) return -1;
    *p = q;
    return 0;
}

int mma_obs_add(mma_obs *o, uint64_t c, const uint64_t *a, const uint64_t *b,
                const uint64_t *sa, const uint64_t *sb, uint64_t d, int flags, long tag)
{
    size_t k = (size_t)o->shape.k, ns = (size_t)o->ns;
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 1024;
        if (grow((void **)&o->c, cap, 8) || grow((void **)&o->d, cap, 8) ||
            grow((void **)&o->a, cap, 8 * k) || grow((void **)&o->b, cap, 8 * k) ||
            grow((void **)&o->flags, cap, 1) || grow((void **)&o->tag, cap, sizeof(long)) ||
            (ns && (grow((void **)&o->sa, cap, 8 * ns) || grow((void **)&o->sb, cap, 8 * ns))))
            return -1;
        o->cap = cap;
    }
    size_t i = o->n++;
    o->c[i] = c;
    o->d[i] = d;
    memcpy(o->a + i * k, a, 8 * k);
    memcpy(o->b + i * k, b, 8 * k);
    if (ns) {
        memcpy(o->sa + i * ns, sa, 8 * ns);
        memcpy(o->sb + i * ns, sb, 8 * ns);
    }
    o->flags[i] = flags < 0 ? 0 : (unsigned char)flags;
    if (flags >= 0) o->has_flags = 1;
    o->tag[i] = tag;
    return 0;
}

static int same_shape(const mma_unit *x, const mma_unit *y)
{
    return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d && x->k == y->k &&
           x->scale == y->scale && (x->scale == MMA_FMT_NONE || x->block == y->block);
}

/* keep_matching < 0: every vector; otherwise the ones the file's unit does
 * not reproduce and the first keep_matching it does */
static int read_file(mma_obs *o, const char *path, const char *instr, long keep_matching, long *matching,
                     char *err, size_t len);

int mma_obs_read(mma_obs *o, const char *path, const char *instr, char *err, size_t len)
{
    return read_file(o, path, instr, -1, NULL, err, len);
}

int mma_obs_read_mismatches(mma_obs *o, const char *path, const char *instr, long keep_matching,
                            long *matching, char *err, size_t len)
{
    return read_file(o, path, instr, keep_matching < 0 ? 0 : keep_matching, matching, err, len);
}

static int read_file(mma_obs *o, const char *path, const char *instr, long keep_matching, long *matching,
                     char *err, size_t len)
{
    mma_vec_reader *r = mma_vec_open(path, instr, err, len);
    if (!r) return -1;
    const mma_unit *u = mma_vec_unit(r);
    if (!mma_vec_has_d(r)) {
        snprintf(err, len, "%s: field d: the file has no d column (outputs of a unit are needed)", path);
        mma_vec_close(r);
        return -1;
    }
    if (o->n == 0 && o->shape.k == 0) mma_obs_init(o, u);
    else if (!same_shape(&o->shape, u)) {
        snprintf(err, len, "%s: its vectors (a=%s b=%s c=%s d=%s k=%d) are not of the shape of the first file's "
                 "(a=%s b=%s c=%s d=%s k=%d)", path, mma_format(u->a)->name, mma_format(u->b)->name,
                 mma_format(u->c)->name, mma_format(u->d)->name, u->k, mma_format(o->shape.a)->name,
                 mma_format(o->shape.b)->name, mma_format(o->shape.c)->name, mma_format(o->shape.d)->name,
                 o->shape.k);
        mma_vec_close(r);
        return -1;
    }
    /* the file's flags count in the comparison only where the unit defines them */
    int has_flags = mma_vec_has_flags(r), cmp_flags = has_flags && mma_unit_has_flags(u);
    mma_vec *v = malloc(sizeof *v);
    size_t n0 = o->n;
    int rc = v ? 0 : -1;
    if (!v) snprintf(err, len, "%s: out of memory", path);
    int ns = mma_unit_nscales(u);
    long seen = 0;
    while (v && (rc = mma_vec_next(r, v, err, len)) == 1) {
        if (keep_matching >= 0) {
            unsigned fl = 0;
            uint64_t d = mma_dot_flags(u, v->c, v->a, v->b, ns ? v->sa : NULL, ns ? v->sb : NULL, &fl);
            if (mma_result_equal(u, d, v->d) && (!cmp_flags || fl == v->flags) && seen++ >= keep_matching)
                continue;
        }
        if (mma_obs_add(o, v->c, v->a, v->b, v->sa, v->sb, v->d, has_flags ? (int)v->flags : -1, v->line)) {
            snprintf(err, len, "%s:%ld: out of memory", path, v->line);
            rc = -1;
            break;
        }
    }
    if (matching) *matching = seen;
    free(v);
    mma_vec_close(r);
    if (rc < 0) {
        o->n = n0;   /* nothing half-read */
        return -1;
    }
    return 0;
}
