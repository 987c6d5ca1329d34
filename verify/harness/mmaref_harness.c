/* mmaref_harness: driver, monitor and scoreboard of `mmaref verify`'s
 * generated testbenches (mmaref_harness.h has the plan format).
 *
 * The driver side generates or reads a vector, computes the model's d,
 * queues it and packs the operands into the unit's buses per the mode's
 * layout; the monitor side takes the unit's d (and flags) and checks it
 * against the oldest vector in flight, or the one of its tag.  The
 * operands never cross back over the DPI boundary (the queue of
 * mmaref_dpi.c, generalized to several units and any layout). */
#include "mmaref_harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmaref.h"
#include "mmaref_vec.h"
#include "mmaref_tbkit.h"
#include "mmaref_results.h"
#include "mmaref_bits.h"
#include "mmaref_timing.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BOX_ZERO, BOX_NAN, BOX_SIGN, BOX_ANY };
static const char *const box_names[] = {"zero", "nan", "sign", "any"};

typedef struct {
    int slot, w, box;
    int fast;                       /* element k at [k*w +: w], box zero: mmaref_pack */
    int off[MMA_MAX_K];
} oplay;

/* a matrix of a matrix unit: per element (row-major) its beat and offset */
typedef struct {
    int slot, w, box, n;
    int *beat, *off;
} tlay;

typedef struct {
    char name[64];
    mma_unit u;
    int tile, M, N, bi, bo;         /* a matrix unit: D is M x N, in bi beats, out bo */
    int lanes;                      /* a unit of M lanes: D's diagonal only (the lanes) */
    tlay ta, tb, tc, td;
    FILE *sample, *mism_el, *sample_el;   /* matching results kept for the triage; elements of tiles */
    long nsample;
    uint64_t value;                 /* of the mode ports */
    oplay a, b;
    oplay sc_a, sc_b;               /* block scales, in the a and b buses */
    int ns;                         /* scales per operand (0: unscaled) */
    int cbox, dbox, wc, wd;
    int has_flags;                  /* the unit defines exception flags */
    mmaref_tbk_sb *sb;              /* coverage */
    mmaref_tbk_gen *gen;            /* random stimulus, created on first use */
    char gen_dist[16];              /* its distribution */
    FILE *mism;                     /* mismatching vectors, opened on the first */
    char mism_path[1100];
} vmode;

enum { SRC_FILE, SRC_RANDOM };
typedef struct {
    int mode, kind;
    char label[96], path[1024];
    char dist[16];                  /* a random item's distribution (mmaref_tbkit's modes) */
    uint64_t seed;
    long lo, hi, next;              /* vectors [lo, hi); the next one to drive */
    int started, done;
    mma_vec_reader *r;
    mmaref_res_item *res;
} vitem;

typedef struct {
    uint64_t c, d, a[MMA_MAX_K], b[MMA_MAX_K];
    uint64_t sa[MMA_MAX_SCALES], sb[MMA_MAX_SCALES];
    unsigned fl;
    int mode, item, live;
    long index;
    unsigned tag;
    int elem;                       /* of a tile: row * N + column; -1 a dot product */
    /* a tile: A (M x K), B (K x N), C, the model's D and the unit's raw D
     * (M x N each), row-major; the beats given and taken */
    uint64_t *t;
    int bin, bout;
} ventry;

/* vectors drawn per seed of the random stimulus: a shard starting inside a
 * block regenerates its start, so shards concatenate to the whole */
#define RANDOM_BLOCK 4096

typedef struct {
    int aw, bw, cw, dw, fw, mw, tw;
    int flagbit[64];
    unsigned flagmask;              /* the model's flags the unit reports */
    char out[1024];
    uint64_t rng;
    int gaps;
    int nmodes, nitems, cur;
    vmode *modes;
    vitem *items;
    ventry *q;                      /* ring of cap entries, head..head+n */
    int cap, head, n;
    int feeding;                    /* the newest entry, a tile, has beats to give */
    size_t tile_words;              /* of the largest tile */
    long sample_keep;               /* matching results kept per mode (-1 all) */
    int stop_first;                 /* no vector after the first mismatch */
    int mismatched;                 /* a mismatch (or a result for no vector) seen */
    int *tag_slot;                  /* per tag: its entry, or -1 */
    unsigned ntags, next_tag;
    mmaref_results *res;
    /* the timing watch (mmaref_timing.h): the description's latency (-1:
     * out_valid), the largest the testbench waits for, and whether this
     * run measures it (--latency auto) */
    mmaref_tw *watch;
    int latency, lmax, measure;
    int status;
    struct timespec c0, cpu0;
} harness;

static harness *the;                /* the one campaign of the process */
static int exit_status = 3;

