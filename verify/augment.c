/* mmaref verify --mutants N --augment out.vec: a small suite that kills
 * what the campaign killed, and vectors for what it missed.
 *   1. the pool: the first mismatching vector of every mutant the
 *      campaign killed;
 *   2. the search: each survivor not proven equivalent runs, to its first
 *      mismatch, a budget of vectors drawn in turn from every suite of the
 *      library and every random distribution (mmaref_gen.h), seeded apart
 *      from the campaign; the vector that kills it joins the pool;
 *   3. the kill matrix: every killed mutant runs the whole pool (no stop),
 *      its mismatching vectors named by their index in the pool file;
 *   4. a greedy set cover of the matrix (the vector that kills the most
 *      mutants not yet killed, the earlier on a tie): the minimized suite;
 *   5. every mutant runs the minimized suite: the score it claims is
 *      measured, not inferred.
 * The suite is written whole or not at all (o->write_output), one file a
 * mode; the models' d in it, so that it is a normal vector file. */
#include "internal.h"
#include "mmaref_gen.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATHLEN 1200
#define DEFAULT_BUDGET 20000

typedef struct {
    mma_vec *v;
    long n, cap;
} pool;

static int same_operands(const mma_unit *u, const mma_vec *x, const mma_vec *y)
{
    int ns = mma_unit_nscales(u);
    return x->c == y->c && !memcmp(x->a, y->a, (size_t)u->k * sizeof x->a[0]) &&
           !memcmp(x->b, y->b, (size_t)u->k * sizeof x->b[0]) &&
           !memcmp(x->sa, y->sa, (size_t)ns * sizeof x->sa[0]) && !memcmp(x->sb, y->sb, (size_t)ns * sizeof x->sb[0]);
}

/* the model's d and flags for v's operands */
static void model_result(const mma_unit *u, mma_vec *v)
{
    int ns = mma_unit_nscales(u);
    v->flags = 0;
    v->d = mma_dot_flags(u, v->c, v->a, v->b, ns ? v->sa : NULL, ns ? v->sb : NULL, &v->flags);
    v->line = 0;
}

/* v into the pool unless it is there: its index */
static long pool_add(pool *p, const mma_unit *u, const mma_vec *v)
{
    for (long i = 0; i < p->n; i++) if (same_operands(u, &p->v[i], v)) return i;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->v = realloc(p->v, (size_t)p->cap * sizeof *p->v);
    }
    p->v[p->n] = *v;
    model_result(u, &p->v[p->n]);
    return p->n++;
}

static int mode_index(const dut_desc *d, const char *name)
{
    for (int m = 0; m < d->nmodes; m++) if (!strcmp(d->modes[m].name, name)) return m;
    return -1;
}

/* the one vector of a first_mismatch.vec into its mode's pool: 0, or -1 */
static int pool_add_first(pool *pools, const dut_desc *d, const vfy_mutant *m)
{
    int mode = mode_index(d, m->first_mode);
    if (mode < 0 || !m->first[0]) return -1;
    char err[1024];
    mma_vec_reader *r = mma_vec_open(m->first, NULL, err, sizeof err);
    if (!r) return -1;
    static mma_vec v;
    memset(&v, 0, sizeof v);
    int rc = mma_vec_next(r, &v, err, sizeof err);
    mma_vec_close(r);
    if (rc != 1) return -1;
    pool_add(&pools[mode], &d->modes[mode].u, &v);
    return 0;
}

