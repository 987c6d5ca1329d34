/* A small JSON reader for Verilator's --json-only tree (Verilator 5.024
 * and later, which dropped --xml-only): objects, arrays, strings,
 * numbers, true, false, null.  Enough to find the top module's ports and
 * their types (ports.c); not a general JSON library. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    int depth;
} rd;

static void skip_ws(rd *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) r->p++;
}

static vfy_json *node(int kind)
{
    vfy_json *n = calloc(1, sizeof *n);
    if (!n) abort();
    n->kind = kind;
    return n;
}

static void add_kid(vfy_json *n, char *key, vfy_json *kid)
{
    if (n->n % 16 == 0) {
        n->kids = realloc(n->kids, (size_t)(n->n + 16) * sizeof *n->kids);
        n->keys = realloc(n->keys, (size_t)(n->n + 16) * sizeof *n->keys);
        if (!n->kids || !n->keys) abort();
    }
    n->keys[n->n] = key;
    n->kids[n->n++] = kid;
}

/* a string at r->p (the opening quote), unescaped; NULL when malformed */
static char *string(rd *r)
{
    if (r->p >= r->end || *r->p != '"') return NULL;
    const char *s = ++r->p;
    size_t len = 0;
    while (r->p < r->end && *r->p != '"') { if (*r->p == '\\') r->p++; r->p++; len++; }
    if (r->p >= r->end) return NULL;
    char *out = malloc(len + 1), *o = out;
    if (!out) abort();
    for (const char *q = s; q < r->p; q++) {
        if (*q != '\\') { *o++ = *q; continue; }
        q++;
        switch (*q) {
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'u': *o++ = '?'; q += q + 4 < r->p ? 4 : 0; break;   /* (names are ASCII) */
        default: *o++ = *q;
        }
    }
    *o = 0;
    r->p++;
    return out;
}

static vfy_json *value(rd *r)
{
    skip_ws(r);
    if (r->p >= r->end || ++r->depth > 4000) return NULL;
    vfy_json *n = NULL;
    char c = *r->p;
    if (c == '{' || c == '[') {
        n = node(c == '{' ? 'o' : 'a');
        r->p++;
        skip_ws(r);
        if (r->p < r->end && *r->p == (c == '{' ? '}' : ']')) { r->p++; r->depth--; return n; }
        for (;;) {
            char *key = NULL;
            skip_ws(r);
            if (c == '{') {
                if (!(key = string(r))) break;
                skip_ws(r);
                if (r->p >= r->end || *r->p != ':') { free(key); break; }
                r->p++;
            }
            vfy_json *kid = value(r);
            if (!kid) { free(key); break; }
            add_kid(n, key, kid);
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') { r->p++; continue; }
            if (r->p < r->end && *r->p == (c == '{' ? '}' : ']')) { r->p++; r->depth--; return n; }
            break;
        }
        vfy_json_free(n);
        return NULL;
    }
    if (c == '"') {
        n = node('s');
        if (!(n->str = string(r))) { free(n); return NULL; }
    } else if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5) || !strncmp(r->p, "null", 4)) {
        n = node(c == 't' ? 't' : c == 'f' ? 'f' : '0');
        r->p += c == 'f' ? 5 : 4;
    } else {
        char *e;
        n = node('n');
        n->num = strtod(r->p, &e);
        if (e == r->p) { free(n); return NULL; }
        r->p = e;
    }
    r->depth--;
    return n;
}

vfy_json *vfy_json_parse(const char *text, size_t len)
{
    rd r = {text, text + len, 0};
    vfy_json *n = value(&r);
    skip_ws(&r);
    if (n && r.p != r.end) { vfy_json_free(n); return NULL; }
    return n;
}

void vfy_json_free(vfy_json *n)
{
    if (!n) return;
    for (int i = 0; i < n->n; i++) { free(n->keys[i]); vfy_json_free(n->kids[i]); }
    free(n->keys);
    free(n->kids);
    free(n->str);
    free(n);
}

const vfy_json *vfy_json_get(const vfy_json *o, const char *key)
{
    if (!o || o->kind != 'o') return NULL;
    for (int i = 0; i < o->n; i++) if (o->keys[i] && !strcmp(o->keys[i], key)) return o->kids[i];
    return NULL;
}

const char *vfy_json_str(const vfy_json *o, const char *key)
{
    const vfy_json *v = vfy_json_get(o, key);
    return v && v->kind == 's' ? v->str : NULL;
}