/* ---- small helpers ------------------------------------------------------ */
static uint64_t rng_next(uint64_t *s)
{
    *s += 0xa0761d6478bd642full;
    unsigned __int128 t = (unsigned __int128)*s * (*s ^ 0xe7037ed1a0b428dbull);
    return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* snprintf without the truncation warning: the paths here are the run
 * directory's, shorter than the buffers */
static void fmt(char *out, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *out, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(out, len, f, ap);
    va_end(ap);
}

static uint64_t ones(int n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }
static int words(int bits) { return (bits + 31) / 32; }

/* x (w bits) in a slot of s bits, the bits above w per the box rule */
static uint64_t box(uint64_t x, int w, int s, int rule, uint64_t *rng)
{
    uint64_t up = ones(s) & ~ones(w);
    switch (rule) {
    case BOX_NAN: return x | up;
    case BOX_SIGN: return (x >> (w - 1)) & 1 ? x | up : x;
    case BOX_ANY: return x | (rng_next(rng) & up);
    default: return x;
    }
}

static int box_ok(uint64_t raw, int w, int s, int rule)
{
    uint64_t up = raw & ones(s) & ~ones(w);
    switch (rule) {
    case BOX_NAN: return up == (ones(s) & ~ones(w));
    case BOX_SIGN: return up == ((raw >> (w - 1)) & 1 ? ones(s) & ~ones(w) : 0);
    case BOX_ANY: return 1;
    default: return up == 0;
    }
}

static void fail(harness *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(harness *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mmaref verify: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (h) h->status = 2;
    exit_status = 2;
}

/* ---- the plan --------------------------------------------------------------- */
static int parse_box(const char *s)
{
    for (int i = 0; i < 4; i++) if (!strcmp(s, box_names[i])) return i;
    return -1;
}

static int parse_layout(oplay *L, char *rest, int k, int w)
{
    char *save = NULL, *t = strtok_r(rest, " ", &save);
    if (!t) return -1;
    L->slot = atoi(t);
    if (!(t = strtok_r(NULL, " ", &save)) || (L->box = parse_box(t)) < 0) return -1;
    L->w = w;
    L->fast = L->slot == w && L->box == BOX_ZERO;
    for (int i = 0; i < k; i++) {
        if (!(t = strtok_r(NULL, " ", &save))) return -1;
        L->off[i] = atoi(t);
        if (L->off[i] != i * w) L->fast = 0;
    }
    return strtok_r(NULL, " ", &save) || L->slot < w || L->slot > 64 ? -1 : 0;
}

static int parse_tlay(tlay *L, char *rest, int n, int w, int bits, int beats)
{
    char *save = NULL, *t = strtok_r(rest, " ", &save);
    if (!t) return -1;
    L->slot = atoi(t);
    if (!(t = strtok_r(NULL, " ", &save)) || (L->box = parse_box(t)) < 0) return -1;
    L->w = w;
    L->n = n;
    free(L->beat);
    free(L->off);
    L->beat = (int *)calloc((size_t)n, sizeof *L->beat);
    L->off = (int *)calloc((size_t)n, sizeof *L->off);
    for (int i = 0; i < n; i++) {
        char *u = strtok_r(NULL, " ", &save), *v = strtok_r(NULL, " ", &save);
        if (!u || !v) return -1;
        L->beat[i] = atoi(u);
        L->off[i] = atoi(v);
        /* offset -1: an element the unit has not (a unit of lanes: C and D off the diagonal) */
        if (L->beat[i] < 0 || L->beat[i] >= beats || L->off[i] < -1 || L->off[i] + L->slot > bits) return -1;
    }
    return strtok_r(NULL, " ", &save) || L->slot < w || L->slot > 64 ? -1 : 0;
}

static int read_plan(harness *h, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) { fail(h, "%s: cannot open the plan", path); return -1; }
    char *line = NULL;
    size_t lcap = 0;
    long ln = 0;
    int ok = 1, cap_modes = 0, cap_items = 0;
    vmode *m = NULL;
    for (int i = 0; i < 64; i++) h->flagbit[i] = -1;
    while (ok && getline(&line, &lcap, f) > 0) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        char key[16] = "";
        int off = 0;
        if (sscanf(line, "%15s %n", key, &off) < 1) continue;
        char *rest = line + off;
        if (ln == 1) { ok = !strcmp(line, "mmaref-plan 1"); continue; }
        if (!strcmp(key, "bus")) {
            ok = sscanf(rest, "%d %d %d %d %d %d %d", &h->aw, &h->bw, &h->cw, &h->dw, &h->fw, &h->mw, &h->tw) == 7 &&
                 h->mw <= 64 && h->fw <= 64 && h->tw <= 32;
        } else if (!strcmp(key, "flagbits")) {
            char *save = NULL;
            int i = 0;
            for (char *t = strtok_r(rest, " ", &save); t && i < 64; t = strtok_r(NULL, " ", &save)) {
                h->flagbit[i] = atoi(t);
                if (h->flagbit[i] >= 0) h->flagmask |= 1u << h->flagbit[i];
                i++;
            }
        } else if (!strcmp(key, "out")) {
            snprintf(h->out, sizeof h->out, "%s", rest);
        } else if (!strcmp(key, "seed")) {
            h->rng = mix64(strtoull(rest, NULL, 0) + 0x9e3779b97f4a7c15ull);
        } else if (!strcmp(key, "gaps")) {
            h->gaps = atoi(rest);
        } else if (!strcmp(key, "mode")) {
            if (h->nmodes == cap_modes) {
                cap_modes = cap_modes ? 2 * cap_modes : 8;
                h->modes = (vmode *)realloc(h->modes, (size_t)cap_modes * sizeof *h->modes);
            }
            m = &h->modes[h->nmodes++];
            memset(m, 0, sizeof *m);
            int o2 = 0;
            char err[512];
            ok = sscanf(rest, "%63s %llx %n", m->name, (unsigned long long *)&m->value, &o2) == 2 && o2;
            if (ok && mma_unit_parse(rest + o2, &m->u, err, sizeof err)) {
                fail(h, "%s:%ld: %s", path, ln, err);
                fclose(f);
                return -1;
            }
            if (ok) {
                m->has_flags = mma_unit_has_flags(&m->u);
                m->wc = mma_format(m->u.c)->width;
                m->wd = mma_format(m->u.d)->width;
                m->ns = mma_unit_nscales(&m->u);
                m->sb = mmaref_tbk_sb_create(&m->u, m->name);
            }
        } else if (m && !strcmp(key, "tile")) {
            int o3 = 0;
            ok = sscanf(rest, "%d %d %d %d %n", &m->M, &m->N, &m->bi, &m->bo, &o3) == 4 && m->M > 0 && m->N > 0 &&
                 m->M <= 64 && m->N <= 64 && m->bi > 0 && m->bo > 0;
            m->lanes = ok && o3 && !strcmp(rest + o3, "lanes");
            m->tile = ok;
            size_t tw = (size_t)m->M * (size_t)m->u.k + (size_t)m->u.k * (size_t)m->N + 3 * (size_t)m->M * (size_t)m->N;
            if (tw > h->tile_words) h->tile_words = tw;
        } else if (m && m->tile && strlen(key) == 1 && strchr("abcd", key[0])) {
            int K = m->u.k;
            tlay *L = key[0] == 'a' ? &m->ta : key[0] == 'b' ? &m->tb : key[0] == 'c' ? &m->tc : &m->td;
            mma_fmt ef = key[0] == 'a' ? m->u.a : key[0] == 'b' ? m->u.b : key[0] == 'c' ? m->u.c : m->u.d;
            ok = parse_tlay(L, rest, key[0] == 'a' ? m->M * K : key[0] == 'b' ? K * m->N : m->M * m->N,
                            mma_format(ef)->width, key[0] == 'a' ? h->aw : key[0] == 'b' ? h->bw : key[0] == 'c' ? h->cw : h->dw,
                            key[0] == 'a' || key[0] == 'b' || key[0] == 'c' ? m->bi : m->bo) == 0;
        } else if (!strcmp(key, "timing")) {
            ok = sscanf(rest, "%d %d %d", &h->latency, &h->lmax, &h->measure) == 3 && h->lmax >= 0;
            if (ok) h->watch = mmaref_tw_create(h->latency, h->lmax);
        } else if (!strcmp(key, "stop")) {
            h->stop_first = atoi(rest);
        } else if (!strcmp(key, "sample")) {
            h->sample_keep = strtol(rest, NULL, 0);
        } else if (m && m->ns && (!strcmp(key, "sa") || !strcmp(key, "sb"))) {
            ok = parse_layout(key[1] == 'a' ? &m->sc_a : &m->sc_b, rest, m->ns, 8) == 0;
        } else if (m && (!strcmp(key, "a") || !strcmp(key, "b"))) {
            int w = mma_format(key[0] == 'a' ? m->u.a : m->u.b)->width;
            ok = parse_layout(key[0] == 'a' ? &m->a : &m->b, rest, m->u.k, w) == 0;
        } else if (m && (!strcmp(key, "c") || !strcmp(key, "d"))) {
            int b = parse_box(rest);
            ok = b >= 0;
            if (key[0] == 'c') m->cbox = b; else m->dbox = b;
        } else if (!strcmp(key, "item")) {
            if (h->nitems == cap_items) {
                cap_items = cap_items ? 2 * cap_items : 16;
                h->items = (vitem *)realloc(h->items, (size_t)cap_items * sizeof *h->items);
            }
            vitem *it = &h->items[h->nitems];
            memset(it, 0, sizeof *it);
            char kind[16];
            int o2 = 0;
            ok = sscanf(rest, "%d %15s %95s %ld %ld %n", &it->mode, kind, it->label, &it->lo, &it->hi, &o2) == 5 &&
                 o2 && it->mode >= 0 && it->mode < h->nmodes && it->lo <= it->hi;
            if (ok && !strcmp(kind, "random")) {
                char *e;
                it->kind = SRC_RANDOM;
                it->seed = strtoull(rest + o2, &e, 0);
                while (*e == ' ') e++;
                snprintf(it->dist, sizeof it->dist, "%s", *e ? e : "mix");
            }
            else if (ok && (!strcmp(kind, "suite") || !strcmp(kind, "file"))) { it->kind = SRC_FILE; snprintf(it->path, sizeof it->path, "%s", rest + o2); }
            else ok = 0;
            it->next = it->lo;
            h->nitems++;
        } else {
            ok = 0;
        }
    }
    fclose(f);
    free(line);
    if (!ok) { fail(h, "%s:%ld: malformed plan line", path, ln); return -1; }
    if (!h->nmodes || h->aw < 1 || h->bw < 1 || h->cw < 1 || h->dw < 1) { fail(h, "%s: incomplete plan", path); return -1; }
    for (int i = 0; i < h->nmodes; i++)
        if (h->modes[i].tile ? !h->modes[i].td.n : h->cw > 64 || h->dw > 64) { fail(h, "%s: mode %s: incomplete plan", path, h->modes[i].name); return -1; }
    return 0;
}

