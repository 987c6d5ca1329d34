/* run, check and gen on all cores.  The work is cut into pieces (ranges of
 * a file's bytes, or of vector indices) whose boundaries depend on the
 * input alone; what a piece computes does not depend on the thread that
 * runs it, and the pieces' results are taken in file order, so the output
 * is the same bytes for any thread count.
 *
 * One pool of threads, no rounds: a thread takes the next piece, computes
 * it into one of a ring of slots, then commits, in order and under a lock,
 * every finished piece that the ones before let through (mismatch lines,
 * counts, line numbers, the first bad line, where its output goes), and
 * writes out what it committed.  A slow piece holds back at most a ring's
 * worth of others; nothing waits for a whole round to finish, and no
 * thread is set aside for writing.
 *
 * A plain input file is mapped (no copy into buffers: check on one thread
 * took 9.2 s with pread for 16,000,000 vectors, 6.7 s mapped; read with
 * pread into each thread's buffer instead, check on 16 threads took
 * 0.61-0.65 s against 0.56-0.59 s mapped on the device host; each piece
 * owns the lines that start in its byte range) and let go behind the
 * committed pieces.  A file cut by another program while it is read
 * faults on the mapping (SIGBUS): the thread reading the piece leaves it
 * (on_sigbus) and the run stops with a message.  A pipe (.xz, .gz, stdin)
 * is read piece by piece, in order, by whichever thread takes the next
 * piece.  A plain output file
 * is written with pwrite at the offsets the commits give, by the threads
 * that committed them; a pipe, stdout or a compressed output through
 * stdio, in order.  (The kernel takes one write into a file at a time;
 * filling a shared mapping of the file from 16 threads instead cost 30 s
 * of system time for 3.4 GB on the device host: page faults into one file
 * do not scale there.)  Line numbers (for messages) are
 * counted per piece and added up in order. */
#include "cli.h"
#include "mmaref_parallel.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE_BYTES (256 * 1024)      /* input bytes (or output bytes, gen) a piece */
#define LINE_MAX_OUT (MMA_MAX_K * 2 * 17 + 68 + 34 * MMA_VEC_MAX_SCALES)
#define SEG ((size_t)64 << 20)        /* the input file is let go in segments */

typedef struct { long rel; uint64_t file_d, model_d; unsigned file_fl, model_fl; char *text; } mismatch;

/* one piece in flight */
typedef struct {
    long idx;                         /* the piece it holds, -1: free */
    int done;                         /* computed, waiting for its turn */
    char *buf;                        /* a pipe's piece: complete lines */
    size_t len, cap;
    long nlines, nvec, nbad;
    char *out;
    size_t outlen, outcap;
    off_t out_at;                     /* where its output goes, from the body's start */
    long err_rel;                     /* the first bad line (relative), -1: none */
    char *err_line;
    int nmis, io_err;
    int rd_err;                       /* reading the piece failed: RD_* */
    char *dev_err;                    /* the device failed: why */
    mismatch *mis;
} slot;

enum { RD_OK = 0, RD_ERROR = 1, RD_SHORTER = 2 };

/* the output: a plain file (fd >= 0), written with pwrite at offsets
 * known once the pieces before are committed, or a stream written in order */
typedef struct {
    FILE *f;
    int fd;
    off_t at;                         /* the body's start in the file */
    off_t total;                      /* body bytes given out so far */
    off_t alloc;                      /* body bytes allocated ahead (fallocate) */
    int no_alloc;                     /* the file system refused: plain writes */
} output;

typedef struct {
    const mma_vec_reader *r;
    const mma_unit *u;
    int check, has_out, ns, unit_flags, file_flags;
    long show;
    const char *name;
    /* input: a mapped plain file, or a pipe */
    FILE *f;
    int pipe_in, eof;
    const char *map;
    size_t maplen, released;          /* mapped; unmapped up to here */
    off_t body, size;
    char *carry;
    size_t ncarry, ccap;
    /* gen: vectors glo .. ghi-1, gper a piece */
    cli_gen_fn gen;
    void *gctx;
    long glo, ghi, gper;
    /* the pieces */
    int nslots;
    slot *s;
    long next, ntotal, committed, written;
    int stop, writer, finished;
    pthread_mutex_t mu, rmu;
    pthread_cond_t cv;
    /* per thread */
    mma_vec **v;
    char **line;
    size_t *linecap;
    /* --device cuda: each piece's vectors as one batch (per thread) */
    int device;
    cli_dev **dev;
    struct dbatch *db;
    /* results, in order */
    long line0, nvec, nbad, shown;
    long err_lineno;
    char *err_line;
    int mem_err, read_err, write_err;   /* read_err: RD_* */
    char *dev_err;                      /* the device failed: why */
    int write_errno;                    /* why the write failed (the writer's) */
    output o;
} pass;

