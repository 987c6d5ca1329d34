/* run, check and gen on all cores.  The work is cut into pieces (ranges of
 * a file's bytes, or of vector indices) that the library's deterministic
 * loop (mma_parallel_for) hands to threads, a round of pieces at a time;
 * what a piece computes does not depend on the thread that runs it, and
 * the pieces' results are written (or printed) in order, so the output is
 * the same bytes for any thread count.
 *
 * A plain input file is read by the threads themselves (pread), each piece
 * owning the lines that start in its byte range; a pipe (.xz, .gz, stdin)
 * is read by the calling thread and cut at line ends.  A plain output file
 * is written by the threads (pwrite, at offsets from the pieces' lengths);
 * a pipe or stdout in order by the calling thread.  Line numbers (for
 * messages) are counted per piece and added up in order. */
#include "cli.h"
#include "mmaref_parallel.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE_BYTES (256 * 1024)      /* input bytes (or output bytes, gen) a piece */
#define LINE_MAX_OUT (MMA_MAX_K * 2 * 17 + 68 + 34 * MMA_VEC_MAX_SCALES)

typedef struct { long rel; uint64_t file_d, model_d; unsigned file_fl, model_fl; char *text; } mismatch;

typedef struct {
    /* input: bytes [start, end) of the file (plain), or the piece's own
     * complete lines in buf (pipe) */
    off_t start, end;
    char *buf;
    size_t len, cap;
    /* results */
    long nlines, nvec, nbad;
    char *out;
    size_t outlen, outcap;
    long err_rel;                     /* the first bad line (relative), -1: none */
    char *err_line;
    int nmis;
    mismatch *mis;
    int io_err;
    off_t out_off;                    /* where its output goes (pwrite) */
} piece;

typedef struct {
    const mma_vec_reader *r;
    const mma_unit *u;
    int check, ns, pipe_in;
    int unit_flags, file_flags;       /* the unit defines flags; the file carries them */
    long show;
    int fd;
    off_t body, size;                 /* plain input: body start, file size */
    piece *pc;
    /* gen */
    cli_gen_fn gen;
    void *gctx;
    long glo, gper;
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

/* the piece's bytes from the plain file: from start - 1 (to see whether
 * start begins a line) until the line that starts before end is complete */
static int fill_plain(const pass *x, piece *p)
{
    off_t from = p->start > x->body ? p->start - 1 : p->start;
    size_t want = (size_t)(p->end - from) + 4096;
    p->len = 0;
    for (;;) {
        if (grow(&p->buf, &p->cap, want + 1)) return -1;
        while (p->len < want) {
            ssize_t got = pread(x->fd, p->buf + p->len, want - p->len, from + (off_t)p->len);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) return -1;
            if (got == 0) break;
            p->len += (size_t)got;
        }
        /* complete once a newline follows end (or the file ends) */
        size_t e = (size_t)(p->end - from);
        if (p->len < want || memchr(p->buf + (e ? e - 1 : 0), '\n', p->len - (e ? e - 1 : 0))) break;
        want *= 2;
    }
    p->buf[p->len] = 0;
    return 0;
}

static int add_mismatch(const pass *x, piece *p, long rel, const mma_vec *v, uint64_t d, unsigned fl)
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