void *mmaref_vfy_open(const char *plan)
{
    harness *h = (harness *)calloc(1, sizeof *h);
    the = h;
    h->sample_keep = 20000;
    clock_gettime(CLOCK_MONOTONIC, &h->c0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &h->cpu0);
    h->res = (mmaref_results *)calloc(1, sizeof *h->res);
    if (read_plan(h, plan)) return NULL;
    h->cap = 64;
    h->q = (ventry *)calloc((size_t)h->cap, sizeof *h->q);
    if (h->tw) {
        h->ntags = h->tw >= 16 ? 65536u : 1u << h->tw;
        h->tag_slot = (int *)malloc(h->ntags * sizeof *h->tag_slot);
        for (unsigned i = 0; i < h->ntags; i++) h->tag_slot[i] = -1;
    }
    for (int i = 0; i < h->nitems; i++)
        h->items[i].res = mmaref_res_item_get(h->res, h->modes[h->items[i].mode].name, h->items[i].label);
    /* the watch shifts one result stream: none for tags or tiles */
    if (h->watch && (h->tw || h->modes[0].tile)) { mmaref_tw_free(h->watch); h->watch = NULL; }
    return h;
}

/* ---- sources ---------------------------------------------------------------- */
static int item_start(harness *h, vitem *it)
{
    vmode *m = &h->modes[it->mode];
    it->started = 1;
    if (it->kind == SRC_RANDOM) {
        if (m->gen && strcmp(m->gen_dist, it->dist)) { mmaref_tbk_gen_free(m->gen); m->gen = NULL; }
        if (!m->gen) {
            char err[256];
            /* a, b and c as for the unit without scales; draw_scales adds them */
            mma_unit us = m->u;
            us.scale = MMA_FMT_NONE;
            m->gen = mmaref_tbk_gen_create(&us, it->seed, it->dist, err, sizeof err);
            if (!m->gen) { fail(h, "mode %s: %s", m->name, err); return -1; }
            snprintf(m->gen_dist, sizeof m->gen_dist, "%s", it->dist);
        }
        return 0;
    }
    char err[1024], want[512], got[512];
    it->r = mma_vec_open(it->path, NULL, err, sizeof err);
    if (!it->r) { fail(h, "%s", err); return -1; }
    mma_unit_config(&m->u, want, sizeof want);
    mma_unit_config(mma_vec_unit(it->r), got, sizeof got);
    if (strcmp(want, got)) {
        fail(h, "%s: its unit %s is not the unit of mode %s (%s)", it->path, got, m->name, want);
        return -1;
    }
    mma_vec v;
    for (long i = 0; i < it->lo; i++) {
        int rc = mma_vec_next(it->r, &v, err, sizeof err);
        if (rc < 0) { fail(h, "%s", err); return -1; }
        if (rc == 0) { it->hi = i; break; }
    }
    return 0;
}

