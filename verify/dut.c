/* The .dut reader (dut.h; the format is in docs/verify.md). */
#include "dut.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const dut_box_names[4] = {"zero", "nan", "sign", "any"};

/* snprintf that may cut (messages), without the truncation warning */
static void cut_fmt(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cut_fmt(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

void dut_err(const dut_desc *d, int line, const char *key, char *err, size_t len, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key && *key) cut_fmt(err, len, "%s:%d: key '%s': %s", d->path, line, key, msg);
    else cut_fmt(err, len, "%s:%d: %s", d->path, line, msg);
}

enum { S_NONE, S_FILES, S_UNIT, S_PORTS, S_RUN, S_BUILD };

#define MAXTOK 300
typedef struct {
    const dut_desc *d;
    int line;
    char *key;
    char *tok[MAXTOK];
    int n;                          /* tokens after the key */
    char *err;
    size_t len;
} ctx;

#define FAIL(...) do { dut_err(c->d, c->line, c->key, c->err, c->len, __VA_ARGS__); return -1; } while (0)

/* SystemVerilog-style identifiers; a port pattern may hold {k} */
static int ident_ok(const char *s, int pattern)
{
    if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++) {
        if (pattern && !strncmp(s, "{k}", 3)) { s += 2; continue; }
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '$')) return 0;
    }
    return 1;
}

/* a number: decimal, 0x hex, 0b binary, or a SystemVerilog literal
 * ([width]'[s](h|d|b|o)digits, underscores allowed) */
static int parse_value(const char *s, uint64_t *v)
{
    char buf[96];
    size_t n = 0;
    for (const char *p = s; *p && n + 1 < sizeof buf; p++) if (*p != '_') buf[n++] = *p;
    buf[n] = 0;
    if (!n) return -1;
    int base = 10;
    const char *digits = buf;
    const char *q = strchr(buf, '\'');
    if (q) {
        for (const char *p = buf; p < q; p++) if (!isdigit((unsigned char)*p)) return -1;
        q++;
        if (*q == 's' || *q == 'S') q++;
        switch (tolower((unsigned char)*q)) {
        case 'h': base = 16; break;
        case 'd': base = 10; break;
        case 'b': base = 2; break;
        case 'o': base = 8; break;
        default: return -1;
        }
        digits = q + 1;
    } else if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        base = 16;
        digits = buf + 2;
    } else if (buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B')) {
        base = 2;
        digits = buf + 2;
    }
    if (!*digits) return -1;
    errno = 0;
    char *e;
    unsigned long long x = strtoull(digits, &e, base);
    if (*e || errno || digits[0] == '-' || digits[0] == '+') return -1;
    *v = x;
    return 0;
}

static int set_port(ctx *c, dut_port *p)
{
    if (c->n != 1) FAIL("takes one port name (%d given)", c->n);
    if (p->line) FAIL("given twice (first on line %d)", p->line);
    if (!ident_ok(c->tok[0], 0)) FAIL("'%s' is not a port name", c->tok[0]);
    p->line = c->line;
    snprintf(p->name, sizeof p->name, "%s", c->tok[0]);
    return 0;
}

static int parse_box(ctx *c, const char *s)
{
    for (int i = 0; i < 4; i++) if (!strcmp(s, dut_box_names[i])) return i;
    dut_err(c->d, c->line, c->key, c->err, c->len, "box '%s': give zero, nan, sign or any", s);
    return -1;
}

static int parse_path(ctx *c, const char *s, char *out, int must_be_dir)
{
    if (s[0] == '/') snprintf(out, DUT_PATH, "%s", s);
    else if ((size_t)snprintf(out, DUT_PATH, "%s/%s", c->d->dir, s) >= DUT_PATH) FAIL("path too long");
    struct stat st;
    if (stat(out, &st)) FAIL("%s '%s' not found (paths are relative to the description's directory)", must_be_dir ? "directory" : "file", s);
    if (must_be_dir && !S_ISDIR(st.st_mode)) FAIL("'%s' is not a directory", s);
    if (!must_be_dir && S_ISDIR(st.st_mode)) FAIL("'%s' is a directory, not a source file", s);
    return 0;
}

static int files_line(ctx *c, dut_desc *d)
{
    if (!strcmp(c->key, "include")) {
        if (c->n != 1) FAIL("takes one directory");
        if (d->nincludes == 32) FAIL("more than 32 include directories");
        if (parse_path(c, c->tok[0], d->includes[d->nincludes].path, 1)) return -1;
        d->includes[d->nincludes++].line = c->line;
        return 0;
    }
    if (!strcmp(c->key, "define")) {
        if (c->n != 1) FAIL("takes one NAME or NAME=value");
        if (d->ndefines == 32) FAIL("more than 32 defines");
        char name[256];
        snprintf(name, sizeof name, "%s", c->tok[0]);
        name[strcspn(name, "=")] = 0;
        if (!ident_ok(name, 0)) FAIL("'%s' is not a macro name", name);
        snprintf(d->defines[d->ndefines].text, sizeof d->defines[0].text, "%s", c->tok[0]);
        d->defines[d->ndefines++].line = c->line;
        return 0;
    }
    if (!strcmp(c->key, "param")) {
        if (c->n != 1 || !strchr(c->tok[0], '=')) FAIL("takes NAME=value (a parameter of the top module)");
        if (d->nparams == 32) FAIL("more than 32 parameters");
        char *eq = strchr(c->tok[0], '=');
        *eq = 0;
        if (!ident_ok(c->tok[0], 0)) FAIL("'%s' is not a parameter name", c->tok[0]);
        if (!eq[1] || strpbrk(eq + 1, ";()\"`")) FAIL("'%s' is not a parameter value", eq + 1);
        snprintf(d->params[d->nparams].name, sizeof d->params[0].name, "%s", c->tok[0]);
        snprintf(d->params[d->nparams].value, sizeof d->params[0].value, "%s", eq + 1);
        d->params[d->nparams++].line = c->line;
        return 0;
    }
    /* a line of source files: the "key" is the first of them */
    const char *first = c->key;
    c->key = (char *)"files";
    for (int i = 0; i <= c->n; i++) {
        const char *s = i == 0 ? first : c->tok[i - 1];
        if (d->nsources == DUT_MAX_SOURCES) FAIL("more than %d source files", DUT_MAX_SOURCES);
        if (parse_path(c, s, d->sources[d->nsources].path, 0)) return -1;
        d->sources[d->nsources++].line = c->line;
    }
    return 0;
}

