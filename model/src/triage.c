/* Mismatch triage: the observations a reference unit does not reproduce,
 * sorted into classes a designer recognizes at once (a NaN payload, the
 * sign of a zero, Inf against the largest finite, one ulp either way, a
 * flushed subnormal, the flags alone), and for the rest the configuration
 * nearest to what the unit computes, found by the probe (probe.c) started
 * from the reference.  For a tile (observations tagged by output element)
 * the mismatching elements are grouped by the configuration that fits each:
 * one processing element with a narrower accumulator is a group of its
 * own. */
#include "internal.h"
#include "mmaref_parallel.h"
#include "mmaref_triage.h"

#include <stdlib.h>
#include <string.h>

/* the nearest configuration is searched on at most this many
 * observations (a probe's cost grows with them; its answer is counted on
 * all) */
#define TRIAGE_SEARCH 40000

static const char *class_names[MMA_MM_COUNT] = {
    "NaN payload", "sign of zero", "overflow: Inf against the largest finite",
    "1 ulp toward zero", "1 ulp away from zero", "subnormal inputs flushed to zero",
    "subnormal result flushed to zero", "flags only", "larger errors"};

const char *mma_mismatch_class_name(mma_mismatch_class c)
{
    return (int)c >= 0 && c < MMA_MM_COUNT ? class_names[c] : "?";
}

static int is_subnormal_operand(mma_fmt f, uint64_t x)
{
    mma_term t = mma_term_of(f, x);
    return t.cls == MMA_FINITE && t.sig >> t.fb == 0;
}

/* what u gives with every subnormal operand replaced by +0, or want
 * itself when there is none */
static uint64_t flushed_dot(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                            const uint64_t *sa, const uint64_t *sb, int *any)
{
    uint64_t fa[MMA_MAX_K], fb[MMA_MAX_K];
    *any = 0;
    for (int k = 0; k < u->k; k++) {
        fa[k] = a[k];
        fb[k] = b[k];
        if (is_subnormal_operand(u->a, a[k])) { fa[k] = 0; *any = 1; }
        if (is_subnormal_operand(u->b, b[k])) { fb[k] = 0; *any = 1; }
    }
    if (is_subnormal_operand(u->c, c)) { c = 0; *any = 1; }
    return *any ? mma_dot(u, c, fa, fb, sa, sb) : 0;
}

/* the class; without (NO_FLUSH_IN, NO_FLUSH_OUT) as if there were no
 * class of flushed inputs, or of flushed results */
enum { NO_FLUSH_IN = 1, NO_FLUSH_OUT = 2 };
static mma_mismatch_class classify(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                                   const uint64_t *sa, const uint64_t *sb, uint64_t want, uint64_t got,
                                   int without)
{
    const mma_format_info *fd = mma_format(u->d);
    mma_value w = mma_decode(u->d, want), g = mma_decode(u->d, got);
    if (mma_result_equal(u, want, got)) return MMA_MM_FLAGS_ONLY;
    if (w.cls == MMA_NAN && g.cls == MMA_NAN) return MMA_MM_NAN_PAYLOAD;
    if (w.cls == MMA_ZERO && g.cls == MMA_ZERO) return MMA_MM_ZERO_SIGN;
    uint64_t sign = (uint64_t)1 << (fd->width - 1), step = (uint64_t)1 << (fd->mbits - u->p);
    uint64_t maxf = mma_inf(u->d, 0) - step;
    uint64_t wm = want & ~sign, gm = got & ~sign;
    int same_sign = (want & sign) == (got & sign);
    if (same_sign && ((w.cls == MMA_INF && gm == maxf) || (g.cls == MMA_INF && wm == maxf)))
        return MMA_MM_OVERFLOW;
    int any = 0;
    uint64_t fl = (without & NO_FLUSH_IN) ? 0 : flushed_dot(u, c, a, b, sa, sb, &any);
    if (any && mma_result_equal(u, fl, got)) return MMA_MM_SUBNORMAL_IN;
    int w_sub = w.cls == MMA_FINITE && (wm >> fd->mbits) == 0;
    if (w_sub && g.cls == MMA_ZERO && !(without & NO_FLUSH_OUT)) return MMA_MM_SUBNORMAL_OUT;
    int w_num = w.cls == MMA_FINITE || w.cls == MMA_ZERO, g_num = g.cls == MMA_FINITE || g.cls == MMA_ZERO;
    if (w_num && g_num && (same_sign || w.cls == MMA_ZERO || g.cls == MMA_ZERO)) {
        uint64_t diff = gm > wm ? gm - wm : wm - gm;
        if (diff == step) return gm < wm ? MMA_MM_ULP_TOWARD_ZERO : MMA_MM_ULP_AWAY;
    }
    return MMA_MM_LARGER;
}

