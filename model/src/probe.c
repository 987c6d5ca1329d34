/* The black-box probe: which configuration reproduces a unit's outputs?
 *
 * A search over configuration strings of the observations' shape (formats,
 * k and block scales are given; the arithmetic is not):
 *   1. the output precision p is read off the outputs (the low fraction
 *      bits that are never set: an "e8m13" output leaves ten);
 *   2. a grid of the summation trees (one fused step, chained steps of l,
 *      AMD's even/odd and round-down forms, exact, pairwise, fma) crossed
 *      with F, the output rounding and the alignment cut is raced over the
 *      observations with finite operands, where zero terms, NaN and zero
 *      rules do not matter;
 *   3. from the best few, coordinate descent over every parameter (tree and
 *      chaining, F, rounding, p, cut, flushed inputs, ezero, NaN and zero
 *      rules, AMD's F2 and product overflow), each on the observations it
 *      can change (ezero only matters where a term is zero, the NaN rule
 *      where an operand is Inf or NaN, flushing where one is subnormal);
 *   4. the findings: for each parameter, how many observations the
 *      neighbouring values would get wrong.
 * Candidates are raced (successive halving): all run on a first batch of
 * observations, those clearly behind the best are dropped, the rest go on
 * to batches four times larger; so hundreds of candidates over 50,000
 * vectors cost about as much as a few full passes.  The order of the
 * observations is shuffled once (deterministically), so that every batch
 * samples the whole file; every figure is a count, the same for any
 * number of threads. */
#include "internal.h"
#include "mmaref_parallel.h"
#include "mmaref_triage.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EZ_NONE INT_MIN

enum { NAN_IEEE, NAN_CANON, NAN_ANY, NAN_CANON_ANY, NAN_PROP };
/* the sign of an exact zero (zero=): fixed, pos, ieee */
enum { Z_FIXED, Z_POS, Z_IEEE };

/* the parameters searched; everything else comes from the shape */
typedef struct {
    mma_tree tree;
    mma_cadd cadd;
    int l, interleave, g;
    int f, f2, p;
    mma_rounding rho, align;
    int ezero;             /* EZ_NONE: zero terms take no part */
    int ftz, povf, nan, zero_pos;   /* zero_pos: Z_* */
    int via;               /* e4m3/e5m2 converted to fp16 first */
    int tiny;              /* the ieee tree: tininess before rounding */
    int neg;               /* negated products */
} spec;

typedef struct {
    spec s;
    mma_unit u;
    long mism;             /* on the observations raced so far */
} cand;

typedef struct {
    const mma_obs *o;
    int threads;
    long candidates, dots;
    size_t *all, nall;                 /* the (shuffled) observations searched */
    size_t *core, ncore;               /* finite operands                      */
    size_t *zeros, nzeros;             /* a zero term (a product or c)         */
    size_t *subn, nsubn;               /* a subnormal operand                  */
    size_t *spec, nspec;               /* an Inf or NaN operand, or a NaN out  */
    int p_seen;                        /* output fraction bits ever set        */
    int ez_lo, ez_hi;                  /* where ezero can matter               */
    int has_povf;                      /* products can reach 2^128             */
} probe;

/* ---- configuration strings of specs ------------------------------------- */

static const char *tree_name[] = {"fused", "evenodd", "groups", "pairwise", "fma", "exact", "ieee"};
static const char *rnd_name[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};
static const char *cadd_name[] = {"fused", "rd", "rdz", "after"};
static const char *nan_name[] = {"default", "canon", "any", "canon+any", "prop"};
static const char *zero_name[] = {"fixed", "pos", "ieee"};
static const char *zero_words[] = {"+0 when exactly zero (a sum rounded to zero keeps its sign)", "always +0", "IEEE 754 signs (6.3)"};

#define APPEND(...) do { int w_ = snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, __VA_ARGS__); \
                         if (w_ > 0) n += (size_t)w_; } while (0)

/* the trees of the host's IEEE operations (fma, pairwise fp32 adds) */
static int ieee_tree(mma_tree t) { return t == MMA_TREE_FMA || t == MMA_TREE_PAIRWISE; }
/* exact sums rounded once per step (CDNA1's, and IEEE 754's with flags) */
static int exact_tree(mma_tree t) { return t == MMA_TREE_EXACT || t == MMA_TREE_IEEE; }
static int has_ezero(const spec *s)
{
    return !exact_tree(s->tree) && !ieee_tree(s->tree) &&
           (s->cadd == MMA_CADD_FUSED || s->cadd == MMA_CADD_AFTER);
}
static int can_neg(const spec *s)
{
    return exact_tree(s->tree) || (s->tree == MMA_TREE_FUSED && (s->cadd == MMA_CADD_FUSED || s->cadd == MMA_CADD_AFTER));
}

/* The unit of spec s in the shape of the observations; -1 when the
 * combination is not a valid configuration. */
static int spec_unit(const probe *P, const spec *s, mma_unit *u)
{
    const mma_unit *sh = &P->o->shape;
    char buf[512];
    size_t n = 0;
    APPEND("%s,a=%s,b=%s,c=%s,d=%s,k=%d", tree_name[s->tree], mma_format(sh->a)->name,
           mma_format(sh->b)->name, mma_format(sh->c)->name, mma_format(sh->d)->name, sh->k);
    if (sh->scale != MMA_FMT_NONE) APPEND(",scale=%s,block=%d", mma_format(sh->scale)->name, sh->block);
    if (ieee_tree(s->tree)) {
        if (s->tree == MMA_TREE_PAIRWISE) APPEND(",g=%d", s->g);
        if (s->nan == NAN_ANY) APPEND(",nan=any");
        else if (s->nan != NAN_IEEE) return -1;
    } else if (s->tree == MMA_TREE_IEEE) {
        APPEND(",l=%d,round=%s,nan=%s,zero=%s", s->l, rnd_name[s->rho], nan_name[s->nan], zero_name[s->zero_pos]);
        if (s->tiny) APPEND(",tiny=before");
    } else {
        APPEND(",l=%d,round=%s,p=%d,nan=%s,zero=%s", s->l, rnd_name[s->rho], s->p, nan_name[s->nan],
               zero_name[s->zero_pos]);   /* (fixed: the sign rule zero=ieee meant before IEEE 754 6.3 semantics came) */
        if (s->tree != MMA_TREE_EXACT) APPEND(",f=%d,align=%s", s->f, rnd_name[s->align]);
        if (s->tree != MMA_TREE_EXACT && s->cadd != MMA_CADD_FUSED) APPEND(",cadd=%s", cadd_name[s->cadd]);
        if (s->cadd == MMA_CADD_RD || s->cadd == MMA_CADD_RDZ) APPEND(",f2=%d", s->f2);
        if (s->interleave) APPEND(",interleave=%d", s->interleave);
        if (s->tree == MMA_TREE_GROUPS) APPEND(",g=%d", s->g);
        if (has_ezero(s)) {
            if (s->ezero == EZ_NONE) APPEND(",ezero=none");
            else APPEND(",ezero=%d", s->ezero);
        }
        if (s->ftz) APPEND(",ftz=in");
        if (s->via) APPEND(",via=fp16");
        if (s->povf) APPEND(",povf=1");
    }
    if (s->neg) APPEND(",neg=1");
    if (n >= sizeof buf) return -1;
    return mma_unit_parse(buf, u, NULL, 0);
}