/* Block scales for the random stimulus, drawn from the vector's own seed
 * (shards stay the whole campaign's parts): mostly near 1 (ue8m0 127 +- 8,
 * ue4m3 0x30..0x4f, its ignored top bit at random), 1 in 16 any byte, 1 in
 * 32 an edge (NaN, the largest, the smallest, zero). */
static void draw_scales(const vmode *m, uint64_t r, ventry *e)
{
    int ue8 = m->u.scale == MMA_FMT_UE8M0;
    static const uint64_t edge8[4] = {0xff, 0xfe, 0x00, 0x7f}, edge4[4] = {0x7f, 0x7e, 0x00, 0x01};
    for (int i = 0; i < 2 * m->ns; i++) {
        uint64_t u = rng_next(&r), x;
        unsigned sel = (unsigned)(u & 31);
        if (sel < 2) x = (u >> 8) & 0xff;
        else if (sel == 2) x = (ue8 ? edge8 : edge4)[(u >> 8) & 3] | (ue8 ? 0 : (u >> 16) & 0x80);
        else if (ue8) x = 127 + (u >> 8) % 17 - 8;
        else x = (0x30 + ((u >> 8) & 0x1f)) | ((u >> 16) & 0x80);
        if (i < m->ns) e->sa[i] = x; else e->sb[i - m->ns] = x;
    }
}

/* the item's next vector into e: 1, 0 at its end, -1 on error */
static int item_next(harness *h, vitem *it, ventry *e)
{
    vmode *m = &h->modes[it->mode];
    if (it->next >= it->hi) return 0;
    if (it->kind == SRC_RANDOM) {
        long blk = it->next / RANDOM_BLOCK;
        if (it->next == it->lo || it->next % RANDOM_BLOCK == 0) {
            mmaref_tbk_gen_reseed(m->gen, mix64(it->seed ^ mix64((uint64_t)blk + 1)));
            for (long i = blk * RANDOM_BLOCK; i < it->next; i++) mmaref_tbk_gen_next(m->gen, &e->c, e->a, e->b);
        }
        mmaref_tbk_gen_next(m->gen, &e->c, e->a, e->b);
        if (m->ns) draw_scales(m, mix64(it->seed ^ mix64(~(uint64_t)it->next)), e);
    } else {
        static mma_vec v;
        char err[1024];
        int rc = mma_vec_next(it->r, &v, err, sizeof err);
        if (rc < 0) { fail(h, "%s", err); return -1; }
        if (rc == 0) { it->hi = it->next; return 0; }
        e->c = v.c;
        memcpy(e->a, v.a, (size_t)m->u.k * sizeof e->a[0]);
        memcpy(e->b, v.b, (size_t)m->u.k * sizeof e->b[0]);
        memcpy(e->sa, v.sa, (size_t)m->ns * sizeof e->sa[0]);
        memcpy(e->sb, v.sb, (size_t)m->ns * sizeof e->sb[0]);
    }
    e->index = it->next++;
    return 1;
}

/* the model's result (and, where the unit defines them, its flags) */
static void model(const vmode *m, ventry *e)
{
    e->fl = 0;
    e->d = m->has_flags ? mma_dot_flags(&m->u, e->c, e->a, e->b, NULL, NULL, &e->fl)
                        : mma_dot(&m->u, e->c, e->a, e->b, m->ns ? e->sa : NULL, m->ns ? e->sb : NULL);
}

/* ---- tiles --------------------------------------------------------------------- */
/* The next tile of the item into e: max(M, N) vectors v0, v1, ... give
 * A's row i (v_i's a), B's column j (v_j's b) and C's column j (v_j's c),
 * so that element (i,i) is vector i itself and the others pair one
 * vector's a with another's b.  Short at the item's end: the missing
 * vectors repeat v0.  1, 0 at the item's end, -1 on error. */
static int tile_next(harness *h, vitem *it, const vmode *m, ventry *e)
{
    static ventry v[64];
    int M = m->M, N = m->N, K = m->u.k, P = M > N ? M : N, got = 0;
    for (; got < P; got++) {
        int rc = item_next(h, it, &v[got]);
        if (rc < 0) return -1;
        if (rc == 0) break;
    }
    if (!got) return 0;
    for (int p = got; p < P; p++) v[p] = v[0];
    if (!e->t) e->t = (uint64_t *)calloc(h->tile_words, sizeof *e->t);
    uint64_t *A = e->t, *B = A + M * K, *C = B + K * N, *D = C + M * N, col[MMA_MAX_K];
    for (int i = 0; i < M; i++) memcpy(A + i * K, v[i].a, (size_t)K * sizeof *A);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) B[k * N + j] = v[j].b[k];
    for (int j = 0; j < N; j++) {
        for (int k = 0; k < K; k++) col[k] = v[j].b[k];
        for (int i = 0; i < M; i++) {
            C[i * N + j] = v[j].c;
            if (m->td.off[i * N + j] >= 0) D[i * N + j] = mma_dot(&m->u, v[j].c, A + i * K, col, NULL, NULL);
        }
    }
    e->index = v[0].index;
    e->bin = e->bout = 0;
    return 1;
}

