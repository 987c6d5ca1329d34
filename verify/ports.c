/* The top module's ports, as Verilator elaborates the design (--xml-only):
 * names, directions and widths after parameters, so that the description
 * is checked against the real design and the testbench is generated at its
 * exact widths. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the value of attribute name in the tag starting at s (up to '>'); 0 if absent */
static int attr(const char *s, const char *name, char *out, size_t len)
{
    const char *end = strchr(s, '>');
    size_t nl = strlen(name);
    for (const char *p = s; p && p < end; p++) {
        p = strstr(p, name);
        if (!p || p >= end) return 0;
        if (p[-1] == ' ' && p[nl] == '=' && p[nl + 1] == '"') {
            const char *v = p + nl + 2, *q = strchr(v, '"');
            if (!q) return 0;
            size_t l = (size_t)(q - v) < len - 1 ? (size_t)(q - v) : len - 1;
            memcpy(out, v, l);
            out[l] = 0;
            return 1;
        }
    }
    return 0;
}

/* a constant as Verilator writes it: 32'sh3 (the quote as &apos;) */
static long xml_const(const char *name)
{
    const char *q = strstr(name, "&apos;");
    if (!q) return strtol(name, NULL, 10);
    q += 6;
    if (*q == 's') q++;
    int base = *q == 'h' ? 16 : *q == 'b' ? 2 : *q == 'o' ? 8 : 10;
    return strtol(q + 1, NULL, base);
}

/* the tag of type id in the type table, or NULL */
static const char *dtype(const char *table, const char *id)
{
    char pat[80];
    snprintf(pat, sizeof pat, " id=\"%s\"", id);
    const char *p = strstr(table, pat);
    if (!p) return NULL;
    while (p > table && *p != '<') p--;
    return p;
}

/* the two bounds of the first <range> inside the tag at t */
static int range_of(const char *t, long *left, long *right)
{
    const char *r = strstr(t, "<range");
    const char *close = strchr(t, '>');
    if (!r || (close && close[-1] == '/' && r > close)) return -1;
    char v[64];
    const char *c1 = strstr(r, "<const");
    if (!c1 || !attr(c1, "name", v, sizeof v)) return -1;
    *left = xml_const(v);
    const char *c2 = strstr(c1 + 6, "<const");
    if (!c2 || !attr(c2, "name", v, sizeof v)) return -1;
    *right = xml_const(v);
    return 0;
}

/* bits of type id; for an unpacked array also its elements */
static int width_of(const char *table, const char *id, vfy_port *p, int depth)
{
    const char *t = dtype(table, id);
    char v[128], sub[64];
    if (!t || depth > 20) return -1;
    if (!strncmp(t, "<basicdtype", 11)) {
        char l[32], r[32];
        if (attr(t, "left", l, sizeof l) && attr(t, "right", r, sizeof r)) {
            long a = atol(l), b = atol(r);
            return (int)(a > b ? a - b : b - a) + 1;
        }
        attr(t, "name", v, sizeof v);
        if (!strcmp(v, "int") || !strcmp(v, "integer")) return 32;
        if (!strcmp(v, "longint")) return 64;
        if (!strcmp(v, "shortint")) return 16;
        if (!strcmp(v, "byte")) return 8;
        return 1;
    }
    if (!strncmp(t, "<refdtype", 9) || !strncmp(t, "<enumdtype", 10)) {
        if (!attr(t, "sub_dtype_id", sub, sizeof sub)) return -1;
        return width_of(table, sub, p, depth + 1);
    }
    if (!strncmp(t, "<packarraydtype", 15) || !strncmp(t, "<unpackarraydtype", 17)) {
        long left, right;
        if (!attr(t, "sub_dtype_id", sub, sizeof sub) || range_of(t, &left, &right)) return -1;
        long n = (left > right ? left - right : right - left) + 1;
        int w = width_of(table, sub, NULL, depth + 1);
        if (w < 0) return -1;
        if (t[1] == 'u') {
            if (!p || p->unpacked) return -1;   /* only one unpacked dimension, at the port */
            p->unpacked = 1;
            p->elem = w;
            p->uleft = (int)left;
            p->uright = (int)right;
            p->ulo = (int)(left < right ? left : right);
            p->uhi = (int)(left < right ? right : left);
        }
        return (int)(n * w);
    }
    if (!strncmp(t, "<structdtype", 12) || !strncmp(t, "<uniondtype", 11)) {
        int total = 0, isunion = t[1] == 'u';
        const char *end = strstr(t, isunion ? "</uniondtype>" : "</structdtype>");
        for (const char *m = strstr(t, "<memberdtype"); m && (!end || m < end); m = strstr(m + 1, "<memberdtype")) {
            if (!attr(m, "sub_dtype_id", sub, sizeof sub)) return -1;
            int w = width_of(table, sub, NULL, depth + 1);
            if (w < 0) return -1;
            total = isunion ? (w > total ? w : total) : total + w;
        }
        return total;
    }
    return -1;
}

