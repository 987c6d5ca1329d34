/* Processes and files for the verify flow: running Verilator, the C++
 * build and the testbench; writing generated files only when they change
 * (so that the build is skipped when nothing did). */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* A child running argv in cwd (NULL: here) with stdout and stderr into log
 * (NULL: inherited; opened with O_APPEND or O_TRUNC): its pid, or -1 with
 * errno.  Exit 126: the log or cwd failed; 127: argv[0] did not start. */
static pid_t start_child(char *const argv[], const char *cwd, const char *log, int mode)
{
    fflush(stdout);                 /* the child must not print it again */
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | mode, 0644);
        if (fd < 0) _exit(126);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    if (cwd && chdir(cwd)) _exit(126);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int vfy_run(char *const argv[], const char *cwd, const char *log, char *err, size_t len)
{
    return vfy_run_status(argv, cwd, log, NULL, err, len);
}

/* The status line of a long child (the Verilator build: a minute or more
 * on two cores, silent otherwise): what runs, for how long, and how many
 * compiler steps its log shows so far; on a terminal only, rewritten in
 * place, erased at the end. */
static int count_compiles(const char *log)
{
    FILE *f = log ? fopen(log, "r") : NULL;
    if (!f) return 0;
    char line[512];
    int n = 0, start = 1;
    while (fgets(line, sizeof line, f)) {
        if (start && (strstr(line, "++ ") || !strncmp(line, "ccache ", 7)) && strstr(line, " -c ")) n++;
        start = strchr(line, '\n') != NULL;
    }
    fclose(f);
    return n;
}

static void show_status(const char *what, time_t t0, const char *log)
{
    int n = count_compiles(log);
    fprintf(stderr, "\r%s: %lds", what, (long)(time(NULL) - t0));
    if (n) fprintf(stderr, ", %d C++ compile%s started", n, n == 1 ? "" : "s");
    fputs("\033[K", stderr);
    fflush(stderr);
}

int vfy_run_status(char *const argv[], const char *cwd, const char *log, const char *what, char *err, size_t len)
{
    if (what && !isatty(2)) what = NULL;
    pid_t pid = start_child(argv, cwd, log, O_APPEND);
    if (pid < 0) { snprintf(err, len, "cannot start %s: %s", argv[0], strerror(errno)); return -1; }
    int st;
    time_t t0 = time(NULL), shown = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, what ? WNOHANG : 0);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) { snprintf(err, len, "waiting for %s: %s", argv[0], strerror(errno)); return -1; }
        if (w == 0) {
            if (time(NULL) != shown) { shown = time(NULL); show_status(what, t0, log); }
            struct timespec ts = {0, 200000000};
            nanosleep(&ts, NULL);
        }
    }
    if (what && shown) { fputs("\r\033[K", stderr); fflush(stderr); }
    if (WIFEXITED(st)) {
        if (WEXITSTATUS(st) == 127) { snprintf(err, len, "cannot run %s (not installed, or not on PATH)", argv[0]); return -1; }
        return WEXITSTATUS(st);
    }
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

void vfy_log_errors(const char *log, char *out, size_t len)
{
    size_t n = 0;
    char *text = vfy_read_file(log, &n);
    out[0] = 0;
    if (!text) { snprintf(out, len, "(no log %s)", log); return; }
    size_t o = 0;
    int lines = 0;
    for (char *s = text; *s && lines < 12;) {
        char *e = strchr(s, '\n');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        int err_line = (l >= 6 && !strncmp(s, "%Error", 6)) || (strstr(s, "error:") && (size_t)(strstr(s, "error:") - s) < l) ||
                       (l > 4 && !strncmp(s, "make", 4) && strstr(s, "***") && (size_t)(strstr(s, "***") - s) < l);
        if (err_line || (lines && l > 0 && s[0] == ' ')) {
            if (!strncmp(s, "%Error: Exiting due to", 22) || !strncmp(s, "%Error: Command Failed", 22) ||
                (!strncmp(s, "%Error: make -C", 15))) { s = e ? e + 1 : s + l; continue; }
            if (o + l + 2 < len) { memcpy(out + o, s, l); o += l; out[o++] = '\n'; out[o] = 0; }
            lines++;
        }
        s = e ? e + 1 : s + l;
    }
    if (!lines) {   /* no error lines: the last 15 lines of the log */
        int nl = 0;
        char *p = text + n;
        while (p > text && nl < 16) if (*--p == '\n') nl++;
        snprintf(out, len, "%s", p == text ? p : p + 1);
    }
    size_t ol = strlen(out);
    while (ol && out[ol - 1] == '\n') out[--ol] = 0;
    free(text);
}

int vfy_mkdirs(const char *path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

char *vfy_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) { cap *= 2; char *nb = realloc(buf, cap + 1); if (!nb) { free(buf); buf = NULL; } else buf = nb; }
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    if (len) *len = n;
    return buf;
}

int vfy_write_if_changed(const char *path, const char *text)
{
    size_t n;
    char *old = vfy_read_file(path, &n);
    if (old && n == strlen(text) && !memcmp(old, text, n)) { free(old); return 0; }
    free(old);
    char tmp[2100];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());   /* shards may write at once */
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    if (fclose(f) || bad || rename(tmp, path)) { remove(tmp); return -1; }
    return 1;
}

uint64_t vfy_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    if (!h) h = 0xcbf29ce484222325ull;          /* FNV-1a */
    for (size_t i = 0; i < n; i++) { h ^= s[i]; h *= 0x100000001b3ull; }
    return h;
}

void vfy_fmt(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

void vfy_path(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len) {
        fprintf(stderr, "mmaref verify: a path longer than %zu characters: %.80s...\n", len - 1, out);
        exit(2);
    }
}

const char *vfy_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

uint64_t vfy_hash_stat(uint64_t h, const char *path)
{
    struct stat st;
    h = vfy_hash(h, path, strlen(path));
    if (!stat(path, &st)) {
        h = vfy_hash(h, &st.st_mtim, sizeof st.st_mtim);
        h = vfy_hash(h, &st.st_size, sizeof st.st_size);
    }
    return h;
}

void vfy_tprintf(vfy_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)w + 1 > t->cap) { t->cap = (t->n + (size_t)w + 1) * 2; t->s = realloc(t->s, t->cap); }
    va_start(ap, fmt);
    vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)w;
}

/* Starts argv (stdout and stderr into log, truncated) without waiting:
 * its pid, or -1. */
pid_t vfy_spawn(char *const argv[], const char *log)
{
    return start_child(argv, NULL, log, O_TRUNC);
}

/* Runs argv (output into log) for at most `seconds` of wall clock: its
 * exit status, VFY_TIMED_OUT when it was killed at the limit, or -1. */
int vfy_run_limited(char *const argv[], const char *log, double seconds)
{
    pid_t pid = vfy_spawn(argv, log);
    if (pid < 0) return -1;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (r < 0 && errno != EINTR) return -1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec) > seconds) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            return VFY_TIMED_OUT;
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}