static int grow(char **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    char *q = realloc(*p, c);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* ---- the output ------------------------------------------------------------ */

/* a plain output file: its descriptor, where the body starts (after the
 * header stdio holds is flushed); otherwise a stream */
static void out_start(output *o, cli_out *co)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->f = co->f;
    struct stat st;
    if (co->is_pipe || co->f == stdout || fflush(co->f)) return;
    int fd = fileno(co->f);
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || (o->at = ftello(co->f)) < 0) return;
    o->fd = fd;
}

/* Blocks for the body up to `end`, a chunk at a time, before the writes
 * reach them.  Why: ext4 allocates a written-to-the-end file's blocks as
 * the page cache fills (delayed allocation), and that made one writer of
 * 2 GB take 0.4-2.5 s here, against 0.43-0.50 s into blocks already
 * allocated; the single writer of a file is what bounds run and gen on
 * many cores.  The file is cut back to what was written at the end
 * (out_stop).  A file system without fallocate is written as before. */
#define ALLOC_CHUNK ((off_t)128 << 20)
static void out_reserve(output *o, off_t end)
{
    if (o->no_alloc || end <= o->alloc) return;
    /* (doubling from 4 MB: a small output reserves little) */
    off_t n = o->alloc < ((off_t)4 << 20) ? ((off_t)4 << 20) : o->alloc < ALLOC_CHUNK ? o->alloc : ALLOC_CHUNK;
    if (n < end - o->alloc) n = end - o->alloc;
#ifdef __linux__
    /* (not posix_fallocate: where the file system has no fallocate, glibc
     * writes zeros into every block, a second write of the whole output) */
    if (fallocate(o->fd, 0, o->at + o->alloc, n)) o->no_alloc = 1;
    else o->alloc += n;
#else
    o->no_alloc = 1;
#endif
}

static int out_pwrite(output *o, off_t at, const char *p, size_t len)
{
    out_reserve(o, at - o->at + (off_t)len);
    while (len) {
        ssize_t k = pwrite(o->fd, p, len, at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        len -= (size_t)k;
        at += k;
    }
    return 0;
}

/* leaves stdio's position at the end of what was written; -1 if that fails */
static int out_stop(output *o, int ok)
{
    if (o->fd < 0 || !ok) return 0;
    if (o->alloc > o->total && ftruncate(o->fd, o->at + o->total)) return -1;
    return fseeko(o->f, o->at + o->total, SEEK_SET) ? -1 : 0;
}

/* ---- a piece ----------------------------------------------------------------- */

static void slot_reset(slot *p)
{
    p->done = 0;
    p->nlines = p->nvec = p->nbad = 0;
    p->outlen = 0;
    p->err_rel = -1;
    free(p->err_line);
    p->err_line = NULL;
    for (int i = 0; i < p->nmis; i++) free(p->mis[i].text);
    p->nmis = 0;
    p->io_err = 0;
    p->rd_err = RD_OK;
    free(p->dev_err);
    p->dev_err = NULL;
}

static int add_mismatch(const pass *x, slot *p, long rel, const mma_vec *v, uint64_t d, unsigned fl)
{
    if (p->nmis >= x->show) return 0;
    mismatch *m = realloc(p->mis, sizeof *m * (size_t)(p->nmis + 1));
    if (!m) return -1;
    p->mis = m;
    char line[LINE_MAX_OUT];
    size_t ll = mma_vec_format(line, x->u, v);
    if (x->unit_flags && !x->file_flags && ll >= 4) strcpy(line + ll - 4, "\n");   /* as in the file: no flags */
    m[p->nmis] = (mismatch){rel, v->d, d, v->flags, fl, strdup(line)};
    if (!m[p->nmis].text) return -1;
    p->nmis++;
    return 0;
}

static uint64_t dot(const pass *x, const mma_vec *v, unsigned *fl)
{
    *fl = 0;
    return x->unit_flags ? mma_dot_flags(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL, fl)
                         : mma_dot(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL);
}

/* one line (NUL-terminated, no newline), relative number rel */
static int do_line(const pass *x, slot *p, const char *line, long rel, mma_vec *v)
{
    char err[16];
    int rc = mma_vec_parse(x->r, line, 0, v, err, sizeof err);
    if (rc == 0) return 0;
    if (rc < 0) {
        p->err_rel = rel;
        if (!(p->err_line = strdup(line))) p->io_err = 1;
        return -1;
    }
    unsigned fl;
    uint64_t d = dot(x, v, &fl);
    p->nvec++;
    if (x->check) {
        if (!mma_result_equal(x->u, d, v->d) || (x->file_flags && fl != v->flags)) {
            p->nbad++;
            if (add_mismatch(x, p, rel, v, d, fl)) p->io_err = 1;
        }
    } else {
        v->d = d;
        v->flags = fl;
        if (grow(&p->out, &p->outcap, p->outlen + LINE_MAX_OUT)) { p->io_err = 1; return -1; }
        p->outlen += mma_vec_format(p->out + p->outlen, x->u, v);
    }
    return 0;
}

/* ---- --device: a piece's vectors as one batch ------------------------------ */

/* One thread's batch: the piece's vectors at their natural widths (the
 * device's input), the line each came from (relative), the file's d and
 * flags, and the results */
typedef struct dbatch {
    unsigned char *p[5];              /* c, a, b, sa, sb */
    uint64_t *fd;
    unsigned *ffl;
    long *rel;
    unsigned char *d, *fl;
    size_t n, cap;
} dbatch;

/* the element sizes and per-vector counts of c, a, b, sa, sb */
static void db_layout(const pass *x, int sz[5], size_t per[5])
{
    const mma_unit *u = x->u;
    sz[0] = mma_natural_size(u->c);
    sz[1] = mma_natural_size(u->a);
    sz[2] = mma_natural_size(u->b);
    sz[3] = sz[4] = x->ns ? mma_natural_size(u->scale) : 1;
    per[0] = 1;
    per[1] = per[2] = (size_t)u->k;
    per[3] = per[4] = (size_t)x->ns;
}

static void db_put(unsigned char *dst, int size, size_t i, uint64_t v)
{
    memcpy(dst + i * (size_t)size, &v, (size_t)size);        /* (little-endian hosts) */
}

static uint64_t db_ld(const unsigned char *src, int size, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, src + i * (size_t)size, (size_t)size);
    return v;
}