static void put_tile(const tlay *L, svBitVecVal *v, int bits, int beat, const uint64_t *x, uint64_t *rng)
{
    memset(v, 0, (size_t)words(bits) * sizeof *v);
    for (int i = 0; i < L->n; i++)
        if (L->beat[i] == beat && L->off[i] >= 0) mmaref_put_bits(v, L->off[i], L->slot, box(x[i], L->w, L->slot, L->box, rng));
}

/* beat e->bin of the tile e into the input buses */
static void tile_beat(harness *h, const vmode *m, ventry *e, svBitVecVal *a, svBitVecVal *b, svBitVecVal *c,
                      svBitVecVal *mo, svBitVecVal *tag)
{
    int K = m->u.k;
    const uint64_t *A = e->t, *B = A + m->M * K, *C = B + K * m->N;
    put_tile(&m->ta, a, h->aw, e->bin, A, &h->rng);
    put_tile(&m->tb, b, h->bw, e->bin, B, &h->rng);
    put_tile(&m->tc, c, h->cw, e->bin, C, &h->rng);
    if (h->mw) mmaref_put_bits(mo, 0, h->mw, m->value); else mo[0] = 0;
    tag[0] = 0;
    h->feeding = ++e->bin < m->bi;
}

/* ---- the queue --------------------------------------------------------------- */
static ventry *q_tail(harness *h)
{
    if (h->n == h->cap) {
        ventry *nq = (ventry *)calloc((size_t)h->cap * 2, sizeof *nq);
        for (int i = 0; i < h->n; i++) nq[i] = h->q[(h->head + i) % h->cap];
        free(h->q);
        h->q = nq;
        h->head = 0;
        h->cap *= 2;
        if (h->tag_slot)
            for (int i = 0; i < h->n; i++) if (h->q[i].live) h->tag_slot[h->q[i].tag] = i;
    }
    return &h->q[(h->head + h->n) % h->cap];
}

static int free_tag(harness *h, unsigned *tag)
{
    for (unsigned i = 0; i < h->ntags; i++) {
        unsigned t = (h->next_tag + i) % h->ntags;
        if (h->tag_slot[t] < 0) { *tag = t; h->next_tag = t + 1; return 1; }
    }
    return 0;
}

static int inflight(const harness *h)
{
    int live = 0;
    for (int i = 0; i < h->n; i++) live += h->q[(h->head + i) % h->cap].live;
    return live;
}

/* ---- the driver ----------------------------------------------------------------- */
static void put_operand(const oplay *L, svBitVecVal *v, int bits, int k, const uint64_t *x, uint64_t *rng)
{
    if (L->fast && k * L->w <= bits) {
        mmaref_pack(v, k, L->w, x);
        for (int i = words(k * L->w); i < words(bits); i++) v[i] = 0;
        return;
    }
    memset(v, 0, (size_t)words(bits) * sizeof *v);
    for (int i = 0; i < k; i++) mmaref_put_bits(v, L->off[i], L->slot, box(x[i], L->w, L->slot, L->box, rng));
}

static int no_vector(harness *h, int rc, svBitVecVal *a, svBitVecVal *b, svBitVecVal *c,
                     svBitVecVal *mo, svBitVecVal *tag)
{
    memset(a, 0, (size_t)words(h->aw) * sizeof *a);
    memset(b, 0, (size_t)words(h->bw) * sizeof *b);
    memset(c, 0, (size_t)words(h->cw) * sizeof *c);
    memset(mo, 0, (size_t)words(h->mw) * sizeof *mo);
    memset(tag, 0, (size_t)words(h->tw ? h->tw : 1) * sizeof *tag);
    return rc;
}

static void item_end(harness *h, vitem *it)
{
    if (it->done) return;
    it->done = 1;
    if (it->r) { mma_vec_close(it->r); it->r = NULL; }
    mmaref_res_print_item(stdout, it->res);
    fflush(stdout);
    (void)h;
}