static spec spec_of(const mma_unit *u)
{
    spec s;
    memset(&s, 0, sizeof s);
    s.tree = u->tree;
    s.cadd = u->cadd;
    s.l = u->lmax;
    s.interleave = u->interleave;
    s.g = u->g;
    s.f = u->f;
    s.f2 = u->f2;
    s.p = u->p;
    s.rho = u->rho;
    s.align = u->align;
    s.ezero = (u->flags & MMA_F_NO_EZERO) ? EZ_NONE : u->ezero;
    s.ftz = u->tree != MMA_TREE_PAIRWISE && (u->flags & MMA_F_FTZ_IN);
    s.povf = (u->flags & MMA_F_PROD_OVF) != 0;
    s.via = (u->flags & MMA_F_VIA_FP16) != 0;
    s.nan = (u->flags & MMA_F_NAN_CANON) ? ((u->flags & MMA_F_NAN_ANY) ? NAN_CANON_ANY : NAN_CANON)
          : (u->flags & MMA_F_NAN_PROP) ? NAN_PROP : ((u->flags & MMA_F_NAN_ANY) ? NAN_ANY : NAN_IEEE);
    s.zero_pos = (u->flags & MMA_F_ZERO_POS) ? Z_POS : (u->flags & MMA_F_ZERO_IEEE) ? Z_IEEE : Z_FIXED;
    s.tiny = (u->flags & MMA_F_TINY_BEFORE) != 0;
    s.neg = (u->flags & MMA_F_NEG) != 0;
    return s;
}

/* ---- evaluation ------------------------------------------------------------ */

typedef struct {
    probe *P;
    cand *cs;
    const int *alive;
    int nalive;
    const size_t *idx;
    long *cnt;             /* [thread][alive] */
} evjob;

static void ev_chunk(void *ctx, int tid, long lo, long hi)
{
    evjob *J = ctx;
    const mma_obs *o = J->P->o;
    size_t k = (size_t)o->shape.k, ns = (size_t)o->ns;
    for (int j = 0; j < J->nalive; j++) {
        const mma_unit *u = &J->cs[J->alive[j]].u;
        long m = 0;
        /* observations with the unit's exception flags: a unit with flags
         * must give them too; one without gives none */
        int flags = o->has_flags, uflags = flags && mma_unit_has_flags(u);
        for (long i = lo; i < hi; i++) {
            size_t v = J->idx[i];
            unsigned fl = 0;
            uint64_t d = uflags ? mma_dot_flags(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL,
                                                ns ? o->sb + v * ns : NULL, &fl)
                                : mma_dot(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL,
                                          ns ? o->sb + v * ns : NULL);
            m += !mma_result_equal(u, d, o->d[v]) || (flags && fl != o->flags[v]);
        }
        J->cnt[(size_t)tid * (size_t)J->nalive + (size_t)j] += m;
    }
}

/* Adds to cs[alive[j]].mism the mismatches over idx[lo..hi). */
static void evaluate(probe *P, cand *cs, const int *alive, int nalive, const size_t *idx, size_t lo, size_t hi)
{
    if (nalive == 0 || hi <= lo) return;
    int threads = P->threads;
    long *cnt = calloc((size_t)threads * (size_t)nalive, sizeof *cnt);
    if (!cnt) abort();
    evjob J = {P, cs, alive, nalive, idx + lo, cnt};
    long count = (long)(hi - lo);
    long chunk = (count + threads * 4 - 1) / (threads * 4);
    if (chunk < 64) chunk = 64;
    mma_parallel_for(count, chunk, threads, ev_chunk, &J, NULL, NULL);
    for (int t = 0; t < threads; t++)
        for (int j = 0; j < nalive; j++) cs[alive[j]].mism += cnt[(size_t)t * (size_t)nalive + (size_t)j];
    P->dots += (long)nalive * count;
    free(cnt);
}

static int by_mism(const void *x, const void *y, void *cs_)
{
    const cand *cs = cs_;
    int i = *(const int *)x, j = *(const int *)y;
    if (cs[i].mism != cs[j].mism) return cs[i].mism < cs[j].mism ? -1 : 1;
    return i < j ? -1 : i > j;     /* ties: the order given (the preference) */
}

/* Races the n candidates over idx[0..nidx): batches of 64, 256, 1024, ...
 * observations; after each, those with more than twice the best's
 * mismatches (plus a few) are dropped.  The survivors, at most keep, are
 * moved to the front of cs sorted by their mismatches over all of idx
 * (ties in the given order); returns their number. */
static int race(probe *P, cand *cs, int n, const size_t *idx, size_t nidx, int keep)
{
    P->candidates += n;
    int *alive = malloc(sizeof(int) * (n > 0 ? (size_t)n : 1));
    if (!alive) abort();
    int na = n;
    for (int i = 0; i < n; i++) { alive[i] = i; cs[i].mism = 0; }
    size_t done = 0, batch = 64;
    while (done < nidx && na > 0) {
        size_t end = nidx - done > batch ? done + batch : nidx;
        if (end < nidx && nidx - end < batch) end = nidx;     /* no small last batch */
        evaluate(P, cs, alive, na, idx, done, end);
        done = end;
        batch *= 4;
        long best = LONG_MAX;
        for (int j = 0; j < na; j++) if (cs[alive[j]].mism < best) best = cs[alive[j]].mism;
        if (done == nidx) break;
        int w = 0;
        for (int j = 0; j < na; j++) if (cs[alive[j]].mism <= 2 * best + 4) alive[w++] = alive[j];
        na = w;
        /* where even the best is far off, the margin keeps too many: past
         * the first batches only the leaders go on */
        int cap = keep * 16 > 64 ? keep * 16 : 64;
        if (done >= 256 && na > cap) {
            qsort_r(alive, (size_t)na, sizeof *alive, by_mism, cs);
            na = cap;
        }
    }
    qsort_r(alive, (size_t)na, sizeof *alive, by_mism, cs);
    if (na > keep) na = keep;
    cand *tmp = malloc(sizeof(cand) * (na > 0 ? (size_t)na : 1));
    if (!tmp) abort();
    for (int j = 0; j < na; j++) tmp[j] = cs[alive[j]];
    if (na > 0) memcpy(cs, tmp, sizeof(cand) * (size_t)na);
    free(tmp);
    free(alive);
    return na;
}

/* Mismatches of one unit over idx (exact). */
static long mismatches(probe *P, const mma_unit *u, const size_t *idx, size_t nidx)
{
    cand c;
    memset(&c, 0, sizeof c);
    c.u = *u;
    int zero = 0;
    evaluate(P, &c, &zero, 1, idx, 0, nidx);
    return c.mism;
}

/* ---- candidate lists ------------------------------------------------------- */

/* a list of candidates without repeats (a hash of the units' content) */
typedef struct { cand *v; int n, cap; uint32_t *h; size_t hcap; } clist;

#define UNIT_KEY(u) ((const unsigned char *)&(u)->a)
#define UNIT_KEY_LEN (sizeof(mma_unit) - offsetof(mma_unit, a))

static uint64_t unit_hash(const mma_unit *u)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < UNIT_KEY_LEN; i++) h = (h ^ UNIT_KEY(u)[i]) * 0x100000001b3ull;
    return h;
}

static void cl_clear(clist *L)
{
    L->n = 0;
    if (L->h) memset(L->h, 0, sizeof(uint32_t) * L->hcap);
}

static void cl_free(clist *L)
{
    free(L->v);
    free(L->h);
    memset(L, 0, sizeof *L);
}

static void cl_rehash(clist *L, size_t hcap)
{
    free(L->h);
    L->hcap = hcap;
    L->h = calloc(hcap, sizeof(uint32_t));       /* slot: index + 1, 0 empty */
    if (!L->h) abort();
    for (int i = 0; i < L->n; i++) {
        size_t j = unit_hash(&L->v[i].u) & (hcap - 1);
        while (L->h[j]) j = (j + 1) & (hcap - 1);
        L->h[j] = (uint32_t)i + 1;
    }
}

