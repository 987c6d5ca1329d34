/* mmaref_dpi: the DPI-C layer over the mmaref C model (docs/dpi.md).
 *
 * Units are opened by instruction name or configuration string and named
 * by a small integer handle.  Operand vectors cross the boundary either as
 * open arrays of longint unsigned (the functions of mmaref_pkg.sv) or, on
 * the fast path, packed: element k of an operand at bits [k*W +: W], W the
 * format's width, declared by the caller at its exact width (see
 * docs/dpi.md).  The stimulus generator and the scoreboard are those of
 * mmaref_tbkit. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svdpi.h"
#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_tbkit.h"
#include "mmaref_bits.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_UNITS 256
static mma_unit units[MAX_UNITS];
static char configs[MAX_UNITS][512];
static int n_units;
static char last_err[1024];

static void dpi_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static const mma_unit *unit_of(int h)
{
    if (h < 0 || h >= n_units) {
        dpi_fatal("mmaref_dpi: unit handle %d was never opened (%d units open; a failed mmaref_open returns -1)", h, n_units);
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

/* Stops the simulation with a message: through mmaref_pkg's exported
 * mmaref_pkg_fatal ($fatal) where the testbench compiled the package, else
 * by exiting with status 1.  The exported function needs the package's
 * scope, whose name differs between simulators. */
extern void mmaref_pkg_fatal(const char *msg) __attribute__((weak));
static void dpi_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_err, sizeof last_err, fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (mmaref_pkg_fatal) {
        static const char *const scopes[] = {"TOP.mmaref_pkg", "mmaref_pkg", "mmaref_pkg::",
                                             "$unit::mmaref_pkg", NULL};
        for (int i = 0; scopes[i]; i++) {
            svScope s = svGetScopeFromName(scopes[i]);
            if (!s) continue;
            svScope old = svSetScope(s);
            mmaref_pkg_fatal(last_err);
            svSetScope(old);
            return;
        }
    }
    fprintf(stderr, "%s\n", last_err);
    exit(1);
}

/* open array <-> uint64_t[]: exactly K elements, or the simulation stops
 * (a shorter array would leave the model reading garbage, a longer one
 * usually means the testbench opened the wrong unit) */
static int arr_len_ok(const char *fn, const char *what, const svOpenArrayHandle h, int k)
{
    int n = svSize(h, 1);
    if (n == k) return 1;
    dpi_fatal("%s: operand array %s has %d elements, the unit has K=%d", fn, what, n, k);
    return 0;
}

static const uint64_t *arr_in(const char *fn, const char *what, const svOpenArrayHandle h, int k, uint64_t *tmp)
{
    if (!arr_len_ok(fn, what, h, k)) return NULL;
    const uint64_t *p = (const uint64_t *)svGetArrayPtr(h);
    if (p) return p;
    int lo = svLow(h, 1);
    for (int i = 0; i < k; i++) tmp[i] = *(const uint64_t *)svGetArrElemPtr1(h, lo + i);
    return tmp;
}

static int arr_out(const char *fn, const char *what, const svOpenArrayHandle h, int k, const uint64_t *v)
{
    if (!arr_len_ok(fn, what, h, k)) return -1;
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
    const uint64_t *pa = arr_in("mmaref_dot", "a", a, u->k, ta);
    const uint64_t *pb = pa ? arr_in("mmaref_dot", "b", b, u->k, tb) : NULL;
    if (!pa || !pb) return 0;
    return mma_dot(u, c, pa, pb, NULL, NULL);
}

int mmaref_has_flags(int h) { const mma_unit *u = unit_of(h); return u ? mma_unit_has_flags(u) : 0; }

/* the unit h by the name of the function that needs its exception flags;
 * stops the simulation when the unit defines none */
static const mma_unit *flags_unit(const char *fn, int h)
{
    const mma_unit *u = unit_of(h);
    if (u && !mma_unit_has_flags(u)) {
        dpi_fatal("%s: unit %s defines no exception flags (the ieee units do)", fn, configs[h]);
        return NULL;
    }
    return u;
}

unsigned long long mmaref_dot_flags(int h, unsigned long long c, const svOpenArrayHandle a,
                                    const svOpenArrayHandle b, int *flags)
{
    const mma_unit *u = flags_unit("mmaref_dot_flags", h);
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    *flags = 0;
    if (!u) return 0;
    const uint64_t *pa = arr_in("mmaref_dot_flags", "a", a, u->k, ta);
    const uint64_t *pb = pa ? arr_in("mmaref_dot_flags", "b", b, u->k, tb) : NULL;
    if (!pa || !pb) return 0;
    unsigned fl = 0;
    uint64_t d = mma_dot_flags(u, c, pa, pb, NULL, NULL, &fl);
    *flags = (int)fl;
    return d;
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

/* ---- packed operand vectors: mmaref_bits.h ---------------------------------- */
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
    mmaref_pack(pa, u->k, mma_format(u->a)->width, a);
    mmaref_pack(pb, u->k, mma_format(u->b)->width, b);
}