/* one line (NUL-terminated, no newline), relative number rel */
static int do_line(const pass *x, piece *p, char *line, long rel, mma_vec *v)
{
    char err[16];
    int rc = mma_vec_parse(x->r, line, 0, v, err, sizeof err);
    if (rc == 0) return 0;
    if (rc < 0) {
        p->err_rel = rel;
        p->err_line = strdup(line);
        return -1;
    }
    unsigned fl = 0;
    uint64_t d = x->unit_flags ? mma_dot_flags(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL, &fl)
                               : mma_dot(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL);
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

static void piece_reset(piece *p)
{
    p->nlines = p->nvec = p->nbad = 0;
    p->outlen = 0;
    p->err_rel = -1;
    free(p->err_line);
    p->err_line = NULL;
    for (int i = 0; i < p->nmis; i++) free(p->mis[i].text);
    p->nmis = 0;
    p->io_err = 0;
}

static void vec_piece(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    const pass *x = ctx;
    mma_vec *v = malloc(sizeof *v);
    for (long i = lo; i < hi; i++) {
        piece *p = &x->pc[i];
        if (!v) { p->io_err = 1; continue; }
        size_t pos = 0, stop = p->len;
        if (!x->pipe_in) {
            if (fill_plain(x, p)) { p->io_err = 1; continue; }
            off_t from = p->start > x->body ? p->start - 1 : p->start;
            pos = (size_t)(p->start - from);
            stop = (size_t)(p->end - from);
            if (pos && p->buf[pos - 1] != '\n') {         /* a line that began before */
                char *nl = memchr(p->buf + pos, '\n', p->len - pos);
                pos = nl ? (size_t)(nl - p->buf) + 1 : p->len;
            }
        }
        /* the lines that start before stop */
        long rel = 0;
        while (pos < stop && pos < p->len) {
            char *s = p->buf + pos, *nl = memchr(s, '\n', p->len - pos);
            size_t e = nl ? (size_t)(nl - p->buf) : p->len;
            size_t t = e;
            while (t > pos && p->buf[t - 1] == '\r') t--;
            char keep = p->buf[t];
            p->buf[t] = 0;
            int rc = do_line(x, p, s, rel, v);
            p->buf[t] = keep;
            rel++;
            pos = e + 1;
            if (rc) break;
        }
        p->nlines = rel;
    }
    free(v);
}

/* ---- output in order ------------------------------------------------------- */

/* One thread writes the rounds' output in order while the others compute
 * the next round (a file takes one writer at a time in the kernel anyway).
 * A plain file is written with pwrite at running offsets, a pipe or stdout
 * through stdio. */
typedef struct {
    pthread_t th;
    int started, quit, err, busy, ntodo;
    piece *todo;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    FILE *f;
    int fd;                           /* plain file, else -1 */
    off_t at;
} writer;

static int write_set(writer *w, piece *pc, int n)
{
    for (int i = 0; i < n; i++) {
        piece *p = &pc[i];
        if (w->fd < 0) {
            if (p->outlen && fwrite(p->out, 1, p->outlen, w->f) != p->outlen) return -1;
            continue;
        }
        size_t done = 0;
        while (done < p->outlen) {
            ssize_t k = pwrite(w->fd, p->out + done, p->outlen - done, w->at + (off_t)done);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return -1;
            done += (size_t)k;
        }
        w->at += (off_t)p->outlen;
    }
    return 0;
}

static void *writer_main(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->todo && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->todo) break;
        piece *pc = w->todo;
        int n = w->ntodo;
        w->busy = 1;
        pthread_mutex_unlock(&w->mu);
        int bad = write_set(w, pc, n);
        pthread_mutex_lock(&w->mu);
        w->err |= bad;
        w->todo = NULL;
        w->busy = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* a plain output file: its descriptor and where the body starts (after
 * what stdio holds is flushed); -1 for pipes and stdout */
static int plain_out(cli_out *o, off_t *at)
{
    struct stat st;
    if (!o || o->is_pipe || o->f == stdout || fflush(o->f)) return -1;
    int fd = fileno(o->f);
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) return -1;
    *at = ftello(o->f);
    return *at < 0 ? -1 : fd;
}

static void writer_start(writer *w, cli_out *o)
{
    memset(w, 0, sizeof *w);
    w->f = o->f;
    w->fd = plain_out(o, &w->at);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->started = !pthread_create(&w->th, NULL, writer_main, w);
}

/* waits for the set in hand to be written, then hands pc over (without a
 * writer thread: writes it here); returns -1 once a write has failed */
static int writer_give(writer *w, piece *pc, int n)
{
    if (!w->started) return w->err |= write_set(w, pc, n), w->err ? -1 : 0;
    pthread_mutex_lock(&w->mu);
    while (w->todo || w->busy) pthread_cond_wait(&w->cv, &w->mu);
    w->todo = pc;
    w->ntodo = n;
    pthread_cond_broadcast(&w->cv);
    int err = w->err;
    pthread_mutex_unlock(&w->mu);
    return err ? -1 : 0;
}

/* waits for everything to be written; -1 if a write failed */
static int writer_stop(writer *w, cli_out *o)
{
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->quit = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->th, NULL);
    }
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    if (!w->err && w->fd >= 0) fseeko(o->f, w->at, SEEK_SET);   /* (stdio's position: the end) */
    return w->err ? -1 : 0;
}

static pass *pass_new(int npieces)
{
    pass *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->pc = calloc((size_t)npieces, sizeof *x->pc);
    if (!x->pc) { free(x); return NULL; }
    for (int i = 0; i < npieces; i++) x->pc[i].err_rel = -1;
    return x;
}

static void pass_free(pass *x, int npieces)
{
    if (!x) return;
    for (int i = 0; i < npieces; i++) {
        piece_reset(&x->pc[i]);
        free(x->pc[i].mis);
        free(x->pc[i].buf);
        free(x->pc[i].out);
    }
    free(x->pc);
    free(x);
}

/* ---- run and check ------------------------------------------------------------- */