static void cl_add(const probe *P, clist *L, const spec *s)
{
    mma_unit u;
    if (spec_unit(P, s, &u)) return;
    if ((size_t)L->n * 2 >= L->hcap) cl_rehash(L, L->hcap ? 2 * L->hcap : 1024);
    size_t j = unit_hash(&u) & (L->hcap - 1);
    for (; L->h[j]; j = (j + 1) & (L->hcap - 1))   /* the same unit twice: keep the first */
        if (!memcmp(UNIT_KEY(&L->v[L->h[j] - 1].u), UNIT_KEY(&u), UNIT_KEY_LEN)) return;
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 256;
        L->v = realloc(L->v, sizeof(cand) * (size_t)L->cap);
        if (!L->v) abort();
    }
    L->h[j] = (uint32_t)L->n + 1;
    L->v[L->n].s = s[0];
    L->v[L->n].u = u;
    L->v[L->n].mism = 0;
    L->n++;
}

static int divisors_desc(int k, int *out)
{
    int n = 0;
    for (int l = k; l >= 1; l--) if (k % l == 0) out[n++] = l;
    return n;
}

/* The summation structures, simplest first: one fused step, then chained
 * steps of l (each run of `interleave` products going round-robin to the
 * steps), c fused or added at the end; AMD's round-down forms; exact sums,
 * pairwise sums, sequential fma. */
static void add_structures(const probe *P, clist *L, const spec *base)
{
    const mma_unit *sh = &P->o->shape;
    int div[MMA_MAX_K], nd = divisors_desc(sh->k, div);
    int gdiv[MMA_MAX_K], ng = sh->scale != MMA_FMT_NONE ? divisors_desc(sh->block, gdiv) : 0;
    spec s = *base;
    if (P->o->has_flags) {
        /* a unit that reports IEEE exception flags computes as IEEE 754
         * says: only the ieee tree defines them */
        spec e = s;
        e.tree = MMA_TREE_IEEE;
        e.cadd = MMA_CADD_FUSED;
        e.interleave = 0;
        if (e.nan == NAN_CANON || e.nan == NAN_CANON_ANY) e.nan = NAN_IEEE;
        if (e.zero_pos == Z_POS) e.zero_pos = Z_IEEE;
        for (int i = 0; i < nd; i++) { e.l = div[i]; cl_add(P, L, &e); }
        return;
    }
    s.tree = MMA_TREE_FUSED;
    for (int ca = 0; ca < 2; ca++)
        for (int i = 0; i < nd; i++) {
            s.cadd = ca ? MMA_CADD_AFTER : MMA_CADD_FUSED;
            s.l = div[i];
            s.interleave = 0;
            cl_add(P, L, &s);
            if (div[i] == sh->k) continue;
            for (int r = div[i] / 2; r >= 1; r--)
                if (div[i] % r == 0) { s.interleave = r; cl_add(P, L, &s); }
        }
    s.interleave = 0;
    for (int i = 0; i < ng; i++) {
        s.tree = MMA_TREE_GROUPS;
        s.cadd = MMA_CADD_FUSED;
        s.l = sh->k;
        s.g = gdiv[i];
        cl_add(P, L, &s);
    }
    static const struct { mma_tree t; mma_cadd c; } amd[] = {
        {MMA_TREE_FUSED, MMA_CADD_RD}, {MMA_TREE_EVENODD, MMA_CADD_RDZ}, {MMA_TREE_EVENODD, MMA_CADD_RD},
        {MMA_TREE_FUSED, MMA_CADD_RDZ}};
    for (size_t j = 0; j < sizeof amd / sizeof amd[0]; j++)
        for (int i = 0; i < nd; i++) {
            s.tree = amd[j].t;
            s.cadd = amd[j].c;
            s.l = div[i];
            if (s.f2 < s.f || s.f2 > 40) s.f2 = s.f + 7;
            cl_add(P, L, &s);
        }
    s.cadd = MMA_CADD_FUSED;
    spec e = s;
    s.tree = MMA_TREE_EXACT;
    s.tiny = 0;
    for (int i = 0; i < nd; i++) { s.l = div[i]; cl_add(P, L, &s); }
    /* the IEEE trees know no canonical NaN */
    if (s.nan == NAN_CANON) s.nan = NAN_IEEE;
    if (s.nan == NAN_CANON_ANY) s.nan = NAN_ANY;
    s.neg = 0;
    s.tree = MMA_TREE_PAIRWISE;
    for (int g = 1; g <= sh->k; g *= 2) { s.g = g; cl_add(P, L, &s); }
    s.tree = MMA_TREE_FMA;
    cl_add(P, L, &s);
    /* IEEE 754 units (with their semantics of NaN and zeros); a step of
     * one product is a fused multiply-add, l=1 a chain of them.  Last:
     * where a hardware family (DMMA's fma) does as well, it is named */
    e.tree = MMA_TREE_IEEE;
    if (e.nan == NAN_CANON || e.nan == NAN_CANON_ANY) e.nan = NAN_IEEE;
    if (e.zero_pos == Z_POS) e.zero_pos = Z_IEEE;
    for (int i = 0; i < nd; i++) { e.l = div[i]; cl_add(P, L, &e); }
}

/* The dimensions in the order the descent takes them: those that only
 * matter on a part of the observations (zero terms, specials) first, so
 * that a wrong ezero is not made up for by a wrong F over all of them. */
enum { D_EZERO, D_NAN, D_ZERO, D_P, D_STRUCT, D_F, D_RHO, D_ALIGN, D_FTZ, D_VIA, D_F2, D_POVF, D_NEG, D_TINY, D_COUNT };

/* The current spec first (ties keep it), then the values of one dimension;
 * *sub gets the observations where they can differ. */
static void dim_list(probe *P, const spec *cur, int dim, clist *L, const size_t **sub, size_t *nsub,
                     int cur_first)
{
    const mma_unit *sh = &P->o->shape;
    int mb = mma_format(sh->d)->mbits;
    spec s = *cur;
    cl_clear(L);
    if (cur_first) cl_add(P, L, cur);
    *sub = P->all;
    *nsub = P->nall;
    switch (dim) {
    case D_STRUCT:
        add_structures(P, L, cur);
        break;
    case D_F:
        if (ieee_tree(cur->tree) || exact_tree(cur->tree)) break;
        for (int f = 1; f <= 48; f++) {
            s.f = f;
            if (cur->cadd == MMA_CADD_RD || cur->cadd == MMA_CADD_RDZ) s.f2 = cur->f2 < f ? f : cur->f2;
            cl_add(P, L, &s);
        }
        break;
    case D_RHO:
        for (int r = 0; r < 6; r++) { s.rho = (mma_rounding)r; cl_add(P, L, &s); }
        break;
    case D_P:
        if (cur->tree == MMA_TREE_IEEE) break;
        s.p = P->p_seen; cl_add(P, L, &s);
        s.p = mb; cl_add(P, L, &s);
        break;
    case D_ALIGN:
        for (int r = 0; r < 4; r += 2) { s.align = (mma_rounding)r; cl_add(P, L, &s); }
        break;
    case D_FTZ:
        for (int v = 0; v < 2; v++) { s.ftz = v; cl_add(P, L, &s); }
        *sub = P->subn;
        *nsub = P->nsubn;
        break;
    case D_EZERO:
        if (!has_ezero(cur)) break;
        s.ezero = EZ_NONE;
        cl_add(P, L, &s);
        /* c=+0 starts every step of cadd=after: then every vector counts */
        if (cur->cadd != MMA_CADD_AFTER) { *sub = P->zeros; *nsub = P->nzeros; }
        break;
    case D_VIA:
        /* only where a subnormal e4m3/e5m2 operand becomes a normal fp16 */
        for (int v = 0; v < 2; v++) { s.via = v; cl_add(P, L, &s); }
        *sub = P->subn;
        *nsub = P->nsubn;
        break;
    case D_NAN: {
        static const int pref[5] = {NAN_CANON, NAN_IEEE, NAN_CANON_ANY, NAN_ANY, NAN_PROP};
        for (int v = 0; v < 5; v++) { s.nan = pref[v]; cl_add(P, L, &s); }
        if (!cur->povf) { *sub = P->spec; *nsub = P->nspec; }
        break;
    }
    case D_ZERO: {
        static const int pref[3] = {Z_POS, Z_IEEE, Z_FIXED};
        for (int v = 0; v < 3; v++) { s.zero_pos = pref[v]; cl_add(P, L, &s); }
        break;
    }
    case D_NEG:
        if (!can_neg(cur)) break;
        for (int v = 0; v < 2; v++) { s.neg = v; cl_add(P, L, &s); }
        break;
    case D_TINY:
        /* only the underflow flag tells */
        if (cur->tree != MMA_TREE_IEEE || !P->o->has_flags) break;
        for (int v = 0; v < 2; v++) { s.tiny = v; cl_add(P, L, &s); }
        break;
    case D_F2:
        if (cur->cadd != MMA_CADD_RD && cur->cadd != MMA_CADD_RDZ) break;
        for (int f2 = cur->f; f2 <= 40; f2++) { s.f2 = f2; cl_add(P, L, &s); }
        break;
    case D_POVF:
        if (!P->has_povf) break;
        for (int v = 0; v < 2; v++) { s.povf = v; cl_add(P, L, &s); }
        break;
    }
}

