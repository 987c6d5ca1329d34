/* Vector files: the contract between the model, the RTL testbenches, the
 * GPU capture harness and the peer model (docs/vector-format.md).  Compressed
 * files are read through the system's xz / gzip / zstd, started without a
 * shell, so the library itself needs nothing but libc. */
#include "../core/internal.h"
#include "mmaref_vec.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct mma_vec_reader {
    FILE *f;
    int is_pipe;
    pid_t pid;           /* the decompressor (xz, gzip, zstd) of a compressed file */
    int errfd;           /* its stderr                                       */
    int borrowed;        /* the caller's stream: not closed here */
    char path[512];
    long line;
    long iline;          /* the '# instr:' header's line; 0 without one */
    mma_unit u;
    int has_d, has_flags;
    int skip_flags;        /* a flags field the unit (another one given) has no use for */
    int nextra;
    char *extra[MMA_VEC_MAX_HEADER];
    const char *extra_ptr[MMA_VEC_MAX_HEADER];
    char *buf;
    size_t cap;
    int nf;                          /* fields per line                  */
    unsigned char digits[2 * MMA_MAX_K + 2 * MMA_VEC_MAX_SCALES + 3];
};

/* hex digit values (0xff for anything else), and pairs of digits read as
 * one 16-bit load (0xffff for a pair that is not two hex digits) */
static unsigned char hexv[256];
static uint16_t hex2[65536];
__attribute__((constructor)) static void init_hexv(void)
{
    for (int i = 0; i < 256; i++) hexv[i] = 0xff;
    for (int i = 0; i < 10; i++) hexv['0' + i] = (unsigned char)i;
    for (int i = 0; i < 6; i++) { hexv['a' + i] = (unsigned char)(10 + i); hexv['A' + i] = (unsigned char)(10 + i); }
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++) {
            unsigned char bx[2] = {(unsigned char)x, (unsigned char)y};
            uint16_t key;
            memcpy(&key, bx, 2);
            hex2[key] = hexv[x] == 0xff || hexv[y] == 0xff ? 0xffff : (uint16_t)(hexv[x] << 4 | hexv[y]);
        }
}

static int ends_with(const char *s, const char *suf)
{
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && !strcmp(s + ls - lf, suf);
}

void mma_vec_fields(const mma_unit *u, char *buf, size_t len)
{
    int s = mma_unit_nscales(u);
    const char *fl = mma_unit_has_flags(u) ? " flags" : "";
    if (s) snprintf(buf, len, "c a[0..%d] b[0..%d] sa[0..%d] sb[0..%d] d%s", u->k - 1, u->k - 1, s - 1, s - 1, fl);
    else snprintf(buf, len, "c a[0..%d] b[0..%d] d%s", u->k - 1, u->k - 1, fl);
}

static const char *arch_of(const mma_unit *u, char *buf, size_t len)
{
    const char *colon = strchr(u->name, ':');
    if (!u->name[0] || !colon) return "generic";
    snprintf(buf, len, "%.*s", (int)(colon - u->name), u->name);
    return buf;
}

void mma_vec_write_header(FILE *f, const mma_unit *u)
{
    char fields[128], arch[32], cfg[512];
    mma_vec_fields(u, fields, sizeof fields);
    if (!u->name[0]) mma_unit_config(u, cfg, sizeof cfg);
    fprintf(f, "# mmavec 1\n# arch: %s\n# instr: %s\n# k: %d\n# fields: %s\n",
            arch_of(u, arch, sizeof arch), u->name[0] ? u->name : cfg, u->k, fields);
}

/* two lowercase hex digits per byte value */
static char hexpair[256][2];
__attribute__((constructor)) static void init_hexpair(void)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 256; i++) { hexpair[i][0] = hx[i >> 4]; hexpair[i][1] = hx[i & 15]; }
}

static char *hex(char *p, uint64_t v, int digits)
{
    int i = digits;
    while (i >= 2) { i -= 2; memcpy(p + i, hexpair[v & 0xff], 2); v >>= 8; }
    if (i) p[0] = hexpair[v & 15][1];
    return p + digits;
}

/* ' ' and n fields of `digits` hex digits each; one- and two-byte formats
 * (fp8, fp16) get loops of constant width, the bulk of every vector line */