static int db_add(const pass *x, dbatch *b, const mma_vec *v, long rel)
{
    int sz[5];
    size_t per[5];
    db_layout(x, sz, per);
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        for (int i = 0; i < 5; i++) {
            unsigned char *q = realloc(b->p[i], cap * (per[i] ? per[i] : 1) * (size_t)sz[i]);
            if (!q) return -1;
            b->p[i] = q;
        }
        uint64_t *fd = realloc(b->fd, cap * sizeof *fd);
        if (fd) b->fd = fd;
        unsigned *ffl = realloc(b->ffl, cap * sizeof *ffl);
        if (ffl) b->ffl = ffl;
        long *r = realloc(b->rel, cap * sizeof *r);
        if (r) b->rel = r;
        unsigned char *d = realloc(b->d, cap * 8), *fl = realloc(b->fl, cap);
        if (d) b->d = d;
        if (fl) b->fl = fl;
        if (!fd || !ffl || !r || !d || !fl) return -1;
        b->cap = cap;
    }
    size_t i = b->n++;
    db_put(b->p[0], sz[0], i, v->c);
    for (size_t j = 0; j < per[1]; j++) {
        db_put(b->p[1], sz[1], i * per[1] + j, v->a[j]);
        db_put(b->p[2], sz[2], i * per[2] + j, v->b[j]);
    }
    for (size_t j = 0; j < per[3]; j++) {
        db_put(b->p[3], sz[3], i * per[3] + j, v->sa[j]);
        db_put(b->p[4], sz[4], i * per[4] + j, v->sb[j]);
    }
    b->fd[i] = v->d;
    b->ffl[i] = v->flags;
    b->rel[i] = rel;
    return 0;
}

/* vector i back into v (d and flags: the file's) */
static void db_get(const pass *x, const dbatch *b, size_t i, mma_vec *v)
{
    int sz[5];
    size_t per[5];
    db_layout(x, sz, per);
    v->c = db_ld(b->p[0], sz[0], i);
    for (size_t j = 0; j < per[1]; j++) {
        v->a[j] = db_ld(b->p[1], sz[1], i * per[1] + j);
        v->b[j] = db_ld(b->p[2], sz[2], i * per[2] + j);
    }
    for (size_t j = 0; j < per[3]; j++) {
        v->sa[j] = db_ld(b->p[3], sz[3], i * per[3] + j);
        v->sb[j] = db_ld(b->p[4], sz[4], i * per[4] + j);
    }
    v->d = b->fd[i];
    v->flags = b->ffl[i];
}

/* The batch through the device (this thread's handle, opened on first
 * use), then each vector's result as do_line takes it: compared
 * (check), or its line written with d and flags (run, gen). */
