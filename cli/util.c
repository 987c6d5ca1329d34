/* Instruction lookup with messages, numeric arguments. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

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
    if (!*arg || *e || *arg < '0' || *arg > '9' || t < 1 || t > 1024) {
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

long cli_count_arg(const char *cmd, const char *opt, const char *arg, long max)
{
    char *e;
    errno = 0;
    long long v = strtoll(arg, &e, 10);
    if (!*arg || *e || *arg < '0' || *arg > '9') {
        fprintf(stderr, "mmaref %s: %s needs a whole number from 0 to %ld (got '%s')\n", cmd, opt, max, arg);
        return -1;
    }
    if (errno == ERANGE || v > max) {
        fprintf(stderr, "mmaref %s: %s %s is more than the limit of %ld\n", cmd, opt, arg, max);
        return -1;
    }
    return (long)v;
}

int cli_out_fits(const char *path, double bytes)
{
    if (!strcmp(path, "-")) return 0;
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) return 0;       /* a device: /dev/null */
    char dir[1100];
    const char *slash = strrchr(path, '/');
    if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path + 1), path);
    else snprintf(dir, sizeof dir, ".");
    struct statvfs fs;
    if (statvfs(dir, &fs)) return 0;                 /* the open says why */
    double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    /* compressed vector files are 4-5 times smaller (random bits) and
     * more for some suites: 20 refuses only what cannot fit */
    size_t n = strlen(path);
    int packed = (n > 3 && !strcmp(path + n - 3, ".xz")) || (n > 3 && !strcmp(path + n - 3, ".gz")) ||
                 (n > 4 && !strcmp(path + n - 4, ".zst"));
    double need = packed ? bytes / 20 : bytes;
    if (need <= avail) return 0;
    fprintf(stderr, "mmaref: %s: the output needs about %.3g GB%s and the disk has %.3g GB free\n", path, need / 1e9,
            packed ? " compressed" : "", avail / 1e9);
    return -1;
}

int cli_bad_option(const char *cmd, const char *opt, const char *valued)
{
    size_t n = strlen(opt);
    for (const char *p = valued; *p; ) {
        while (*p == ' ') p++;
        size_t l = strcspn(p, " ");
        if (l == n && !strncmp(p, opt, n)) {
            fprintf(stderr, "mmaref %s: %s needs a value\n", cmd, opt);
            return -1;
        }
        p += l;
    }
    fprintf(stderr, "mmaref %s: unknown option '%s' (mmaref %s --help)\n", cmd, opt, cmd);
    return -1;
}

int cli_shard_arg(const char *arg, long *i, long *n)
{
    char *e, *f;
    if (*arg < '0' || *arg > '9') return -1;
    long a = strtol(arg, &e, 10);
    if (*e != '/' || e[1] < '0' || e[1] > '9') return -1;
    long b = strtol(e + 1, &f, 10);
    if (*f || b < 1 || b > 1000000 || a >= b) return -1;
    *i = a;
    *n = b;
    return 0;
}