static char *hex_list(char *p, const uint64_t *x, int n, int digits)
{
    if (digits == 2) {
        for (int k = 0; k < n; k++) { p[0] = ' '; memcpy(p + 1, hexpair[x[k] & 0xff], 2); p += 3; }
    } else if (digits == 4) {
        for (int k = 0; k < n; k++) {
            p[0] = ' ';
            memcpy(p + 1, hexpair[(x[k] >> 8) & 0xff], 2);
            memcpy(p + 3, hexpair[x[k] & 0xff], 2);
            p += 5;
        }
    } else {
        for (int k = 0; k < n; k++) { *p++ = ' '; p = hex(p, x[k], digits); }
    }
    return p;
}

size_t mma_vec_format(char *buf, const mma_unit *u, const mma_vec *v)
{
    char *p = buf;
    int hc = mma_format(u->c)->hexdigits, ha = mma_format(u->a)->hexdigits;
    int hb = mma_format(u->b)->hexdigits, hd = mma_format(u->d)->hexdigits;
    p = hex(p, v->c, hc);
    p = hex_list(p, v->a, u->k, ha);
    p = hex_list(p, v->b, u->k, hb);
    int s = mma_unit_nscales(u), hs = s ? mma_format(u->scale)->hexdigits : 0;
    for (int i = 0; i < s; i++) { *p++ = ' '; p = hex(p, v->sa[i], hs); }
    for (int i = 0; i < s; i++) { *p++ = ' '; p = hex(p, v->sb[i], hs); }
    *p++ = ' ';
    p = hex(p, v->d, hd);
    if (mma_unit_has_flags(u)) { *p++ = ' '; memcpy(p, hexpair[v->flags & 0xff], 2); p += 2; }
    *p++ = '\n';
    *p = 0;
    return (size_t)(p - buf);
}

void mma_vec_write(FILE *f, const mma_unit *u, const mma_vec *v)
{
    char buf[MMA_MAX_K * 2 * 17 + 68 + 34 * MMA_VEC_MAX_SCALES];
    fwrite(buf, 1, mma_vec_format(buf, u, v), f);
}

static ssize_t read_line(mma_vec_reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) return -1;
    r->line++;
    while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r')) r->buf[--n] = 0;
    return n;
}

static void trim(char **s) { while (**s == ' ' || **s == '\t') (*s)++; }

static mma_vec_reader *open_common(mma_vec_reader *r, const char *path, const char *instr, char *err, size_t len);

mma_vec_reader *mma_vec_open_stream(FILE *f, const char *name, const char *instr, char *err, size_t len)
{
    mma_vec_reader *r = calloc(1, sizeof *r);
    if (!r) { snprintf(err, len, "%s: out of memory", name); return NULL; }
    snprintf(r->path, sizeof r->path, "%s", name);
    r->f = f;
    r->borrowed = 1;
    return open_common(r, name, instr, err, len);
}

/* The decompressor runs without a shell (any file name is safe) and with
 * its stderr kept, so that a damaged file is an error of the reader rather
 * than a message on the terminal and a short, "successful" read. */
