/* Output files that appear whole or not at all.
 *
 * Every output goes to a temporary file in the target's own folder
 * (".name.XXXXXX", so that the rename is atomic and a crash leaves nothing
 * that looks like a result) and is renamed into place only when the
 * command succeeded.  Compression runs in this process through liblzma,
 * zlib and libzstd: no file name ever reaches a shell or another program
 * (an earlier version piped through `xz > '<name>'`, and a name with an
 * apostrophe ran a command).  SIGINT, SIGTERM, SIGHUP and SIGPIPE remove
 * the temporary files before the process dies. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

/* ---- temporary files removed on a signal ---------------------------------- */

#define MAX_TEMPS 16
static char temps[MAX_TEMPS][1100];
static volatile sig_atomic_t temp_live[MAX_TEMPS];

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_live[i]) unlink(temps[i]);            /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void handlers_install(void)
{
    static int done;
    if (done) return;
    done = 1;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup's SIGHUP) stays ignored */
        if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

static int temp_register(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_live[i]) {
            snprintf(temps[i], sizeof temps[i], "%s", path);
            temp_live[i] = 1;
            return i;
        }
    return -1;
}

static void temp_release(int slot)
{
    if (slot >= 0) temp_live[slot] = 0;
}

/* ---- compressors behind a stdio stream ------------------------------------ */

typedef enum { OUT_PLAIN, OUT_XZ, OUT_GZ, OUT_ZST } out_kind;

typedef struct {
    out_kind kind;
    int fd;
    int err;                  /* errno of the first failure, 0 while all is well */
    lzma_stream xz;
    z_stream gz;
    ZSTD_CCtx *zst;
    unsigned char buf[1 << 16];
} codec;