int mmaref_vfy_push(void *hp, svBitVecVal *a, svBitVecVal *b, svBitVecVal *c, svBitVecVal *mo,
                    svBitVecVal *tag)
{
    harness *h = (harness *)hp;
    if (h->status == 2) return no_vector(h, -1, a, b, c, mo, tag);
    if (h->feeding) {
        /* the next beat of the tile going in: 3, a beat of an entry in flight */
        if (h->gaps && (int)(rng_next(&h->rng) & 255) < h->gaps) return no_vector(h, 0, a, b, c, mo, tag);
        ventry *f = &h->q[(h->head + h->n - 1) % h->cap];
        tile_beat(h, &h->modes[f->mode], f, a, b, c, mo, tag);
        return 3;
    }
    /* items run one after the other, the pipeline drained between them
     * (a mode port may be a static configuration input) */
    vitem *it;
    ventry *e;
    /* a mutation campaign stops at the first mismatch, at once (a unit
     * that gives results for no vector would never drain) */
    if (h->stop_first && h->mismatched) return no_vector(h, 4, a, b, c, mo, tag);
    for (;;) {
        if (h->cur >= h->nitems) return no_vector(h, 2, a, b, c, mo, tag);
        it = &h->items[h->cur];
        if (!it->started) {
            if (h->n) return no_vector(h, 0, a, b, c, mo, tag);
            if (item_start(h, it)) return no_vector(h, -1, a, b, c, mo, tag);
        }
        if (it->next < it->hi) break;
        if (h->n) return no_vector(h, 0, a, b, c, mo, tag);
        item_end(h, it);
        h->cur++;
    }
    if (h->gaps && (int)(rng_next(&h->rng) & 255) < h->gaps) return no_vector(h, 0, a, b, c, mo, tag);
    unsigned t = 0;
    if (h->tw && !free_tag(h, &t)) return no_vector(h, 0, a, b, c, mo, tag);
    e = q_tail(h);
    vmode *m = &h->modes[it->mode];
    int rc = m->tile ? tile_next(h, it, m, e) : item_next(h, it, e);
    if (rc <= 0) {
        if (h->tw && rc == 0) h->next_tag = t;   /* not taken */
        return no_vector(h, rc, a, b, c, mo, tag);
    }
    e->elem = -1;
    if (m->tile) {
        e->mode = it->mode;
        e->item = h->cur;
        e->live = 1;
        h->n++;
        tile_beat(h, m, e, a, b, c, mo, tag);
        return 1;
    }
    e->mode = it->mode;
    e->item = h->cur;
    e->live = 1;
    e->tag = t;
    model(m, e);
    if (h->watch) mmaref_tw_push(h->watch, e->d, it->mode);
    if (h->tw) h->tag_slot[t] = (h->head + h->n) % h->cap;
    h->n++;
    put_operand(&m->a, a, h->aw, m->u.k, e->a, &h->rng);
    put_operand(&m->b, b, h->bw, m->u.k, e->b, &h->rng);
    for (int i = 0; i < m->ns; i++) {
        mmaref_put_bits(a, m->sc_a.off[i], m->sc_a.slot, box(e->sa[i], 8, m->sc_a.slot, m->sc_a.box, &h->rng));
        mmaref_put_bits(b, m->sc_b.off[i], m->sc_b.slot, box(e->sb[i], 8, m->sc_b.slot, m->sc_b.box, &h->rng));
    }
    c[0] = 0;
    if (h->cw > 32) c[1] = 0;
    mmaref_put_bits(c, 0, h->cw, box(e->c, m->wc, h->cw, m->cbox, &h->rng));
    if (h->mw) mmaref_put_bits(mo, 0, h->mw, m->value); else mo[0] = 0;
    tag[0] = t;
    return 1;
}

/* ---- the monitor ------------------------------------------------------------------ */
/* The obvious class of a mismatch.  A finer triage (which step of the
 * algorithm differs) plugs in here. */
static int classify(const vmode *m, uint64_t expect, uint64_t got, int d_ok)
{
    if (d_ok) return MMAREF_CLS_FLAGS;
    mma_value x = mma_decode(m->u.d, expect), y = mma_decode(m->u.d, got);
    if (x.cls == MMA_NAN && y.cls == MMA_NAN) return MMAREF_CLS_NAN;
    if (x.cls == MMA_ZERO && y.cls == MMA_ZERO) return MMAREF_CLS_ZERO;
    return MMAREF_CLS_OTHER;
}

/* a vector line with the unit's d (and flags, for a unit with flags: the
 * model's where the unit has no flags port) */
static void vec_line(FILE *f, const vmode *m, const ventry *e, uint64_t d, unsigned flags)
{
    static mma_vec v;
    v.c = e->c;
    memcpy(v.a, e->a, (size_t)m->u.k * sizeof v.a[0]);
    memcpy(v.b, e->b, (size_t)m->u.k * sizeof v.b[0]);
    memcpy(v.sa, e->sa, (size_t)m->ns * sizeof v.sa[0]);
    memcpy(v.sb, e->sb, (size_t)m->ns * sizeof v.sb[0]);
    v.d = d;
    v.flags = flags;
    mma_vec_write(f, &m->u, &v);
}

static void vec_header(FILE *f, const vmode *m)
{
    mma_vec_write_header(f, &m->u);
    fprintf(f, "# mode: %s\n# source: mmaref verify %s (d is the unit's result; the model's in the comment above each line)\n",
            m->name, MMAREF_VERSION);
}

static void record(harness *h, vmode *m, const ventry *e, uint64_t got, unsigned fgot, int cls)
{
    const vitem *it = &h->items[e->item];
    int dd = mma_format(m->u.d)->hexdigits;
    if (!m->mism) {
        fmt(m->mism_path, sizeof m->mism_path, "%s/mismatches.%s.vec", h->out, m->name);
        m->mism = fopen(m->mism_path, "w");
        if (!m->mism) { fail(h, "%s: cannot write", m->mism_path); return; }
        vec_header(m->mism, m);
        if (h->res->nfiles < MMAREF_RES_MAX_LINES)
            fmt(h->res->files[h->res->nfiles++], sizeof h->res->files[0], "%s", m->mism_path);
    }
    int checked = h->fw && h->flagmask && m->has_flags;
    /* the flags field: the unit's, in the bits its port reports, the
     * model's in the others */
    unsigned fl = checked ? (fgot & h->flagmask) | (e->fl & ~h->flagmask) : e->fl;
    if (e->elem >= 0) {
        if (!m->mism_el) {
            char p[1200];
            fmt(p, sizeof p, "%s/mismatches.%s.elems", h->out, m->name);
            m->mism_el = fopen(p, "w");
        }
        if (m->mism_el) fprintf(m->mism_el, "%d\n", e->elem);
        if (m->lanes)
            fprintf(m->mism, "# %s vectors %ld.., lane %d: model d=%0*llx", it->label, e->index, e->elem, dd, (unsigned long long)e->d);
        else
            fprintf(m->mism, "# %s tile of vectors %ld.., element (%d,%d): model d=%0*llx", it->label, e->index,
                    e->elem / m->N, e->elem % m->N, dd, (unsigned long long)e->d);
    } else {
        fprintf(m->mism, "# %s vector %ld: model d=%0*llx", it->label, e->index, dd, (unsigned long long)e->d);
    }
    if (checked) fprintf(m->mism, ", flags model %02x unit %02x", e->fl & h->flagmask, fgot);
    fprintf(m->mism, " (%s)\n", mmaref_cls_names[cls]);
    vec_line(m->mism, m, e, got, fl);
    h->mismatched = 1;
    if (!h->res->has_first) {
        mmaref_results *r = h->res;
        r->has_first = 1;
        snprintf(r->first_mode, sizeof r->first_mode, "%s", m->name);
        snprintf(r->first_label, sizeof r->first_label, "%s", it->label);
        r->first_index = e->index;
        fmt(r->first_file, sizeof r->first_file, "%s/first_mismatch.vec", h->out);
        FILE *f = fopen(r->first_file, "w");
        if (f) {
            vec_header(f, m);
            fprintf(f, "# %s vector %ld: model d=%0*llx (%s)\n", it->label, e->index, dd,
                    (unsigned long long)e->d, mmaref_cls_names[cls]);
            vec_line(f, m, e, got, fl);
            fclose(f);
        }
    }
}