static int spawn_decompressor(mma_vec_reader *r, const char *tool, const char *path)
{
    int out[2], errp[2];
    if (pipe2(out, O_CLOEXEC)) return -1;
    if (pipe2(errp, O_CLOEXEC)) { close(out[0]); close(out[1]); return -1; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    char *argv[] = {(char *)tool, (char *)"-dc", (char *)"--", (char *)path, NULL};
    int rc = posix_spawnp(&r->pid, tool, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(errp[1]);
    if (rc || !(r->f = fdopen(out[0], "r"))) {
        if (!rc) waitpid(r->pid, NULL, 0);
        close(out[0]);
        close(errp[0]);
        return -1;
    }
    r->is_pipe = 1;
    r->errfd = errp[0];
    return 0;
}

/* Closes a decompressor's stream and waits for it: 0 if it succeeded, else
 * -1 with its complaint in err. */
static int finish_decompressor(mma_vec_reader *r, char *err, size_t len)
{
    if (!r->is_pipe || !r->f) return 0;
    fclose(r->f);
    r->f = NULL;
    int st = 0;
    while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR) {}
    char msg[256];
    ssize_t n = read(r->errfd, msg, sizeof msg - 1);
    close(r->errfd);
    msg[n > 0 ? n : 0] = 0;
    char *m = msg + strspn(msg, "\n ");                /* gzip starts with a newline */
    m[strcspn(m, "\n")] = 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (err) snprintf(err, len, "%s: not a readable compressed file (%s)", r->path,
                      m[0] ? m : "the decompressor failed");
    return -1;
}

mma_vec_reader *mma_vec_open(const char *path, const char *instr, char *err, size_t len)
{
    mma_vec_reader *r = calloc(1, sizeof *r);
    if (!r) { snprintf(err, len, "%s: out of memory", path); return NULL; }
    snprintf(r->path, sizeof r->path, "%s", path);
    const char *tool = ends_with(path, ".xz") ? "xz" : ends_with(path, ".gz") ? "gzip" : ends_with(path, ".zst") ? "zstd" : NULL;
    if (tool) {
        FILE *probe = fopen(path, "rb");
        if (!probe) { snprintf(err, len, "%s: cannot open (%s)", path, strerror(errno)); free(r); return NULL; }
        fclose(probe);
        if (spawn_decompressor(r, tool, path)) {
            snprintf(err, len, "%s: cannot run %s -dc (Debian: %s)", path, tool,
                     !strcmp(tool, "xz") ? "xz-utils" : tool);
            free(r);
            return NULL;
        }
    } else if (!strcmp(path, "-")) {
        r->f = stdin;
    } else {
        r->f = fopen(path, "r");
    }
    struct stat st;
    if (r->f && r->f != stdin && !tool && !fstat(fileno(r->f), &st) && S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s: is a directory, not a vector file", path);
        fclose(r->f);
        free(r);
        return NULL;
    }
    if (!r->f) { snprintf(err, len, "%s: cannot open (%s)", path, strerror(errno)); free(r); return NULL; }
    return open_common(r, path, instr, err, len);
}

static mma_vec_reader *open_common(mma_vec_reader *r, const char *path, const char *instr, char *err, size_t len)
{
    char file_instr[512] = "", fields[256] = "", file_arch[64] = "", kbad[32] = "";
    int k = -1, magic = 0;
    /* the lines of the header fields, for messages that point at them */
    long kline = 0, iline = 0, fline = 0, aline = 0;
    /* header: leading comment lines */
    for (;;) {
        int c = fgetc(r->f);
        if (c == EOF) break;
        ungetc(c, r->f);
        if (c != '#' && c != '\n') break;
        if (read_line(r) < 0) break;
        char *s = r->buf + 1;
        trim(&s);
        if (!*s) continue;
        if (!strncmp(s, "mmavec", 6)) {
            /* a later version may mean other fields: refuse it rather than
             * misread it */
            char *ver = s + 6;
            trim(&ver);
            if (strcmp(ver, "1")) {
                snprintf(err, len, "%s:%ld: field mmavec: version '%s' (this reader knows version 1)", path, r->line, ver);
                mma_vec_close(r);
                return NULL;
            }
            magic = 1;
            continue;
        }
        char *colon = strchr(s, ':');
        if (!colon) continue;
        size_t kl = (size_t)(colon - s);
        char *v = colon + 1;
        trim(&v);
        if (kl == 5 && !strncmp(s, "instr", 5)) { snprintf(file_instr, sizeof file_instr, "%s", v); iline = r->iline = r->line; }
        else if (kl == 1 && s[0] == 'k') {
            char *e;
            long kv = strtol(v, &e, 10);
            kline = r->line;
            if (!*v || *e || kv < 1 || kv > MMA_MAX_K) { snprintf(kbad, sizeof kbad, "%.31s", v); k = 0; }
            else k = (int)kv;
        }
        else if (kl == 6 && !strncmp(s, "fields", 6)) { snprintf(fields, sizeof fields, "%s", v); fline = r->line; }
        else if (kl == 4 && !strncmp(s, "arch", 4)) { snprintf(file_arch, sizeof file_arch, "%s", v); aline = r->line; }
        else if (r->nextra < MMA_VEC_MAX_HEADER) {
            r->extra[r->nextra] = strdup(r->buf);
            r->extra_ptr[r->nextra] = r->extra[r->nextra];
            r->nextra++;
        }
    }
    const char *name = instr && *instr ? instr : file_instr;
    char perr[400];
    if (!magic && !*file_instr) {
        /* (the line that is not a header: the one after those read) */
        int empty = r->line == 0 && r->f && feof(r->f);
        if (finish_decompressor(r, err, len) == 0) {
            if (empty) snprintf(err, len, "%s:0: an empty file, not a vector file (no '# mmavec 1' header)", path);
            else snprintf(err, len, "%s:%ld: not a vector file (no '# mmavec 1' header)", path, r->line + 1);
        }
        mma_vec_close(r);
        return NULL;
    }
    if (k == 0) {
        snprintf(err, len, "%s:%ld: field k: '%s' is not a number of products (1..%d)", path, kline, kbad, MMA_MAX_K);
        mma_vec_close(r);
        return NULL;
    }
    if (!*name) {
        snprintf(err, len, "%s:%ld: no '# instr:' header (give --instr)", path, r->line + 1);
        mma_vec_close(r);
        return NULL;
    }
    /* a qualifier without the architecture takes the file's '# arch:'
     * (as this format's own example header writes it) */
    char named[600], qa[64], qq[512];
    if (!strchr(name, '=') && *file_arch && strcmp(file_arch, "generic")) {
        const char *fa = mma_arch_canon(file_arch);
        if (!mma_name_split(name, qa, sizeof qa, qq, sizeof qq)) {
            snprintf(named, sizeof named, "%s:%s", fa, name);
            name = named;
        } else if (strcmp(fa, qa)) {
            snprintf(err, len, "%s:%ld: field arch: header says '%s' but instr '%s' is for '%s'", path, aline, file_arch, name, qa);
            mma_vec_close(r);
            return NULL;
        }
    }
    if (mma_unit_parse(name, &r->u, perr, sizeof perr)) {
        /* the caller's instruction is the caller's mistake, not the file's */
        if (instr && *instr) snprintf(err, len, "instr (given for %s): %s", path, perr);
        else snprintf(err, len, "%s:%ld: field instr: %s", path, iline, perr);
        mma_vec_close(r);
        return NULL;
    }
    if (k >= 0 && k != r->u.k) {
        snprintf(err, len, "%s:%ld: field k: header says %d but %s has k=%d", path, kline, k, name, r->u.k);
        mma_vec_close(r);
        return NULL;
    }
    char want[128];
    mma_vec_fields(&r->u, want, sizeof want);
    {
        const mma_unit *u = &r->u;
        int ns = mma_unit_nscales(u), n = 0;
        r->digits[n++] = (unsigned char)mma_format(u->c)->hexdigits;
        for (int i = 0; i < u->k; i++) r->digits[n++] = (unsigned char)mma_format(u->a)->hexdigits;
        for (int i = 0; i < u->k; i++) r->digits[n++] = (unsigned char)mma_format(u->b)->hexdigits;
        for (int i = 0; i < 2 * ns; i++) r->digits[n++] = (unsigned char)mma_format(u->scale)->hexdigits;
        r->digits[n++] = (unsigned char)mma_format(u->d)->hexdigits;
        r->digits[n++] = 2;                                  /* flags */
    }
    /* the fields: all of want; want without flags; without d (input only) */
    int flagged = mma_unit_has_flags(&r->u);
    size_t wl = strlen(want), base = flagged ? wl - 6 : wl;   /* " flags" */
    r->has_d = 1;
    r->has_flags = flagged;
    if (*fields && strcmp(fields, want)) {
        size_t fl = strlen(fields);
        if (flagged && fl == base && !strncmp(fields, want, base)) r->has_flags = 0;
        else if (fl == base - 2 && !strncmp(fields, want, base - 2)) { r->has_d = 0; r->has_flags = 0; }
        else {
            int extra_flags = !flagged && fl == wl + 6 && !strncmp(fields, want, wl) && !strcmp(fields + wl, " flags");
            /* a file of an IEEE unit read as another unit (--instr): its
             * flags are read over and not checked */
            if (extra_flags && instr && *instr) { r->skip_flags = 1; return r; }
            if (extra_flags)
                snprintf(err, len, "%s:%ld: field fields: a 'flags' field, but %s defines no exception flags (the ieee tree does)", path, fline, name);
            else
                snprintf(err, len, "%s:%ld: field fields: '%s' but %s needs '%s'", path, fline, fields, name, want);
            mma_vec_close(r);
            return NULL;
        }
    } else if (!*fields) {
        r->has_flags = 0;                          /* no header: the plain layout */
    }
    return r;
}

const mma_unit *mma_vec_unit(const mma_vec_reader *r) { return &r->u; }
int mma_vec_has_d(const mma_vec_reader *r) { return r->has_d; }
long mma_vec_instr_line(const mma_vec_reader *r) { return r->iline; }
int mma_vec_has_flags(const mma_vec_reader *r) { return r->has_flags; }
int mma_vec_extra_headers(const mma_vec_reader *r, const char ***lines)
{
    *lines = (const char **)r->extra_ptr;
    return r->nextra;
}

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parse one field of exactly `digits` hex digits at *p. */
static int field(const char **p, int digits, uint64_t *out)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    uint64_t v = 0;
    int n = 0;
    for (; *s && *s != ' ' && *s != '\t'; s++, n++) {
        int h = hexval(*s);
        if (h < 0) return -2;
        v = (v << 4) | (uint64_t)h;
    }
    if (n == 0) return -1;
    if (n != digits) return -3;
    *p = s;
    *out = v;
    return 0;
}