/* ---- preparation ------------------------------------------------------------ */

static void classify_obs(probe *P)
{
    const mma_obs *o = P->o;
    const mma_unit *sh = &o->shape;
    size_t k = (size_t)sh->k, ns = (size_t)o->ns;
    P->core = malloc(sizeof(size_t) * (P->nall ? P->nall : 1));
    P->zeros = malloc(sizeof(size_t) * (P->nall ? P->nall : 1));
    P->subn = malloc(sizeof(size_t) * (P->nall ? P->nall : 1));
    P->spec = malloc(sizeof(size_t) * (P->nall ? P->nall : 1));
    if (!P->core || !P->zeros || !P->subn || !P->spec) abort();
    int lo = INT_MAX, hi = INT_MIN;
    int mb = mma_format(sh->d)->mbits, pmax = 0;
    for (size_t j = 0; j < P->nall; j++) {
        size_t v = P->all[j];
        int special = 0, zero = 0, sub = 0;
        int emin = INT_MAX, emax = INT_MIN;
        mma_term tc = mma_term_of(sh->c, o->c[v]);
        if (tc.cls == MMA_INF || tc.cls == MMA_NAN) special = 1;
        else if (tc.cls == MMA_ZERO) zero = 1;
        else {
            if (tc.sig >> tc.fb == 0) sub = 1;
            emin = emax = tc.e;
        }
        for (size_t i = 0; i < k; i++) {
            mma_term x = mma_term_of(sh->a, o->a[v * k + i]), y = mma_term_of(sh->b, o->b[v * k + i]);
            if (x.cls == MMA_INF || x.cls == MMA_NAN || y.cls == MMA_INF || y.cls == MMA_NAN) special = 1;
            else if (x.cls == MMA_ZERO || y.cls == MMA_ZERO) zero = 1;
            else {
                if (x.sig >> x.fb == 0 || y.sig >> y.fb == 0) sub = 1;
                int e = x.e + y.e;
                if (e < emin) emin = e;
                if (e > emax) emax = e;
            }
        }
        for (size_t i = 0; i < ns; i++) {
            mma_value s1 = mma_decode(sh->scale, o->sa[v * ns + i]), s2 = mma_decode(sh->scale, o->sb[v * ns + i]);
            if (s1.cls == MMA_NAN || s2.cls == MMA_NAN || s1.cls == MMA_INF || s2.cls == MMA_INF) special = 1;
        }
        mma_value dv = mma_decode(sh->d, o->d[v]);
        if (dv.cls == MMA_NAN) special = 1;
        if (dv.cls == MMA_FINITE) {
            uint64_t frac = o->d[v] & (((uint64_t)1 << mb) - 1);
            if (frac) {
                int used = mb - __builtin_ctzll(frac);
                if (used > pmax) pmax = used;
            }
        }
        if (!special && !zero) P->core[P->ncore++] = v;
        if (special) P->spec[P->nspec++] = v;
        if (sub) P->subn[P->nsubn++] = v;
        if (zero && !special) {
            P->zeros[P->nzeros++] = v;
            if (emax != INT_MIN) {
                if (emin < lo) lo = emin;
                if (emax > hi) hi = emax;
            }
        }
    }
    P->p_seen = pmax ? pmax : mb;
    /* below every nonzero term's exponent, ezero acts as no ezero; far
     * above the largest, every value cuts the same (cap the scan) */
    if (lo == INT_MAX) { lo = -150; hi = -100; }
    P->ez_lo = lo - 1;
    P->ez_hi = hi + 2;
    if (P->ez_hi - P->ez_lo > 700) P->ez_lo = P->ez_hi - 700;
    int wide = mma_format(sh->a)->ebits >= 8 || mma_format(sh->b)->ebits >= 8;
    P->has_povf = wide && sh->d == MMA_FMT_FP32 && sh->scale == MMA_FMT_NONE;
}

/* the same permutation on every run: xorshift64* */
static void shuffle(size_t *x, size_t n)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = n; i > 1; i--) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        size_t j = (size_t)((s * 0x2545f4914f6cdd1dull) % i);
        size_t t = x[i - 1]; x[i - 1] = x[j]; x[j] = t;
    }
}

/* ---- the search ------------------------------------------------------------- */

/* mismatches over sub of s with field dim (D_F or D_EZERO) set to v; -1
 * when that is no valid configuration */
static long with_mism(probe *P, const spec *s, int dim, int v, const size_t *sub, size_t nsub)
{
    spec t = *s;
    if (dim == D_F) t.f = v; else t.ezero = v;
    mma_unit u;
    if (spec_unit(P, &t, &u)) return -1;
    return mismatches(P, &u, sub, nsub);
}

/* From value v of field dim (v giving m0 mismatches) toward lim in
 * steps of dir (+1 or -1): the last value that still gives m0, probing
 * every step0-th value first; *next gets the mismatches of the first value
 * beyond it (-1: lim reached, or no valid configuration beyond).  ezero's
 * counts are flat over long runs, so that coarse steps cost a dozen
 * evaluations where a scan would cost hundreds. */
static int walk(probe *P, const spec *s, int dim, int v, int dir, int lim, int step0, long m0,
                const size_t *sub, size_t nsub, long *next)
{
    int at = v, step = step0;
    *next = -1;
    while (at != lim) {
        int t = at + dir * step;
        if (dir > 0 ? t > lim : t < lim) t = lim;
        long m = with_mism(P, s, dim, t, sub, nsub);
        if (m == m0) { at = t; continue; }
        if (t - at == dir) { *next = m; return at; }
        step = 1;
    }
    return at;
}

/* The best ezero for s: none and every 8th value first, then the values
 * around the best of those. */
