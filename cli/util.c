/* Atomic output files, instruction lookup with messages. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suf)
{
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && !strcmp(s + ls - lf, suf);
}

int cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) { o->f = stdout; return 0; }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    o->direct = !stat(path, &st) && !S_ISREG(st.st_mode);
    if (o->direct) {
        if (S_ISDIR(st.st_mode)) { fprintf(stderr, "mmaref: %s: is a directory\n", path); return -1; }
        o->f = fopen(path, "w");
        if (!o->f) { fprintf(stderr, "mmaref: %s: cannot write\n", path); return -1; }
        setvbuf(o->f, NULL, _IOFBF, 1 << 20);
        return 0;
    }
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp%ld", path, (long)getpid());
    if (ends_with(path, ".xz") || ends_with(path, ".gz")) {
        char cmd[1300];
        snprintf(cmd, sizeof cmd, "%s > '%s'", ends_with(path, ".xz") ? "xz -9 -T1 -c" : "gzip -9 -c", o->tmp);
        o->f = popen(cmd, "w");
        o->is_pipe = 1;
    } else {
        o->f = fopen(o->tmp, "w");
    }
    if (!o->f) { fprintf(stderr, "mmaref: %s: cannot write\n", path); return -1; }
    /* a vector line is ~200 bytes: stdio's 4 kB buffer made write(2) a third
     * of mmaref gen's time */
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

int cli_out_commit(cli_out *o)
{
    if (o->f == stdout) return fflush(stdout) ? -1 : 0;
    int bad = ferror(o->f);
    int rc = o->is_pipe ? pclose(o->f) : fclose(o->f);
    o->f = NULL;
    if (o->direct) {
        if (bad || rc) { fprintf(stderr, "mmaref: %s: write failed\n", o->path); return -1; }
        return 0;
    }
    if (bad || rc) { unlink(o->tmp); fprintf(stderr, "mmaref: %s: write failed\n", o->path); return -1; }
    if (rename(o->tmp, o->path)) { unlink(o->tmp); fprintf(stderr, "mmaref: %s: cannot rename into place\n", o->path); return -1; }
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (!o->f || o->f == stdout) return;
    if (o->is_pipe) pclose(o->f); else fclose(o->f);
    o->f = NULL;
    if (!o->direct) unlink(o->tmp);
}

int cli_unit(const char *name, mma_unit *u)
{
    char err[1024];
    if (mma_unit_parse(name, u, err, sizeof err)) {
        fprintf(stderr, "mmaref: %s\n", err);
        return -1;
    }
    return 0;
}

int cli_threads(const char *arg)
{
    char *e;
    long t = strtol(arg, &e, 10);
    if (!*arg || *e || t < 1 || t > 1024) {
        fprintf(stderr, "mmaref: --threads needs a number of threads from 1 to 1024 (got '%s')\n", arg);
        return -1;
    }
    return (int)t;
}

int cli_parse_hex(const char *s, int digits, uint64_t *out)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t n = strlen(s);
    if (n == 0 || (int)n > digits) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (h < 0) return -1;
        v = (v << 4) | (uint64_t)h;
    }
    *out = v;
    return 0;
}
