/* What the libFuzzer targets share: a failed check aborts (libFuzzer keeps
 * the input), and a vector file is read to its end with every vector
 * computed and written back out, which must read back the same. */
#ifndef MMAREF_FUZZ_H
#define MMAREF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmaref.h"
#include "mmaref_vec.h"

#define FUZZ_CHECK(cond, ...) \
    do { if (!(cond)) { fprintf(stderr, "fuzz check failed: " __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

static inline int fuzz_same_vec(const mma_unit *u, const mma_vec *x, const mma_vec *y, int with_d)
{
    int s = mma_unit_nscales(u);
    if (x->c != y->c || (with_d && x->d != y->d)) return 0;
    for (int k = 0; k < u->k; k++) if (x->a[k] != y->a[k] || x->b[k] != y->b[k]) return 0;
    for (int i = 0; i < s; i++) if (x->sa[i] != y->sa[i] || x->sb[i] != y->sb[i]) return 0;
    return 1;
}

/* Reads r to its end (name: the file name messages must start with).  The
 * first vectors are written out again with the library's writer and read
 * back: the same encodings. */
static inline void fuzz_read_vectors(mma_vec_reader *r, const char *name)
{
    enum { KEEP = 4 };
    static mma_vec v[KEEP + 1];
    char err[1024] = "";
    const mma_unit *u = mma_vec_unit(r);
    int s = mma_unit_nscales(u), rc, n = 0;
    while ((rc = mma_vec_next(r, &v[n < KEEP ? n : KEEP], err, sizeof err)) == 1) {
        mma_vec *x = &v[n < KEEP ? n : KEEP];
        (void)mma_dot(u, x->c, x->a, x->b, s ? x->sa : NULL, s ? x->sb : NULL);
        n++;
    }
    FUZZ_CHECK(rc == 0 || (rc < 0 && !strncmp(err, name, strlen(name))), "a bad line without a message naming the file: '%s'", err);
    if (rc < 0 || !n) return;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mma_vec_write_header(f, u);
    for (int i = 0; i < n && i < KEEP; i++) mma_vec_write(f, u, &v[i]);
    fclose(f);
    f = fmemopen(buf, len, "r");
    mma_vec_reader *back = mma_vec_open_stream(f, "written", NULL, err, sizeof err);
    FUZZ_CHECK(back, "the writer's output does not open: %s", err);
    for (int i = 0; i < n && i < KEEP; i++) {
        mma_vec y;
        FUZZ_CHECK(mma_vec_next(back, &y, err, sizeof err) == 1, "the writer's vector %d does not read back: %s", i, err);
        FUZZ_CHECK(fuzz_same_vec(u, &v[i], &y, mma_vec_has_d(r)), "vector %d read back differs", i);
    }
    mma_vec_close(back);
    fclose(f);
    free(buf);
}

/* A compressed vector file (suffix ".xz" or ".gz"): the input written to a
 * file of that name, read through the library's decompressor. */
static inline void fuzz_compressed(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    if (!path[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/mmaref-fuzz-%d.vec%s", t && *t ? t : "/tmp", (int)getpid(), suffix);
    }
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f, "cannot write %s", path);
    fwrite(data, 1, size, f);
    fclose(f);
    char err[1024] = "";
    mma_vec_reader *r = mma_vec_open(path, NULL, err, sizeof err);
    if (r) {
        fuzz_read_vectors(r, path);
        mma_vec_close(r);
    } else
        FUZZ_CHECK(!strncmp(err, path, strlen(path)), "not opened, without a message naming the file: '%s'", err);
    remove(path);
}

#endif