static spec best_ezero(probe *P, const spec *cur, const size_t *sub, size_t nsub, clist *L)
{
    spec s = *cur, best = *cur;
    cl_clear(L);
    cl_add(P, L, cur);
    s.ezero = EZ_NONE;
    cl_add(P, L, &s);
    for (int e = P->ez_hi; e >= P->ez_lo; e -= 8) { s.ezero = e; cl_add(P, L, &s); }
    if (race(P, L->v, L->n, sub, nsub, 1) > 0) best = L->v[0].s;
    if (best.ezero == cur->ezero || best.ezero == EZ_NONE) return best;   /* ties keep the current */
    cl_clear(L);
    cl_add(P, L, &best);
    for (int e = best.ezero + 7; e >= best.ezero - 7; e--) { s.ezero = e; cl_add(P, L, &s); }
    if (race(P, L->v, L->n, sub, nsub, 1) > 0) best = L->v[0].s;
    /* of the values doing as well, the lowest: zero terms sit as low as
     * the observations allow (the hardware's ezero suite pins that edge);
     * where that is below every term, no ezero at all */
    long m0 = L->v[0].mism, next;
    int lo = walk(P, &best, D_EZERO, best.ezero, -1, P->ez_lo, 8, m0, sub, nsub, &next);
    if (lo == P->ez_lo && with_mism(P, &best, D_EZERO, EZ_NONE, sub, nsub) == m0) best.ezero = EZ_NONE;
    else best.ezero = lo;
    return best;
}

/* Coordinate descent from s over every dimension until no single change
 * reproduces more observations; stops at once when s reproduces all. */
static spec descend(probe *P, spec s)
{
    clist L = {0};
    for (int pass = 0; pass < 8; pass++) {
        int changed = 0;
        for (int dim = 0; dim < D_COUNT; dim++) {
            const size_t *sub;
            size_t nsub;
            dim_list(P, &s, dim, &L, &sub, &nsub, 1);
            if ((L.n <= 1 && !(dim == D_EZERO && has_ezero(&s))) || nsub == 0) continue;
            spec w;
            long wm;
            if (dim == D_EZERO) {
                w = best_ezero(P, &s, sub, nsub, &L);
                wm = -1;
            } else {
                if (race(P, L.v, L.n, sub, nsub, 1) == 0) continue;
                w = L.v[0].s;
                wm = L.v[0].mism;
            }
            /* the current spec is first in the list: a change wins only
             * with strictly fewer mismatches */
            if (memcmp(&w, &s, sizeof s)) { s = w; changed = 1; }
            if (wm == 0 && sub == P->all) { cl_free(&L); return s; }
        }
        if (!changed) break;
    }
    cl_free(&L);
    return s;
}

/* Where values do equally well, the plainest: canonical NaN before IEEE
 * before "any", inputs not flushed, cut toward zero, no product overflow,
 * zero results +0. */
static spec polish(probe *P, spec s)
{
    static const int dims[] = {D_NAN, D_FTZ, D_VIA, D_ALIGN, D_POVF, D_ZERO, D_NEG, D_TINY};
    clist L = {0};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        const size_t *sub;
        size_t nsub;
        dim_list(P, &s, dims[i], &L, &sub, &nsub, 0);
        if (L.n <= 1 || nsub == 0) continue;
        if (race(P, L.v, L.n, sub, nsub, 1) > 0) s = L.v[0].s;
    }
    cl_free(&L);
    return s;
}

static void finding(mma_probe_result *r, const char *what, const char *value, const char *evidence)
{
    if (r->nfindings >= MMA_PROBE_MAX_FINDINGS) return;
    mma_probe_finding *f = &r->finding[r->nfindings++];
    snprintf(f->what, sizeof f->what, "%s", what);
    snprintf(f->value, sizeof f->value, "%s", value);
    snprintf(f->evidence, sizeof f->evidence, "%s", evidence);
}

static const char *structure_text(const spec *s, const mma_unit *u, char *buf, size_t len)
{
    int steps = u->k / (s->l ? s->l : u->k);
    switch (s->tree) {
    case MMA_TREE_FMA: snprintf(buf, len, "sequential IEEE fma in k order from c"); break;
    case MMA_TREE_PAIRWISE: snprintf(buf, len, "pairwise fp32 sums in groups of %d, flushing subnormals", s->g); break;
    case MMA_TREE_EXACT:
        if (steps > 1) snprintf(buf, len, "exact sums of %d products, rounded once, %d steps chained", s->l, steps);
        else snprintf(buf, len, "exact sum, rounded once");
        break;
    case MMA_TREE_IEEE:
        if (steps > 1 && s->l == 1) snprintf(buf, len, "a chain of %d IEEE fused multiply-adds", steps);
        else if (steps > 1) snprintf(buf, len, "IEEE: exact sums of %d products, rounded once, %d steps chained", s->l, steps);
        else snprintf(buf, len, "IEEE: the exact sum, rounded once");
        break;
    case MMA_TREE_GROUPS: snprintf(buf, len, "exact sums of groups of %d, scaled, then one fused sum", s->g); break;
    case MMA_TREE_EVENODD:
        snprintf(buf, len, "even and odd products fused apart, c added with round-down (%s)%s",
                 s->cadd == MMA_CADD_RDZ ? "rdz" : "rd", steps > 1 ? ", chained" : "");
        if (steps > 1) snprintf(buf + strlen(buf), len - strlen(buf), " in %d steps of %d", steps, s->l);
        break;
    default:
        if (s->cadd == MMA_CADD_RD || s->cadd == MMA_CADD_RDZ)
            snprintf(buf, len, "products fused, c added with round-down (%s), %d step%s of %d",
                     s->cadd == MMA_CADD_RDZ ? "rdz" : "rd", steps, steps > 1 ? "s" : "", s->l);
        else if (steps == 1)
            snprintf(buf, len, "one fused step of %d products%s", s->l,
                     s->cadd == MMA_CADD_AFTER ? " from +0, then c by an IEEE addition" : "");
        else if (s->interleave)
            snprintf(buf, len, "chained in %d steps of %d, runs of %d k round-robin%s", steps, s->l, s->interleave,
                     s->cadd == MMA_CADD_AFTER ? ", from +0, then c by an IEEE addition" : "");
        else
            snprintf(buf, len, "chained in %d steps of %d%s", steps, s->l,
                     s->cadd == MMA_CADD_AFTER ? ", from +0, then c by an IEEE addition" : "");
    }
    return buf;
}

/* total mismatches of alternative x given the best's counts: they agree
 * outside the subset */
#define ALT_TOTAL(x) (best_total - best_sub + (x))

static void cat_alt(char *ev, size_t len, const char *label, long total, long best_total)
{
    size_t l = strlen(ev);
    if (total == best_total) snprintf(ev + l, len - l, "%s%s: the same", l ? "; " : "", label);
    else snprintf(ev + l, len - l, "%s%s: %ld wrong", l ? "; " : "", label, total);
}

/* a short name of a summation structure, for the alternatives */
static const char *structure_label(const spec *s, int k, char *buf, size_t len)
{
    int steps = k / (s->l ? s->l : k);
    const char *after = s->cadd == MMA_CADD_AFTER ? ", c after" : "";
    if (s->tree == MMA_TREE_EVENODD) snprintf(buf, len, "even/odd (%s)", cadd_name[s->cadd]);
    else if (exact_tree(s->tree) && steps > 1) snprintf(buf, len, "%s, %d steps of %d", tree_name[s->tree], steps, s->l);
    else if (s->tree != MMA_TREE_FUSED) snprintf(buf, len, "%s", tree_name[s->tree]);
    else if (s->cadd == MMA_CADD_RD || s->cadd == MMA_CADD_RDZ) snprintf(buf, len, "c added %s", cadd_name[s->cadd]);
    else if (steps == 1) snprintf(buf, len, "one fused step%s", after);
    else if (s->interleave) snprintf(buf, len, "%d steps of %d, runs of %d%s", steps, s->l, s->interleave, after);
    else snprintf(buf, len, "%d steps of %d%s", steps, s->l, after);
    return buf;
}

/* The findings: for each dimension the chosen value and what its
 * neighbours would get wrong. */