static const char *field_name(const mma_unit *u, int i, char *buf, size_t len)
{
    int s = mma_unit_nscales(u);
    if (i == 0) return "c";
    i--;
    if (i < u->k) { snprintf(buf, len, "a[%d]", i); return buf; }
    i -= u->k;
    if (i < u->k) { snprintf(buf, len, "b[%d]", i); return buf; }
    i -= u->k;
    if (i < s) { snprintf(buf, len, "sa[%d]", i); return buf; }
    i -= s;
    if (i < s) { snprintf(buf, len, "sb[%d]", i); return buf; }
    return i == s ? "d" : "flags";
}

/* The slow, precise diagnosis of a bad line (only run on error). */
static void diagnose(const mma_vec_reader *r, const char *line, long lineno, int nf, char *err, size_t len)
{
    const mma_unit *u = &r->u;
    int s = mma_unit_nscales(u);
    const char *p = line;
    for (int i = 0; i < nf; i++) {
        uint64_t dummy = 0;
        int digits = r->digits[i];
        int rc = field(&p, digits, &dummy);
        char fb[32];
        const char *fn = field_name(u, i, fb, sizeof fb);
        if (rc == -1) { snprintf(err, len, "%s:%ld: field %s: missing (line has %d fields, %d expected)", r->path, lineno, fn, i, nf); return; }
        if (rc == -2) { snprintf(err, len, "%s:%ld: field %s: not hexadecimal", r->path, lineno, fn); return; }
        if (rc == -3) { snprintf(err, len, "%s:%ld: field %s: wrong width (%d hex digits expected)", r->path, lineno, fn, digits); return; }
        mma_fmt f = i == 0 ? u->c : i <= u->k ? u->a : i <= 2 * u->k ? u->b : i <= 2 * u->k + 2 * s ? u->scale : u->d;
        int w = i == 2 * u->k + 2 * s + 2 ? 5 : mma_format(f)->width;     /* flags: five bits */
        if (w < 64 && (dummy >> w)) {
            snprintf(err, len, "%s:%ld: field %s: value 0x%llx does not fit %d bits", r->path, lineno, fn,
                     (unsigned long long)dummy, w);
            return;
        }
    }
    snprintf(err, len, "%s:%ld: field %d: extra field (%d expected)", r->path, lineno, nf + 1, nf);
}