mma_mismatch_class mma_mismatch_classify(const mma_unit *u, uint64_t c, const uint64_t *a,
                                         const uint64_t *b, const uint64_t *sa,
                                         const uint64_t *sb, uint64_t want, uint64_t got)
{
    return classify(u, c, a, b, sa, sb, want, got, 0);
}

typedef struct {
    const mma_unit *u;
    const mma_obs *o;
    uint64_t *want;
} want_job;

static void want_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    want_job *J = ctx;
    const mma_obs *o = J->o;
    size_t k = (size_t)o->shape.k, ns = (size_t)o->ns;
    for (long i = lo; i < hi; i++) {
        size_t v = (size_t)i;
        J->want[v] = mma_dot(J->u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL,
                             ns ? o->sb + v * ns : NULL);
    }
}

/* cfg with the value of key replaced by val (the tree when key is "") */
static void with_field(const char *cfg, const char *key, const char *val, char *out, size_t len)
{
    size_t n = 0, kl = strlen(key);
    out[0] = 0;
    for (const char *p = cfg; *p; ) {
        size_t tl = strcspn(p, ",");
        int first = p == cfg;
        int hit = (!kl && first) || (kl && tl > kl && !strncmp(p, key, kl) && p[kl] == '=');
        int w = hit ? snprintf(out + n, n < len ? len - n : 0, "%s%s%s%s", first ? "" : ",", key, kl ? "=" : "", val)
                    : snprintf(out + n, n < len ? len - n : 0, "%s%.*s", first ? "" : ",", (int)tl, p);
        if (w > 0) n += (size_t)w;
        p += tl;
        if (*p) p++;
    }
}

/* The nearest unit with as few differences from the reference as the
 * observations allow: each field that differs goes back to the
 * reference's value where that reproduces as many observations (the
 * probe's choice among equivalent values, an ezero say, is no finding). */
static void fewest_differences(mma_unit *near, const mma_unit *u, const mma_obs *o, const size_t *sub,
                               size_t nsub, int threads)
{
    size_t fit = mma_probe_fit(near, o, sub, nsub, threads);
    char cu[512];
    mma_unit_config(u, cu, sizeof cu);
    for (const char *p = cu; *p; ) {
        size_t tl = strcspn(p, ",");
        char key[32] = "", val[64];
        const char *eq = memchr(p, '=', tl);
        if (eq) {
            snprintf(key, sizeof key, "%.*s", (int)(eq - p), p);
            snprintf(val, sizeof val, "%.*s", (int)(tl - (size_t)(eq - p) - 1), eq + 1);
        } else snprintf(val, sizeof val, "%.*s", (int)tl, p);
        char cn[512], ct[512];
        mma_unit_config(near, cn, sizeof cn);
        with_field(cn, key, val, ct, sizeof ct);
        mma_unit t;
        if (strcmp(ct, cn) && mma_unit_parse(ct, &t, NULL, 0) == 0 && mma_probe_fit(&t, o, sub, nsub, threads) >= fit) {
            char name[sizeof near->name];
            memcpy(name, near->name, sizeof name);
            *near = t;
            memcpy(near->name, name, sizeof name);
        }
        p += tl;
        if (*p) p++;
    }
}

/* The mismatching elements of a tile, grouped by the configuration that
 * reproduces each one's observations. */
