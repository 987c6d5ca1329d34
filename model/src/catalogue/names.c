/* Instruction names as users write them, to the catalogue's spelling.
 *
 * The catalogue names an NVIDIA instruction by its PTX opcode without the
 * qualifiers that do not change the arithmetic, the shape first and the
 * types in PTX order: mma.m16n8k16.f32.f16.f16.f32,
 * wgmma.m64n8k32.f32.e4m3.e4m3, tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3,
 * wmma.m16n16k16.f32.f16.f16.f32.  Users paste the PTX of their source:
 *   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
 *   wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3
 *   wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32    (f16 inputs implied)
 *   tcgen05.mma.cta_group::1.kind::f8f6f4 with the shape and types
 *     appended (the shape lives in the instruction descriptor in PTX)
 *   mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X...
 * and the architecture as sm_90a or gfx942 instead of hopper or cdna3.
 * Layouts (.row/.col), .sync, .aligned, tcgen05's .cta_group::N and .ws,
 * wmma's default .rn select data movement, not arithmetic, and are dropped.
 * mma_name_split() and mma_name_canon() do the rewriting; catalogue.c looks
 * the result up. */
#include "../core/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *alias, *arch; } arch_alias[] = {
    {"sm_70", "volta"}, {"sm_72", "volta"}, {"sm_75", "turing"}, {"sm_80", "ampere"},
    {"sm_86", "ampere"}, {"sm_87", "ampere"}, {"sm_89", "ada"}, {"sm_90", "hopper"},
    {"sm_90a", "hopper"}, {"sm_100", "blackwell"}, {"sm_100a", "blackwell"},
    {"sm_101", "blackwell"}, {"sm_101a", "blackwell"}, {"sm_103", "blackwell"},
    {"sm_103a", "blackwell"}, {"sm_110", "blackwell"}, {"sm_110a", "blackwell"},
    {"sm_120", "rtx-blackwell"}, {"sm_120a", "rtx-blackwell"}, {"sm_121", "rtx-blackwell"},
    {"sm_121a", "rtx-blackwell"}, {"gfx908", "cdna1"}, {"gfx90a", "cdna2"},
    {"gfx940", "cdna3"}, {"gfx941", "cdna3"}, {"gfx942", "cdna3"},
};

const char *mma_arch_canon(const char *arch)
{
    for (size_t i = 0; i < sizeof arch_alias / sizeof arch_alias[0]; i++)
        if (!strcmp(arch, arch_alias[i].alias)) return arch_alias[i].arch;
    return arch;
}

/* "arch:qualifier" -> arch (its alias resolved) and qualifier; the colon
 * is the first one that is not half of a "::" (tcgen05's kind::f16).
 * Returns 1 when the text names an architecture, 0 for a bare qualifier. */
int mma_name_split(const char *text, char *arch, size_t alen, char *qual, size_t qlen)
{
    const char *c = text;
    for (; *c; c++)
        if (*c == ':' && c[1] != ':' && (c == text || c[-1] != ':')) break;
    if (!*c) {
        if (alen) arch[0] = 0;
        snprintf(qual, qlen, "%s", text);
        return 0;
    }
    char a[64];
    snprintf(a, sizeof a, "%.*s", (int)(c - text), text);
    snprintf(arch, alen, "%s", mma_arch_canon(a));
    snprintf(qual, qlen, "%s", c + 1);
    return 1;
}

#define MAXTOK 24

static int is_shape(const char *t)
{
    int m, n, k, used = 0;
    return sscanf(t, "m%dn%dk%d%n", &m, &n, &k, &used) == 3 && !t[used];
}

static int is_layout(const char *t) { return !strcmp(t, "row") || !strcmp(t, "col"); }

/* PTX's .block_scale.scale_vec::NX is our blockB, B = K / N (scale_vec
 * left out: one scale per 32 products, as PTX defaults for mxf8f6f4). */
static void block_token(const char *shape, const char *scale_vec, char *out, size_t len)
{
    int m, n, k, x = 0;
    if (sscanf(shape, "m%dn%dk%d", &m, &n, &k) != 3) k = 32;
    if (scale_vec && sscanf(scale_vec, "scale_vec::%dX", &x) == 1 && x > 0) snprintf(out, len, "block%d", k / x);
    else snprintf(out, len, "block32");
}

