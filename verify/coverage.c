/* mmaref verify --coverage: how much of the user's RTL the suites exercise.
 * The testbench is built with Verilator's coverage (line points, which
 * include every branch of an if and a case; toggle points of every signal
 * bit; expression points from Verilator 5.020), the generated testbench
 * left out (its `coverage_off`), and each item of the plan (a suite or the
 * random stimulus of a mode) runs alone so that each has its own counts.
 * The counts of the user's sources are added up into <workdir>/coverage:
 * coverage.dat (Verilator's format), coverage.info (LCOV, for genhtml) and
 * annotated/ (verilator_coverage --annotate). */
#include "internal.h"
#include "mmaref_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHLEN 1200
#define LEAST_LINES 10

/* the kinds of points, as Verilator names their pages (v_line/...) */
enum { PT_LINE, PT_TOGGLE, PT_BRANCH, PT_EXPR, PT_KINDS };
static const char *const pt_names[PT_KINDS] = {"line", "toggle", "branch", "expr"};

typedef struct {
    char *key;                      /* Verilator's point key, as written */
    char *file;
    int line, kind;
    long long count;
} cov_point;

typedef struct {
    cov_point *p;
    size_t n, cap;
} cov_set;

/* the value of field `name` of a key (\001name\002value...), into out */
static int key_field(const char *key, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);
    for (const char *s = key; (s = strchr(s, '\001')); s++) {
        if (strncmp(s + 1, name, nl) || s[1 + nl] != '\002') continue;
        const char *v = s + 2 + nl, *e = strchr(v, '\001');
        size_t l = e ? (size_t)(e - v) : strlen(v);
        if (l >= len) l = len - 1;
        memcpy(out, v, l);
        out[l] = 0;
        return 0;
    }
    return -1;
}

static int point_kind(const char *key)
{
    char page[256];
    if (key_field(key, "page", page, sizeof page)) return -1;
    for (int k = 0; k < PT_KINDS; k++) {
        size_t l = strlen(pt_names[k]);
        if (!strncmp(page, "v_", 2) && !strncmp(page + 2, pt_names[k], l) && page[2 + l] == '/') return k;
    }
    return -1;
}

/* the index of key in s (linear: a unit has a few thousand points), or -1 */
static long find_point(const cov_set *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++) if (!strcmp(s->p[i].key, key)) return (long)i;
    return -1;
}

/* Adds a coverage.dat's points of the user's sources (every file but the
 * generated testbench, known by its name: a build from the cache of
 * another work directory names that directory's copy) to s: 0, or -1 when
 * it cannot be read. */
static int read_dat(cov_set *s, const char *path, const char *tb)
{
    size_t n;
    char *text = vfy_read_file(path, &n);
    if (!text) return -1;
    for (char *l = text; l && *l;) {
        char *e = strchr(l, '\n');
        if (e) *e = 0;
        /* C '<key>' <count> */
        char *q = l[0] == 'C' && l[1] == ' ' && l[2] == '\'' ? strrchr(l, '\'') : NULL;
        if (q && q > l + 2) {
            *q = 0;
            const char *key = l + 3;
            long long cnt = atoll(q + 1);
            char file[PATHLEN], ln[32];
            int kind = point_kind(key);
            if (kind >= 0 && !key_field(key, "f", file, sizeof file) && strcmp(vfy_base_name(file), vfy_base_name(tb)) && !key_field(key, "l", ln, sizeof ln)) {
                long i = find_point(s, key);
                if (i >= 0) s->p[i].count += cnt;
                else {
                    if (s->n == s->cap) { s->cap = s->cap ? 2 * s->cap : 1024; s->p = realloc(s->p, s->cap * sizeof *s->p); }
                    cov_point *p = &s->p[s->n++];
                    p->key = strdup(key);
                    p->file = strdup(file);
                    p->line = atoi(ln);
                    p->kind = kind;
                    p->count = cnt;
                }
            }
        }
        l = e ? e + 1 : NULL;
    }
    free(text);
    return 0;
}

static void set_free(cov_set *s)
{
    for (size_t i = 0; i < s->n; i++) { free(s->p[i].key); free(s->p[i].file); }
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}

/* hit and total points per kind */
static void tally(const cov_set *s, long hit[PT_KINDS], long all[PT_KINDS])
{
    for (int k = 0; k < PT_KINDS; k++) hit[k] = all[k] = 0;
    for (size_t i = 0; i < s->n; i++) {
        all[s->p[i].kind]++;
        if (s->p[i].count > 0) hit[s->p[i].kind]++;
    }
}