/* a vector file of a mode, opened as a temporary file beside path */
static FILE *vec_file_open(const char *path, const dut_desc *d, int mode, const char *source)
{
    char tmp[PATHLEN + 8];
    vfy_path(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return NULL;
    mma_vec_write_header(f, &d->modes[mode].u);
    fprintf(f, "# mode: %s\n# source: %s\n", d->modes[mode].name, source);
    return f;
}

/* ... and renamed into place whole: 0, or -1 */
static int vec_file_close(FILE *f, const char *path)
{
    char tmp[PATHLEN + 8];
    vfy_path(tmp, sizeof tmp, "%s.tmp", path);
    if (fclose(f) || rename(tmp, path)) { remove(tmp); return -1; }
    return 0;
}

static int write_vectors(const char *path, const dut_desc *d, int mode, const mma_vec *v, const long *pick, long n,
                         const char *source)
{
    FILE *f = vec_file_open(path, d, mode, source);
    if (!f) return -1;
    for (long i = 0; i < n; i++) mma_vec_write(f, &d->modes[mode].u, &v[pick ? pick[i] : i]);
    return vec_file_close(f, path);
}

/* The search's vectors of one mode: vector j from source j mod S, where
 * the sources are every suite of the library, then every random
 * distribution the unit takes; each source's own stream from `seed`. */
static int write_search(const char *path, const dut_desc *d, int mode, const pool *first, long budget, uint64_t seed)
{
    static const char *const dists[] = {"uniform", "finite", "cluster", "cancel", "tiny", "huge", "special", "carry"};
    enum { NDIST = sizeof dists / sizeof dists[0] };
    const mma_unit *u = &d->modes[mode].u;
    int nsuites = mma_suite_count(), nsrc = 0;
    mma_gen *gens = calloc((size_t)nsuites, sizeof *gens);
    mma_rgen *rg[NDIST];
    int src_suite[64 + NDIST], src_dist[64 + NDIST];
    for (int s = 0; s < nsuites && nsrc < 64; s++)
        if (!mma_gen_init(&gens[s], u, mma_suite_name(s), seed)) { src_suite[nsrc] = s; src_dist[nsrc++] = -1; }
    char err[256];
    for (int i = 0; i < NDIST; i++) {
        rg[i] = mma_rgen_create(u, seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)), dists[i], err, sizeof err);
        if (rg[i]) { src_suite[nsrc] = -1; src_dist[nsrc++] = i; }
    }
    char source[256];
    snprintf(source, sizeof source, "mmaref verify --augment: the search for survivors (every suite and distribution, seed %llu)",
             (unsigned long long)seed);
    FILE *f = vec_file_open(path, d, mode, source);
    /* the counterexamples' vectors first */
    for (long j = 0; f && j < first->n; j++) mma_vec_write(f, u, &first->v[j]);
    static mma_vec v;
    for (long j = 0; f && j < budget; j++) {
        int s = (int)(j % nsrc);
        long idx = j / nsrc;
        memset(&v, 0, sizeof v);
        if (src_suite[s] >= 0) mma_gen_vectors(&gens[src_suite[s]], idx, idx + 1, &v);
        else {
            mma_rgen_next(rg[src_dist[s]], &v.c, v.a, v.b);
            model_result(u, &v);
        }
        mma_vec_write(f, u, &v);
    }
    int rc = f ? vec_file_close(f, path) : -1;
    for (int i = 0; i < NDIST; i++) if (rg[i]) mma_rgen_free(rg[i]);
    free(gens);
    return rc;
}

/* the index in the search's file of the vector a first_mismatch.vec
 * holds ("# search-<mode> vector <i>: ..."), or LONG_MAX */
static long search_index(const char *first)
{
    FILE *f = fopen(first, "r");
    char line[1024];
    long i = LONG_MAX;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "# search-", 9) && sscanf(line, "# %*s vector %ld:", &i) == 1) break;
    if (f) fclose(f);
    return i;
}

/* the output file of a mode: the path itself for a unit of one mode, else
 * the mode's name put before its .vec (out.vec.xz -> out.rne.vec.xz) */
static void output_name(const dut_desc *d, const char *path, int mode, char *out, size_t len)
{
    if (d->nmodes == 1) { vfy_path(out, len, "%s", path); return; }
    const char *base = vfy_base_name(path);
    const char *dot = NULL;
    for (const char *p = strstr(base, ".vec"); p; p = strstr(p + 1, ".vec")) dot = p;
    if (!dot) { vfy_path(out, len, "%s.%s", path, d->modes[mode].name); return; }
    vfy_path(out, len, "%.*s.%s%s", (int)(dot - path), path, d->modes[mode].name, dot);
}

int vfy_augment_check(const vfy_campaign *c)
{
    const dut_desc *d = c->d;
    if (d->shape_line || d->lanes) {
        fprintf(stderr, "mmaref verify: --augment: %s: a %s unit: the minimized suite is made for units of one dot product a result\n",
                d->path, d->shape_line ? "matrix" : "lanes");
        return -1;
    }
    if (c->o->shard_n > 1) { fprintf(stderr, "mmaref verify: --augment needs every mutant: not with --shard\n"); return -1; }
    if (!c->o->write_output) { fprintf(stderr, "mmaref verify: --augment: no writer of vector files\n"); return -1; }
    for (int m = 0; m < d->nmodes; m++) {
        char out[PATHLEN];
        output_name(d, c->o->augment, m, out, sizeof out);
        if (c->o->write_output(NULL, out)) { fprintf(stderr, "mmaref verify: --augment: cannot write %s\n", out); return -1; }
    }
    return 0;
}