static void release(harness *h, ventry *e)
{
    e->live = 0;
    if (h->tw) h->tag_slot[e->tag] = -1;
    while (h->n && !h->q[h->head].live) {
        h->head = (h->head + 1) % h->cap;
        h->n--;
    }
}

static void unexpected(harness *h, const char *why)
{
    int i = h->cur < h->nitems ? h->cur : h->nitems - 1;
    if (i < 0) return;
    mmaref_res_item *r = h->items[i].res;
    r->mism++;
    r->cls[MMAREF_CLS_UNEXPECTED]++;
    h->mismatched = 1;
    if (r->cls[MMAREF_CLS_UNEXPECTED] == 1) {
        char note[256];
        snprintf(note, sizeof note, "the unit gave a result %s (%s %s)", why, r->mode, r->label);
        mmaref_res_note(h->res, note);
    }
}

/* a matching result kept for the triage (the nearest configuration must
 * keep them), or every result when the plan asks (the probe) */
static void sample(harness *h, vmode *m, const ventry *e)
{
    if (h->sample_keep >= 0 && m->nsample >= h->sample_keep) return;
    if (!m->sample) {
        char p[1200];
        fmt(p, sizeof p, "%s/sample.%s.vec", h->out, m->name);
        if (!(m->sample = fopen(p, "w"))) { h->sample_keep = 0; return; }
        vec_header(m->sample, m);
        if (m->tile) {
            fmt(p, sizeof p, "%s/sample.%s.elems", h->out, m->name);
            m->sample_el = fopen(p, "w");
        }
    }
    m->nsample++;
    vec_line(m->sample, m, e, e->d, e->fl);
    if (m->sample_el) fprintf(m->sample_el, "%d\n", e->elem);
}

/* a beat of D: the last one checks the tile element by element */
static int tile_pop(harness *h, const svBitVecVal *d)
{
    if (!h->n || (h->feeding && h->n == 1)) { unexpected(h, h->n ? "before its tile was all in" : "with no tile in flight"); return 1; }
    ventry *e = &h->q[h->head];
    vmode *m = &h->modes[e->mode];
    int M = m->M, N = m->N, K = m->u.k;
    uint64_t *A = e->t, *B = A + M * K, *C = B + K * N, *D = C + M * N, *G = D + M * N;
    for (int i = 0; i < M * N; i++)
        if (m->td.beat[i] == e->bout && m->td.off[i] >= 0) G[i] = mmaref_get_bits(d, m->td.off[i], m->td.slot);
    if (++e->bout < m->bo) return 2;
    mmaref_res_item *r = h->items[e->item].res;
    static ventry x;
    int bad = 0;
    x.mode = e->mode;
    x.item = e->item;
    x.index = e->index;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int el = i * N + j;
            if (m->td.off[el] < 0) continue;
            uint64_t got = G[el] & ones(m->wd);
            x.elem = m->lanes ? i : el;
            x.fl = 0;
            x.c = C[el];
            x.d = D[el];
            memcpy(x.a, A + i * K, (size_t)K * sizeof x.a[0]);
            for (int k = 0; k < K; k++) x.b[k] = B[k * N + j];
            /* the model's flags go into the files (no flags port here) */
            if (m->has_flags) mma_dot_flags(&m->u, x.c, x.a, x.b, NULL, NULL, &x.fl);
            int ok = box_ok(G[el], m->wd, m->td.slot, m->td.box) && mma_result_equal(&m->u, x.d, got);
            mmaref_tbk_sb_record(m->sb, x.c, x.a, x.b, x.d, got, 0, 0, -1);
            r->n++;
            if (ok) { sample(h, m, &x); continue; }
            int cls = classify(m, x.d, got, 0);
            r->mism++;
            r->cls[cls]++;
            record(h, m, &x, got, 0, cls);
            bad = 1;
        }
    release(h, e);
    return bad;
}

int mmaref_vfy_pop(void *hp, const svBitVecVal *d, const svBitVecVal *flags, const svBitVecVal *tag)
{
    harness *h = (harness *)hp;
    ventry *e;
    if (h->modes[0].tile) return tile_pop(h, d);
    if (h->tw) {
        unsigned t = (unsigned)mmaref_get_bits(tag, 0, h->tw < 16 ? h->tw : 16);
        int s = t < h->ntags ? h->tag_slot[t] : -1;
        if (s < 0) { unexpected(h, "with a tag no vector in flight has"); return 1; }
        e = &h->q[s];
    } else {
        if (!h->n) { unexpected(h, "with no vector in flight"); return 1; }
        e = &h->q[h->head];
    }
    vmode *m = &h->modes[e->mode];
    uint64_t raw = mmaref_get_bits(d, 0, h->dw), got = raw & ones(m->wd);
    int d_ok = box_ok(raw, m->wd, h->dw, m->dbox) && mma_result_equal(&m->u, e->d, got);
    unsigned fgot = 0;
    int f_ok = 1;
    if (h->fw && h->flagmask && m->has_flags) {
        uint64_t fr = mmaref_get_bits(flags, 0, h->fw);
        for (int i = 0; i < h->fw; i++)
            if (h->flagbit[i] >= 0 && ((fr >> i) & 1)) fgot |= 1u << h->flagbit[i];
        f_ok = fgot == (e->fl & h->flagmask);
    }
    mmaref_tbk_sb_record(m->sb, e->c, e->a, e->b, e->d, got, 0, 0, -1);
    if (h->watch) mmaref_tw_pop(h->watch, got);
    mmaref_res_item *r = h->items[e->item].res;
    r->n++;
    int bad = !(d_ok && f_ok);
    if (!bad) sample(h, m, e);
    if (bad) {
        int cls = classify(m, e->d, got, d_ok);
        r->mism++;
        r->cls[cls]++;
        record(h, m, e, got, fgot, cls);
    }
    release(h, e);
    return bad;
}