const vfy_port *vfy_port_find(const vfy_ports *ps, const char *name)
{
    for (int i = 0; i < ps->n; i++) if (!strcmp(ps->p[i].name, name)) return &ps->p[i];
    return NULL;
}

/* ---- the JSON tree (Verilator 5.024 and later) ------------------------------- */
typedef struct { const char *addr; const vfy_json *n; } jaddr;
typedef struct { jaddr *v; size_t n, cap; } jindex;

static void index_addrs(jindex *ix, const vfy_json *n)
{
    if (!n || (n->kind != 'o' && n->kind != 'a')) return;
    const char *a = n->kind == 'o' ? vfy_json_str(n, "addr") : NULL;
    if (a) {
        if (ix->n == ix->cap) {
            ix->cap = ix->cap ? 2 * ix->cap : 1024;
            ix->v = realloc(ix->v, ix->cap * sizeof *ix->v);
            if (!ix->v) abort();
        }
        ix->v[ix->n].addr = a;
        ix->v[ix->n++].n = n;
    }
    for (int i = 0; i < n->n; i++) index_addrs(ix, n->kids[i]);
}

static int by_addr(const void *x, const void *y) { return strcmp(((const jaddr *)x)->addr, ((const jaddr *)y)->addr); }

static const vfy_json *jfind(const jindex *ix, const char *addr)
{
    if (!addr) return NULL;
    jaddr key = {addr, NULL};
    const jaddr *hit = bsearch(&key, ix->v, ix->n, sizeof *ix->v, by_addr);
    return hit ? hit->n : NULL;
}

/* "[l:r]" or "l:r": the two bounds */
static int jrange(const char *s, long *l, long *r)
{
    if (!s) return -1;
    if (*s == '[') s++;
    char *e;
    *l = strtol(s, &e, 10);
    if (*e != ':') return -1;
    *r = strtol(e + 1, NULL, 10);
    return 0;
}

static int jwidth(const jindex *ix, const vfy_json *t, vfy_port *p, int depth)
{
    if (!t || depth > 20) return -1;
    const char *type = vfy_json_str(t, "type");
    long l, r;
    if (!type) return -1;
    if (!strcmp(type, "BASICDTYPE")) {
        if (!jrange(vfy_json_str(t, "range"), &l, &r)) return (int)(l > r ? l - r : r - l) + 1;
        const char *k = vfy_json_str(t, "keyword");
        if (k && (!strcmp(k, "int") || !strcmp(k, "integer"))) return 32;
        if (k && !strcmp(k, "longint")) return 64;
        if (k && !strcmp(k, "shortint")) return 16;
        if (k && !strcmp(k, "byte")) return 8;
        return 1;
    }
    if (!strcmp(type, "REFDTYPE") || !strcmp(type, "ENUMDTYPE") || !strcmp(type, "MEMBERDTYPE")) {
        const char *sub = vfy_json_str(t, "refDTypep");
        if (!sub || !strcmp(sub, "UNLINKED")) sub = vfy_json_str(t, "dtypep");
        const vfy_json *st = jfind(ix, sub);
        return st == t ? -1 : jwidth(ix, st, p, depth + 1);
    }
    if (!strcmp(type, "PACKARRAYDTYPE") || !strcmp(type, "UNPACKARRAYDTYPE")) {
        if (jrange(vfy_json_str(t, "declRange"), &l, &r)) return -1;
        int w = jwidth(ix, jfind(ix, vfy_json_str(t, "refDTypep")), NULL, depth + 1);
        if (w < 0) return -1;
        long n = (l > r ? l - r : r - l) + 1;
        if (type[0] == 'U') {
            if (!p || p->unpacked) return -1;   /* only one unpacked dimension, at the port */
            p->unpacked = 1;
            p->elem = w;
            p->uleft = (int)l;
            p->uright = (int)r;
            p->ulo = (int)(l < r ? l : r);
            p->uhi = (int)(l < r ? r : l);
        }
        return (int)(n * w);
    }
    if (!strcmp(type, "STRUCTDTYPE") || !strcmp(type, "UNIONDTYPE")) {
        const vfy_json *m = vfy_json_get(t, "membersp");
        int total = 0;
        for (int i = 0; m && i < m->n; i++) {
            int w = jwidth(ix, m->kids[i], NULL, depth + 1);
            if (w < 0) return -1;
            total = type[0] == 'U' ? (w > total ? w : total) : total + w;
        }
        return total;
    }
    return -1;
}

