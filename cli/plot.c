/* --plot FILE of mmaref metrics and mmaref gemm: a picture of the run
 * drawn by gnuplot, as the docs' own figures are (the PNGs of docs/).  The data
 * and the script go to a private temporary folder; gnuplot is started
 * without a shell (posix_spawnp, an argument list) and draws into that
 * folder; the picture is then copied to FILE through a temporary file
 * renamed into place, so that FILE appears whole or not at all.  No user
 * text reaches gnuplot's script but the labels, which are cut to a safe
 * alphabet first. */
#include "metrics.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *ext_of(const char *path)
{
    const char *d = strrchr(path, '.'), *s = strrchr(path, '/');
    return d && (!s || d > s) ? d + 1 : "";
}

/* gnuplot on PATH (the search posix_spawnp makes) */
static int have_gnuplot(void)
{
    const char *p = getenv("PATH");
    char buf[4096];
    for (const char *q = p ? p : "/usr/bin:/bin"; *q;) {
        const char *e = strchr(q, ':');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (n && n < sizeof buf - 16) {
            memcpy(buf, q, n);
            strcpy(buf + n, "/gnuplot");
            if (!access(buf, X_OK)) return 1;
        }
        q += n + (e ? 1 : 0);
    }
    return 0;
}

int mx_plot_check(const char *cmd, const char *path)
{
    const char *e = ext_of(path);
    if (strcmp(e, "png") && strcmp(e, "svg")) {
        fprintf(stderr, "mmaref %s: --plot %s: the file name must end in .png or .svg\n", cmd, path);
        return -1;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *sl = strrchr(dir, '/');
    struct stat sb;
    if (sl) {
        *(sl == dir ? sl + 1 : sl) = 0;
        if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "mmaref %s: --plot %s: no folder %s\n", cmd, path, dir);
            return -1;
        }
    }
    if (!have_gnuplot()) {
        fprintf(stderr, "mmaref %s: --plot: gnuplot is not installed (on PATH); install it (Debian: apt-get install "
                        "gnuplot-nox) or write the data with --hist / --csv and plot it yourself\n", cmd);
        return -1;
    }
    return 0;
}

/* a label for gnuplot's double-quoted strings: letters, digits and
 * ' ,.:=_+-/()[]' kept, anything else '?' */
void mx_plot_label(char *out, size_t len, const char *s)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(" ,.:=_+-/()[]", c);
        out[n++] = ok ? c : '?';
    }
    if (len) out[n] = 0;
}

/* Runs gnuplot on the script that write_script writes (given the data
 * file's and the picture's paths, both in the temporary folder, and the
 * terminal line); write_data writes the data.  The picture is then
 * copied to path.  0, or -1 with a message. */
int mx_plot(const char *cmd, const char *path, void (*write_data)(FILE *, void *),
            void (*write_script)(FILE *, const char *data, void *), void *ctx)
{
    char dir[] = "/tmp/mmaref-plot-XXXXXX";
    if (!mkdtemp(dir)) { fprintf(stderr, "mmaref %s: --plot: a temporary folder: %s\n", cmd, strerror(errno)); return -1; }
    char data[64], gp[64], pic[64];
    int svg = !strcmp(ext_of(path), "svg"), rc = -1;
    snprintf(data, sizeof data, "%s/data.txt", dir);
    snprintf(gp, sizeof gp, "%s/plot.gp", dir);
    snprintf(pic, sizeof pic, "%s/plot.%s", dir, svg ? "svg" : "png");
    FILE *f = fopen(data, "w"), *g = f ? fopen(gp, "w") : NULL;
    if (!f || !g) {
        fprintf(stderr, "mmaref %s: --plot: %s: %s\n", cmd, f ? gp : data, strerror(errno));
        if (f) fclose(f);
        goto out;
    }
    write_data(f, ctx);
    fprintf(g, "%s\nset output \"%s\"\n", svg ? "set terminal svg size 960,600 dynamic font 'sans,11'"
                                               : "set terminal pngcairo size 960,600 font 'sans,10'", pic);
    write_script(g, data, ctx);
    fprintf(g, "unset output\n");
    int bad = ferror(f) | ferror(g);
    bad |= fclose(f) | fclose(g);
    if (bad) { fprintf(stderr, "mmaref %s: --plot: writing %s failed\n", cmd, dir); goto out; }
    pid_t pid;
    char *argv[] = {(char *)"gnuplot", gp, NULL};
    int e = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ), st = 0;
    if (e) { fprintf(stderr, "mmaref %s: --plot: cannot start gnuplot: %s\n", cmd, strerror(e)); goto out; }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    struct stat sb;
    if (!WIFEXITED(st) || WEXITSTATUS(st) || stat(pic, &sb) || sb.st_size == 0) {
        fprintf(stderr, "mmaref %s: --plot: gnuplot failed (status %d); nothing written to %s\n", cmd,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1, path);
        goto out;
    }
    /* the picture to path: temporary file and rename (cli_out) */
    FILE *in = fopen(pic, "rb");
    cli_out o;
    if (!in) { fprintf(stderr, "mmaref %s: --plot: %s: %s\n", cmd, pic, strerror(errno)); goto out; }
    if (cli_out_open(&o, path)) { fclose(in); goto out; }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, o.f) != n) break;
    int rbad = ferror(in);
    fclose(in);
    if (rbad) { cli_out_abort(&o); fprintf(stderr, "mmaref %s: --plot: reading %s failed\n", cmd, pic); goto out; }
    rc = cli_out_commit(&o) ? -1 : 0;
out:
    unlink(data);
    unlink(gp);
    unlink(pic);
    rmdir(dir);
    return rc;
}