static void print_fractions(FILE *f, const long hit[PT_KINDS], const long all[PT_KINDS])
{
    int first = 1;
    for (int k = 0; k < PT_KINDS; k++) {
        if (!all[k]) continue;
        fprintf(f, "%s%s %ld of %ld (%.1f%%)", first ? "" : ", ", pt_names[k], hit[k], all[k], 100.0 * (double)hit[k] / (double)all[k]);
        first = 0;
    }
    if (first) fprintf(f, "no points");
}

/* the merged points written in Verilator's format, whole (temporary + rename) */
static int write_dat(const cov_set *s, const char *path)
{
    char tmp[PATHLEN + 16];
    vfy_path(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    fprintf(f, "# SystemC::Coverage-3\n");
    for (size_t i = 0; i < s->n; i++) fprintf(f, "C '%s' %lld\n", s->p[i].key, s->p[i].count);
    if (fclose(f) || rename(tmp, path)) { remove(tmp); return -1; }
    return 0;
}

typedef struct { const char *file; int line; long hit, all; } cov_line;

static int by_coverage(const void *x, const void *y)
{
    const cov_line *a = x, *b = y;
    /* the least covered first: by fraction hit, then the most points missed */
    double fa = (double)a->hit / (double)a->all, fb = (double)b->hit / (double)b->all;
    if (fa != fb) return fa < fb ? -1 : 1;
    if (a->all - a->hit != b->all - b->hit) return (b->all - b->hit) > (a->all - a->hit) ? 1 : -1;
    int c = strcmp(a->file, b->file);
    return c ? c : a->line - b->line;
}

/* line n (from 1) of a file, trimmed, into out */
static void source_line(const char *file, int n, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen(file, "r");
    if (!f) return;
    char buf[4096];
    for (int i = 1; fgets(buf, sizeof buf, f); i++)
        if (i == n) {
            char *s = buf;
            while (*s == ' ' || *s == '\t') s++;
            s[strcspn(s, "\r\n")] = 0;
            snprintf(out, len, "%.100s", s);
            break;
        }
    fclose(f);
}

/* The lines of the user's sources with the smallest fraction of their
 * points hit (those with any point missed). */
static void least_covered(FILE *f, const cov_set *s)
{
    cov_line *L = calloc(s->n + 1, sizeof *L);
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t j;
        for (j = 0; j < n; j++) if (L[j].line == s->p[i].line && !strcmp(L[j].file, s->p[i].file)) break;
        if (j == n) { L[n].file = s->p[i].file; L[n].line = s->p[i].line; n++; }
        L[j].all++;
        if (s->p[i].count > 0) L[j].hit++;
    }
    size_t m = 0;
    for (size_t j = 0; j < n; j++) if (L[j].hit < L[j].all) L[m++] = L[j];
    qsort(L, m, sizeof *L, by_coverage);
    if (!m) fprintf(f, "every point of the unit's sources was hit\n");
    else fprintf(f, "least covered lines (%zu lines with points never hit):\n", m);
    for (size_t j = 0; j < m && j < LEAST_LINES; j++) {
        char text[128];
        source_line(L[j].file, L[j].line, text, sizeof text);
        const char *base = strrchr(L[j].file, '/');
        fprintf(f, "  %s:%d  %ld of %ld points  %s\n", base ? base + 1 : L[j].file, L[j].line, L[j].hit, L[j].all, text);
    }
    free(L);
}

/* verilator_coverage beside the kit's verilator */
static void coverage_tool(const mma_verify_kit *kit, char *out, size_t len)
{
    const char *slash = strrchr(kit->verilator, '/');
    if (slash) vfy_path(out, len, "%.*s/verilator_coverage", (int)(slash - kit->verilator), kit->verilator);
    else vfy_path(out, len, "verilator_coverage");
}