static void tile_groups(const mma_unit *u, const mma_obs *o, const mma_triage_opts *opt,
                        const unsigned char *bad, mma_triage_report *r)
{
    long ne = opt->tile_elems;
    size_t *cnt = calloc((size_t)ne + 1, sizeof *cnt), *badc = calloc((size_t)ne + 1, sizeof *badc);
    if (!cnt || !badc) abort();
    for (size_t i = 0; i < o->n; i++) {
        long t = o->tag[i];
        if (t < 0 || t >= ne) continue;
        cnt[t]++;
        badc[t] += bad[i];
    }
    mma_unit gu[MMA_TRIAGE_MAX_GROUPS];
    for (long e = 0; e < ne; e++) {
        if (!badc[e]) continue;
        size_t *sub = malloc(sizeof(size_t) * cnt[e]), ns = 0;
        if (!sub) abort();
        for (size_t i = 0; i < o->n; i++) if (o->tag[i] == e) sub[ns++] = i;
        int g;
        for (g = 0; g < r->ngroups; g++)
            if (mma_probe_fit(&gu[g], o, sub, ns, opt->threads) == ns) break;
        if (g == r->ngroups && r->ngroups < MMA_TRIAGE_MAX_GROUPS) {
            mma_probe_opts po = {opt->threads, u, sub, ns};
            mma_probe_result pr;
            if (mma_probe(o, &po, &pr, NULL, 0) == 0) {
                fewest_differences(&pr.unit, u, o, sub, ns, opt->threads);
                gu[g] = pr.unit;
                mma_unit_diff(&pr.unit, u, r->group[g].diff, sizeof r->group[g].diff);
                r->ngroups++;
            } else g = -1;
        } else if (g == r->ngroups) g = -1;
        if (g >= 0) {
            if (r->group[g].nelems < (long)(sizeof r->group[g].elems / sizeof r->group[g].elems[0]))
                r->group[g].elems[r->group[g].nelems] = e;
            r->group[g].nelems++;
            r->group[g].n += ns;
            r->group[g].fit += mma_probe_fit(&gu[g], o, sub, ns, opt->threads);
        }
        free(sub);
    }
    free(cnt);
    free(badc);
}

/* "Subnormal inputs flushed to zero" names what the unit does only where
 * it does so on every vector it could show it on: an observation whose
 * result flushing would change, reproduced without flushing, says the
 * unit uses its subnormal inputs.  Likewise "subnormal result flushed to
 * zero" and an observation with a subnormal result reproduced.  A class
 * that does not fit goes: its mismatches are classed as if there were no
 * such class. */
static void demote_flushed(const mma_unit *u, const mma_obs *o, const uint64_t *want, const unsigned char *bad,
                           mma_triage_report *r)
{
    if (!r->count[MMA_MM_SUBNORMAL_IN] && !r->count[MMA_MM_SUBNORMAL_OUT]) return;
    size_t k = (size_t)o->shape.k, ns = (size_t)o->ns;
    const mma_format_info *fd = mma_format(u->d);
    uint64_t sign = (uint64_t)1 << (fd->width - 1);
    int without = 0;
    for (size_t v = 0; v < o->n && without != (NO_FLUSH_IN | NO_FLUSH_OUT); v++) {
        if (bad[v]) continue;
        mma_value w = mma_decode(u->d, want[v]);
        if (w.cls == MMA_FINITE && ((want[v] & ~sign) >> fd->mbits) == 0) without |= NO_FLUSH_OUT;
        if (!r->count[MMA_MM_SUBNORMAL_IN] || (without & NO_FLUSH_IN)) continue;
        int any;
        uint64_t fl = flushed_dot(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL,
                                  ns ? o->sb + v * ns : NULL, &any);
        if (any && !mma_result_equal(u, fl, want[v])) without |= NO_FLUSH_IN;
    }
    if (!without) return;
    for (int c = 0; c < MMA_MM_COUNT; c++) { r->count[c] = 0; r->example[c] = (size_t)-1; }
    for (size_t v = 0; v < o->n; v++) {
        if (!bad[v]) continue;
        mma_mismatch_class c = mma_result_equal(u, want[v], o->d[v]) ? MMA_MM_FLAGS_ONLY :
            classify(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL, ns ? o->sb + v * ns : NULL,
                     want[v], o->d[v], without);
        r->count[c]++;
        if (r->example[c] == (size_t)-1) { r->example[c] = v; r->example_want[c] = want[v]; }
    }
}