/* A pipe's next round: up to n pieces of about PIECE_BYTES, cut after a
 * newline; *carry holds what followed the last newline.  Returns the
 * number of pieces filled (0 at the end). */
static int read_round(FILE *f, piece *pc, int n, char **carry, size_t *ncarry, size_t *ccap, int *eof)
{
    int k = 0;
    while (k < n && !(*eof && *ncarry == 0)) {
        piece *p = &pc[k];
        if (grow(&p->buf, &p->cap, PIECE_BYTES + *ncarry + 1)) return -1;
        if (*ncarry) memcpy(p->buf, *carry, *ncarry);
        p->len = *ncarry;
        *ncarry = 0;
        if (!*eof) {
            size_t got = fread(p->buf + p->len, 1, PIECE_BYTES, f);
            if (got < PIECE_BYTES) { if (ferror(f)) return -1; *eof = 1; }
            p->len += got;
        }
        if (!*eof) {                     /* keep the unfinished line for later */
            char *nl = NULL;
            for (size_t i = p->len; i > 0; i--) if (p->buf[i - 1] == '\n') { nl = p->buf + i - 1; break; }
            size_t keep = nl ? (size_t)(nl - p->buf) + 1 : 0;
            if (grow(carry, ccap, p->len - keep + 1)) return -1;
            memcpy(*carry, p->buf + keep, p->len - keep);
            *ncarry = p->len - keep;
            p->len = keep;
        }
        p->buf[p->len] = 0;
        if (p->len) k++;
    }
    return k;
}

/* pieces a round: enough that threads finish a round together (each takes
 * about 16), few enough to hold (two rounds are in memory: one computed,
 * one written) */
static int round_pieces(int threads)
{
    return threads > 16 ? 256 : 16 * threads;
}

int cli_vec_pass(mma_vec_reader *r, const char *in, int check, long show, cli_out *o, int threads,
                 long *nvec, long *nbad)
{
    if (threads <= 0) threads = mma_default_threads();
    const int np = round_pieces(threads);
    pass *x = pass_new(2 * np);
    piece *sets = x ? x->pc : NULL;
    if (!x) { fprintf(stderr, "mmaref: out of memory\n"); return -1; }
    x->r = r;
    x->u = mma_vec_unit(r);
    x->check = check;
    x->unit_flags = mma_unit_has_flags(x->u);
    x->file_flags = mma_vec_has_flags(r);
    x->show = show < 0 ? 0 : show;
    x->ns = mma_unit_nscales(x->u);
    FILE *f = mma_vec_stream(r);
    struct stat st;
    off_t body = ftello(f);
    x->fd = fileno(f);
    x->pipe_in = body < 0 || x->fd < 0 || fstat(x->fd, &st) || !S_ISREG(st.st_mode);
    if (!x->pipe_in) { x->body = body; x->size = st.st_size; }
    writer w;
    int workers = threads;
    if (!check) {
        writer_start(&w, o);
        if (w.started && workers > 1) workers--;   /* (a core for the writer) */
    }
    long line0 = mma_vec_lineno(r);        /* lines before the body */
    off_t next = x->body;
    char *carry = NULL;
    size_t ncarry = 0, ccap = 0;
    int eof = 0, rc = 0;
    long shown = 0;
    *nvec = *nbad = 0;
    for (int round = 0;; round++) {
        int n = 0;
        x->pc = sets + (round % 2) * np;   /* (the other set may be being written) */
        if (x->pipe_in) {
            for (int i = 0; i < np; i++) piece_reset(&x->pc[i]);
            n = read_round(f, x->pc, np, &carry, &ncarry, &ccap, &eof);
            if (n < 0) { fprintf(stderr, "mmaref: %s: read error\n", in); rc = -1; break; }
        } else {
            for (; n < np && next < x->size; n++) {
                piece_reset(&x->pc[n]);
                x->pc[n].start = next;
                next = next + PIECE_BYTES < x->size ? next + PIECE_BYTES : x->size;
                x->pc[n].end = next;
            }
        }
        if (!n) break;
        mma_parallel_for(n, 1, workers, vec_piece, x, NULL, NULL);
        /* in order: mismatches, the first error, the counts */
        int stop = n;
        for (int i = 0; i < n; i++) {
            piece *p = &x->pc[i];
            if (p->io_err) { fprintf(stderr, "mmaref: %s: out of memory or read error\n", in); rc = -1; stop = i; break; }
            for (int m = 0; m < p->nmis && shown < x->show; m++, shown++) {
                mismatch *q = &p->mis[m];
                int hd = mma_format(x->u->d)->hexdigits;
                if (x->file_flags)
                    printf("mismatch %s:%ld: file d=%0*llx flags=%02x model d=%0*llx flags=%02x\n  %s", in,
                           line0 + q->rel + 1, hd, (unsigned long long)q->file_d, q->file_fl, hd,
                           (unsigned long long)q->model_d, q->model_fl, q->text);
                else
                    printf("mismatch %s:%ld: file d=%0*llx model d=%0*llx\n  %s", in, line0 + q->rel + 1, hd,
                           (unsigned long long)q->file_d, hd, (unsigned long long)q->model_d, q->text);
            }
            *nvec += p->nvec;
            *nbad += p->nbad;
            if (p->err_rel >= 0) {
                char err[1024];
                mma_vec v;
                mma_vec_parse(r, p->err_line, line0 + p->err_rel + 1, &v, err, sizeof err);
                /* a damaged compressed file shows as a bad line: say so instead */
                char derr[1024];
                if (mma_vec_finish(r, derr, sizeof derr)) snprintf(err, sizeof err, "%s", derr);
                fprintf(stderr, "mmaref: %s\n", err);
                rc = -1;
                stop = i + 1;
                break;
            }
            line0 += p->nlines;
        }
        if (rc) break;
        if (!check && writer_give(&w, x->pc, stop)) break;
    }
    if (!rc) {
        char derr[1024];
        if (mma_vec_finish(r, derr, sizeof derr)) { fprintf(stderr, "mmaref: %s\n", derr); rc = -1; }
    }
    if (!check && writer_stop(&w, o) && !rc) {
        fprintf(stderr, "mmaref: %s: write failed\n", o->path[0] ? o->path : "output");
        rc = -1;
    }
    free(carry);
    x->pc = sets;
    pass_free(x, 2 * np);
    return rc;
}