/* the plan's items: one file a mode, those with vectors */
static char *file_items(const dut_desc *d, char (*files)[PATHLEN], const long *counts, const char *label)
{
    vfy_text t = {0};
    for (int m = 0; m < d->nmodes; m++)
        if (counts[m]) vfy_tprintf(&t, "item %d file %s-%s 0 %ld %s\n", m, label, d->modes[m].name, counts[m], files[m]);
    return t.s ? t.s : strdup("");
}

/* the pool's indices a mutant's run mismatched on (its mismatch files,
 * "# <label> vector <i>: ..."), as bits of kills[vector] */
static void read_kills(const char *run, const dut_desc *d, const long *offset, unsigned char **kills, int mutant)
{
    for (int m = 0; m < d->nmodes; m++) {
        char path[PATHLEN], line[1024];
        vfy_path(path, sizeof path, "%s/mismatches.%s.vec", run, d->modes[m].name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            long i;
            if (line[0] == '#' && sscanf(line, "# %*s vector %ld:", &i) == 1 && i >= 0 && i < offset[m + 1] - offset[m])
                kills[offset[m] + i][mutant / 8] |= (unsigned char)(1u << (mutant % 8));
        }
        fclose(f);
    }
}

#define BIT(s, i) ((s)[(i) / 8] >> ((i) % 8) & 1)