/* Rewrite a qualifier into the catalogue's spelling (AMD mnemonics are
 * lowercased).  Writes out; returns 0, or -1 when the text does not look
 * like an NVIDIA or AMD qualifier (out then holds the text unchanged).
 * *cta2 and *ws report tcgen05's .cta_group::2 and .ws, which allow
 * other M than the catalogue's. */
int mma_name_canon(const char *qual, char *out, size_t len, int *cta2, int *ws)
{
    char buf[256];
    *cta2 = *ws = 0;
    snprintf(out, len, "%s", qual);
    if (strlen(qual) >= sizeof buf) return -1;
    if (!strncasecmp(qual, "v_mfma_", 7)) {
        for (size_t i = 0; out[i]; i++) out[i] = (char)tolower((unsigned char)out[i]);
        return 0;
    }
    strcpy(buf, qual);
    char *tok[MAXTOK];
    int nt = 0;
    for (char *s = NULL, *t = strtok_r(buf, ".", &s); t; t = strtok_r(NULL, ".", &s)) {
        if (nt == MAXTOK) return -1;
        tok[nt++] = t;
    }
    if (nt < 2) return -1;
    const char *fam = tok[0];
    int first = 1;                              /* tokens of the opcode itself */
    if (!strcmp(fam, "tcgen05") || !strcmp(fam, "wmma")) {
        if (nt > 1 && !strcmp(tok[1], "mma")) first = 2;
    } else if (!strcmp(fam, "wgmma")) {
        if (nt > 1 && !strcmp(tok[1], "mma_async")) first = 2;
    } else if (strcmp(fam, "mma")) {
        return -1;
    }
    const char *shape = NULL, *kind = NULL, *scale_vec = NULL, *block = NULL;
    const char *rest[MAXTOK];
    int nr = 0, block_scale = 0;
    for (int i = first; i < nt; i++) {
        const char *t = tok[i];
        if (!strcmp(t, "sync") || !strcmp(t, "aligned") || is_layout(t)) continue;
        if (!strcmp(t, "cta_group::1")) continue;
        if (!strcmp(t, "cta_group::2")) { *cta2 = 1; continue; }
        if (!strcmp(t, "ws") && !strcmp(fam, "tcgen05")) { *ws = 1; continue; }
        if (!strcmp(t, "rn") && !strcmp(fam, "wmma")) continue;
        if (!shape && is_shape(t)) { shape = t; continue; }
        if (!kind && !strncmp(t, "kind::", 6)) { kind = t; continue; }
        if (!strcmp(t, "block_scale")) { block_scale = 1; continue; }
        if (!strncmp(t, "scale_vec::", 11)) { scale_vec = t; continue; }
        if (!block && (!strcmp(t, "block16") || !strcmp(t, "block32"))) { block = t; continue; }
        rest[nr++] = t;
    }
    if (!shape) return -1;
    size_t n = 0;
#define PUT(...) do { int w_ = snprintf(out + n, n < len ? len - n : 0, __VA_ARGS__); if (w_ > 0) n += (size_t)w_; } while (0)
    PUT("%s", !strcmp(fam, "tcgen05") ? "tcgen05.mma" : fam);
    PUT(".%s", shape);
    if (kind) PUT(".%s", kind);
    if (block) PUT(".%s", block);
    else if (block_scale || scale_vec) {
        char b[16];
        block_token(shape, scale_vec, b, sizeof b);
        PUT(".%s", b);
    }
    /* wmma with f16 inputs names only d and c types */
    if (!strcmp(fam, "wmma") && nr == 2 && (!strcmp(rest[0], "f16") || !strcmp(rest[0], "f32")) &&
        (!strcmp(rest[1], "f16") || !strcmp(rest[1], "f32")))
        PUT(".%s.f16.f16.%s", rest[0], rest[1]);
    else
        for (int i = 0; i < nr; i++) PUT(".%s", rest[i]);
#undef PUT
    return n < len ? 0 : -1;
}