static void db_finish(pass *x, int tid, slot *p)
{
    dbatch *b = &x->db[tid];
    char err[512];
    if (!b->n) return;
    int sz[5];
    size_t per[5];
    db_layout(x, sz, per);
    mma_batch y;
    mma_batch_init(&y);
    y.n = b->n;
    y.c = b->p[0]; y.a = b->p[1]; y.b = b->p[2];
    y.c_size = sz[0]; y.a_size = sz[1]; y.b_size = sz[2];
    if (x->ns) { y.sa = b->p[3]; y.sb = b->p[4]; y.sa_size = sz[3]; y.sb_size = sz[4]; }
    y.d = b->d;
    y.d_size = 8;
    y.flags = x->unit_flags ? b->fl : NULL;
    y.threads = 1;
    if (!x->dev[tid] && !(x->dev[tid] = cli_dev_open(err, sizeof err))) {
        if (!(p->dev_err = strdup(err))) p->io_err = 1;
        return;
    }
    if (cli_dev_batch(x->dev[tid], x->u, &y, err, sizeof err)) {
        if (!(p->dev_err = strdup(err))) p->io_err = 1;
        return;
    }
    mma_vec *v = x->v[tid];
    for (size_t i = 0; i < b->n; i++) {
        uint64_t d = db_ld(b->d, 8, i);
        unsigned fl = x->unit_flags ? b->fl[i] : 0;
        p->nvec++;
        if (x->check) {
            if (!mma_result_equal(x->u, d, b->fd[i]) || (x->file_flags && fl != b->ffl[i])) {
                p->nbad++;
                db_get(x, b, i, v);
                if (add_mismatch(x, p, b->rel[i], v, d, fl)) p->io_err = 1;
            }
        } else {
            db_get(x, b, i, v);
            v->d = d;
            v->flags = fl;
            if (grow(&p->out, &p->outcap, p->outlen + LINE_MAX_OUT)) { p->io_err = 1; return; }
            p->outlen += mma_vec_format(p->out + p->outlen, x->u, v);
        }
    }
}

/* one line of a piece for the device: parsed into this thread's batch */
static int do_line_dev(pass *x, int tid, slot *p, const char *line, long rel)
{
    char err[16];
    mma_vec *v = x->v[tid];
    int rc = mma_vec_parse(x->r, line, 0, v, err, sizeof err);
    if (rc == 0) return 0;
    if (rc < 0) {
        p->err_rel = rel;
        if (!(p->err_line = strdup(line))) p->io_err = 1;
        return -1;
    }
    if (db_add(x, &x->db[tid], v, rel)) { p->io_err = 1; return -1; }
    return 0;
}

/* the lines of s[0 .. n) that start before `stop` (a line may run past it) */
static void do_lines(pass *x, int tid, slot *p, const char *s, size_t n, size_t pos, size_t stop)
{
    long rel = 0;
    if (x->device) x->db[tid].n = 0;
    while (pos < stop) {
        const char *nl = memchr(s + pos, '\n', n - pos);
        size_t e = nl ? (size_t)(nl - s) : n, t = e;
        while (t > pos && s[t - 1] == '\r') t--;
        /* the parser takes a NUL-terminated line: a copy (the mapped file is read-only) */
        if (grow(&x->line[tid], &x->linecap[tid], t - pos + 1)) { p->io_err = 1; break; }
        memcpy(x->line[tid], s + pos, t - pos);
        x->line[tid][t - pos] = 0;
        int rc = x->device ? do_line_dev(x, tid, p, x->line[tid], rel) : do_line(x, p, x->line[tid], rel, x->v[tid]);
        rel++;
        pos = e + 1;
        if (rc) break;
    }
    p->nlines = rel;
    if (x->device && !p->io_err) db_finish(x, tid, p);
}

/* A fault on the mapped input while this thread reads a piece from it:
 * the file is shorter than when it was mapped.  The handler jumps back to
 * the piece's start (map_piece); nothing between holds a lock or is inside
 * malloc (the reads of the mapping are memchr and memcpy into a buffer
 * grown before).  A fault anywhere else is not ours: the default action. */