int vfy_augment(const vfy_mut_env *e, vfy_mutant *mu, int n)
{
    const vfy_campaign *c = e->c;
    const dut_desc *d = c->d;
    const mma_verify_opts *o = c->o;
    long budget = o->augment_budget > 0 ? o->augment_budget : DEFAULT_BUDGET;
    uint64_t seed = (o->have_seed ? o->seed : d->seed) ^ 0x617567606d656e74ull;   /* apart from the campaign's */
    char adir[PATHLEN];
    vfy_path(adir, sizeof adir, "%s/augment", e->dir);
    if (vfy_mkdirs(adir)) { fprintf(stderr, "mmaref verify: cannot create %s\n", adir); return 2; }
    int nm = d->nmodes, status = 2;
    pool *pools = calloc((size_t)nm, sizeof *pools);
    char (*files)[PATHLEN] = calloc((size_t)nm, sizeof *files);
    long *counts = calloc((size_t)nm + 1, sizeof *counts), *offset = calloc((size_t)nm + 1, sizeof *offset);
    int *sel = calloc((size_t)n + 1, sizeof *sel);
    vfy_mutant *tmp = calloc((size_t)n + 1, sizeof *tmp);
    char *killed_by = calloc((size_t)n + 1, 1);       /* 'c' the campaign, 's' the search */
    unsigned char **kills = NULL;
    long *pick = NULL, npool = 0;
    char *items = NULL;
    /* 1. the campaign's kills */
    for (int i = 0; i < n; i++)
        if (mu[i].outcome != VFY_MUT_SURVIVED && mu[i].outcome != VFY_MUT_ERROR) {
            killed_by[i] = 'c';
            pool_add_first(pools, d, &mu[i]);
        }
    /* 2. the search */
    int ns = 0, ks = 0;
    for (int i = 0; i < n; i++) if (mu[i].outcome == VFY_MUT_SURVIVED && mu[i].equiv != VFY_EQ_EQUIVALENT) sel[ns++] = i;
    if (ns) {
        /* the runs by which ABC refuted survivors, as vectors tried first */
        pool *first = calloc((size_t)nm, sizeof *first);
        int nlive = 0;
        long ncex = 0;
        for (int k = 0; k < ns; k++) {
            if (mu[sel[k]].equiv != VFY_EQ_LIVE) continue;
            static mma_vec cv[16];
            int cm[16];
            char stem[PATHLEN];
            vfy_abc_run(stem, sizeof stem, e->dir, sel[k]);
            int got = vfy_cex_vectors(c, stem, cm, cv, 16);
            nlive += got > 0;
            for (int j = 0; j < got; j++) {
                long before = first[cm[j]].n;
                pool_add(&first[cm[j]], &d->modes[cm[j]].u, &cv[j]);
                ncex += first[cm[j]].n > before;
            }
        }
        if (ncex) printf("augment: %ld vectors from ABC's runs that refute %d survivors, tried first\n", ncex, nlive);
        long *nfirst = calloc((size_t)nm, sizeof *nfirst);
        for (int m = 0; m < nm; m++) {
            vfy_path(files[m], sizeof files[m], "%s/search.%s.vec", adir, d->modes[m].name);
            int bad = write_search(files[m], d, m, &first[m], budget, seed);
            counts[m] = budget + (nfirst[m] = first[m].n);
            free(first[m].v);
            if (bad) { fprintf(stderr, "mmaref verify: cannot write %s\n", files[m]); free(first); free(nfirst); goto out; }
        }
        free(first);
        items = file_items(d, files, counts, "search");
        printf("augment: %d survivors, each run on %ld vectors a mode (every suite and distribution, seed %llu) to its first mismatch\n",
               ns, budget, (unsigned long long)seed);
        fflush(stdout);
        vfy_mut_run(e, "s", items, 1, sel, ns, tmp);
        free(items);
        items = NULL;
        for (int k = 0; k < ns; k++)
            if ((tmp[k].outcome == VFY_MUT_KILLED || tmp[k].outcome == VFY_MUT_NORESULT) && !pool_add_first(pools, d, &tmp[k])) {
                killed_by[sel[k]] = 's';
                ks++;
                int m = mode_index(d, tmp[k].first_mode);
                printf("augment: mutant %d killed by a new vector (%s%s)\n", sel[k] + 1, tmp[k].first_mode,
                       m >= 0 && search_index(tmp[k].first) < nfirst[m] ? ", from ABC's run" : "");
            }
        free(nfirst);
    }
    /* 3. the kill matrix: every killed mutant on the whole pool */
    for (int m = 0; m < nm; m++) {
        offset[m] = npool;
        npool += pools[m].n;
        counts[m] = pools[m].n;
        vfy_path(files[m], sizeof files[m], "%s/pool.%s.vec", adir, d->modes[m].name);
        if (write_vectors(files[m], d, m, pools[m].v, NULL, pools[m].n, "mmaref verify --augment: the pool")) {
            fprintf(stderr, "mmaref verify: cannot write %s\n", files[m]);
            goto out;
        }
    }
    offset[nm] = npool;
    int nk = 0;
    for (int i = 0; i < n; i++) if (killed_by[i]) sel[nk++] = i;
    kills = calloc((size_t)npool + 1, sizeof *kills);
    for (long v = 0; v < npool; v++) kills[v] = calloc((size_t)n / 8 + 1, 1);
    if (npool && nk) {
        items = file_items(d, files, counts, "pool");
        vfy_mut_run(e, "k", items, 0, sel, nk, tmp);
        free(items);
        items = NULL;
        for (int k = 0; k < nk; k++) {
            char run[PATHLEN];
            vfy_path(run, sizeof run, "%s/k%d", e->dir, sel[k] + 1);
            read_kills(run, d, offset, kills, sel[k]);
        }
    }
    /* 4. the greedy cover */
    unsigned char *covered = calloc((size_t)n / 8 + 1, 1), *want = calloc((size_t)n / 8 + 1, 1);
    int nwant = 0;
    for (long v = 0; v < npool; v++)
        for (int i = 0; i < n; i++)
            if (BIT(kills[v], i) && !BIT(want, i)) { want[i / 8] |= (unsigned char)(1u << (i % 8)); nwant++; }
    pick = calloc((size_t)npool + 1, sizeof *pick);
    long npick = 0;
    for (int got = 0; got < nwant;) {
        long best = -1;
        int most = 0;
        for (long v = 0; v < npool; v++) {
            int k = 0;
            for (int i = 0; i < n; i++) k += BIT(kills[v], i) && !BIT(covered, i);
            if (k > most) { most = k; best = v; }
        }
        if (best < 0) break;
        for (int i = 0; i < n; i++) if (BIT(kills[best], i)) covered[i / 8] |= (unsigned char)(1u << (i % 8));
        pick[npick++] = best;
        got += most;
    }
    free(covered);
    /* in the pool's order, per mode */
    for (long a = 1; a < npick; a++)
        for (long b = a; b > 0 && pick[b - 1] > pick[b]; b--) { long t = pick[b]; pick[b] = pick[b - 1]; pick[b - 1] = t; }
    long at = 0;
    char source[256];
    snprintf(source, sizeof source, "mmaref verify --augment: a minimized suite for %s (mutants seed %llu): %d mutants killed by a vector alone",
             d->top.name, (unsigned long long)o->mutants_seed, nwant);
    for (int m = 0; m < nm; m++) {
        long first = at;
        while (at < npick && pick[at] < offset[m + 1]) { pick[at] -= offset[m]; at++; }
        counts[m] = at - first;
        vfy_path(files[m], sizeof files[m], "%s/minimized.%s.vec", adir, d->modes[m].name);
        if (write_vectors(files[m], d, m, pools[m].v, pick + first, at - first, source)) {
            fprintf(stderr, "mmaref verify: cannot write %s\n", files[m]);
            free(want);
            goto out;
        }
    }
    /* 5. every mutant on the minimized suite */
    int kmin = 0;
    for (int i = 0; i < n; i++) sel[i] = i;
    if (npick) {
        items = file_items(d, files, counts, "minimized");
        vfy_mut_run(e, "v", items, 1, sel, n, tmp);
        for (int i = 0; i < n; i++) {
            int k = tmp[i].outcome != VFY_MUT_SURVIVED && tmp[i].outcome != VFY_MUT_ERROR;
            kmin += k;
            if (BIT(want, i) && !k) printf("augment: mutant %d dies by a vector of the minimized suite alone, not in the suite's run\n", i + 1);
        }
    }
    int campaign_only = 0, eq = 0, kc = 0, rh = 0;
    for (int i = 0; i < n; i++) {
        if (killed_by[i] == 'c') kc++;
        if (killed_by[i] && !BIT(want, i)) campaign_only++;
        if (mu[i].outcome == VFY_MUT_SURVIVED && mu[i].equiv == VFY_EQ_EQUIVALENT) eq++;
        if (mu[i].outcome == VFY_MUT_SURVIVED && mu[i].equiv == VFY_EQ_READY_HIGH && !killed_by[i]) rh++;
    }
    free(want);
    /* the files, whole or none */
    int written = 0;
    for (int m = 0; m < nm; m++) {
        char out[PATHLEN];
        output_name(d, o->augment, m, out, sizeof out);
        if (o->write_output(files[m], out)) {
            for (int w = 0; w < written; w++) { output_name(d, o->augment, w, out, sizeof out); remove(out); }
            fprintf(stderr, "mmaref verify: --augment: no suite written\n");
            goto out;
        }
        written++;
        printf("augment: %s: %ld vectors of mode %s\n", out, counts[m], d->modes[m].name);
    }
    if (campaign_only)
        printf("augment: %d mutants the campaign killed die by no vector of the pool alone (by the protocol, the time limit or the vectors before)\n",
               campaign_only);
    int live = n - eq - kc - ks;
    printf("augment: the minimized suite kills %d of the %d mutants (the cover claims %d); the campaign and the search kill %d of the %d not proven equivalent (%.1f%%)\n",
           kmin, n, nwant, kc + ks, n - eq, n - eq ? 100.0 * (kc + ks) / (n - eq) : 100.0);
    if (rh)
        printf("augment: leaving out the %d equivalent while the ready input is held high, the campaign and the search kill %d of %d (%.1f%%)\n",
               rh, kc + ks, n - eq - rh, n - eq - rh ? 100.0 * (kc + ks) / (n - eq - rh) : 100.0);
    printf("augment: %d survivors searched, %d killed by new vectors, minimized suite %ld vectors (full suite %ld)\n", ns, ks, npick,
           c->total);
    status = live > 0 ? 1 : 0;
out:
    free(items);
    for (int m = 0; m < nm; m++) free(pools[m].v);
    if (kills) for (long v = 0; v < npool; v++) free(kills[v]);
    free(kills);
    free(pick);
    free(pools);
    free(files);
    free(counts);
    free(offset);
    free(sel);
    free(tmp);
    free(killed_by);
    return status;
}