/* the ports of the top module (level 1) in the variables under n */
static int jports(const jindex *ix, const vfy_json *n, vfy_ports *ps, int *pcap)
{
    if (!n || (n->kind != 'o' && n->kind != 'a')) return 0;
    const char *type = n->kind == 'o' ? vfy_json_str(n, "type") : NULL;
    if (type && !strcmp(type, "VAR")) {
        const vfy_json *io = vfy_json_get(n, "isPrimaryIO");
        const char *dir = vfy_json_str(n, "direction"), *name = vfy_json_str(n, "name");
        if (!io || io->kind != 't' || !dir || !name) return 0;
        if (ps->n == *pcap) {
            *pcap = *pcap ? 2 * *pcap : 32;
            ps->p = realloc(ps->p, (size_t)*pcap * sizeof *ps->p);
        }
        vfy_port *p = &ps->p[ps->n];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", name);
        p->dir = !strcmp(dir, "INPUT") ? VP_IN : !strcmp(dir, "OUTPUT") ? VP_OUT : VP_INOUT;
        p->width = jwidth(ix, jfind(ix, vfy_json_str(n, "dtypep")), p, 0);
        ps->n++;
        return p->width < 1 ? -1 : 0;
    }
    for (int i = 0; i < n->n; i++) if (jports(ix, n->kids[i], ps, pcap)) return -1;
    return 0;
}

static int ports_from_json(const dut_desc *d, const char *path, vfy_ports *ps, char *err, size_t len)
{
    size_t n;
    char *text = vfy_read_file(path, &n);
    if (!text) { vfy_fmt(err, len, "%s: Verilator wrote no %s", d->path, path); return -1; }
    vfy_json *root = vfy_json_parse(text, n);
    free(text);
    if (!root) { vfy_fmt(err, len, "%s: cannot read Verilator's %s", d->path, path); return -1; }
    jindex ix = {0};
    index_addrs(&ix, root);
    qsort(ix.v, ix.n, sizeof *ix.v, by_addr);
    const vfy_json *mods = vfy_json_get(root, "modulesp"), *top = NULL;
    for (int i = 0; mods && i < mods->n; i++) {
        const vfy_json *lv = vfy_json_get(mods->kids[i], "level");
        const char *nm = vfy_json_str(mods->kids[i], "name");
        if (lv && lv->kind == 'n' && lv->num == 1 && nm && !strcmp(nm, d->top.name)) top = mods->kids[i];
    }
    int rc = 0, pcap = 0;
    ps->n = 0;
    ps->p = NULL;
    if (!top) {
        dut_err(d, d->top.line, "top", err, len, "Verilator found no top module %s in the sources", d->top.name);
        rc = -1;
    } else if (jports(&ix, top, ps, &pcap)) {
        dut_err(d, d->top.line, "top", err, len, "port %s of %s has a type this tool cannot size (use plain logic vectors or one unpacked dimension)",
                ps->p[ps->n - 1].name, d->top.name);
        rc = -1;
    }
    free(ix.v);
    vfy_json_free(root);
    return rc;
}

/* Elaborates the design (--xml-only, or --json-only for a Verilator
 * without it) unless the command and the sources are those of the last
 * time.  The exit status of Verilator (0 when nothing ran), -1 when it
 * could not start. */
static int elaborate(const dut_desc *d, const mma_verify_kit *kit, const char *workdir, int json, char *err, size_t len)
{
    char out[1200], log[1200], mdir[1200], keyf[1200];
    vfy_path(out, sizeof out, "%s/ports.%s", workdir, json ? "json" : "xml");
    vfy_path(log, sizeof log, "%s/ports.log", workdir);
    vfy_path(mdir, sizeof mdir, "%s/xml", workdir);
    vfy_path(keyf, sizeof keyf, "%s/ports.key", workdir);
    int na = 0, cap = 32 + 2 * (d->nsources + d->nincludes + d->ndefines + d->nparams) + d->nvargs;
    char **argv = calloc((size_t)cap, sizeof *argv);
    char **owned = calloc((size_t)cap, sizeof *owned);
    int no = 0;
#define ARG(s) (argv[na++] = (char *)(s))
#define ARGF(...) do { char *s_ = malloc(1200); snprintf(s_, 1200, __VA_ARGS__); owned[no++] = s_; ARG(s_); } while (0)
    ARG(kit->verilator);
    ARG(json ? "--json-only" : "--xml-only");
    ARG("-Wno-fatal");
    ARG("-Wno-lint");
    ARG("-Wno-style");
    for (int i = 0; i < d->nvargs; i++) ARG(d->vargs[i]);
    ARG("--top-module");
    ARG(d->top.name);
    ARG("-Mdir");
    ARG(mdir);
    ARG(json ? "--json-only-output" : "--xml-output");
    ARG(out);
    for (int i = 0; i < d->nincludes; i++) ARGF("+incdir+%s", d->includes[i].path);
    for (int i = 0; i < d->ndefines; i++) ARGF("+define+%s", d->defines[i].text);
    for (int i = 0; i < d->nparams; i++) ARGF("-G%s=%s", d->params[i].name, d->params[i].value);
    for (int i = 0; i < d->nsources; i++) ARG(d->sources[i].path);
    argv[na] = NULL;
#undef ARG
#undef ARGF
    /* elaborated again only when the command or a source changed (shards of
     * a campaign share the work directory and only read it) */
    uint64_t h = 0;
    for (int i = 0; i < na; i++) h = vfy_hash(h, argv[i], strlen(argv[i]) + 1);
    for (int i = 0; i < d->nsources; i++) h = vfy_hash_stat(h, d->sources[i].path);
    for (int i = 0; i < d->nincludes; i++) h = vfy_hash_stat(h, d->includes[i].path);
    char key[32];
    snprintf(key, sizeof key, "%016llx\n", (unsigned long long)h);
    char *old = vfy_read_file(keyf, NULL);
    int rc = 0;
    if (!old || strcmp(old, key) || access(out, R_OK)) {
        remove(keyf);
        remove(log);
        remove(out);
        rc = vfy_run(argv, NULL, log, err, len);
        if (rc == 0) vfy_write_if_changed(keyf, key);
    }
    free(old);
    for (int i = 0; i < no; i++) free(owned[i]);
    free(owned);
    free(argv);
    return rc;
}