/* One mode: its port values, its unit and its name (NULL: from the
 * values) */
static int add_mode(ctx *c, dut_desc *d, const uint64_t *values, const char *spec, const char *name)
{
    int nv = d->nmode_ports;
    if (d->nmodes == DUT_MAX_MODES) FAIL("more than %d modes", DUT_MAX_MODES);
    if (!nv && d->nmodes) FAIL("one unit only without a 'mode' line (first on line %d)", d->modes[0].line);
    dut_mode *m = &d->modes[d->nmodes];
    memset(m, 0, sizeof *m);
    memcpy(m->value, values, sizeof m->value);
    if (strlen(spec) >= sizeof m->spec) FAIL("the unit '%.60s...' is too long", spec);
    snprintf(m->spec, sizeof m->spec, "%s", spec);
    char perr[512];
    if (mma_unit_parse(m->spec, &m->u, perr, sizeof perr)) FAIL("%s%s%s", perr, nv > 1 ? " (in " : "", nv > 1 ? m->spec : "");
    /* the name goes into file names and reports: no spaces, no slashes */
    char nm[sizeof m->name] = "";
    if (name) {
        if (strlen(name) >= sizeof nm || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=+-") != strlen(name))
            FAIL("'%s' is not a mode name (up to %zu letters, digits and _ . , = + -)", name, sizeof nm - 1);
        memcpy(nm, name, strlen(name) + 1);
    } else if (!nv) {
        memcpy(nm, "unit", 5);
    } else {
        size_t o = 0;
        for (int i = 0; i < nv && o < sizeof nm; i++) {
            int w = snprintf(nm + o, sizeof nm - o, "%s%s=%llu", i ? "," : "", d->mode_ports[i].name,
                             (unsigned long long)m->value[i]);
            o = w < 0 ? sizeof nm : o + (size_t)w;
        }
        if (o >= sizeof nm) FAIL("the mode's name from its ports and values is too long: name it with 'as <name>'");
    }
    memcpy(m->name, nm, sizeof nm);
    for (int i = 0; i < d->nmodes; i++) {
        if (!strcmp(d->modes[i].name, m->name)) FAIL("mode name '%s' taken on line %d", m->name, d->modes[i].line);
        if (nv && !memcmp(d->modes[i].value, m->value, sizeof m->value)) FAIL("mode value given twice (line %d)", d->modes[i].line);
    }
    m->line = c->line;
    d->nmodes++;
    return 0;
}

/* text with {i} (1 to nv) replaced by sub[i-1] */
static int substitute(ctx *c, const char *text, const char *const *sub, int nv, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = text; *p; p++) {
        int i;
        if (p[0] == '{' && p[1] >= '1' && p[1] <= '9' && p[2] == '}' && (i = p[1] - '1') < nv) {
            int w = snprintf(out + o, o < len ? len - o : 0, "%s", sub[i]);
            o += w > 0 ? (size_t)w : 0;
            p += 2;
        } else if (o + 1 < len) {
            out[o++] = *p;
        } else {
            o++;
        }
    }
    if (o >= len) FAIL("'%s' is too long once its {n} are replaced", text);
    out[o] = 0;
    return 0;
}

#define MAX_ALTS 64
/* match <value|alternatives per mode port> <unit> [as <name>]: a mode
 * port's alternatives v:word|v:label:word|... cross with the other
 * ports'; in the unit {i} stands for port i's word, in the name for its
 * label (the word when it has none) */
