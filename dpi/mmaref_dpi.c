/* mmaref_dpi: the DPI-C layer over the mmaref C model (docs/dpi.md).
 *
 * Units are opened by instruction name or configuration string and named
 * by a small integer handle.  Operand vectors cross the boundary either as
 * open arrays of longint unsigned (the functions of mmaref_pkg.sv) or, on
 * the fast path, packed: element k of an operand at bits [k*W +: W], W the
 * format's width, declared by the caller at its exact width (see
 * docs/dpi.md).  The stimulus generator and the scoreboard are those of
 * mmaref_tbkit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svdpi.h"
#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_tbkit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_UNITS 256
static mma_unit units[MAX_UNITS];
static char configs[MAX_UNITS][512];
static int n_units;
static char last_err[1024];

static const mma_unit *unit_of(int h)
{
    if (h < 0 || h >= n_units) {
        fprintf(stderr, "mmaref_dpi: bad unit handle %d\n", h);
        return NULL;
    }
    return &units[h];
}

static int add_unit(const mma_unit *u)
{
    for (int i = 0; i < n_units; i++)
        if (!memcmp(&units[i], u, sizeof *u)) return i;
    if (n_units == MAX_UNITS) {
        snprintf(last_err, sizeof last_err, "mmaref_dpi: more than %d units opened", MAX_UNITS);
        return -1;
    }
    units[n_units] = *u;
    mma_unit_config(u, configs[n_units], sizeof configs[0]);
    return n_units++;
}

/* ---- the model ------------------------------------------------------------ */
int mmaref_open(const char *spec)
{
    mma_unit u;
    char err[512];
    if (mma_unit_parse(spec, &u, err, sizeof err)) {
        snprintf(last_err, sizeof last_err, "mmaref_open: %s", err);
        fprintf(stderr, "%s\n", last_err);
        return -1;
    }
    return add_unit(&u);
}

const char *mmaref_error(void) { return last_err; }

int mmaref_k(int h) { const mma_unit *u = unit_of(h); return u ? u->k : -1; }

int mmaref_width(int h, int which)
{
    const mma_unit *u = unit_of(h);
    if (!u) return -1;
    mma_fmt f = which == 0 ? u->a : which == 1 ? u->b : which == 2 ? u->c : u->d;
    return mma_format(f)->width;
}

const char *mmaref_config(int h) { return unit_of(h) ? configs[h] : ""; }
const char *mmaref_algorithm(int h) { const mma_unit *u = unit_of(h); return u ? mma_unit_algorithm(u) : ""; }
const char *mmaref_name(int h) { const mma_unit *u = unit_of(h); return u ? u->name : ""; }

int mmaref_equal(int h, unsigned long long x, unsigned long long y)
{
    const mma_unit *u = unit_of(h);
    return u ? mma_result_equal(u, x, y) : 0;
}

/* open array <-> uint64_t[] */
static const uint64_t *arr_in(const svOpenArrayHandle h, int k, uint64_t *tmp)
{
    if (svSize(h, 1) < k) {
        fprintf(stderr, "mmaref_dpi: operand array has %d elements, the unit needs %d\n", svSize(h, 1), k);
        return NULL;
    }
    const uint64_t *p = (const uint64_t *)svGetArrayPtr(h);
    if (p) return p;
    int lo = svLow(h, 1);
    for (int i = 0; i < k; i++) tmp[i] = *(const uint64_t *)svGetArrElemPtr1(h, lo + i);
    return tmp;
}

static int arr_out(const svOpenArrayHandle h, int k, const uint64_t *v)
{
    if (svSize(h, 1) < k) {
        fprintf(stderr, "mmaref_dpi: operand array has %d elements, the unit needs %d\n", svSize(h, 1), k);
        return -1;
    }
    uint64_t *p = (uint64_t *)svGetArrayPtr(h);
    if (p) { memcpy(p, v, (size_t)k * sizeof *v); return 0; }
    int lo = svLow(h, 1);
    for (int i = 0; i < k; i++) *(uint64_t *)svGetArrElemPtr1(h, lo + i) = v[i];
    return 0;
}

unsigned long long mmaref_dot(int h, unsigned long long c, const svOpenArrayHandle a,
                              const svOpenArrayHandle b)
{
    const mma_unit *u = unit_of(h);
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    if (!u) return 0;
    const uint64_t *pa = arr_in(a, u->k, ta), *pb = arr_in(b, u->k, tb);
    if (!pa || !pb) return 0;
    return mma_dot(u, c, pa, pb, NULL, NULL);
}

/* The value of mma_dpa parameter name that realizes unit h (the mapping of
 * mmaparams), or fallback when the RTL does not realize the unit. */