static void findings(probe *P, const spec *best, const mma_unit *bu, long best_total, mma_probe_result *r)
{
    clist L = {0};
    char ev[320], val[128], lab[64];
    const mma_format_info *fd = mma_format(bu->d);
    static const int shown_order[D_COUNT] = {D_STRUCT, D_NEG, D_F, D_F2, D_RHO, D_P, D_ALIGN, D_EZERO, D_FTZ,
                                             D_VIA, D_POVF, D_NAN, D_ZERO, D_TINY};
    for (int di = 0; di < D_COUNT; di++) {
        int dim = shown_order[di];
        const size_t *sub;
        size_t nsub;
        dim_list(P, best, dim, &L, &sub, &nsub, 1);
        if (L.n <= 1 && !(dim == D_EZERO && has_ezero(best)) && !(dim == D_P && !ieee_tree(best->tree))) continue;
        /* products added are the rule: said only when they are negated */
        if (dim == D_NEG && !best->neg) continue;
        long best_sub = mismatches(P, bu, sub, nsub);
        ev[0] = 0;
        switch (dim) {
        case D_F: {
            /* the values of F that do as well, and the nearest that do not */
            long below, above;
            int lo = walk(P, best, D_F, best->f, -1, 1, 1, best_sub, sub, nsub, &below);
            int hi = walk(P, best, D_F, best->f, 1, 48, 1, best_sub, sub, nsub, &above);
            if (lo < hi) {
                size_t l = strlen(ev);
                snprintf(ev + l, sizeof ev - l, "any of %d..%d gives the same", lo, hi);
            }
            if (below >= 0) { snprintf(lab, sizeof lab, "%d", lo - 1); cat_alt(ev, sizeof ev, lab, ALT_TOTAL(below), best_total); }
            if (above >= 0) { snprintf(lab, sizeof lab, "%d", hi + 1); cat_alt(ev, sizeof ev, lab, ALT_TOTAL(above), best_total); }
            snprintf(val, sizeof val, "%d", best->f);
            finding(r, "fraction bits kept in alignment (F)", val, ev);
            continue;
        }
        case D_EZERO: {
            /* the interval of values that do as well, found by walking out
             * from the chosen one (coarsely downward, where it may reach
             * the values below every term, which act as none) */
            long none_m = with_mism(P, best, D_EZERO, EZ_NONE, sub, nsub);
            int v = best->ezero == EZ_NONE ? P->ez_lo : best->ezero;
            long above = -1, below = -1;
            int hi = walk(P, best, D_EZERO, v, 1, P->ez_hi + 8, 8, best_sub, sub, nsub, &above);
            int lo = best->ezero == EZ_NONE ? v : walk(P, best, D_EZERO, v, -1, P->ez_lo, 8, best_sub, sub, nsub, &below);
            int to_none = best->ezero == EZ_NONE || (lo <= P->ez_lo && none_m == best_sub);
            if (best->ezero == EZ_NONE) snprintf(val, sizeof val, "none (zero terms take no part)");
            else snprintf(val, sizeof val, "%d", best->ezero);
            size_t l = strlen(ev);
            if (to_none && best->ezero == EZ_NONE) snprintf(ev, sizeof ev, "any ezero <= %d gives the same", hi);
            else if (to_none) snprintf(ev, sizeof ev, "none or any ezero <= %d gives the same", hi);
            else if (lo < hi) snprintf(ev + l, sizeof ev - l, "any of %d..%d gives the same", lo, hi);
            if (above >= 0) { snprintf(lab, sizeof lab, "%d", hi + 1); cat_alt(ev, sizeof ev, lab, ALT_TOTAL(above), best_total); }
            if (below >= 0) { snprintf(lab, sizeof lab, "%d", lo - 1); cat_alt(ev, sizeof ev, lab, ALT_TOTAL(below), best_total); }
            if (!to_none) cat_alt(ev, sizeof ev, "none", ALT_TOTAL(none_m), best_total);
            finding(r, "exponent of zero terms (ezero)", val, ev);
            continue;
        }
        case D_F2:
            /* as for F, but only the neighbours */
            for (int d = -1; d <= 1; d += 2) {
                spec s = *best; s.f2 = best->f2 + d;
                mma_unit u;
                if (spec_unit(P, &s, &u)) continue;
                snprintf(lab, sizeof lab, "%d", s.f2);
                cat_alt(ev, sizeof ev, lab, ALT_TOTAL(mismatches(P, &u, sub, nsub)), best_total);
            }
            snprintf(val, sizeof val, "%d", best->f2);
            finding(r, "second-stage fraction bits (F2)", val, ev);
            continue;
        default:
            break;
        }
        /* the other dimensions: every alternative, exactly (the structure:
         * the most telling few) */
        int shown = 0;
        for (int i = 1; i < L.n && shown < 4; i++) {
            const spec *s = &L.v[i].s;
            if (dim == D_STRUCT) {
                int same_tree = s->tree == best->tree && s->cadd == best->cadd;
                int telling = (s->tree == MMA_TREE_FUSED && s->cadd == MMA_CADD_FUSED && !s->interleave &&
                               (s->l == bu->k || s->l == bu->k / 2)) ||
                              (same_tree && s->l == best->l && s->interleave != best->interleave &&
                               (s->interleave == 0 || best->interleave == 0)) ||
                              (s->tree == MMA_TREE_EVENODD && best->tree != MMA_TREE_EVENODD && s->l == bu->k &&
                               s->cadd == MMA_CADD_RDZ) ||
                              (exact_tree(best->tree) && s->tree == best->tree && s->l != best->l &&
                               (s->l == 1 || s->l == bu->k));
                if (!telling) continue;
            }
            long m = mismatches(P, &L.v[i].u, sub, nsub);
            switch (dim) {
            case D_STRUCT: structure_label(s, bu->k, lab, sizeof lab); break;
            case D_RHO: snprintf(lab, sizeof lab, "%s", rnd_name[s->rho]); break;
            case D_P: snprintf(lab, sizeof lab, "p=%d", s->p); break;
            case D_ALIGN: snprintf(lab, sizeof lab, "cut %s", s->align == MMA_RZ ? "toward zero" : "toward -inf"); break;
            case D_FTZ: snprintf(lab, sizeof lab, "%s", s->ftz ? "flushed" : "used exactly"); break;
            case D_VIA: snprintf(lab, sizeof lab, "%s", s->via ? "via fp16" : "as they are"); break;
            case D_NAN: snprintf(lab, sizeof lab, "nan=%s", nan_name[s->nan]); break;
            case D_ZERO: snprintf(lab, sizeof lab, "%s", zero_words[s->zero_pos]); break;
            case D_NEG: snprintf(lab, sizeof lab, "%s", s->neg ? "negated" : "added"); break;
            case D_TINY: snprintf(lab, sizeof lab, "tiny %s rounding", s->tiny ? "before" : "after"); break;
            case D_POVF: snprintf(lab, sizeof lab, "%s", s->povf ? "overflowing at 2^128" : "exact"); break;
            default: lab[0] = 0;
            }
            cat_alt(ev, sizeof ev, lab, ALT_TOTAL(m), best_total);
            shown++;
        }
        char sbuf[160];
        switch (dim) {
        case D_STRUCT:
            finding(r, "summation", structure_text(best, bu, sbuf, sizeof sbuf), ev);
            break;
        case D_RHO:
            finding(r, "output rounding", best->rho == MMA_RZ ? "rz (toward zero)" : best->rho == MMA_RNE ? "rne (to nearest even)" :
                    best->rho == MMA_RD ? "rd (toward -inf)" : "ru (toward +inf)", ev);
            break;
        case D_P:
            snprintf(val, sizeof val, "%d fraction bits%s", best->p,
                     bu->d == MMA_FMT_FP32 && best->p == 13 ? " (e8m13)" : best->p == fd->mbits ? "" : " (narrowed)");
            {
                char pe[400];
                if (P->p_seen >= fd->mbits) snprintf(pe, sizeof pe, "outputs set all %d", fd->mbits);
                else snprintf(pe, sizeof pe, "no output sets the low %d bits", fd->mbits - P->p_seen);
                if (ev[0]) { size_t l = strlen(pe); snprintf(pe + l, sizeof pe - l, "; %s", ev); }
                finding(r, "output precision (p)", val, pe);
            }
            break;
        case D_ALIGN:
            finding(r, "aligned terms cut", best->align == MMA_RZ ? "toward zero" : "toward -inf", ev);
            break;
        case D_FTZ:
            finding(r, "subnormal inputs", best->ftz ? "flushed to +0" : "used exactly", ev);
            break;
        case D_VIA:
            finding(r, "fp8 inputs", best->via ? "converted to fp16 first (a subnormal becomes normal)" : "used as they are", ev);
            break;
        case D_NAN:
            snprintf(val, sizeof val, "%s", best->nan == NAN_CANON ? "canonical NaN" :
                     best->nan == NAN_IEEE ? (bu->tree == MMA_TREE_FMA ? "IEEE (payload passed on)" : "IEEE default NaN") :
                     best->nan == NAN_ANY ? "any NaN" : best->nan == NAN_PROP ? "the first NaN operand, quieted" : "canonical, payload free");
            if (best->nan == NAN_CANON) {
                size_t l = strlen(val);
                snprintf(val + l, sizeof val - l, " %0*llx", fd->hexdigits, (unsigned long long)mma_canonical_nan(bu->d));
            }
            finding(r, "NaN result", val, ev);
            break;
        case D_ZERO:
            finding(r, "zero result", zero_words[best->zero_pos], ev);
            break;
        case D_NEG:
            finding(r, "products", best->neg ? "negated: d = c - sum a*b" : "added: d = c + sum a*b", ev);
            break;
        case D_TINY:
            finding(r, "underflow", best->tiny ? "tiny before rounding (tiny=before)" : "tiny after rounding", ev);
            break;
        case D_POVF:
            finding(r, "products", best->povf ? "overflow to Inf at 2^128" : "exact (never overflow)", ev);
            break;
        default:
            break;
        }
    }
    cl_free(&L);
}