/* ---- gen ----------------------------------------------------------------------- */

static void gen_piece(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    const pass *x = ctx;
    mma_vec *v = calloc(1, sizeof *v);
    for (long i = lo; i < hi; i++) {
        piece *p = &x->pc[i];
        long a = x->glo + i * x->gper, b = a + x->gper < x->size ? a + x->gper : (long)x->size;
        if (!v || grow(&p->out, &p->outcap, (size_t)(b - a) * LINE_MAX_OUT)) { p->io_err = 1; continue; }
        for (long j = a; j < b; j++) {
            x->gen(x->gctx, j, v);
            unsigned fl = 0;
            v->d = x->unit_flags ? mma_dot_flags(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL, &fl)
                                 : mma_dot(x->u, v->c, v->a, v->b, x->ns ? v->sa : NULL, x->ns ? v->sb : NULL);
            v->flags = fl;
            p->outlen += mma_vec_format(p->out + p->outlen, x->u, v);
        }
    }
    free(v);
}

int cli_gen_pass(const mma_unit *u, long lo, long hi, cli_gen_fn fn, void *ctx, cli_out *o, int threads)
{
    if (threads <= 0) threads = mma_default_threads();
    const int np = round_pieces(threads);
    pass *x = pass_new(2 * np);
    if (!x) { fprintf(stderr, "mmaref: out of memory\n"); return -1; }
    piece *sets = x->pc;
    x->u = u;
    x->ns = mma_unit_nscales(u);
    x->unit_flags = mma_unit_has_flags(u);
    x->gen = fn;
    x->gctx = ctx;
    x->size = hi;                            /* (the end of the indices) */
    x->gper = PIECE_BYTES / (40 + 6 * u->k); /* about PIECE_BYTES of output */
    if (x->gper < 1) x->gper = 1;
    writer w;
    writer_start(&w, o);
    int workers = w.started && threads > 1 ? threads - 1 : threads;   /* (a core for the writer) */
    int rc = 0;
    long next = lo;
    for (int round = 0; next < hi && !rc; round++) {
        long n = (hi - next + x->gper - 1) / x->gper;
        if (n > np) n = np;
        x->pc = sets + (round % 2) * np;
        for (int i = 0; i < n; i++) piece_reset(&x->pc[i]);
        x->glo = next;
        mma_parallel_for(n, 1, workers, gen_piece, x, NULL, NULL);
        for (int i = 0; i < n; i++) if (x->pc[i].io_err) { fprintf(stderr, "mmaref: out of memory\n"); rc = -1; break; }
        if (!rc && writer_give(&w, x->pc, (int)n)) break;
        next = next + n * x->gper < hi ? next + n * x->gper : hi;
    }
    if (writer_stop(&w, o) && !rc) {
        fprintf(stderr, "mmaref: %s: write failed\n", o->path[0] ? o->path : "output");
        rc = -1;
    }
    x->pc = sets;
    pass_free(x, 2 * np);
    return rc;
}