long long mmaref_rtl_param(int h, const char *name, long long fallback)
{
    const mma_unit *u = unit_of(h);
    const char *names[64];
    long values[64];
    if (!u) return fallback;
    int n = mmaref_tbk_rtl_params(u, 0, names, values, 64, NULL, 0);
    for (int i = 0; i < n; i++) if (!strcmp(names[i], name)) return values[i];
    return fallback;
}

/* ---- packed operand vectors ----------------------------------------------- */
/* Element i of a packed vector lies at bits [i*w +: w]; svBitVecVal words
 * are little-endian 32-bit chunks, so on a little-endian host 8- and 16-bit
 * elements are plain bytes and halfwords of the word array. */
static int little_endian(void) { const uint16_t x = 1; return *(const uint8_t *)&x; }

/* restrict: the byte loops below vectorize only when the compiler knows the
 * uint8_t view of v does not alias the uint64_t elements */
static void unpack(const svBitVecVal *restrict v, int k, int w, uint64_t *restrict out)
{
    if (w == 8 && little_endian()) {
        const uint8_t *restrict p = (const uint8_t *)v;
        for (int i = 0; i < k; i++) out[i] = p[i];
    } else if (w == 16 && little_endian()) {
        const uint8_t *p = (const uint8_t *)v;
        for (int i = 0; i < k; i++) out[i] = (uint64_t)p[2 * i] | (uint64_t)p[2 * i + 1] << 8;
    } else {
        for (int i = 0; i < k; i++) {
            uint64_t x = 0;
            for (int j = 0; j < w; j++) {
                int bit = i * w + j;
                x |= (uint64_t)((v[bit >> 5] >> (bit & 31)) & 1) << j;
            }
            out[i] = x;
        }
    }
}

static void pack(svBitVecVal *restrict v, int k, int w, const uint64_t *restrict in)
{
    int words = (k * w + 31) / 32;
    if (w == 8 && little_endian()) {
        uint8_t *restrict p = (uint8_t *)v;
        for (int i = 0; i < k; i++) p[i] = (uint8_t)in[i];
        for (int i = k; i < words * 4; i++) p[i] = 0;
    } else if (w == 16 && little_endian()) {
        uint8_t *p = (uint8_t *)v;
        for (int i = 0; i < k; i++) p[2 * i] = (uint8_t)in[i], p[2 * i + 1] = (uint8_t)(in[i] >> 8);
        for (int i = 2 * k; i < words * 4; i++) p[i] = 0;
    } else {
        memset(v, 0, (size_t)words * sizeof *v);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < w; j++) {
                int bit = i * w + j;
                v[bit >> 5] |= (svBitVecVal)((in[i] >> j) & 1) << (bit & 31);
            }
    }
}

/* outputs of a call that gives no vector: defined, all zero (the simulator
 * copies them into the caller's variables either way) */
static void no_vector(const mma_unit *u, unsigned long long *c, svBitVecVal *a, svBitVecVal *b)
{
    *c = 0;
    memset(a, 0, (size_t)((u->k * mma_format(u->a)->width + 31) / 32) * sizeof *a);
    memset(b, 0, (size_t)((u->k * mma_format(u->b)->width + 31) / 32) * sizeof *b);
}

/* a vector handed to the simulator: c, and a and b packed */
static void drive(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                  unsigned long long *co, svBitVecVal *pa, svBitVecVal *pb)
{
    *co = c;
    pack(pa, u->k, mma_format(u->a)->width, a);
    pack(pb, u->k, mma_format(u->b)->width, b);
}

unsigned long long mmaref_dot_pk(int h, unsigned long long c, const svBitVecVal *a,
                                 const svBitVecVal *b)
{
    const mma_unit *u = unit_of(h);
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    if (!u) return 0;
    unpack(a, u->k, mma_format(u->a)->width, ta);
    unpack(b, u->k, mma_format(u->b)->width, tb);
    return mma_dot(u, c, ta, tb, NULL, NULL);
}

/* ---- stimulus --------------------------------------------------------------- */
typedef struct { int h; mmaref_tbk_gen *g; } gen_h;

void *mmaref_gen_open(int h, unsigned long long seed, const char *mode)
{
    const mma_unit *u = unit_of(h);
    char err[256];
    if (!u) return NULL;
    mmaref_tbk_gen *g = mmaref_tbk_gen_create(u, seed, mode, err, sizeof err);
    if (!g) {
        snprintf(last_err, sizeof last_err, "mmaref_gen_open: %s", err);
        fprintf(stderr, "%s\n", last_err);
        return NULL;
    }
    gen_h *p = (gen_h *)malloc(sizeof *p);
    p->h = h;
    p->g = g;
    return p;
}