unsigned long long mmaref_dot_pk(int h, unsigned long long c, const svBitVecVal *a,
                                 const svBitVecVal *b)
{
    const mma_unit *u = unit_of(h);
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    if (!u) return 0;
    mmaref_unpack(a, u->k, mma_format(u->a)->width, ta);
    mmaref_unpack(b, u->k, mma_format(u->b)->width, tb);
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
    if (!arr_out("mmaref_gen_vec", "a", a, units[p->h].k, ta)) arr_out("mmaref_gen_vec", "b", b, units[p->h].k, tb);
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
    if (arr_out("mmaref_file_next", "a", a, units[p->h].k, p->v.a) ||
        arr_out("mmaref_file_next", "b", b, units[p->h].k, p->v.b)) return -1;
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
    unsigned flags;         /* the model's exception flags (units with flags) */
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
    it->flags = 0;
    it->d = mma_dot_flags(&units[p->h], it->c, it->a, it->b, NULL, NULL, &it->flags);
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
/* the oldest queued vector, dequeued; NULL when nothing is queued */
static const sbq_item *sbq_pop(sb_h *p)
{
    if (p->n == 0) {
        fprintf(stderr, "mmaref_dpi: a result with no vector queued\n");
        return NULL;
    }
    const sbq_item *it = &p->q[p->head];
    p->last = p->head;
    p->head = (p->head + 1) % SBQ_CAP;
    p->n--;
    return it;
}

int mmaref_sb_pop_check(void *sp, unsigned long long got, long long cov)
{
    sb_h *p = (sb_h *)sp;
    const sbq_item *it = sbq_pop(p);
    if (!it) return -1;
    return mmaref_tbk_sb_record(p->s, it->c, it->a, it->b, it->d, got, it->has_ref, it->ref, cov);
}

/* the same with the DUT's exception flags (MMA_FLAG_* bits) compared too */
int mmaref_sb_pop_check_flags(void *sp, unsigned long long got, int flags, long long cov)
{
    sb_h *p = (sb_h *)sp;
    if (!flags_unit("mmaref_sb_pop_check_flags", p->h)) return 1;
    const sbq_item *it = sbq_pop(p);
    if (!it) return -1;
    return mmaref_tbk_sb_record_flags(p->s, it->c, it->a, it->b, it->d, it->flags, got, (unsigned)flags,
                                      it->has_ref, it->ref, cov);
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
    const uint64_t *pa = arr_in("mmaref_sb_check", "a", a, u->k, ta);
    const uint64_t *pb = pa ? arr_in("mmaref_sb_check", "b", b, u->k, tb) : NULL;
    if (!pa || !pb) return 1;
    uint64_t expect = mma_dot(u, c, pa, pb, NULL, NULL);
    return mmaref_tbk_sb_record(p->s, c, pa, pb, expect, got, has_ref, ref, cov);
}

int mmaref_sb_check_flags(void *sp, unsigned long long c, const svOpenArrayHandle a,
                          const svOpenArrayHandle b, unsigned long long got, int flags, long long cov)
{
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = flags_unit("mmaref_sb_check_flags", p->h);
    if (!u) return 1;
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    const uint64_t *pa = arr_in("mmaref_sb_check_flags", "a", a, u->k, ta);
    const uint64_t *pb = pa ? arr_in("mmaref_sb_check_flags", "b", b, u->k, tb) : NULL;
    if (!pa || !pb) return 1;
    unsigned fl = 0;
    uint64_t expect = mma_dot_flags(u, c, pa, pb, NULL, NULL, &fl);
    return mmaref_tbk_sb_record_flags(p->s, c, pa, pb, expect, fl, got, (unsigned)flags, 0, 0, cov);
}

int mmaref_sb_check_pk(void *sp, unsigned long long c, const svBitVecVal *a,
                       const svBitVecVal *b, unsigned long long got, int has_ref,
                       unsigned long long ref, long long cov)
{
    sb_h *p = (sb_h *)sp;
    const mma_unit *u = &units[p->h];
    uint64_t ta[MMA_MAX_K], tb[MMA_MAX_K];
    mmaref_unpack(a, u->k, mma_format(u->a)->width, ta);
    mmaref_unpack(b, u->k, mma_format(u->b)->width, tb);
    uint64_t expect = mma_dot(u, c, ta, tb, NULL, NULL);
    return mmaref_tbk_sb_record(p->s, c, ta, tb, expect, got, has_ref, ref, cov);
}

long long mmaref_sb_count(void *sp) { return mmaref_tbk_sb_count(((sb_h *)sp)->s); }
long long mmaref_sb_mismatches(void *sp) { return mmaref_tbk_sb_mismatches(((sb_h *)sp)->s); }

/* Prints the report and returns the status the testbench must end with:
 * 0 when every vector matched, 1 on any mismatch, when nothing was checked,
 * or when vectors pushed on the queue never got a result. */
int mmaref_sb_report(void *sp, int quiet)
{
    sb_h *p = (sb_h *)sp;
    mmaref_tbk_sb_report(p->s, stdout, quiet);
    int status = mmaref_tbk_sb_mismatches(p->s) != 0;
    if (mmaref_tbk_sb_count(p->s) == 0) {
        printf("mmaref_sb_report: no vector was checked\n");
        status = 1;
    }
    if (p->n) {
        printf("mmaref_sb_report: %d vectors were driven but got no result\n", p->n);
        status = 1;
    }
    fflush(stdout);
    return status;
}

#ifdef __cplusplus
}
#endif