static int match_line(ctx *c, dut_desc *d)
{
    int nv = d->nmode_ports, n = c->n;
    const char *name = NULL;
    if (n >= 2 && !strcmp(c->tok[n - 2], "as")) { name = c->tok[n - 1]; n -= 2; }
    if (n != nv + 1) {
        if (nv) FAIL("takes %d mode value%s (or value:word|... alternatives) and an instruction or configuration", nv, nv > 1 ? "s" : "");
        FAIL("takes an instruction or configuration (a 'mode' line before it adds port values)");
    }
    static uint64_t val[DUT_MAX_MODE_PORTS][MAX_ALTS];
    static char *label[DUT_MAX_MODE_PORTS][MAX_ALTS], *word[DUT_MAX_MODE_PORTS][MAX_ALTS];
    int nalt[DUT_MAX_MODE_PORTS];
    long combos = 1;
    for (int i = 0; i < nv; i++) {
        char *t = c->tok[i];
        nalt[i] = 0;
        for (char *save = NULL, *alt = strtok_r(t, "|", &save); alt; alt = strtok_r(NULL, "|", &save)) {
            if (nalt[i] == MAX_ALTS) FAIL("more than %d alternatives for mode port %s", MAX_ALTS, d->mode_ports[i].name);
            char *c1 = strchr(alt, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (c1) *c1 = 0;
            if (c2) *c2 = 0;
            if (parse_value(alt, &val[i][nalt[i]])) FAIL("'%s' is not a value for mode port %s", alt, d->mode_ports[i].name);
            word[i][nalt[i]] = c2 ? c2 + 1 : c1 ? c1 + 1 : alt;
            label[i][nalt[i]] = c2 ? c1 + 1 : word[i][nalt[i]];
            if (c1 && !*word[i][nalt[i]]) FAIL("alternative '%s:' of mode port %s: give value:word (the word replaces {%d})", alt, d->mode_ports[i].name, i + 1);
            nalt[i]++;
        }
        if (!nalt[i]) FAIL("no value for mode port %s", d->mode_ports[i].name);
        combos *= nalt[i];
        if (combos > DUT_MAX_MODES) FAIL("%ld modes or more: at most %d", combos, DUT_MAX_MODES);
    }
    int at[DUT_MAX_MODE_PORTS] = {0};
    for (long k = 0; k < combos; k++) {
        uint64_t values[DUT_MAX_MODE_PORTS] = {0};
        const char *w[DUT_MAX_MODE_PORTS], *l[DUT_MAX_MODE_PORTS];
        for (int i = 0; i < nv; i++) { values[i] = val[i][at[i]]; w[i] = word[i][at[i]]; l[i] = label[i][at[i]]; }
        char spec[512], nm[128];
        if (substitute(c, c->tok[nv], w, nv, spec, sizeof spec) || (name && substitute(c, name, l, nv, nm, sizeof nm)) ||
            add_mode(c, d, values, spec, name ? nm : NULL))
            return -1;
        for (int i = nv - 1; i >= 0; i--) { if (++at[i] < nalt[i]) break; at[i] = 0; }
    }
    return 0;
}

static int unit_line(ctx *c, dut_desc *d)
{
    if (!strcmp(c->key, "top")) return set_port(c, &d->top);
    if (!strcmp(c->key, "mode")) {
        if (d->nmode_ports) FAIL("given twice");
        if (c->n < 1 || c->n > DUT_MAX_MODE_PORTS) FAIL("takes 1 to %d port names", DUT_MAX_MODE_PORTS);
        if (d->nmodes) FAIL("must come before the match lines");
        for (int i = 0; i < c->n; i++) {
            if (!ident_ok(c->tok[i], 0)) FAIL("'%s' is not a port name", c->tok[i]);
            snprintf(d->mode_ports[i].name, DUT_NAME, "%s", c->tok[i]);
            d->mode_ports[i].line = c->line;
        }
        d->nmode_ports = c->n;
        return 0;
    }
    if (!strcmp(c->key, "match")) return match_line(c, d);
    if (!strcmp(c->key, "lanes")) {
        if (d->lanes_line) FAIL("given twice (first on line %d)", d->lanes_line);
        char *e;
        long v = c->n == 1 ? strtol(c->tok[0], &e, 10) : 0;
        if (c->n != 1 || *e || v < 1 || v > 64) FAIL("takes the number of lanes, 1 to 64");
        d->lanes = (int)v;
        d->lanes_line = c->line;
        return 0;
    }
    if (!strcmp(c->key, "shape")) {
        /* shape m <M> n <N> [k <K>]: a matrix unit */
        if (d->shape_line) FAIL("given twice (first on line %d)", d->shape_line);
        if (c->n != 4 && c->n != 6) FAIL("takes m <rows> n <columns> [k <depth>] (D is m x n, A m x k, B k x n)");
        int *dst[3] = {&d->tile_m, &d->tile_n, &d->tile_k};
        static const char *const names[3] = {"m", "n", "k"};
        for (int i = 0; i < c->n; i += 2) {
            int w = -1;
            for (int j = 0; j < 3; j++) if (!strcmp(c->tok[i], names[j])) w = j;
            if (w < 0 || w != i / 2) FAIL("'%s': give m <rows> n <columns> [k <depth>], in that order", c->tok[i]);
            char *e;
            long v = strtol(c->tok[i + 1], &e, 10);
            if (*e || v < 1 || v > (w == 2 ? MMA_MAX_K : 64)) FAIL("%s '%s': give 1 to %d", names[w], c->tok[i + 1], w == 2 ? MMA_MAX_K : 64);
            *dst[w] = (int)v;
        }
        d->shape_line = c->line;
        return 0;
    }
    FAIL("unknown key in [unit] (top, match, mode, shape, lanes)");
}

static int operand_line(ctx *c, dut_operand *o)
{
    if (o->line) FAIL("given twice (first on line %d)", o->line);
    o->line = c->line;
    o->ports = (dut_port *)calloc((size_t)(c->n ? c->n : 1), sizeof *o->ports);
    for (int i = 0; i < c->n; i++) {
        const char *t = c->tok[i];
        if (!strcmp(t, "row") || !strcmp(t, "col")) {
            o->col_major = t[0] == 'c';
            o->tile_line = c->line;
            continue;
        }
        if (!strcmp(t, "beats")) {
            char *e;
            long v = i + 1 < c->n ? strtol(c->tok[i + 1], &e, 10) : 0;
            if (i + 1 >= c->n || *e || v < 1 || v > 4096) FAIL("'beats' needs the beats the matrix comes in (or leaves in), 1 to 4096");
            o->beats = (int)v;
            o->tile_line = c->line;
            i++;
            continue;
        }
        if (!strcmp(t, "skew") || !strcmp(t, "delay")) {
            if (o->delay_line) FAIL("give one skew or delay");
            o->delay_line = c->line;
            int many = t[0] == 'd';
            while (i + 1 < c->n && (o->ndelay == 0 || many)) {
                char *e;
                long v = strtol(c->tok[i + 1], &e, 10);
                if (*e) break;
                if (v < 0 || v > DUT_MAX_LATENCY) FAIL("%s '%s': give cycles, 0 to %d", t, c->tok[i + 1], DUT_MAX_LATENCY);
                if (o->ndelay == MMA_MAX_K) FAIL("delay: more than %d elements", MMA_MAX_K);
                o->delay[o->ndelay++] = (int)v;
                i++;
            }
            if (!o->ndelay) FAIL("'%s' needs %s", t, many ? "the cycles each element enters after element 0 (delay 0 1 2 3)" : "the cycles between one element and the next (skew 1)");
            if (!many) { o->skew = o->delay[0]; o->ndelay = 0; }
            continue;
        }
        if (!strcmp(t, "order") || !strcmp(t, "slot") || !strcmp(t, "box")) {
            if (i + 1 >= c->n) FAIL("'%s' needs a value", t);
            const char *v = c->tok[++i];
            if (t[0] == 'o') {
                if (!strcmp(v, "lsb")) o->msb_first = 0;
                else if (!strcmp(v, "msb")) o->msb_first = 1;
                else FAIL("order '%s': give lsb (element 0 in the least significant bits) or msb", v);
            } else if (t[0] == 's') {
                char *e;
                long s = strtol(v, &e, 10);
                if (*e || s < 1 || s > 64) FAIL("slot '%s': give the bits per element, 1 to 64", v);
                o->slot = (int)s;
            } else if ((o->box = parse_box(c, v)) < 0) {
                return -1;
            }
            continue;
        }
        int pat = strstr(t, "{k}") != NULL;
        if (!ident_ok(t, pat)) FAIL("'%s' is not a port name", t);
        if (pat && o->nports) FAIL("a pattern with {k} stands for all the element ports alone");
        if (o->pattern) FAIL("a pattern with {k} stands for all the element ports alone");
        o->pattern = pat;
        o->ports[o->nports].line = c->line;
        snprintf(o->ports[o->nports++].name, DUT_NAME, "%s", t);
    }
    if (!o->nports) FAIL("names no port");
    return 0;
}

static int ports_line(ctx *c, dut_desc *d)
{
    const char *k = c->key;
    if (!strcmp(k, "clock")) return set_port(c, &d->clock);
    if (!strcmp(k, "in_valid")) return set_port(c, &d->in_valid);
    if (!strcmp(k, "in_ready")) return set_port(c, &d->in_ready);
    if (!strcmp(k, "out_valid")) return set_port(c, &d->out_valid);
    if (!strcmp(k, "out_ready")) return set_port(c, &d->out_ready);
    if (!strcmp(k, "a")) return operand_line(c, &d->a);
    if (!strcmp(k, "b")) return operand_line(c, &d->b);
    if (!strcmp(k, "sa")) return operand_line(c, &d->sa);
    if (!strcmp(k, "sb")) return operand_line(c, &d->sb);
    if (!strcmp(k, "reset")) {
        if (d->reset.line) FAIL("given twice (first on line %d)", d->reset.line);
        if (c->n != 2 && c->n != 4) FAIL("takes a port and its active level: reset <port> low|high [cycles N]");
        if (!ident_ok(c->tok[0], 0)) FAIL("'%s' is not a port name", c->tok[0]);
        if (!strcmp(c->tok[1], "low")) d->reset_low = 1;
        else if (!strcmp(c->tok[1], "high")) d->reset_low = 0;
        else FAIL("active level '%s': give low or high", c->tok[1]);
        if (c->n == 4) {
            char *e;
            long n = strtol(c->tok[3], &e, 10);
            if (strcmp(c->tok[2], "cycles") || *e || n < 1 || n > 100000) FAIL("'%s %s': give cycles N (1 to 100000)", c->tok[2], c->tok[3]);
            d->reset_cycles = (int)n;
        }
        d->reset.line = c->line;
        snprintf(d->reset.name, DUT_NAME, "%s", c->tok[0]);
        return 0;
    }
    if (!strcmp(k, "c") || !strcmp(k, "d")) {
        /* one port; in a matrix unit it carries the matrix as a and b do */
        dut_operand *o = k[0] == 'c' ? &d->cop : &d->dop;
        if (operand_line(c, o)) return -1;
        if (o->nports != 1 || o->pattern) FAIL("takes one port (%d given)", o->pattern ? 2 : o->nports);
        if ((o->slot || o->msb_first) && !o->tile_line) FAIL("order and slot are for the elements of a matrix: give them with row|col in a unit with a 'shape'");
        if (o->delay_line && (k[0] == 'd' || o->skew || o->ndelay != 1))
            FAIL("%s", k[0] == 'd' ? "d takes no delay (a unit without out_valid: latency; flags of a chain: early)" : "c takes one delay (delay <cycles>): the cycles it enters after element 0");
        *(k[0] == 'c' ? &d->c : &d->d) = o->ports[0];
        *(k[0] == 'c' ? &d->c_box : &d->d_box) = o->box;
        return 0;
    }
    if (!strcmp(k, "latency")) {
        if (d->latency_line) FAIL("given twice (first on line %d)", d->latency_line);
        char *e;
        d->latency_auto = c->n == 1 && !strcmp(c->tok[0], "auto");
        long n = c->n == 1 ? d->latency_auto ? 0 : strtol(c->tok[0], &e, 10) : -1;
        if (c->n != 1 || (!d->latency_auto && (*e || n < 0 || n > DUT_MAX_LATENCY)))
            FAIL("takes the cycles from input to result, 0 to %d, or auto (measured before the campaign)", DUT_MAX_LATENCY);
        d->latency = (int)n;
        d->latency_line = c->line;
        return 0;
    }
    if (!strcmp(k, "tag")) {
        if (d->tag_in.line) FAIL("given twice (first on line %d)", d->tag_in.line);
        if (c->n != 2) FAIL("takes the tag's input port and output port");
        for (int i = 0; i < 2; i++) if (!ident_ok(c->tok[i], 0)) FAIL("'%s' is not a port name", c->tok[i]);
        d->tag_in.line = d->tag_out.line = c->line;
        snprintf(d->tag_in.name, DUT_NAME, "%s", c->tok[0]);
        snprintf(d->tag_out.name, DUT_NAME, "%s", c->tok[1]);
        return 0;
    }
    if (!strcmp(k, "flags")) {
        if (d->flags.line) FAIL("given twice (first on line %d)", d->flags.line);
        static const char *const usage = "takes the port (or one port per element of a chain, or a pattern with {k}), then optionally: "
                                         "order <flag names from the most significant bit down>, skew <cycles> or early <cycles>...";
        int i = 0;
        d->flag_ports = (dut_port *)calloc((size_t)c->n + 1, sizeof *d->flag_ports);
        for (; i < c->n && strcmp(c->tok[i], "order") && strcmp(c->tok[i], "skew") && strcmp(c->tok[i], "early"); i++) {
            int pat = strstr(c->tok[i], "{k}") != NULL;
            if (!ident_ok(c->tok[i], pat)) FAIL("'%s' is not a port name", c->tok[i]);
            if ((pat || d->flag_pattern) && d->nflag_ports) FAIL("a pattern with {k} stands for all the flag ports alone");
            d->flag_pattern |= pat;
            d->flag_ports[d->nflag_ports].line = c->line;
            snprintf(d->flag_ports[d->nflag_ports++].name, DUT_NAME, "%s", c->tok[i]);
        }
        if (!d->nflag_ports) FAIL("%s", usage);
        d->flags = d->flag_ports[0];
        static const char *const names[] = {"nx", "uf", "of", "dz", "nv"};
        while (i < c->n) {
            const char *kw = c->tok[i++];
            if (!strcmp(kw, "order")) {
                if (d->nflag_order) FAIL("order given twice");
                int nb = 0, seen = 0, f0 = i;
                while (i < c->n && strcmp(c->tok[i], "skew") && strcmp(c->tok[i], "early")) i++, nb++;
                if (!nb) FAIL("after the port: order <flag names from the most significant bit down>");
                if (nb > 64) FAIL("more than 64 flag bits");
                for (int j = 0; j < nb; j++) {
                    const char *t = c->tok[f0 + j];
                    int f = -2;
                    if (!strcmp(t, "-")) f = -1;
                    for (int q = 0; q < 5; q++) if (!strcmp(t, names[q])) f = q;
                    if (f == -2) FAIL("flag '%s': give nv (invalid), dz (divide by zero), of (overflow), uf (underflow), nx (inexact) or - (a bit to ignore)", t);
                    if (f >= 0 && (seen >> f) & 1) FAIL("flag '%s' named twice", t);
                    if (f >= 0) seen |= 1 << f;
                    d->flag_order[nb - 1 - j] = f;
                }
                d->nflag_order = nb;
                d->flag_order_line = c->line;
            } else if (!strcmp(kw, "skew") || !strcmp(kw, "early")) {
                if (d->flag_timing_line) FAIL("give one skew or early");
                d->flag_timing_line = c->line;
                int many = kw[0] == 'e';
                while (i < c->n && (many || !d->nflag_early)) {
                    char *e;
                    long v = strtol(c->tok[i], &e, 10);
                    if (*e) break;
                    if (v < 0 || v > DUT_MAX_LATENCY) FAIL("%s '%s': give cycles, 0 to %d", kw, c->tok[i], DUT_MAX_LATENCY);
                    if (d->nflag_early == MMA_MAX_K) FAIL("early: more than %d ports", MMA_MAX_K);
                    d->flag_early[d->nflag_early++] = (int)v;
                    i++;
                }
                if (!d->nflag_early) FAIL("'%s' needs %s", kw, many ? "the cycles before d at which each port is read (early 3 2 1 0)" : "the cycles between one port's flags and the next's (skew 1)");
                if (!many) { d->flag_skew = d->flag_early[0]; d->nflag_early = 0; }
            } else {
                FAIL("%s", usage);
            }
        }
        return 0;
    }
    if (!strcmp(k, "set")) {
        if (c->n != 2) FAIL("takes a port and a constant value");
        if (d->nsets == DUT_MAX_SETS) FAIL("more than %d constant inputs", DUT_MAX_SETS);
        if (!ident_ok(c->tok[0], 0)) FAIL("'%s' is not a port name", c->tok[0]);
        dut_set *s = &d->sets[d->nsets];
        s->fill = !strcmp(c->tok[1], "'0") ? 0 : !strcmp(c->tok[1], "'1") ? 1 : -1;
        if (s->fill < 0 && parse_value(c->tok[1], &s->v))
            FAIL("'%s' is not a value (decimal, 0x.., a SystemVerilog literal such as 4'b0101, or '0 and '1 for every bit)", c->tok[1]);
        for (int i = 0; i < d->nsets; i++) if (!strcmp(d->sets[i].port, c->tok[0])) FAIL("port %s set twice (line %d)", c->tok[0], d->sets[i].line);
        snprintf(s->port, sizeof s->port, "%s", c->tok[0]);
        snprintf(s->value, sizeof s->value, "%s", c->tok[1]);
        s->line = c->line;
        d->nsets++;
        return 0;
    }
    FAIL("unknown key in [ports] (clock reset in_valid in_ready out_valid out_ready latency a b sa sb c d flags tag set)");
}

/* [build] verilator-args <arg>...: Verilator options of the design's own
 * flow (--timing, -Wno-..., -f files), each an argument of its own (no
 * shell); not the ones the testbench's build sets */
static int build_line(ctx *c, dut_desc *d)
{
    if (strcmp(c->key, "verilator-args")) FAIL("unknown key in [build] (verilator-args)");
    static const char *const ours[] = {"--cc", "--sc", "--exe", "--build", "--top-module", "--top", "-Mdir", "--Mdir",
                                       "--xml-only", "--json-only", "--binary", "--main", "-o", NULL};
    for (int i = 0; i < c->n; i++) {
        for (int j = 0; ours[j]; j++)
            if (!strcmp(c->tok[i], ours[j])) FAIL("'%s' is the testbench's own option (mmaref verify sets it)", c->tok[i]);
        if (d->nvargs % 16 == 0) d->vargs = (char **)realloc(d->vargs, (size_t)(d->nvargs + 17) * sizeof *d->vargs);
        d->vargs[d->nvargs++] = strdup(c->tok[i]);
        if (!strcmp(c->tok[i], "--timing")) d->timing = 1;
        if (!strcmp(c->tok[i], "--no-timing")) d->timing = 0;
    }
    d->vargs_line = c->line;
    return 0;
}

static int run_number(ctx *c, long lo, long hi, long *out)
{
    char *e;
    if (c->n != 1) FAIL("takes one number");
    long v = strtol(c->tok[0], &e, 10);
    if (*e || v < lo || v > hi) FAIL("'%s': give a number from %ld to %ld", c->tok[0], lo, hi);
    *out = v;
    return 0;
}

static int run_line(ctx *c, dut_desc *d)
{
    long v;
    const char *k = c->key;
    if (!strcmp(k, "suites")) {
        size_t o = 0;
        d->suites[0] = 0;
        for (int i = 0; i < c->n; i++) {
            if (strspn(c->tok[i], "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(c->tok[i]))
                FAIL("'%s' is not a suite name (mmaref gen --list-suites)", c->tok[i]);
            o += (size_t)snprintf(d->suites + o, sizeof d->suites - o, "%s%s", i ? " " : "", c->tok[i]);
            if (o >= sizeof d->suites) FAIL("too many suites");
        }
        d->suites_line = c->line;
        if (!c->n) d->suites[0] = 0;
        return 0;
    }
    if (!strcmp(k, "count")) { if (run_number(c, 0, 1000000000L, &v)) return -1; d->count = v; return 0; }
    if (!strcmp(k, "random")) {
        /* random [<n>] [<distribution>]: a generator of docs/dpi.md's stimulus */
        static const char *const dists[] = {"uniform", "finite", "cluster", "cancel", "tiny", "huge", "special", "carry", "mix", NULL};
        int i = 0;
        char *e;
        if (c->n >= 1 && (v = strtol(c->tok[0], &e, 10), !*e)) {
            if (v < 0 || v > 1000000000000L) FAIL("'%s': give a number from 0 to 1000000000000", c->tok[0]);
            d->random = v;
            i = 1;
        }
        if (i < c->n) {
            int hit = 0;
            for (int j = 0; dists[j]; j++) hit |= !strcmp(c->tok[i], dists[j]);
            if (!hit || i + 1 < c->n) FAIL("takes [<vectors>] [<distribution>]: uniform finite cluster cancel tiny huge special carry mix");
            snprintf(d->distribution, sizeof d->distribution, "%s", c->tok[i]);
        } else if (!i) {
            FAIL("takes [<vectors>] [<distribution>]");
        }
        return 0;
    }
    if (!strcmp(k, "gaps")) { if (run_number(c, 0, 90, &v)) return -1; d->gaps = (int)v; return 0; }
    if (!strcmp(k, "backpressure")) { if (run_number(c, 0, 90, &v)) return -1; d->backpressure = (int)v; return 0; }
    if (!strcmp(k, "max_wait")) { if (run_number(c, 1, 100000000L, &v)) return -1; d->max_wait = v; return 0; }
    if (!strcmp(k, "seed")) {
        uint64_t s;
        if (c->n != 1 || parse_value(c->tok[0], &s)) FAIL("takes one number");
        d->seed = s;
        return 0;
    }
    FAIL("unknown key in [run] (suites count random seed gaps backpressure max_wait)");
}

static void defaults(dut_desc *d)
{
    d->latency = -1;
    d->reset_cycles = 4;
    d->count = 2000;
    d->random = 100000;
    d->seed = 1;
    d->gaps = 10;
    d->backpressure = 10;
    d->max_wait = 10000;
    snprintf(d->distribution, sizeof d->distribution, "mix");
    d->suites[0] = 0;
}

int dut_read(const char *path, dut_desc *d, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(d, 0, sizeof *d);
        snprintf(err, len, "%s: cannot open", path);
        return -1;
    }
    int rc = dut_read_stream(f, path, d, err, len);
    fclose(f);
    return rc;
}

int dut_read_stream(FILE *f, const char *path, dut_desc *d, char *err, size_t len)
{
    memset(d, 0, sizeof *d);
    defaults(d);
    snprintf(d->path, sizeof d->path, "%s", path);
    snprintf(d->dir, sizeof d->dir, "%s", path);
    char *sl = strrchr(d->dir, '/');
    if (sl) *sl = sl == d->dir ? '/' : 0, sl[sl == d->dir] = 0;
    else snprintf(d->dir, sizeof d->dir, ".");
    /* absolute: the build runs elsewhere */
    char real[PATH_MAX];
    if (realpath(d->dir, real)) snprintf(d->dir, sizeof d->dir, "%.*s", (int)sizeof d->dir - 1, real);
    char line[8192];
    int ln = 0, sec = S_NONE, rc = 0;
    int seen[6] = {0};
    while (!rc && fgets(line, sizeof line, f)) {
        ln++;
        size_t l = strlen(line);
        if (l == sizeof line - 1 && line[l - 1] != '\n') { dut_err(d, ln, NULL, err, len, "line longer than %zu characters", sizeof line - 2); rc = -1; break; }
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        for (char *p = line; *p; p++) if ((unsigned char)*p < 32 && *p != '\t' && *p != '\n' && *p != '\r') {
            dut_err(d, ln, NULL, err, len, "control character in the line"); rc = -1; break;
        }
        if (rc) break;
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        char *end = s + strlen(s);
        while (end > s && isspace((unsigned char)end[-1])) *--end = 0;
        if (!*s) continue;
        if (*s == '[') {
            static const char *const secs[] = {"", "[files]", "[unit]", "[ports]", "[run]", "[build]"};
            sec = S_NONE;
            for (int i = 1; i < 6; i++) if (!strcmp(s, secs[i])) sec = i;
            if (sec == S_NONE) { dut_err(d, ln, NULL, err, len, "unknown section '%s' (sections: [files] [unit] [ports] [run] [build])", s); rc = -1; break; }
            if (seen[sec]) { dut_err(d, ln, NULL, err, len, "section %s given twice (first on line %d)", s, seen[sec]); rc = -1; break; }
            seen[sec] = ln;
            if (sec == S_FILES) d->files_line = ln;
            if (sec == S_PORTS) d->ports_line = ln;
            continue;
        }
        ctx c = {d, ln, NULL, {0}, 0, err, len};
        char *save = NULL;
        c.key = strtok_r(s, " \t\r", &save);
        for (char *t; (t = strtok_r(NULL, " \t\r", &save));) {
            if (c.n == MAXTOK - 1) { dut_err(d, ln, c.key, err, len, "more than %d values", MAXTOK - 2); rc = -1; break; }
            c.tok[c.n++] = t;
        }
        if (rc) break;
        switch (sec) {
        case S_FILES: rc = files_line(&c, d); break;
        case S_UNIT: rc = unit_line(&c, d); break;
        case S_PORTS: rc = ports_line(&c, d); break;
        case S_RUN: rc = run_line(&c, d); break;
        case S_BUILD: rc = build_line(&c, d); break;
        default: dut_err(d, ln, c.key, err, len, "outside any section (start with [files], [unit], [ports], [run] or [build])"); rc = -1;
        }
    }
    if (rc) return -1;
    /* what every description needs */
    if (!d->nsources) { dut_err(d, d->files_line ? d->files_line : ln, "files", err, len, "no source files (list them under [files])"); return -1; }
    if (!d->top.line) { dut_err(d, ln, "top", err, len, "missing: name the top module under [unit] (top <module>)"); return -1; }
    if (!d->nmodes) { dut_err(d, ln, "match", err, len, "missing: the unit to match under [unit] (match <instruction or configuration>)"); return -1; }
    if (d->nmode_ports && d->nmodes < 1) { dut_err(d, d->mode_ports[0].line, "mode", err, len, "no match lines for the mode values"); return -1; }
    if (!d->a.line) { dut_err(d, d->ports_line ? d->ports_line : ln, "a", err, len, "missing: the port(s) of operand a"); return -1; }
    if (!d->b.line) { dut_err(d, d->ports_line ? d->ports_line : ln, "b", err, len, "missing: the port(s) of operand b"); return -1; }
    if (!d->c.line) { dut_err(d, d->ports_line ? d->ports_line : ln, "c", err, len, "missing: the port of the accumulator input c"); return -1; }
    if (!d->d.line) { dut_err(d, d->ports_line ? d->ports_line : ln, "d", err, len, "missing: the port of the result d"); return -1; }
    if (!d->out_valid.line && d->latency < 0) { dut_err(d, d->ports_line ? d->ports_line : ln, "out_valid", err, len, "missing: give out_valid <port>, or latency <cycles> for a unit without one"); return -1; }
    if (d->out_valid.line && d->latency_line) { dut_err(d, d->latency_line, "latency", err, len, "a unit with out_valid (line %d) has no fixed latency to give", d->out_valid.line); return -1; }
    if (d->out_ready.line && !d->out_valid.line) { dut_err(d, d->out_ready.line, "out_ready", err, len, "needs out_valid"); return -1; }
    if (d->in_ready.line && !d->in_valid.line) { dut_err(d, d->in_ready.line, "in_ready", err, len, "needs in_valid"); return -1; }
    if (d->tag_in.line && !d->out_valid.line) { dut_err(d, d->tag_in.line, "tag", err, len, "results matched by tag need out_valid"); return -1; }
    if (!d->clock.line && (d->in_valid.line || d->out_valid.line || d->latency > 0 || d->latency_auto || d->reset.line)) {
        dut_err(d, d->ports_line ? d->ports_line : ln, "clock", err, len, "missing: a unit with valid, reset or latency has a clock");
        return -1;
    }
    if (d->lanes_line) {
        /* lanes: a matrix unit whose A rows and B columns are the lanes */
        if (d->shape_line) { dut_err(d, d->lanes_line, "lanes", err, len, "a unit of lanes has no shape (line %d): give one of them", d->shape_line); return -1; }
        const dut_operand *ops[4] = {&d->a, &d->b, &d->cop, &d->dop};
        static const char *const keys[4] = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++)
            if (ops[i]->tile_line) {
                dut_err(d, ops[i]->tile_line, keys[i], err, len, "row, col and beats are for matrix units: lanes come in together, lane 0 in the low bits");
                return -1;
            }
        d->shape_line = d->lanes_line;
        d->tile_m = d->tile_n = d->lanes;
    }
    {
        /* elements entering late and flags read early: a chain that never
         * stalls (no in_ready, no out_ready) */
        const dut_operand *ops[3] = {&d->a, &d->b, &d->cop};
        static const char *const keys[3] = {"a", "b", "c"};
        int at = d->flag_timing_line;
        const char *key = at ? "flags" : NULL;
        for (int i = 0; i < 3; i++) if (ops[i]->delay_line && !at) { at = ops[i]->delay_line; key = keys[i]; }
        if (at && (d->in_ready.line || d->out_ready.line)) {
            dut_err(d, at, key, err, len, "skew, delay and early describe a chain that never stalls: not with %s (line %d)",
                    d->in_ready.line ? "in_ready" : "out_ready", d->in_ready.line ? d->in_ready.line : d->out_ready.line);
            return -1;
        }
        if (at && d->shape_line) { dut_err(d, at, key, err, len, "skew, delay and early are for dot-product units (no shape)"); return -1; }
    }
    if (d->shape_line) {
        const dut_operand *ops[4] = {&d->a, &d->b, &d->cop, &d->dop};
        static const char *const keys[4] = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++) {
            if (ops[i]->nports != 1 || ops[i]->pattern) {
                dut_err(d, ops[i]->line, keys[i], err, len, "a matrix unit takes the matrix on one port (beats for several cycles)");
                return -1;
            }
        }
        for (int i = 0; i < d->nmodes; i++)
            if (d->tile_k && d->modes[i].u.k != d->tile_k) {
                dut_err(d, d->modes[i].line, "match", err, len, "the unit has K=%d but the shape (line %d) k=%d", d->modes[i].u.k, d->shape_line, d->tile_k);
                return -1;
            }
        int bi = d->a.beats ? d->a.beats : 1;
        if ((d->b.beats ? d->b.beats : 1) != bi || (d->cop.beats ? d->cop.beats : 1) != bi) {
            dut_err(d, d->b.line, "b", err, len, "a, b and c come in together: give them the same beats (a %d, b %d, c %d)", bi,
                    d->b.beats ? d->b.beats : 1, d->cop.beats ? d->cop.beats : 1);
            return -1;
        }
        if (d->tag_in.line) { dut_err(d, d->tag_in.line, "tag", err, len, "a matrix unit gives its tiles in order: no tag"); return -1; }
        if (d->flags.line) { dut_err(d, d->flags.line, "flags", err, len, "exception flags of %s are not checked yet", d->lanes ? "units of lanes" : "matrix units"); return -1; }
        if (d->latency_line && (bi > 1 || d->dop.beats > 1)) {
            dut_err(d, d->latency_line, "latency", err, len, "a matrix unit with beats needs out_valid");
            return -1;
        }
    } else {
        const dut_operand *ops[4] = {&d->a, &d->b, &d->cop, &d->dop};
        static const char *const keys[4] = {"a", "b", "c", "d"};
        for (int i = 0; i < 4; i++)
            if (ops[i]->tile_line) {
                dut_err(d, ops[i]->tile_line, keys[i], err, len, "row, col and beats are for matrix units: give the shape under [unit] (shape m <M> n <N>)");
                return -1;
            }
    }
    /* block scales: sa and sb for block-scaled units, and only for them */
    for (int i = 0; i < d->nmodes; i++) {
        const dut_operand *s = mma_unit_nscales(&d->modes[i].u) ? (!d->sa.line ? &d->sa : !d->sb.line ? &d->sb : NULL) : NULL;
        if (s) { dut_err(d, d->modes[i].line, "match", err, len, "the unit has block scales: give the port(s) of %s", s == &d->sa ? "sa" : "sb"); return -1; }
        s = !mma_unit_nscales(&d->modes[i].u) && (d->sa.line || d->sb.line) ? (d->sa.line ? &d->sa : &d->sb) : NULL;
        if (s) { dut_err(d, s->line, s == &d->sa ? "sa" : "sb", err, len, "the unit of mode %s has no block scales", d->modes[i].name); return -1; }
    }
    if ((d->sa.line && (d->shape_line || d->sa.tile_line)) || (d->sb.line && (d->shape_line || d->sb.tile_line))) {
        dut_err(d, d->sa.line ? d->sa.line : d->sb.line, d->sa.line ? "sa" : "sb", err, len, "block scales of matrix units are not verified yet");
        return -1;
    }
    /* (the scale ports are sampled with the operands: no skew, no lanes) */
    if ((d->sa.line || d->sb.line) && (d->lanes_line || d->sa.delay_line || d->sb.delay_line || d->a.delay_line || d->b.delay_line)) {
        dut_err(d, d->sa.line ? d->sa.line : d->sb.line, d->sa.line ? "sa" : "sb", err, len,
                "block scales of units with lanes or elements entering late (skew, delay) are not verified yet");
        return -1;
    }
    int k0 = d->modes[0].u.k;
    for (int i = 1; i < d->nmodes; i++)
        if (d->modes[i].u.k != k0 && (d->a.nports > 1 || d->a.pattern)) {
            dut_err(d, d->modes[i].line, "match", err, len, "K=%d differs from the first mode's K=%d: one port per element needs the same K in every mode", d->modes[i].u.k, k0);
            return -1;
        }
    return 0;
}

void dut_free(dut_desc *d)
{
    free(d->a.ports);
    free(d->b.ports);
    free(d->cop.ports);
    free(d->dop.ports);
    free(d->sa.ports);
    free(d->sb.ports);
    free(d->flag_ports);
    for (int i = 0; i < d->nvargs; i++) free(d->vargs[i]);
    free(d->vargs);
    d->vargs = NULL;
    d->nvargs = 0;
    d->a.ports = d->b.ports = d->cop.ports = d->dop.ports = d->sa.ports = d->sb.ports = NULL;
    d->flag_ports = NULL;
}