void mmaref_gen_vec(void *gp, unsigned long long *c, const svOpenArrayHandle a,
                    const svOpenArrayHandle b)
{
    gen_h *p = (gen_h *)gp;
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K], tc;
    mmaref_tbk_gen_next(p->g, &tc, ta, tb);
    *c = tc;
    arr_out(a, units[p->h].k, ta);
    arr_out(b, units[p->h].k, tb);
}

void mmaref_gen_pk(void *gp, unsigned long long *c, svBitVecVal *a, svBitVecVal *b)
{
    gen_h *p = (gen_h *)gp;
    const mma_unit *u = &units[p->h];
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K], tc;
    mmaref_tbk_gen_next(p->g, &tc, ta, tb);
    drive(u, tc, ta, tb, c, a, b);
}

/* ---- vector files ------------------------------------------------------------ */
typedef struct { mma_vec_reader *r; int h; mma_vec v; char path[512]; } file_h;

void *mmaref_file_open(const char *path, const char *instr)
{
    char err[512];
    mma_vec_reader *r = mma_vec_open(path, instr && instr[0] ? instr : NULL, err, sizeof err);
    if (!r) {
        snprintf(last_err, sizeof last_err, "mmaref_file_open: %s", err);
        fprintf(stderr, "%s\n", last_err);
        return NULL;
    }
    file_h *p = (file_h *)calloc(1, sizeof *p);
    p->r = r;
    p->h = add_unit(mma_vec_unit(r));
    snprintf(p->path, sizeof p->path, "%s", path);
    if (p->h < 0) { mma_vec_close(r); free(p); return NULL; }
    return p;
}

int mmaref_file_unit(void *fp) { return ((file_h *)fp)->h; }

static int file_read(file_h *p)
{
    char err[512];
    int rc = mma_vec_next(p->r, &p->v, err, sizeof err);
    if (rc < 0) {
        snprintf(last_err, sizeof last_err, "%s", err);
        fprintf(stderr, "mmaref_file_next: %s\n", err);
    }
    return rc;
}

int mmaref_file_next(void *fp, unsigned long long *c, const svOpenArrayHandle a,
                     const svOpenArrayHandle b, unsigned long long *d, int *has_d)
{
    file_h *p = (file_h *)fp;
    int rc = file_read(p);
    if (rc != 1) { *c = 0; *d = 0; *has_d = 0; return rc; }
    *c = p->v.c;
    *d = p->v.d;
    *has_d = mma_vec_has_d(p->r);
    arr_out(a, units[p->h].k, p->v.a);
    arr_out(b, units[p->h].k, p->v.b);
    return 1;
}

int mmaref_file_next_pk(void *fp, unsigned long long *c, svBitVecVal *a, svBitVecVal *b,
                        unsigned long long *d, int *has_d)
{
    file_h *p = (file_h *)fp;
    const mma_unit *u = &units[p->h];
    int rc = file_read(p);
    *d = 0;
    *has_d = 0;
    if (rc != 1) { no_vector(u, c, a, b); return rc; }
    drive(u, p->v.c, p->v.a, p->v.b, c, a, b);
    *d = p->v.d;
    *has_d = mma_vec_has_d(p->r);
    return 1;
}

void mmaref_file_close(void *fp)
{
    file_h *p = (file_h *)fp;
    if (!p) return;
    mma_vec_close(p->r);
    free(p);
}

/* ---- scoreboard ----------------------------------------------------------- */
/* The expected-transaction queue: the driver pushes every vector it applies
 * (the model's d computed then) and the monitor pops the oldest when the
 * DUT's d comes out, so the operands never travel back across the DPI
 * boundary and the testbench keeps no copy of them in flight. */
#define SBQ_CAP 64
typedef struct {
    uint64_t c, d, ref;
    int has_ref;
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K];
} sbq_item;

typedef struct {
    int h;
    mmaref_tbk_sb *s;
    sbq_item *q;            /* SBQ_CAP entries, allocated on the first push */
    int head, n;
    int last;               /* the entry popped last (kept until SBQ_CAP pushes later) */
} sb_h;

void *mmaref_sb_open(int h, const char *label)
{
    const mma_unit *u = unit_of(h);
    if (!u) return NULL;
    sb_h *p = (sb_h *)calloc(1, sizeof *p);
    p->h = h;
    p->s = mmaref_tbk_sb_create(u, label);
    p->last = -1;
    return p;
}

/* the entry the next push fills, or NULL when the queue is full */
static sbq_item *sbq_tail(sb_h *p)
{
    if (!p->q) p->q = (sbq_item *)malloc(SBQ_CAP * sizeof *p->q);
    if (!p->q || p->n == SBQ_CAP - 1) {   /* one entry spare: the last popped */
        fprintf(stderr, "mmaref_dpi: scoreboard queue full (%d vectors pushed, none popped)\n", p->n);
        return NULL;
    }
    return &p->q[(p->head + p->n) % SBQ_CAP];
}