int mma_triage(const mma_unit *u, const mma_obs *o, const mma_triage_opts *opt,
               mma_triage_report *r, char *err, size_t len)
{
    memset(r, 0, sizeof *r);
    const mma_unit *sh = &o->shape;
    if (u->a != sh->a || u->b != sh->b || u->c != sh->c || u->d != sh->d || u->k != sh->k ||
        u->scale != sh->scale) {
        if (err) snprintf(err, len, "the observations are not of the unit's shape (formats, k, scales)");
        return -1;
    }
    mma_triage_opts dflt = {0, 1, 0};
    if (!opt) opt = &dflt;
    for (int c = 0; c < MMA_MM_COUNT; c++) r->example[c] = (size_t)-1;
    r->n = o->n;
    uint64_t *want = malloc(sizeof(uint64_t) * (o->n ? o->n : 1));
    unsigned char *bad = calloc(o->n ? o->n : 1, 1);
    if (!want || !bad) abort();
    want_job J = {u, o, want};
    mma_parallel_for((long)o->n, 4096, opt->threads, want_chunk, &J, NULL, NULL);
    size_t k = (size_t)sh->k, ns = (size_t)o->ns, numeric = 0;
    for (size_t v = 0; v < o->n; v++) {
        int flags_bad = 0;
        if (o->has_flags && mma_unit_has_flags(u)) {
            unsigned fl = 0;
            mma_dot_flags(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL,
                          ns ? o->sb + v * ns : NULL, &fl);
            flags_bad = fl != o->flags[v];
        }
        if (mma_result_equal(u, want[v], o->d[v]) && !flags_bad) continue;
        mma_mismatch_class c = mma_mismatch_classify(u, o->c[v], o->a + v * k, o->b + v * k,
                                                     ns ? o->sa + v * ns : NULL, ns ? o->sb + v * ns : NULL,
                                                     want[v], o->d[v]);
        bad[v] = 1;
        r->mismatches++;
        r->count[c]++;
        if (c != MMA_MM_FLAGS_ONLY) numeric++;
        if (r->example[c] == (size_t)-1) { r->example[c] = v; r->example_want[c] = want[v]; }
    }
    /* a label must fit the vectors: subnormal inputs are flushed only
     * where no vector shows them used exactly */
    demote_flushed(u, o, want, bad, r);
    /* with the unit's flags, a flags-only mismatch is evidence too (the
     * probe compares them) */
    int flagged = o->has_flags && mma_unit_has_flags(u);
    if ((numeric || (flagged && r->mismatches)) && opt->nearest) {
        /* the search on at most TRIAGE_SEARCH observations (the mismatches
         * and the matches taken evenly), its answer then counted on all */
        size_t *ss = NULL, nss = 0;
        if (o->n > TRIAGE_SEARCH) {
            size_t nbad = r->mismatches, ngood = o->n - nbad;
            size_t wb = nbad < TRIAGE_SEARCH * 3 / 4 ? nbad : TRIAGE_SEARCH * 3 / 4;
            size_t wg = TRIAGE_SEARCH - wb < ngood ? TRIAGE_SEARCH - wb : ngood;
            ss = malloc(sizeof(size_t) * TRIAGE_SEARCH);
            if (!ss) abort();
            size_t ib = 0, ig = 0;
            /* the i-th of n kept where i*w/n steps: w of them, evenly */
            for (size_t v = 0; v < o->n; v++) {
                if (bad[v]) { if (ib * wb / nbad != (ib + 1) * wb / nbad) ss[nss++] = v; ib++; }
                else { if (ig * wg / ngood != (ig + 1) * wg / ngood) ss[nss++] = v; ig++; }
            }
        }
        mma_probe_opts po = {opt->threads, u, ss, nss};
        if (mma_probe(o, &po, &r->nearest, NULL, 0) == 0) {
            r->have_nearest = 1;
            fewest_differences(&r->nearest.unit, u, o, ss, nss, opt->threads);
            size_t *mis = malloc(sizeof(size_t) * (r->mismatches + 1)), *ok = malloc(sizeof(size_t) * (o->n - r->mismatches + 1));
            size_t nm = 0, nok = 0;
            if (!mis || !ok) abort();
            for (size_t v = 0; v < o->n; v++) {
                if (bad[v]) { if (flagged || !mma_result_equal(u, want[v], o->d[v])) mis[nm++] = v; }
                else ok[nok++] = v;
            }
            r->nearest_of = nm;
            r->nearest_fit_mismatching = mma_probe_fit(&r->nearest.unit, o, mis, nm, opt->threads);
            r->nearest_fit_matching = mma_probe_fit(&r->nearest.unit, o, ok, nok, opt->threads);
            mma_unit_diff(&r->nearest.unit, u, r->diff, sizeof r->diff);
            free(mis);
            free(ok);
        }
        free(ss);
    }
    if (numeric && opt->nearest && opt->tile_elems > 0) {
        r->tile_elems = opt->tile_elems;
        tile_groups(u, o, opt, bad, r);
    }
    free(want);
    free(bad);
    return 0;
}

static void where(FILE *f, const mma_obs *o, size_t v, long tile_cols)
{
    if (tile_cols > 0) fprintf(f, "element (%ld,%ld)", o->tag[v] / tile_cols, o->tag[v] % tile_cols);
    else if (tile_cols < 0) fprintf(f, "lane %ld", o->tag[v]);
    else fprintf(f, "line %ld", o->tag[v]);
}