static __thread sigjmp_buf *tl_piece_jb __attribute__((tls_model("initial-exec")));
static __thread const char *tl_map_lo __attribute__((tls_model("initial-exec")));
static __thread const char *tl_map_hi __attribute__((tls_model("initial-exec")));

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    const char *a = (const char *)si->si_addr;
    if (tl_piece_jb && a >= tl_map_lo && a < tl_map_hi) siglongjmp(*tl_piece_jb, 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* the lines that start in [start, end) of the mapped body */
static __attribute__((noinline)) void map_lines(pass *x, int tid, slot *p)
{
    size_t start = (size_t)x->body + (size_t)p->idx * PIECE_BYTES, end = start + PIECE_BYTES, pos = start;
    if (end > (size_t)x->size) end = (size_t)x->size;
    if (pos > (size_t)x->body && x->map[pos - 1] != '\n') {   /* a line that began before */
        const char *nl = memchr(x->map + pos, '\n', (size_t)x->size - pos);
        pos = nl ? (size_t)(nl - x->map) + 1 : (size_t)x->size;
    }
    do_lines(x, tid, p, x->map, (size_t)x->size, pos, end);
}

/* the same, where the handler of a fault on the mapping comes back */
static void map_piece(pass *x, int tid, slot *p)
{
    sigjmp_buf jb;
    if (sigsetjmp(jb, 0)) {
        tl_piece_jb = NULL;
        p->rd_err = RD_SHORTER;
        return;
    }
    tl_map_lo = x->map;
    tl_map_hi = x->map + x->maplen;
    tl_piece_jb = &jb;
    map_lines(x, tid, p);
    tl_piece_jb = NULL;
}

static void compute(pass *x, int tid, slot *p)
{
    mma_vec *v = x->v[tid];
    if (x->gen && x->device) {
        long a = x->glo + p->idx * x->gper, b = a + x->gper < x->ghi ? a + x->gper : x->ghi;
        x->db[tid].n = 0;
        for (long j = a; j < b; j++) {
            x->gen(x->gctx, j, v);
            if (db_add(x, &x->db[tid], v, 0)) { p->io_err = 1; return; }
        }
        db_finish(x, tid, p);
    } else if (x->gen) {
        long a = x->glo + p->idx * x->gper, b = a + x->gper < x->ghi ? a + x->gper : x->ghi;
        for (long j = a; j < b; j++) {
            if (grow(&p->out, &p->outcap, p->outlen + LINE_MAX_OUT)) { p->io_err = 1; return; }
            x->gen(x->gctx, j, v);
            unsigned fl;
            v->d = dot(x, v, &fl);
            v->flags = fl;
            p->outlen += mma_vec_format(p->out + p->outlen, x->u, v);
        }
    } else if (x->pipe_in) {
        do_lines(x, tid, p, p->buf, p->len, 0, p->len);
    } else {
        map_piece(x, tid, p);
    }
}

/* ---- the pool ------------------------------------------------------------------ */

/* A pipe's next piece: about PIECE_BYTES, cut after a newline; x->carry
 * holds what followed the last newline.  0, or -1 on a read error. */
static int read_piece(pass *x, slot *p)
{
    p->len = 0;
    if (grow(&p->buf, &p->cap, 1)) return -1;
    while (p->len == 0 && !(x->eof && x->ncarry == 0)) {
        if (grow(&p->buf, &p->cap, PIECE_BYTES + x->ncarry + 1)) return -1;
        if (x->ncarry) memcpy(p->buf, x->carry, x->ncarry);
        p->len = x->ncarry;
        x->ncarry = 0;
        if (!x->eof) {
            size_t got = fread(p->buf + p->len, 1, PIECE_BYTES, x->f);
            if (got < PIECE_BYTES) { if (ferror(x->f)) return -1; x->eof = 1; }
            p->len += got;
        }
        if (!x->eof) {                   /* keep the unfinished line for the next piece */
            size_t keep = p->len;
            while (keep > 0 && p->buf[keep - 1] != '\n') keep--;
            if (grow(&x->carry, &x->ccap, p->len - keep + 1)) return -1;
            memcpy(x->carry, p->buf + keep, p->len - keep);
            x->ncarry = p->len - keep;
            p->len = keep;
        }
    }
    p->buf[p->len] = 0;
    return 0;
}

/* waits for the slot of the next piece; NULL when there is nothing more
 * to take (the end, or an error).  Called with mu held. */
static slot *wait_slot(pass *x)
{
    for (;;) {
        if (x->stop || (x->ntotal >= 0 && x->next >= x->ntotal)) return NULL;
        slot *p = &x->s[x->next % x->nslots];
        if (p->idx < 0) return p;
        pthread_cond_wait(&x->cv, &x->mu);
    }
}

/* the next piece into a slot; NULL at the end */
static slot *take(pass *x)
{
    if (!x->pipe_in) {
        pthread_mutex_lock(&x->mu);
        slot *p = wait_slot(x);
        if (p) { p->idx = x->next++; slot_reset(p); }
        pthread_mutex_unlock(&x->mu);
        return p;
    }
    /* a pipe: read in order, one thread at a time (rmu), without holding
     * mu (the others commit meanwhile) */
    pthread_mutex_lock(&x->rmu);
    pthread_mutex_lock(&x->mu);
    slot *p = wait_slot(x);
    pthread_mutex_unlock(&x->mu);
    if (p) {
        slot_reset(p);
        int bad = read_piece(x, p);
        pthread_mutex_lock(&x->mu);
        if (bad) { x->read_err = RD_ERROR; x->stop = 1; p = NULL; }
        else if (p->len == 0) { x->ntotal = x->next; p = NULL; }
        else p->idx = x->next++;
        if (!p) pthread_cond_broadcast(&x->cv);
        pthread_mutex_unlock(&x->mu);
    }
    pthread_mutex_unlock(&x->rmu);
    return p;
}

/* Takes the finished pieces in order as far as they go: mismatch lines,
 * counts, the first bad line (which stops everything), where each piece's
 * output goes.  Called with mu held. */
static void commit(pass *x)
{
    while (!x->stop && x->committed < x->next) {
        slot *p = &x->s[x->committed % x->nslots];
        if (p->idx != x->committed || !p->done) break;
        if (p->io_err) { x->mem_err = 1; x->stop = 1; break; }
        if (p->rd_err) { x->read_err = p->rd_err; x->stop = 1; break; }
        if (p->dev_err) { x->dev_err = p->dev_err; p->dev_err = NULL; x->stop = 1; break; }
        for (int m = 0; m < p->nmis && x->shown < x->show; m++, x->shown++) {
            mismatch *q = &p->mis[m];
            int hd = mma_format(x->u->d)->hexdigits;
            if (x->file_flags)
                printf("mismatch %s:%ld: file d=%0*llx flags=%02x model d=%0*llx flags=%02x\n  %s", x->name,
                       x->line0 + q->rel + 1, hd, (unsigned long long)q->file_d, q->file_fl, hd,
                       (unsigned long long)q->model_d, q->model_fl, q->text);
            else
                printf("mismatch %s:%ld: file d=%0*llx model d=%0*llx\n  %s", x->name, x->line0 + q->rel + 1, hd,
                       (unsigned long long)q->file_d, hd, (unsigned long long)q->model_d, q->text);
        }
        x->nvec += p->nvec;
        x->nbad += p->nbad;
        if (x->gen) {
            long made = (x->committed + 1) * x->gper;
            cli_progress_update((double)(made < x->ghi - x->glo ? made : x->ghi - x->glo), 0);
        } else {
            cli_progress_update((double)x->nvec, x->map && x->size > x->body
                                ? (double)(x->committed + 1) * PIECE_BYTES / (double)(x->size - x->body) : 0);
        }
        if (p->err_rel >= 0) {
            x->err_lineno = x->line0 + p->err_rel + 1;
            x->err_line = p->err_line;
            p->err_line = NULL;
            x->stop = 1;
            break;
        }
        x->line0 += p->nlines;
        if (x->has_out) {
            p->out_at = x->o.total;
            x->o.total += (off_t)p->outlen;
        }
        x->committed++;
    }
    if (x->stop) pthread_cond_broadcast(&x->cv);
}

/* writes the output of committed pieces [a, b): -1 if a write failed */
static int write_out(pass *x, long a, long b)
{
    int bad = 0;
    for (long i = a; i < b && !bad; i++) {
        slot *p = &x->s[i % x->nslots];
        if (x->o.fd >= 0) bad = out_pwrite(&x->o, x->o.at + p->out_at, p->out, p->outlen);
        else bad = p->outlen && fwrite(p->out, 1, p->outlen, x->o.f) != p->outlen;
    }
    if (bad && !x->write_errno) x->write_errno = errno ? errno : EIO;
    return bad ? -1 : 0;
}

/* Pieces [a, b) are written: their slots are free.  Called with mu held. */
static void written(pass *x, long a, long b, int bad)
{
    if (bad) { x->write_err = 1; x->stop = 1; }
    x->written = b;
    for (long i = a; i < b; i++) x->s[i % x->nslots].idx = -1;
    pthread_cond_broadcast(&x->cv);
}

/* The writer: the committed pieces' output, in order, while the other
 * threads compute (a write into a file holds the file's lock in the
 * kernel: threads writing their own pieces queue there instead of
 * computing; a pipe to xz blocks).  Done once finished is set and all
 * is written. */
static void *writer_main(void *arg)
{
    pass *x = arg;
    pthread_mutex_lock(&x->mu);
    for (;;) {
        while (x->written == x->committed && !x->finished) pthread_cond_wait(&x->cv, &x->mu);
        if (x->written == x->committed) break;
        long a = x->written, b = x->committed;
        int skip = x->write_err;
        pthread_mutex_unlock(&x->mu);
        int bad = skip ? 0 : write_out(x, a, b);
        pthread_mutex_lock(&x->mu);
        written(x, a, b, bad);
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

/* Without a writer thread: the output of pieces [a, b), just committed
 * by this thread, written in order by it.  Called with mu held. */
static void emit(pass *x, long a, long b)
{
    if (x->has_out)
        while (x->written != a) pthread_cond_wait(&x->cv, &x->mu);
    pthread_mutex_unlock(&x->mu);
    int bad = x->has_out && !x->write_err ? write_out(x, a, b) : 0;
    pthread_mutex_lock(&x->mu);
    written(x, a, b, bad);
}

static void work(pass *x, int tid)
{
    slot *p;
    while ((p = take(x))) {
        compute(x, tid, p);
        pthread_mutex_lock(&x->mu);
        p->done = 1;
        long a = x->committed;
        commit(x);
        /* the input before the first piece not committed (and the byte
         * before it) is read no more: let it go, a segment at a time,
         * rather than all at the end on one thread (2 ms each 200 MB here) */
        size_t r0 = x->released, r1 = r0;
        if (x->map && x->committed > 0)
            r1 = ((size_t)x->body + (size_t)x->committed * PIECE_BYTES - 1) / SEG * SEG;
        if (r1 > r0) x->released = r1;
        if (x->committed > a) {
            if (x->writer) pthread_cond_broadcast(&x->cv);   /* (for the writer) */
            else emit(x, a, x->committed);
        }
        pthread_mutex_unlock(&x->mu);
        if (r1 > r0) munmap((char *)x->map + r0, r1 - r0);
    }
}

typedef struct { pass *x; int tid; } worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    work(w->x, w->tid);
    return NULL;
}

/* runs the pool on `threads` threads (the caller one of them); 0, or -1
 * when out of memory before starting */
static int run_pool(pass *x, int threads)
{
    x->nslots = 4 * threads;           /* slack: a slow piece holds back at most this many */
    x->s = calloc((size_t)x->nslots, sizeof *x->s);
    x->v = calloc((size_t)threads, sizeof *x->v);
    x->line = calloc((size_t)threads, sizeof *x->line);
    x->linecap = calloc((size_t)threads, sizeof *x->linecap);
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (x->device) {
        x->dev = calloc((size_t)threads, sizeof *x->dev);
        x->db = calloc((size_t)threads, sizeof *x->db);
    }
    int rc = -1, started = 1;
    if (!x->s || !x->v || !x->line || !x->linecap || !w || !th || (x->device && (!x->dev || !x->db))) goto out;
    for (int i = 0; i < x->nslots; i++) x->s[i].idx = -1;
    for (int t = 0; t < threads; t++) if (!(x->v[t] = calloc(1, sizeof *x->v[t]))) goto out;
    pthread_mutex_init(&x->mu, NULL);
    pthread_mutex_init(&x->rmu, NULL);
    pthread_cond_init(&x->cv, NULL);
    pthread_t wth;
    x->writer = x->has_out && !pthread_create(&wth, NULL, writer_main, x);
    for (int t = 1; t < threads; t++) {
        w[t] = (worker){x, t};
        if (pthread_create(&th[t], NULL, worker_main, &w[t])) break;
        started = t + 1;
    }
    work(x, 0);
    for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
    if (x->writer) {
        pthread_mutex_lock(&x->mu);
        x->finished = 1;
        pthread_cond_broadcast(&x->cv);
        pthread_mutex_unlock(&x->mu);
        pthread_join(wth, NULL);
    }
    pthread_mutex_destroy(&x->mu);
    pthread_mutex_destroy(&x->rmu);
    pthread_cond_destroy(&x->cv);
    rc = 0;
out:
    if (x->s)
        for (int i = 0; i < x->nslots; i++) {
            slot_reset(&x->s[i]);
            free(x->s[i].mis);
            free(x->s[i].buf);
            free(x->s[i].out);
        }
    for (int t = 0; t < threads && x->v; t++) free(x->v[t]);
    for (int t = 0; t < threads && x->dev; t++) cli_dev_close(x->dev[t]);
    for (int t = 0; t < threads && x->db; t++) {
        dbatch *b = &x->db[t];
        for (int i = 0; i < 5; i++) free(b->p[i]);
        free(b->fd); free(b->ffl); free(b->rel); free(b->d); free(b->fl);
    }
    free(x->dev); free(x->db);
    for (int t = 0; t < threads && x->line; t++) free(x->line[t]);
    free(x->s); free(x->v); free(x->line); free(x->linecap); free(w); free(th);
    return rc;
}

/* ---- run, check and gen ---------------------------------------------------------- */

/* the output could not be written (a full disk): says why, once; -1 */
static int write_failed(pass *x, cli_out *o)
{
    int e = x->write_errno ? x->write_errno : errno ? errno : EIO;
    fprintf(stderr, "mmaref: error: %s: %s\n", o->path[0] ? o->path : "output", strerror(e));
    o->io_err = e;
    return -1;
}

int cli_vec_pass(mma_vec_reader *r, const char *in, int check, long show, cli_out *o, int threads, int device,
                 long *nvec, long *nbad)
{
    if (threads <= 0) threads = mma_default_threads();
    pass x;
    memset(&x, 0, sizeof x);
    x.r = r;
    x.u = mma_vec_unit(r);
    x.name = in;
    x.check = check;
    x.device = device;
    x.has_out = !check;
    x.unit_flags = mma_unit_has_flags(x.u);
    x.file_flags = mma_vec_has_flags(r);
    x.show = show < 0 ? 0 : show;
    x.ns = mma_unit_nscales(x.u);
    x.ntotal = -1;
    x.line0 = mma_vec_lineno(r);          /* lines before the body */
    x.f = mma_vec_stream(r);
    struct stat st;
    off_t body = ftello(x.f);
    int fd = fileno(x.f);
    x.pipe_in = 1;
    if (body >= 0 && fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
        x.body = body;
        x.size = st.st_size > body ? st.st_size : body;
        x.ntotal = (x.size - x.body + PIECE_BYTES - 1) / PIECE_BYTES;
        x.pipe_in = 0;
        if (x.size > 0) {
            x.maplen = (size_t)x.size;
            void *m = mmap(NULL, x.maplen, PROT_READ, MAP_SHARED, fd, 0);
            if (m == MAP_FAILED) x.pipe_in = 1, x.ntotal = -1, x.maplen = 0;   /* (read it as a stream) */
            else x.map = m;
        }
    }
    if (x.has_out) out_start(&x.o, o);
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;   /* (no mask to restore after the jump) */
    sigemptyset(&sa.sa_mask);
    int bus = x.map && !sigaction(SIGBUS, &sa, &old_sa);
    int rc = run_pool(&x, threads);
    if (bus) sigaction(SIGBUS, &old_sa, NULL);
    if (rc) fprintf(stderr, "mmaref: out of memory\n");
    else if (x.mem_err) { fprintf(stderr, "mmaref: out of memory\n"); rc = -1; }
    else if (x.dev_err) { fprintf(stderr, "mmaref: %s: --device cuda: %s\n", in, x.dev_err); rc = -1; }
    else if (x.read_err == RD_SHORTER) {
        fprintf(stderr, "mmaref: %s: the file got shorter while it was read (changed by another program?)\n", in);
        rc = -1;
    } else if (x.read_err) { fprintf(stderr, "mmaref: %s: read error\n", in); rc = -1; }
    else if (x.err_line) {
        char err[1024], derr[1024];
        mma_vec *v = malloc(sizeof *v);
        if (v) mma_vec_parse(r, x.err_line, x.err_lineno, v, err, sizeof err);
        else snprintf(err, sizeof err, "%s:%ld: out of memory", in, x.err_lineno);
        free(v);
        /* a damaged compressed file shows as a bad line: say so instead */
        if (mma_vec_finish(r, derr, sizeof derr)) snprintf(err, sizeof err, "%s", derr);
        fprintf(stderr, "mmaref: %s\n", err);
        rc = -1;
    }
    if (!rc && !x.write_err) {
        char derr[1024];
        if (mma_vec_finish(r, derr, sizeof derr)) { fprintf(stderr, "mmaref: %s\n", derr); rc = -1; }
    }
    if (x.map && x.maplen > x.released) munmap((char *)x.map + x.released, x.maplen - x.released);
    if (x.has_out && (out_stop(&x.o, !rc && !x.write_err) || x.write_err) && !rc) rc = write_failed(&x, o);
    free(x.err_line);
    free(x.dev_err);
    free(x.carry);
    *nvec = x.nvec;
    *nbad = x.nbad;
    return rc;
}

int cli_gen_pass(const mma_unit *u, long lo, long hi, cli_gen_fn fn, void *ctx, cli_out *o, int threads, int device)
{
    if (threads <= 0) threads = mma_default_threads();
    pass x;
    memset(&x, 0, sizeof x);
    x.u = u;
    x.has_out = 1;
    x.device = device;
    x.ns = mma_unit_nscales(u);
    x.unit_flags = mma_unit_has_flags(u);
    x.gen = fn;
    x.gctx = ctx;
    x.glo = lo;
    x.ghi = hi;
    x.gper = PIECE_BYTES / (40 + 6 * u->k);   /* about PIECE_BYTES of output */
    if (x.gper < 1) x.gper = 1;
    x.ntotal = hi > lo ? (hi - lo + x.gper - 1) / x.gper : 0;
    out_start(&x.o, o);
    int rc = run_pool(&x, threads);
    if (rc || x.mem_err) { fprintf(stderr, "mmaref: out of memory\n"); rc = -1; }
    else if (x.dev_err) { fprintf(stderr, "mmaref: --device cuda: %s\n", x.dev_err); rc = -1; }
    free(x.dev_err);
    if ((out_stop(&x.o, !rc && !x.write_err) || x.write_err) && !rc) rc = write_failed(&x, o);
    return rc;
}