int mma_probe(const mma_obs *o, const mma_probe_opts *opt, mma_probe_result *r, char *err, size_t len)
{
    memset(r, 0, sizeof *r);
    double t0 = mma_now();
    probe P;
    memset(&P, 0, sizeof P);
    P.o = o;
    P.threads = opt && opt->threads > 0 ? opt->threads : mma_default_threads();
    if (opt && opt->subset) {
        P.nall = opt->nsubset;
        P.all = malloc(sizeof(size_t) * (P.nall ? P.nall : 1));
        if (!P.all) abort();
        memcpy(P.all, opt->subset, sizeof(size_t) * P.nall);
    } else {
        P.nall = o->n;
        P.all = malloc(sizeof(size_t) * (P.nall ? P.nall : 1));
        if (!P.all) abort();
        for (size_t i = 0; i < P.nall; i++) P.all[i] = i;
    }
    if (P.nall == 0) {
        free(P.all);
        if (err) snprintf(err, len, "no observations to probe");
        return -1;
    }
    shuffle(P.all, P.nall);
    classify_obs(&P);

    /* 2. the grid on the observations with finite operands */
    spec base;
    memset(&base, 0, sizeof base);
    base.p = P.p_seen;
    base.ezero = EZ_NONE;
    base.nan = NAN_CANON;
    base.zero_pos = 1;
    base.f = 24;
    base.f2 = 31;
    clist G = {0};
    clist S = {0};
    add_structures(&P, &S, &base);
    for (int i = 0; i < S.n; i++) {
        spec s = S.v[i].s;
        if (ieee_tree(s.tree) || exact_tree(s.tree)) {
            if (ieee_tree(s.tree)) s.nan = NAN_IEEE;
            for (int r2 = 0; r2 < (exact_tree(s.tree) ? 6 : 4); r2++) { s.rho = (mma_rounding)r2; cl_add(&P, &G, &s); }
            continue;
        }
        /* the slow structures (interleaved, c added after) with the two
         * common roundings and terms cut toward zero only: the descent
         * settles the rest */
        int slow = s.interleave || s.cadd == MMA_CADD_AFTER;
        /* F from the widest: where no vector tells F, the answer is the
         * widest (no truncation seen), not F=1 */
        for (int f = 48; f >= 1; f--)
            for (int r2 = 0; r2 < (slow ? 2 : 4); r2++)
                for (int al = 0; al < 4; al += 2) {
                    if (al && (slow || s.cadd == MMA_CADD_RD || s.cadd == MMA_CADD_RDZ)) continue;
                    s.f = f;
                    s.f2 = f + 7;
                    s.rho = (mma_rounding)r2;
                    s.align = (mma_rounding)al;
                    cl_add(&P, &G, &s);
                }
    }
    cl_free(&S);
    const size_t *core = P.ncore ? P.core : P.all;
    size_t ncore = P.ncore ? P.ncore : P.nall;
    int nstart = race(&P, G.v, G.n, core, ncore, 64);

    /* 3. descent from the best few (and from the caller's unit first) */
    spec starts[4];
    int ns = 0;
    if (opt && opt->start) starts[ns++] = spec_of(opt->start);
    /* the best of each of the three best summation structures */
    for (int i = 0; i < nstart && ns < 4; i++) {
        const spec *x = &G.v[i].s;
        int seen = 0;
        for (int j = 0; j < ns; j++)
            seen |= starts[j].tree == x->tree && starts[j].cadd == x->cadd && starts[j].l == x->l &&
                    starts[j].interleave == x->interleave && starts[j].g == x->g;
        if (!seen) starts[ns++] = *x;
    }
    cl_free(&G);
    spec best = starts[0];
    long best_m = LONG_MAX;
    mma_unit bu;
    memset(&bu, 0, sizeof bu);
    for (int i = 0; i < ns; i++) {
        spec s = polish(&P, descend(&P, starts[i]));
        mma_unit u;
        if (spec_unit(&P, &s, &u)) continue;
        long m = mismatches(&P, &u, P.all, P.nall);
        if (m < best_m) { best_m = m; best = s; bu = u; }
        if (m == 0) break;
    }
    if (best_m == LONG_MAX) {
        free(P.all); free(P.core); free(P.zeros); free(P.subn); free(P.spec);
        if (err) snprintf(err, len, "no configuration of this shape could be evaluated");
        return -1;
    }
    /* 4. the evidence */
    findings(&P, &best, &bu, best_m, r);
    r->unit = bu;
    r->n = P.nall;
    r->fit = P.nall - (size_t)best_m;
    r->candidates = P.candidates;
    r->dots = P.dots;
    r->seconds = mma_now() - t0;
    free(P.all); free(P.core); free(P.zeros); free(P.subn); free(P.spec);
    return 0;
}

size_t mma_probe_fit(const mma_unit *u, const mma_obs *o, const size_t *subset, size_t nsubset, int threads)
{
    probe P;
    memset(&P, 0, sizeof P);
    P.o = o;
    P.threads = threads > 0 ? threads : mma_default_threads();
    size_t *idx = NULL;
    size_t n = subset ? nsubset : o->n;
    if (!subset) {
        idx = malloc(sizeof(size_t) * (n ? n : 1));
        if (!idx) abort();
        for (size_t i = 0; i < n; i++) idx[i] = i;
    }
    long m = mismatches(&P, u, subset ? subset : idx, n);
    free(idx);
    return n - (size_t)m;
}

/* ---- differences and printing ------------------------------------------- */