int vfy_coverage(const vfy_campaign *c)
{
    const dut_desc *d = c->d;
    const mma_verify_opts *o = c->o;
    char err[8000], dir[PATHLEN], tb[PATHLEN], exe[PATHLEN];
    if (vfy_build(d, c->kit, c->workdir, "obj-cov", VFY_BUILD_COVERAGE, o->jobs, err, sizeof err)) {
        fprintf(stderr, "mmaref verify: %s\n", err);
        return 2;
    }
    vfy_path(dir, sizeof dir, "%s/coverage", c->workdir);
    vfy_path(tb, sizeof tb, "%s/mmaref_verify_tb.sv", c->workdir);
    vfy_path(exe, sizeof exe, "%s/obj-cov/Vmmaref_verify_tb", c->workdir);
    if (vfy_mkdirs(dir)) { fprintf(stderr, "mmaref verify: cannot create %s\n", dir); return 2; }
    if (o->build_only) { printf("testbench built with coverage in %s\n", c->workdir); return 0; }
    cov_set all = {0};
    long total_n = 0, total_m = 0;
    int status = 0, idx = 0;
    char *items = strdup(c->items);
    for (char *sv = NULL, *line = strtok_r(items, "\n", &sv); line; line = strtok_r(NULL, "\n", &sv), idx++) {
        char run[PATHLEN], plan[PATHLEN], dat[PATHLEN], log[PATHLEN], arg[PATHLEN + 8], res[PATHLEN];
        vfy_path(run, sizeof run, "%s/item-%d", dir, idx);
        vfy_path(plan, sizeof plan, "%s/plan", run);
        vfy_path(dat, sizeof dat, "%s/coverage.dat", run);
        vfy_path(log, sizeof log, "%s/simulation.log", run);
        vfy_path(res, sizeof res, "%s/results", run);
        vfy_mkdirs(run);
        remove(dat);
        remove(log);
        remove(res);
        vfy_text one = {0};
        vfy_tprintf(&one, "%s\n", line);
        int rc = vfy_write_plan(plan, c->g, run, o, d, c->latency, 0, one.s);
        free(one.s);
        if (rc) { fprintf(stderr, "mmaref verify: cannot write %s\n", plan); status = 2; break; }
        vfy_path(arg, sizeof arg, "+cov=%s", dat);
        const char *extra[] = {arg, NULL};
        rc = vfy_simulate(exe, plan, o, d, c->latency, NULL, extra, log, err, sizeof err);
        mmaref_results *r = calloc(1, sizeof *r);
        cov_set one_set = {0};
        if (rc < 0 || rc > 1 || mmaref_res_merge(r, res, err, sizeof err) || read_dat(&one_set, dat, tb)) {
            fprintf(stderr, "mmaref verify: the coverage run of '%s' failed (log %s)\n", line, log);
            free(r);
            set_free(&one_set);
            status = 2;
            break;
        }
        long n, m, cls[MMAREF_CLS_COUNT], hit[PT_KINDS], tot[PT_KINDS];
        mmaref_res_totals(r, &n, &m, cls);
        total_n += n;
        total_m += m;
        tally(&one_set, hit, tot);
        const mmaref_res_item *it = r->nitems ? &r->items[0] : NULL;
        char label[200];
        snprintf(label, sizeof label, "%s %s:", it ? it->mode : "?", it ? it->label : "?");
        printf("%-34s ", label);
        print_fractions(stdout, hit, tot);
        printf("; %ld vectors, %ld mismatches\n", n, m);
        fflush(stdout);
        read_dat(&all, dat, tb);
        set_free(&one_set);
        free(r);
    }
    free(items);
    if (status == 2) { set_free(&all); return 2; }
    /* the whole: the counts added up, written once, and Verilator's tools on them */
    char dat[PATHLEN], info[PATHLEN], tinfo[PATHLEN + 8], ann[PATHLEN], tann[PATHLEN + 8], log[PATHLEN], tool[PATHLEN];
    vfy_path(dat, sizeof dat, "%s/coverage.dat", dir);
    vfy_path(info, sizeof info, "%s/coverage.info", dir);
    vfy_path(tinfo, sizeof tinfo, "%s.tmp", info);
    vfy_path(ann, sizeof ann, "%s/annotated", dir);
    vfy_path(tann, sizeof tann, "%s.tmp", ann);
    vfy_path(log, sizeof log, "%s/verilator_coverage.log", dir);
    coverage_tool(c->kit, tool, sizeof tool);
    if (write_dat(&all, dat)) { fprintf(stderr, "mmaref verify: cannot write %s\n", dat); set_free(&all); return 2; }
    remove(log);
    /* a fresh directory for the annotated listing, renamed into place */
    char *rm_tmp[] = {"rm", "-rf", "--", tann, NULL};
    vfy_run(rm_tmp, NULL, NULL, err, sizeof err);
    char *argv[] = {tool, "--annotate", tann, "--annotate-min", "1", "--write-info", tinfo, dat, NULL};
    int rc = vfy_run(argv, NULL, log, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "mmaref verify: %s failed (log %s)%s%s\n", tool, log, rc < 0 ? ": " : "", rc < 0 ? err : "");
        set_free(&all);
        return 2;
    }
    char *rm_old[] = {"rm", "-rf", "--", ann, NULL};
    vfy_run(rm_old, NULL, NULL, err, sizeof err);
    if (rename(tinfo, info) || rename(tann, ann)) { fprintf(stderr, "mmaref verify: cannot write %s\n", info); set_free(&all); return 2; }
    long hit[PT_KINDS], tot[PT_KINDS];
    tally(&all, hit, tot);
    least_covered(stdout, &all);
    printf("coverage files: %s (LCOV: genhtml %s -o <dir>), %s/\n", dat, info, ann);
    printf("coverage of %s: ", d->top.name);
    print_fractions(stdout, hit, tot);
    printf("\n%ld vectors, %ld mismatches\n", total_n, total_m);
    set_free(&all);
    return total_m || !total_n ? 1 : status;
}