/* the flags-only example: d and both flag bytes, with their names */
static void flags_example(FILE *f, const mma_unit *u, const mma_obs *o, size_t v, int hd)
{
    size_t k = (size_t)o->shape.k, ns = (size_t)o->ns;
    unsigned fl = 0;
    mma_dot_flags(u, o->c[v], o->a + v * k, o->b + v * k, ns ? o->sa + v * ns : NULL, ns ? o->sb + v * ns : NULL,
                  &fl);
    char un[64], mn[64];
    mma_flags_describe(o->flags[v], un, sizeof un);
    mma_flags_describe(fl, mn, sizeof mn);
    fprintf(f, ": d=%0*llx, unit flags %02x (%s), model flags %02x (%s)\n", hd, (unsigned long long)o->d[v],
            o->flags[v], un, fl, mn);
}

void mma_triage_write(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                      long tile_cols)
{
    mma_triage_write_classes(f, u, o, r, tile_cols);
    mma_triage_write_nearest(f, u, o, r, tile_cols);
}

void mma_triage_write_classes(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                              long tile_cols)
{
    int hd = mma_format(u->d)->hexdigits;
    fprintf(f, "triage: %zu of %zu vectors mismatch\n", r->mismatches, r->n);
    for (int c = 0; c < MMA_MM_COUNT; c++) {
        if (!r->count[c]) continue;
        size_t v = r->example[c];
        fprintf(f, "  %-42s %8zu   e.g. ", class_names[c], r->count[c]);
        where(f, o, v, tile_cols);
        if (c == MMA_MM_FLAGS_ONLY && o->has_flags) {
            flags_example(f, u, o, v, hd);
            continue;
        }
        fprintf(f, ": unit d=%0*llx, model d=%0*llx\n", hd, (unsigned long long)o->d[v], hd,
                (unsigned long long)r->example_want[c]);
    }
}

void mma_triage_write_nearest(FILE *f, const mma_unit *u, const mma_obs *o, const mma_triage_report *r,
                              long tile_cols)
{
    (void)u;
    (void)o;
    if (r->have_nearest) {
        char cfg[512];
        mma_unit_config(&r->nearest.unit, cfg, sizeof cfg);
        size_t nm = r->nearest_of, nok = r->n - r->mismatches;
        int by_element = r->ngroups && r->nearest_fit_mismatching < nm;
        /* a tile whose elements differ in their own ways (one narrow
         * processing element): the groups below say what each does */
        if (by_element) fprintf(f, "no one configuration fits the whole %s; by %s:\n", tile_cols < 0 ? "unit" : "tile", tile_cols < 0 ? "lane" : "output element");
        else fprintf(f, "nearest configuration: %s\n", cfg);
        if (by_element) {
        } else if (!r->diff[0]) {
            fprintf(f, "  no configuration near the model's fits these mismatches better than the model\n");
        } else {
            fprintf(f, "  the unit behaves as %s on %.1f%% of the mismatching vectors (%zu of %zu)",
                    r->diff, nm ? 100.0 * (double)r->nearest_fit_mismatching / (double)nm : 100.0,
                    r->nearest_fit_mismatching, nm);
            if (nok) {
                if (r->nearest_fit_matching == nok) fprintf(f, " and on all %zu that match", nok);
                else fprintf(f, " and on %zu of the %zu that match", r->nearest_fit_matching, nok);
            }
            fprintf(f, "\n");
        }
    }
    /* the groups of elements, where they differ (one group that fits
     * everything says no more than the nearest configuration) */
    int tell = r->ngroups > 1 || (r->have_nearest && r->nearest_fit_mismatching < r->nearest_of) ||
               (r->ngroups == 1 && r->group[0].nelems < r->tile_elems);
    for (int g = 0; tell && g < r->ngroups; g++) {
        fprintf(f, "  %ld %s%s", r->group[g].nelems, tile_cols < 0 ? "lane" : "output element", r->group[g].nelems > 1 ? "s" : "");
        long shown = r->group[g].nelems < 64 ? r->group[g].nelems : 64;
        for (long i = 0; i < shown; i++) {
            long e = r->group[g].elems[i];
            if (tile_cols > 0) fprintf(f, "%s(%ld,%ld)", i ? " " : " ", e / tile_cols, e % tile_cols);
            else fprintf(f, "%s%ld", i ? " " : " ", e);
        }
        if (shown < r->group[g].nelems) fprintf(f, " ...");
        fprintf(f, " %s as %s (%zu of %s %zu vectors)\n", r->group[g].nelems > 1 ? "behave" : "behaves",
                r->group[g].diff[0] ? r->group[g].diff : "the model", r->group[g].fit,
                r->group[g].nelems > 1 ? "their" : "its", r->group[g].n);
    }
}