/* ---- timing ------------------------------------------------------------------------- */
int mmaref_vfy_watch(void *hp, int taken, const svBitVecVal *d)
{
    harness *h = (harness *)hp;
    return h->watch ? mmaref_tw_edge(h->watch, taken, mmaref_get_bits(d, 0, h->dw)) : 0;
}

static int tw_equal(void *ctx, int mode, uint64_t want, uint64_t got)
{
    const vmode *m = &((harness *)ctx)->modes[mode];
    return mma_result_equal(&m->u, want, got & ones(m->wd));
}

/* Most vectors wrong (or the latency to measure): which timing explains
 * them?  The finding goes into the report, and into <out>/timing for the
 * command: "<best> <vectors it explains> <compared> <explained as given>
 * <1 when it is the report's finding and explains every vector, 2 most>". */
static void timing(harness *h)
{
    long n, mism, cls[MMAREF_CLS_COUNT];
    mmaref_res_totals(h->res, &n, &mism, cls);
    mmaref_tw_fit fit;
    if (!h->watch || (!h->measure && 2 * mism <= n) || mmaref_tw_best(h->watch, h->measure, tw_equal, h, &fit)) return;
    char note[512], path[1100];
    int found = !h->measure && mmaref_tw_note(h->watch, &fit, note, sizeof note);
    if (found) mmaref_res_note(h->res, note);
    if (found && fit.match < fit.compared) found = 2;     /* the unit has other faults too */
    fmt(path, sizeof path, "%s/timing", h->out);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%d %ld %ld %ld %d\n", fit.shift, fit.match, fit.compared, fit.match_given, found);
    fclose(f);
}

/* ---- the end ---------------------------------------------------------------------- */
static int finish(harness *h, long long cycles)
{
    for (int i = h->cur; i < h->nitems; i++)
        if (h->items[i].started || i == h->cur) item_end(h, &h->items[i]);
    for (int i = 0; i < h->nmodes; i++) {
        vmode *m = &h->modes[i];
        if (m->mism) fclose(m->mism);
        m->mism = NULL;
        if (m->mism_el) fclose(m->mism_el);
        if (m->sample) fclose(m->sample);
        if (m->sample_el) fclose(m->sample_el);
        m->mism_el = m->sample = m->sample_el = NULL;
        int hit, bins;
        mmaref_tbk_sb_coverage(m->sb, &hit, &bins);
        if (h->res->ncov < MMAREF_RES_MAX_COV) {
            snprintf(h->res->cov[h->res->ncov].mode, sizeof h->res->cov[0].mode, "%s", m->name);
            h->res->cov[h->res->ncov].hit = hit;
            h->res->cov[h->res->ncov++].bins = bins;
        }
    }
    struct timespec c1, cpu1;
    clock_gettime(CLOCK_MONOTONIC, &c1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
    h->res->cycles = cycles;
    h->res->seconds = (double)(c1.tv_sec - h->c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - h->c0.tv_nsec);
    h->res->cpu = (double)(cpu1.tv_sec - h->cpu0.tv_sec) + 1e-9 * (double)(cpu1.tv_nsec - h->cpu0.tv_nsec);
    timing(h);
    long n, mism, cls[MMAREF_CLS_COUNT];
    mmaref_res_totals(h->res, &n, &mism, cls);
    /* a run that checked nothing proves nothing: it fails */
    if (!n && h->status != 2) mmaref_res_note(h->res, "0 vectors: nothing was checked");
    char path[1100];
    fmt(path, sizeof path, "%s/results", h->out);
    if (mmaref_res_write(h->res, path)) fail(h, "%s: cannot write", path);
    if (h->status != 2) h->status = mism || !n ? 1 : 0;
    exit_status = h->status;
    return h->status;
}

int mmaref_vfy_finish(void *hp, long long cycles) { return finish((harness *)hp, cycles); }

static void no_result(harness *h, const char *note)
{
    mmaref_res_note(h->res, note);
    for (int i = 0; i < h->n; i++) {
        ventry *e = &h->q[(h->head + i) % h->cap];
        if (!e->live) continue;
        mmaref_res_item *r = h->items[e->item].res;
        r->n++;
        r->mism++;
        r->cls[MMAREF_CLS_NORESULT]++;
        e->live = 0;
    }
    h->n = 0;
}

int mmaref_vfy_stall(void *hp, int idle, int input_blocked, long long cycles)
{
    harness *h = (harness *)hp;
    char note[256];
    int n = inflight(h);
    if (input_blocked)
        snprintf(note, sizeof note, "the unit took no input for %d cycles (its input ready stayed low), %d vectors in flight", idle, n);
    else
        snprintf(note, sizeof note, "the unit gave no result for %d cycles with %d vectors in flight", idle, n);
    no_result(h, note);
    return finish(h, cycles);
}

int mmaref_vfy_status(void) { return exit_status; }

void mmaref_vfy_timeout(double seconds, long long cycles)
{
    harness *h = the;
    if (!h) return;
    char note[256];
    snprintf(note, sizeof note, "stopped by the time limit (%.0f s) after %lld cycles", seconds, cycles);
    no_result(h, note);
    finish(h, cycles);
    if (exit_status == 0) exit_status = 1;
}

#ifdef __cplusplus
}
#endif