static int write_all(codec *c, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(c->fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { if (!c->err) c->err = k < 0 ? errno : EIO; return -1; }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* feeds n bytes (finish: the end of the stream) through the compressor */
static int codec_feed(codec *c, const void *data, size_t n, int finish)
{
    if (c->err) return -1;
    if (c->kind == OUT_XZ) {
        c->xz.next_in = data;
        c->xz.avail_in = n;
        for (;;) {
            c->xz.next_out = c->buf;
            c->xz.avail_out = sizeof c->buf;
            lzma_ret r = lzma_code(&c->xz, finish ? LZMA_FINISH : LZMA_RUN);
            if (r != LZMA_OK && r != LZMA_STREAM_END) { c->err = r == LZMA_MEM_ERROR ? ENOMEM : EIO; return -1; }
            if (write_all(c, c->buf, sizeof c->buf - c->xz.avail_out)) return -1;
            if (finish ? r == LZMA_STREAM_END : c->xz.avail_in == 0 && c->xz.avail_out) return 0;
        }
    }
    if (c->kind == OUT_GZ) {
        c->gz.next_in = (Bytef *)data;
        c->gz.avail_in = (uInt)n;
        for (;;) {
            c->gz.next_out = c->buf;
            c->gz.avail_out = sizeof c->buf;
            int r = deflate(&c->gz, finish ? Z_FINISH : Z_NO_FLUSH);
            if (r == Z_STREAM_ERROR) { c->err = EIO; return -1; }
            if (write_all(c, c->buf, sizeof c->buf - c->gz.avail_out)) return -1;
            if (finish ? r == Z_STREAM_END : c->gz.avail_in == 0 && c->gz.avail_out) return 0;
        }
    }
    ZSTD_inBuffer in = {data, n, 0};
    for (;;) {
        ZSTD_outBuffer out = {c->buf, sizeof c->buf, 0};
        size_t left = ZSTD_compressStream2(c->zst, &out, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(left)) { c->err = EIO; return -1; }
        if (write_all(c, c->buf, out.pos)) return -1;
        if (finish ? left == 0 : in.pos == in.size && out.pos < out.size) return 0;
    }
}

/* A stream's bytes go through the compressor in pieces of at most 16 MB
 * (zlib counts in 32 bits). */
static ssize_t cookie_write(void *cookie, const char *p, size_t n)
{
    codec *c = cookie;
    size_t done = 0;
    while (done < n) {
        size_t part = n - done > (16u << 20) ? 16u << 20 : n - done;
        if (codec_feed(c, p + done, part, 0)) { errno = c->err; return done ? (ssize_t)done : -1; }
        done += part;
    }
    return (ssize_t)n;
}

static void codec_free(codec *c)
{
    if (c->kind == OUT_XZ) lzma_end(&c->xz);
    else if (c->kind == OUT_GZ) deflateEnd(&c->gz);
    else if (c->kind == OUT_ZST) ZSTD_freeCCtx(c->zst);
    if (c->fd >= 0) close(c->fd);
    free(c);
}

/* flushes the compressor's end and closes the file; 0 or -1 (c->err set) */
static int cookie_close(void *cookie)
{
    codec *c = cookie;
    int rc = codec_feed(c, "", 0, 1);
    if (!rc && close(c->fd) && !c->err) { c->err = errno; rc = -1; }
    c->fd = -1;
    return rc;
}

static int codec_start(codec *c, int threads)
{
    if (threads <= 0) threads = mma_default_threads();
    if (c->kind == OUT_XZ) {
        /* the multi-threaded encoder (independent blocks, one a thread);
         * preset 0: LZMA's cost is per byte, and at -9 one core wrote 2.7k
         * vectors a second, at 0 on two cores about 280k */
        lzma_mt mt;
        memset(&mt, 0, sizeof mt);
        mt.threads = (uint32_t)threads;
        mt.preset = 0;
        mt.check = LZMA_CHECK_CRC64;
        lzma_stream init = LZMA_STREAM_INIT;
        c->xz = init;
        return lzma_stream_encoder_mt(&c->xz, &mt) == LZMA_OK ? 0 : -1;
    }
    if (c->kind == OUT_GZ) {
        memset(&c->gz, 0, sizeof c->gz);
        /* 15 + 16: a gzip header rather than zlib's */
        return deflateInit2(&c->gz, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
    }
    if (!(c->zst = ZSTD_createCCtx())) return -1;
    ZSTD_CCtx_setParameter(c->zst, ZSTD_c_compressionLevel, 3);
    if (threads > 1) ZSTD_CCtx_setParameter(c->zst, ZSTD_c_nbWorkers, threads);  /* (ignored without MT support) */
    return 0;
}

/* ---- names -------------------------------------------------------------- */

static int ends_with(const char *s, const char *suf)
{
    size_t ls = strlen(s), lf = strlen(suf);
    return ls >= lf && !strcmp(s + ls - lf, suf);
}

/* the compression a name asks for; -1 for a compressed format not written */
static int kind_of(const char *path)
{
    if (ends_with(path, ".xz")) return OUT_XZ;
    if (ends_with(path, ".gz")) return OUT_GZ;
    if (ends_with(path, ".zst")) return OUT_ZST;
    static const char *other[] = {".bz2", ".lz4", ".lzma", ".lz", ".zip", ".7z", ".Z", ".br", ".tgz", ".tar"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (ends_with(path, other[i])) return -1;
    return OUT_PLAIN;
}

/* ---- the public calls ---------------------------------------------------- */

static int open_stream(cli_out *o, int fd, out_kind kind, int threads)
{
    if (kind == OUT_PLAIN) {
        o->f = fdopen(fd, "w");
        if (!o->f) { close(fd); return -1; }
    } else {
        codec *c = calloc(1, sizeof *c);
        if (!c) { close(fd); return -1; }
        c->kind = kind;
        c->fd = fd;
        if (codec_start(c, threads)) { codec_free(c); errno = ENOMEM; return -1; }
        cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};
        o->f = fopencookie(c, "w", io);
        if (!o->f) { codec_free(c); return -1; }
        o->codec = c;
        o->is_pipe = 1;                 /* a stream, not a file to pwrite into */
    }
    /* a vector line is ~200 bytes: stdio's 4 kB buffer made write(2) a third
     * of mmaref gen's time */
    setvbuf(o->f, NULL, _IOFBF, 1 << 20);
    return 0;
}

int cli_out_open_threads(cli_out *o, const char *path, int threads)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!strcmp(path, "-")) { o->f = stdout; return 0; }
    if (!*path) { fprintf(stderr, "mmaref: -o: an empty file name\n"); return -1; }
    if (strlen(path) >= sizeof o->path - 16) { fprintf(stderr, "mmaref: %s: file name too long\n", path); return -1; }
    int kind = kind_of(path);
    if (kind < 0) {
        fprintf(stderr, "mmaref: %s: unknown compression (write .vec, .vec.xz, .vec.gz or .vec.zst)\n", path);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    o->direct = !stat(path, &st) && !S_ISREG(st.st_mode);
    int fd;
    if (o->direct) {
        /* a device or FIFO (/dev/null, a terminal): a rename over it would
         * replace it with a plain file */
        if (S_ISDIR(st.st_mode)) { fprintf(stderr, "mmaref: %s: is a directory\n", path); return -1; }
        fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) { fprintf(stderr, "mmaref: %s: %s\n", path, strerror(errno)); return -1; }
    } else {
        const char *slash = strrchr(path, '/');
        int dl = slash ? (int)(slash - path + 1) : 0;
        snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.XXXXXX", dl, path, path + dl);
        handlers_install();
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);       /* created and registered as one step */
        fd = mkstemp(o->tmp);
        int e = errno;
        if (fd >= 0) o->slot = temp_register(o->tmp);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (fd < 0) {
            fprintf(stderr, "mmaref: %s: %s\n", path, e == ENOENT ? "no such folder" : strerror(e));
            return -1;
        }
        mode_t um = umask(0);
        umask(um);
        fchmod(fd, 0666 & ~um);                          /* mkstemp made it 0600 */
    }
    if (open_stream(o, fd, (out_kind)kind, threads)) {
        int e = errno;
        if (!o->direct) { unlink(o->tmp); temp_release(o->slot); }
        fprintf(stderr, "mmaref: %s: %s\n", path, strerror(e ? e : ENOMEM));
        return -1;
    }
    return 0;
}