static const char *field_of(const char *cfg, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = cfg; p && *p; ) {
        const char *e = strchr(p, ',');
        size_t tl = e ? (size_t)(e - p) : strlen(p);
        if (tl > kl && !strncmp(p, key, kl) && p[kl] == '=') {
            snprintf(buf, len, "%.*s", (int)(tl - kl - 1), p + kl + 1);
            return buf;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

/* The fields of config ca that differ from cb's, as "k=v instead of w"
 * (keys of either string, in ca's order and then cb's), after n
 * characters already in buf */
static size_t diff_fields(const char *ca, const char *cb, char *buf, size_t len, size_t n, int missing_as_none, int terse)
{
    const char *srcs[2] = {ca, cb};
    char seen[64][16];
    int nseen = 0;
    for (int s = 0; s < 2; s++)
        for (const char *p = strchr(srcs[s], ','); p; p = strchr(p + 1, ',')) {
            char key[16];
            size_t kl = strcspn(p + 1, "=,");
            snprintf(key, sizeof key, "%.*s", (int)kl, p + 1);
            int dup = 0;
            for (int i = 0; i < nseen; i++) dup |= !strcmp(seen[i], key);
            if (dup || nseen >= 64) continue;
            snprintf(seen[nseen++], sizeof seen[0], "%s", key);
            char va[64], vb[64];
            const char *x = field_of(ca, key, va, sizeof va), *y = field_of(cb, key, vb, sizeof vb);
            if (x && y && !strcmp(x, y)) continue;
            if (((!x || !y) && !missing_as_none) || (terse && x)) {
                if (x) { int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", n ? ", " : "", key, x); if (w > 0) n += (size_t)w; }
                continue;
            }
            int w = x ? snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s instead of %s", n ? ", " : "", key, x,
                                 y ? y : "none")
                      : snprintf(buf + n, n < len ? len - n : 0, "%sno %s instead of %s=%s", n ? ", " : "", key, key, y);
            if (w > 0) n += (size_t)w;
        }
    return n;
}

/* The unit of u's tree and shape with every other field at its default
 * (fused, evenodd and groups need F: u's, listed apart by the caller) */
static int family_default(const mma_unit *u, mma_unit *def)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s,a=%s,b=%s,c=%s,d=%s,k=%d", tree_name[u->tree], mma_format(u->a)->name,
                     mma_format(u->b)->name, mma_format(u->c)->name, mma_format(u->d)->name, u->k);
    if (u->scale != MMA_FMT_NONE) n += snprintf(buf + n, sizeof buf - (size_t)n, ",scale=%s,block=%d", mma_format(u->scale)->name, u->block);
    if (u->tree == MMA_TREE_PAIRWISE || u->tree == MMA_TREE_GROUPS) n += snprintf(buf + n, sizeof buf - (size_t)n, ",g=%d", u->g);
    if (u->tree == MMA_TREE_EVENODD) n += snprintf(buf + n, sizeof buf - (size_t)n, ",cadd=%s", cadd_name[u->cadd]);
    if (mma_unit_parse(buf, def, NULL, 0) == 0) return 0;
    snprintf(buf + n, sizeof buf - (size_t)n, ",f=%d", u->f);
    return mma_unit_parse(buf, def, NULL, 0);
}

/* u's fields that differ from its family's defaults ("l=1, round=rz");
 * F always where the family has one */
static size_t family_fields(const mma_unit *u, char *buf, size_t len, size_t n, int terse)
{
    mma_unit def;
    char cu[512], cd[512], v[64];
    mma_unit_config(u, cu, sizeof cu);
    if (field_of(cu, "f", v, sizeof v)) {
        int w = snprintf(buf + n, n < len ? len - n : 0, "%sf=%s", n ? ", " : "", v);
        if (w > 0) n += (size_t)w;
    }
    if (family_default(u, &def)) return n;
    mma_unit_config(&def, cd, sizeof cd);
    return diff_fields(cu, cd, buf, len, n, 0, terse);
}

int mma_unit_diff(const mma_unit *a, const mma_unit *b, char *buf, size_t len)
{
    char ca[512], cb[512];
    mma_unit_config(a, ca, sizeof ca);
    mma_unit_config(b, cb, sizeof cb);
    size_t n = 0;
    if (len) buf[0] = 0;
    if (a->tree != b->tree) {
        /* another family: its name, and its fields that are not its
         * defaults (not a list of every key either one has) */
        int w = snprintf(buf, len, "tree %s instead of %s", tree_name[a->tree], tree_name[b->tree]);
        if (w > 0) n += (size_t)w;
        char sub[400] = "";
        size_t sn = family_fields(a, sub, sizeof sub, 0, 1);
        if (sn) { w = snprintf(buf + n, n < len ? len - n : 0, " (with %s)", sub); if (w > 0) n += (size_t)w; }
        return (int)n;
    }
    return (int)diff_fields(ca, cb, buf, len, 0, 1, 0);
}

/* The family first: the tree in words, and the fields that differ from
 * its defaults */
static void write_family(FILE *f, const mma_unit *u)
{
    static const char *words[] = {
        "NVIDIA's fused dot-product-add: products aligned to the largest exponent, F fraction bits, one rounding a step",
        "AMD's even and odd fused sums, c added rounding down", "block-scaled groups summed exactly, then one fused sum",
        "AMD CDNA2's pairwise fp32 sums, subnormals flushed", "sequential IEEE fused multiply-adds in fp32 or fp64",
        "AMD CDNA1's exact sums, rounded once a step",
        "IEEE 754 arithmetic: each step's exact sum of c and its products rounded once, with exception flags"};
    char buf[600] = "";
    size_t n = family_fields(u, buf, sizeof buf, 0, 0);
    fprintf(f, "family: %s (%s)\n", tree_name[u->tree], words[u->tree]);
    fprintf(f, "  %s%s\n", n ? "differs from its defaults in: " : "", n ? buf : "every other field at its default");
}

void mma_probe_write(FILE *f, const mma_obs *o, const mma_probe_result *r, int threads)
{
    write_family(f, &r->unit);
    int w = 0;
    for (int i = 0; i < r->nfindings; i++) {
        int l = (int)strlen(r->finding[i].what);
        if (l > w) w = l;
    }
    for (int i = 0; i < r->nfindings; i++) {
        const mma_probe_finding *x = &r->finding[i];
        fprintf(f, "  %-*s  %s\n", w, x->what, x->value);
        fprintf(f, "  %-*s    %s\n", w, "", x->evidence[0] ? x->evidence : "no vector tells");
    }
    char cfg[512];
    mma_unit_config(&r->unit, cfg, sizeof cfg);
    fprintf(f, "config: %s\n", cfg);
    /* catalogue entries of this shape that do as well */
    size_t nc = mma_catalogue_size();
    int named = 0;
    for (size_t i = 0; i < nc; i++) {
        mma_catalogue_entry e;
        mma_unit u;
        mma_catalogue_get(i, &e, &u);
        if (u.a != o->shape.a || u.b != o->shape.b || u.c != o->shape.c || u.d != o->shape.d ||
            u.k != o->shape.k || u.scale != o->shape.scale || (u.scale != MMA_FMT_NONE && u.block != o->shape.block))
            continue;
        if (mma_probe_fit(&u, o, NULL, 0, threads) != o->n) continue;
        fprintf(f, "%s %s:%s", named ? "," : "the same as the catalogue's", e.arch, e.qualifier);
        named++;
    }
    if (named) fprintf(f, " (on these vectors)\n");
    else fprintf(f, "no catalogue instruction of this shape reproduces these vectors\n");
    fprintf(f, "reproduces %zu of %zu vectors%s\n", r->fit, r->n,
            r->fit == r->n ? "" : ": no configuration reproduces every vector; this one fits best");
}