int mma_vec_parse(const mma_vec_reader *r, const char *line, long lineno, mma_vec *v, char *err, size_t len)
{
    const mma_unit *u = &r->u;
    int s = mma_unit_nscales(u);
    int nf = 1 + 2 * u->k + 2 * s + (r->has_d ? 1 : 0) + (r->has_flags || r->skip_flags ? 1 : 0);
    int nd = 1 + 2 * u->k + 2 * s;                  /* index of d */
    uint64_t vals[2 * MMA_MAX_K + 2 * MMA_VEC_MAX_SCALES + 3];
    const unsigned char *p = (const unsigned char *)line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '#') return 0;
    v->line = lineno;
    int ok = 1;
    for (int i = 0; i < nf && ok; i++) {
        while (*p == ' ' || *p == '\t') p++;
        int dg = r->digits[i];
        uint64_t x = 0;
        int j = 0;
        for (; j + 1 < dg; j += 2) {            /* two digits per load */
            uint16_t key;
            if (!p[j]) { ok = 0; break; }        /* never read past the end */
            memcpy(&key, p + j, 2);
            uint16_t h = hex2[key];
            if (h == 0xffff) { ok = 0; break; }
            x = (x << 8) | h;
        }
        if (ok && j < dg) {
            unsigned char h = hexv[p[j]];
            if (h == 0xff) ok = 0; else x = (x << 4) | h;
        }
        if (!ok) break;
        p += dg;
        if (*p && *p != ' ' && *p != '\t') { ok = 0; break; }
        vals[i] = x;
    }
    if (ok) { while (*p == ' ' || *p == '\t') p++; if (*p) ok = 0; }
    /* widths: a field may not exceed its format's bits */
    if (ok) {
        const mma_format_info *fc = mma_format(u->c), *fa = mma_format(u->a), *fbi = mma_format(u->b);
        if (fc->width < 64 && (vals[0] >> fc->width)) ok = 0;
        for (int k = 0; ok && k < u->k; k++)
            if ((fa->width < 64 && (vals[1 + k] >> fa->width)) || (fbi->width < 64 && (vals[1 + u->k + k] >> fbi->width))) ok = 0;
        for (int i = 0; ok && i < 2 * s; i++)
            if (vals[1 + 2 * u->k + i] >> mma_format(u->scale)->width) ok = 0;
        if (ok && r->has_d && mma_format(u->d)->width < 64 && (vals[nd] >> mma_format(u->d)->width)) ok = 0;
        if (ok && r->has_flags && (vals[nd + 1] >> 5)) ok = 0;
    }
    if (!ok) { diagnose(r, line, lineno, nf, err, len); return -1; }
    v->c = vals[0];
    for (int k = 0; k < u->k; k++) { v->a[k] = vals[1 + k]; v->b[k] = vals[1 + u->k + k]; }
    for (int i = 0; i < s; i++) { v->sa[i] = vals[1 + 2 * u->k + i]; v->sb[i] = vals[1 + 2 * u->k + s + i]; }
    v->d = r->has_d ? vals[nd] : 0;
    v->flags = r->has_flags ? (unsigned)vals[nd + 1] : 0;
    return 1;
}