int cli_out_open(cli_out *o, const char *path) { return cli_out_open_threads(o, path, 0); }

int cli_out_commit(cli_out *o)
{
    if (o->f == stdout) {
        if (!fflush(stdout) && !ferror(stdout)) return 0;
        fprintf(stderr, "mmaref: standard output: %s\n", strerror(errno));
        return -1;
    }
    int bad = ferror(o->f) ? (errno ? errno : EIO) : 0;
    codec *c = o->codec;
    int rc = fclose(o->f);
    int e = rc ? errno : 0;
    o->f = NULL;
    if (c) {
        if (c->err) e = c->err;
        codec_free(c);
        o->codec = NULL;
    }
    if (bad || rc) {
        o->io_err = e ? e : bad ? bad : EIO;
        fprintf(stderr, "mmaref: error: %s: %s\n", o->path, strerror(o->io_err));
        if (!o->direct) { unlink(o->tmp); temp_release(o->slot); }
        return -1;
    }
    if (o->direct) return 0;
    if (rename(o->tmp, o->path)) {
        fprintf(stderr, "mmaref: error: %s: cannot rename into place: %s\n", o->path, strerror(errno));
        unlink(o->tmp);
        temp_release(o->slot);
        return -1;
    }
    temp_release(o->slot);
    return 0;
}

void cli_out_abort(cli_out *o)
{
    if (!o->f || o->f == stdout) return;
    codec *c = o->codec;
    if (c) c->err = ECANCELED;            /* closes without compressing the rest */
    fclose(o->f);
    if (c) codec_free(c);
    o->f = NULL;
    o->codec = NULL;
    if (!o->direct) { unlink(o->tmp); temp_release(o->slot); }
}
