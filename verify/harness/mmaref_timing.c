/* mmaref_timing: the result stream against the vectors shifted in time
 * (mmaref_timing.h). */
#include "mmaref_timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mmaref_tw {
    int latency, lmax;
    uint64_t *want;            /* the model's d of vector i (in push order) */
    int *mode;
    long npush;
    long *take;                /* the edge at which the unit took vector i  */
    long ntake;
    uint64_t *bus;             /* the result bus at each edge (no out_valid) */
    long nedge, capedge;
    uint64_t *pop;             /* results taken in order (out_valid)         */
    long npop;
    int done;
};

static void *grow(void *p, long n, size_t each)
{
    void *q = realloc(p, (size_t)n * each);
    if (!q) abort();
    return q;
}

mmaref_tw *mmaref_tw_create(int latency, int lmax)
{
    mmaref_tw *w = (mmaref_tw *)calloc(1, sizeof *w);
    if (!w) abort();
    w->latency = latency;
    w->lmax = lmax;
    w->want = (uint64_t *)grow(NULL, MMAREF_TW_VECTORS, sizeof *w->want);
    w->mode = (int *)grow(NULL, MMAREF_TW_VECTORS, sizeof *w->mode);
    if (latency >= 0) w->take = (long *)grow(NULL, MMAREF_TW_VECTORS, sizeof *w->take);
    else w->pop = (uint64_t *)grow(NULL, MMAREF_TW_VECTORS, sizeof *w->pop);
    return w;
}

void mmaref_tw_free(mmaref_tw *w)
{
    if (!w) return;
    free(w->want);
    free(w->mode);
    free(w->take);
    free(w->bus);
    free(w->pop);
    free(w);
}

void mmaref_tw_push(mmaref_tw *w, uint64_t d, int mode)
{
    if (w->npush >= MMAREF_TW_VECTORS) return;
    w->want[w->npush] = d;
    w->mode[w->npush++] = mode;
}

int mmaref_tw_edge(mmaref_tw *w, int taken, uint64_t d)
{
    if (w->done || w->latency < 0) return 0;
    if (w->nedge == w->capedge) {
        w->capedge = w->capedge ? 2 * w->capedge : 65536;
        w->bus = (uint64_t *)grow(w->bus, w->capedge, sizeof *w->bus);
    }
    if (taken && w->ntake < MMAREF_TW_VECTORS) w->take[w->ntake++] = w->nedge;
    w->bus[w->nedge++] = d;
    /* enough: every watched vector's result is in at the largest latency
     * searched; or a unit that takes vectors rarely, watched long enough */
    if ((w->ntake == MMAREF_TW_VECTORS && w->nedge > w->take[w->ntake - 1] + w->lmax + 1) ||
        w->nedge >= 64 * MMAREF_TW_VECTORS)
        w->done = 1;
    return !w->done;
}

void mmaref_tw_pop(mmaref_tw *w, uint64_t d)
{
    if (w->latency >= 0 || w->npop >= MMAREF_TW_VECTORS) return;
    w->pop[w->npop++] = d;
}

/* vectors explained by latency l (a unit without out_valid) */
static void at_latency(const mmaref_tw *w, int l, mmaref_tw_equal eq, void *ctx, long *match, long *compared)
{
    long n = w->ntake < w->npush ? w->ntake : w->npush;
    *match = *compared = 0;
    for (long i = 0; i < n; i++) {
        long e = w->take[i] + l;
        if (e >= w->nedge) break;
        (*compared)++;
        *match += eq(ctx, w->mode[i], w->want[i], w->bus[e]);
    }
}

/* results explained by vectors shifted by s transactions (out_valid) */
static void at_shift(const mmaref_tw *w, int s, mmaref_tw_equal eq, void *ctx, long *match, long *compared)
{
    *match = *compared = 0;
    for (long j = 0; j < w->npop; j++) {
        long i = j + s;
        if (i < 0 || i >= w->npush) continue;
        (*compared)++;
        *match += eq(ctx, w->mode[i], w->want[i], w->pop[j]);
    }
}

int mmaref_tw_best(const mmaref_tw *w, int measure, mmaref_tw_equal eq, void *ctx, mmaref_tw_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    long m, c;
    if (w->latency >= 0) {
        if (!w->ntake) return -1;
        int lo = measure ? 0 : w->latency - 4, hi = measure ? w->lmax : w->latency + 8;
        if (lo < 0) lo = 0;
        if (hi > w->lmax) hi = w->lmax;
        fit->shift = -1;
        for (int l = lo; l <= hi; l++) {
            at_latency(w, l, eq, ctx, &m, &c);
            if (l == w->latency) fit->match_given = m;
            /* ties: the shorter latency (a unit that holds its result
             * matches at several) */
            if (fit->shift < 0 || m > fit->match) { fit->shift = l; fit->match = m; fit->compared = c; }
        }
        if (w->latency < lo || w->latency > hi) { at_latency(w, w->latency, eq, ctx, &m, &c); fit->match_given = m; }
        return 0;
    }
    if (!w->npop) return -1;
    for (int s = 0; s >= -1; s = s == 0 ? 1 : s == 1 ? -1 : -2) {
        at_shift(w, s, eq, ctx, &m, &c);
        if (s == 0) { fit->match_given = m; fit->match = m; fit->compared = c; fit->shift = 0; }
        else if (m > fit->match) { fit->shift = s; fit->match = m; fit->compared = c; }
    }
    return 0;
}

/* n with thousands separators */
static const char *grouped(long n, char *buf, size_t len)
{
    char d[32];
    int l = snprintf(d, sizeof d, "%ld", n < 0 ? -n : n), o = 0;
    if (n < 0 && (size_t)o + 1 < len) buf[o++] = '-';
    for (int i = 0; i < l && (size_t)o + 2 < len; i++) {
        if (i && (l - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = 0;
    return buf;
}

int mmaref_tw_note(const mmaref_tw *w, const mmaref_tw_fit *f, char *out, size_t len)
{
    char m[32], c[32], g[32];
    int given = w->latency >= 0 ? w->latency : 0;
    /* another timing explains most vectors, and far more than the given one */
    if (f->shift == given || f->compared == 0 || 2 * f->match <= f->compared || f->match <= 2 * f->match_given) return 0;
    grouped(f->match, m, sizeof m);
    grouped(f->compared, c, sizeof c);
    grouped(f->match_given, g, sizeof g);
    int all = f->match == f->compared;
    if (w->latency >= 0) {
        if (all)
            snprintf(out, len, "latency %d is wrong: the unit answers after %d cycle%s (%s of %s vectors match at %d)",
                     w->latency, f->shift, f->shift == 1 ? "" : "s", m, c, f->shift);
        else
            snprintf(out, len, "latency %d looks wrong: %s of %s vectors match at %d cycles, %s at %d (the unit may have other faults too)",
                     w->latency, m, c, f->shift, g, w->latency);
        return 1;
    }
    snprintf(out, len, "the results are one transaction %s: result i is vector %s's (%s of %s results match so%s)",
             f->shift < 0 ? "late" : "early", f->shift < 0 ? "i-1" : "i+1", m, c,
             all ? "" : "; the unit may have other faults too");
    return 1;
}