int vfy_ports_read(const dut_desc *d, const mma_verify_kit *kit, const char *workdir,
                   vfy_ports *ps, char *err, size_t len)
{
    char xml[1200], log[1200];
    vfy_path(xml, sizeof xml, "%s/ports.xml", workdir);
    vfy_path(log, sizeof log, "%s/ports.log", workdir);
    /* Verilator 5.024 and later write JSON (5.036 dropped --xml-only) */
    int json = kit->json;
    int rc = elaborate(d, kit, workdir, json, err, len);
    if (rc > 0 && !json) {
        char *text = vfy_read_file(log, NULL);
        int no_xml = text && strstr(text, "--xml-only");
        free(text);
        if (no_xml) rc = elaborate(d, kit, workdir, json = 1, err, len);
    }
    if (rc < 0) return -1;
    if (rc != 0) {
        char msg[4000];
        vfy_log_errors(log, msg, sizeof msg);
        vfy_fmt(err, len, "%s: Verilator cannot elaborate the design (top %s, line %d):\n%s", d->path, d->top.name, d->top.line, msg);
        return -1;
    }
    if (json) {
        char jp[1200];
        vfy_path(jp, sizeof jp, "%s/ports.json", workdir);
        return ports_from_json(d, jp, ps, err, len);
    }
    char *text = vfy_read_file(xml, NULL);
    if (!text) { vfy_fmt(err, len, "%s: Verilator wrote no %s", d->path, xml); return -1; }
    const char *table = strstr(text, "<typetable");
    const char *mod = NULL;
    for (const char *m = strstr(text, "<module "); m; m = strstr(m + 1, "<module ")) {
        char v[16];
        if (attr(m, "topModule", v, sizeof v) && !strcmp(v, "1")) { mod = m; break; }
    }
    if (!mod || !table) {
        free(text);
        dut_err(d, d->top.line, "top", err, len, "Verilator found no top module %s in the sources", d->top.name);
        return -1;
    }
    const char *mend = strstr(mod, "</module>");
    ps->n = 0;
    ps->p = NULL;
    int pcap = 0;
    for (const char *v = strstr(mod, "<var "); v && (!mend || v < mend); v = strstr(v + 1, "<var ")) {
        char dir[16], id[64], pin[16];
        /* ports have a pin index (function arguments have a direction too) */
        if (!attr(v, "dir", dir, sizeof dir) || !attr(v, "pinIndex", pin, sizeof pin)) continue;
        if (ps->n == pcap) {
            pcap = pcap ? 2 * pcap : 32;
            ps->p = realloc(ps->p, (size_t)pcap * sizeof *ps->p);
        }
        vfy_port *p = &ps->p[ps->n];
        memset(p, 0, sizeof *p);
        attr(v, "name", p->name, sizeof p->name);
        p->dir = !strcmp(dir, "input") ? VP_IN : !strcmp(dir, "output") ? VP_OUT : VP_INOUT;
        if (!attr(v, "dtype_id", id, sizeof id) || (p->width = width_of(table, id, p, 0)) < 1) {
            dut_err(d, d->top.line, "top", err, len, "port %s of %s has a type this tool cannot size (use plain logic vectors or one unpacked dimension)", p->name, d->top.name);
            free(text);
            return -1;
        }
        ps->n++;
    }
    free(text);
    return 0;
}