/* completes the entry sbq_tail gave: the model's d, the reference, queued */
static void sbq_push(sb_h *p, sbq_item *it, int has_ref, uint64_t ref)
{
    it->d = mma_dot(&units[p->h], it->c, it->a, it->b, NULL, NULL);
    it->has_ref = has_ref;
    it->ref = ref;
    p->n++;
}

/* generates a vector, drives it (packed) and queues it with the model's d;
 * without a scoreboard (sp null) only generates */
int mmaref_gen_push_pk(void *gp, void *sp, unsigned long long *c, svBitVecVal *a, svBitVecVal *b)
{
    gen_h *g = (gen_h *)gp;
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[g->h];
    sbq_item tmp, *it = p ? sbq_tail(p) : &tmp;
    if (!it) { no_vector(u, c, a, b); return -1; }
    mmaref_tbk_gen_next(g->g, &it->c, it->a, it->b);
    drive(u, it->c, it->a, it->b, c, a, b);
    if (p) sbq_push(p, it, 0, 0);
    return 1;
}

/* the next vector of a file, driven and queued (with the file's d as the
 * reference when it has one); 1, 0 at the end, -1 on error */
int mmaref_file_push_pk(void *fp, void *sp, unsigned long long *c, svBitVecVal *a, svBitVecVal *b)
{
    file_h *f = (file_h *)fp;
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[f->h];
    int rc = file_read(f);
    if (rc != 1) { no_vector(u, c, a, b); return rc; }
    if (p) {
        sbq_item *it = sbq_tail(p);
        if (!it) { no_vector(u, c, a, b); return -1; }
        it->c = f->v.c;
        memcpy(it->a, f->v.a, (size_t)u->k * sizeof it->a[0]);
        memcpy(it->b, f->v.b, (size_t)u->k * sizeof it->b[0]);
        sbq_push(p, it, mma_vec_has_d(f->r), f->v.d);
    }
    drive(u, f->v.c, f->v.a, f->v.b, c, a, b);
    return 1;
}

/* checks the DUT's d (and coverage word, or -1) against the oldest queued
 * vector; 1 on mismatch, -1 when nothing is queued */
int mmaref_sb_pop_check(void *sp, unsigned long long got, long long cov)
{
    sb_h *p = (sb_h *)sp;
    if (p->n == 0) {
        fprintf(stderr, "mmaref_dpi: a result with no vector queued\n");
        return -1;
    }
    sbq_item *it = &p->q[p->head];
    p->last = p->head;
    p->head = (p->head + 1) % SBQ_CAP;
    p->n--;
    return mmaref_tbk_sb_record(p->s, it->c, it->a, it->b, it->d, got, it->has_ref, it->ref, cov);
}

/* the vector popped last, packed (to replay a mismatch); 0 if none */
int mmaref_sb_last_pk(void *sp, unsigned long long *c, svBitVecVal *a, svBitVecVal *b)
{
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[p->h];
    if (p->last < 0) { no_vector(u, c, a, b); return 0; }
    const sbq_item *it = &p->q[p->last];
    drive(u, it->c, it->a, it->b, c, a, b);
    return 1;
}

int mmaref_sb_check(void *sp, unsigned long long c, const svOpenArrayHandle a,
                    const svOpenArrayHandle b, unsigned long long got, int has_ref,
                    unsigned long long ref, long long cov)
{
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[p->h];
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    const uint64_t *pa = arr_in(a, u->k, ta), *pb = arr_in(b, u->k, tb);
    if (!pa || !pb) return 1;
    uint64_t expect = mma_dot(u, c, pa, pb, NULL, NULL);
    return mmaref_tbk_sb_record(p->s, c, pa, pb, expect, got, has_ref, ref, cov);
}

int mmaref_sb_check_pk(void *sp, unsigned long long c, const svBitVecVal *a,
                       const svBitVecVal *b, unsigned long long got, int has_ref,
                       unsigned long long ref, long long cov)
{
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[p->h];
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    unpack(a, u->k, mma_format(u->a)->width, ta);
    unpack(b, u->k, mma_format(u->b)->width, tb);
    uint64_t expect = mma_dot(u, c, ta, tb, NULL, NULL);
    return mmaref_tbk_sb_record(p->s, c, ta, tb, expect, got, has_ref, ref, cov);
}

long long mmaref_sb_count(void *sp) { return mmaref_tbk_sb_count(((sb_h *)sp)->s); }
long long mmaref_sb_mismatches(void *sp) { return mmaref_tbk_sb_mismatches(((sb_h *)sp)->s); }

void mmaref_sb_report(void *sp, int quiet)
{
    mmaref_tbk_sb_report(((sb_h *)sp)->s, stdout, quiet);
    fflush(stdout);
}

#ifdef __cplusplus
}
#endif