int mma_vec_next(mma_vec_reader *r, mma_vec *v, char *err, size_t len)
{
    for (;;) {
        if (!r->f || read_line(r) < 0) return finish_decompressor(r, err, len);
        int rc = mma_vec_parse(r, r->buf, r->line, v, err, len);
        if (rc < 0 && r->is_pipe) {
            /* a damaged compressed file shows as a bad line: say so instead */
            while (read_line(r) >= 0) {}
            char derr[512];
            if (finish_decompressor(r, derr, sizeof derr)) snprintf(err, len, "%s", derr);
        }
        if (rc) return rc;
    }
}

FILE *mma_vec_stream(const mma_vec_reader *r) { return r->f; }
long mma_vec_lineno(const mma_vec_reader *r) { return r->line; }

int mma_vec_finish(mma_vec_reader *r, char *err, size_t len)
{
    if (!r->is_pipe || !r->f) return 0;
    char buf[1 << 14];
    while (fread(buf, 1, sizeof buf, r->f) > 0) {}
    return finish_decompressor(r, err, len);
}

void mma_vec_close(mma_vec_reader *r)
{
    if (!r) return;
    if (r->is_pipe) {
        if (r->f) {                      /* closed early: the decompressor may be blocked writing */
            fclose(r->f);
            kill(r->pid, SIGTERM);
            waitpid(r->pid, NULL, 0);
            close(r->errfd);
        }
    } else if (r->f && r->f != stdin && !r->borrowed) fclose(r->f);
    for (int i = 0; i < r->nextra; i++) free(r->extra[i]);
    free(r->buf);
    free(r);
}
