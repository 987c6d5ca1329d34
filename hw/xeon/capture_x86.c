/* capture_x86: runs x86 dot-product instructions on the CPU it runs on and
 * writes what they computed as a vector file (docs/vector-format.md), for
 * `mmaref check` to judge against the catalogue (x86:vdpbf16ps,
 * x86:tdpbf16ps).
 *
 *   capture_x86 --probe
 *       prints the instructions this CPU and kernel run (exit 0), with the
 *       CPU's name on stderr
 *   capture_x86 --instr vdpbf16ps|tdpbf16ps --dist NAME --count N
 *               [--seed S] [--shard I/N]
 *       writes N vectors of distribution NAME to stdout (the shard I of N
 *       takes vectors I, I+N, ...: the shards of one seed together are the
 *       unsharded run); exit 3 when the CPU lacks the instruction
 *
 * Distributions (each aims at rules of the x86 arithmetic: Intel SDM,
 * VDPBF16PS; Intel ISE, TDPBF16PS):
 *   bits      random bits, each field's exponent all zeros or all ones half
 *             the time: NaN, Inf, subnormals (DAZ) everywhere
 *   random    random normal values within 2^+-12
 *   tiny      products and c near 2^-126: flush-to-zero of results, tiny
 *             after rounding, subnormal c (DAZ)
 *   overflow  products and c near the largest fp32: overflow, Inf
 *   cancel    products that cancel pairwise, exactly or to a few ulps, and
 *             c near minus their sum: cancellation, exact zeros
 *   zeros     signed zeros in every field, zero products of both signs
 *   nan       quiet and signaling NaNs with payloads at one to three
 *             places, Inf, Inf * 0, Inf - Inf
 *   ties      c and products whose sums fall on and beside half an ulp of
 *             the running sum: ties to even, the order of the additions
 *
 * One TDPBF16PS computes a 16x16 tile with K = 32 (full 64-byte rows): the
 * vector of element (m, n) is c = C[m][n], a[i] = A.row[m].bf16[i], b[i] =
 * B.row[i/2].bf16[2n + i%2].  Its 16 rows of A and 16 columns of B are each
 * drawn from the distribution, and each c from the row and column it meets.
 * VDPBF16PS computes 16 lanes of K = 2: every lane its own vector.
 *
 * Built statically (hw/xeon/Makefile, make x86-static) so that it runs on
 * the device machine's host; only the functions that run the instructions
 * are compiled for AVX512-BF16 and AMX, and they run only where CPUID and
 * the kernel say so. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

/* ---- random numbers ----------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned below(uint64_t *s, unsigned n) { return (unsigned)(splitmix(s) % n); }

/* ---- bf16 and fp32 encodings -------------------------------------------- */

static uint16_t bf16(int neg, int ebiased, unsigned frac7)
{
    return (uint16_t)((neg ? 0x8000u : 0) | ((unsigned)ebiased & 0xff) << 7 | (frac7 & 0x7f));
}
static uint32_t f32(int neg, int ebiased, uint32_t frac23)
{
    return (neg ? 0x80000000u : 0) | ((uint32_t)ebiased & 0xff) << 23 | (frac23 & 0x7fffff);
}
static double bf16_val(uint16_t x)
{
    int e = (x >> 7) & 0xff;
    double m = e ? 1.0 + (x & 0x7f) / 128.0 : (x & 0x7f) / 128.0;
    double v = __builtin_ldexp(m, (e ? e : 1) - 127);
    return (x & 0x8000) ? -v : v;
}
/* nearest fp32 encoding of a double (ties to even); for c's made to meet a
 * sum of products: v = 0 gives +0 */
static uint32_t f32_of(double v)
{
    float f = (float)v;
    uint32_t w;
    memcpy(&w, &f, 4);
    return w;
}

/* a normal bf16 of a random fraction and sign, exponent e (unbiased) */
static uint16_t bf16_e(uint64_t *s, int e)
{
    if (e < -126) e = -126;
    if (e > 127) e = 127;
    return bf16((int)(splitmix(s) & 1), e + 127, (unsigned)splitmix(s));
}
static uint32_t f32_e(uint64_t *s, int e)
{
    if (e < -126) e = -126;
    if (e > 127) e = 127;
    return f32((int)(splitmix(s) & 1), e + 127, (uint32_t)splitmix(s));
}

/* ---- distributions ------------------------------------------------------- */

enum { D_BITS, D_RANDOM, D_TINY, D_OVERFLOW, D_CANCEL, D_ZEROS, D_NAN, D_TIES, ND };
static const char *dist_names[ND] = {"bits", "random", "tiny", "overflow", "cancel", "zeros", "nan", "ties"};

/* A side (the a or the b of a dot product, K values) of distribution d.
 * side 0 is a, 1 is b; sides are drawn apart (a tile's rows and columns)
 * and meet in the products. */
static void draw_side(int d, int side, uint64_t *s, int K, uint16_t *x)
{
    int base;
    switch (d) {
    case D_BITS:
        for (int i = 0; i < K; i++) {
            uint16_t v = (uint16_t)splitmix(s);
            unsigned r = below(s, 4);
            if (r == 0) v &= 0x807f;                 /* exponent 0: zero or subnormal */
            else if (r == 1) v |= 0x7f80;            /* exponent all ones: Inf or NaN */
            x[i] = v;
        }
        break;
    case D_RANDOM:
        for (int i = 0; i < K; i++) x[i] = bf16_e(s, (int)below(s, 25) - 12);
        break;
    case D_TINY:
        /* a near 2^-63 +- 3, b likewise: products near 2^-126; some values
         * far smaller (subnormal bf16, flushed) */
        for (int i = 0; i < K; i++) {
            unsigned r = below(s, 16);
            if (r == 0) x[i] = (uint16_t)((splitmix(s) & 0x807f) | 1);   /* a subnormal */
            else if (r == 1) x[i] = bf16_e(s, side ? -60 : -126 + (int)below(s, 8));
            else if (r <= 5) x[i] = bf16_e(s, -76 + (int)below(s, 3));     /* products near 2^-151: half an ulp of 2^-126 */
            else x[i] = bf16_e(s, -63 - 3 + (int)below(s, 7));
        }
        break;
    case D_OVERFLOW:
        for (int i = 0; i < K; i++) x[i] = bf16_e(s, 61 + (int)below(s, 6));   /* products 2^122..2^132 */
        break;
    case D_CANCEL:
        /* pairs (k, k+1) whose products cancel (a side: x, -x; b side: y,
         * y), exactly, or with the fraction of one moved a little */
        base = (int)below(s, 30) - 15;
        for (int i = 0; i + 1 < K; i += 2) {
            uint16_t v = bf16_e(s, base + (int)below(s, 5) - 2);
            x[i] = v;
            x[i + 1] = side ? v : (uint16_t)(v ^ 0x8000);
            if (below(s, 4) == 0) x[i + 1] = (uint16_t)(x[i + 1] + (below(s, 2) ? 1 : -1));
        }
        if (K & 1) x[K - 1] = bf16_e(s, base);
        break;
    case D_ZEROS:
        for (int i = 0; i < K; i++) {
            unsigned r = below(s, 3);
            x[i] = r == 0 ? (uint16_t)(splitmix(s) & 0x8000) : r == 1 ? (uint16_t)((splitmix(s) & 0x807f)) : bf16_e(s, (int)below(s, 9) - 4);
        }
        break;
    case D_NAN:
        for (int i = 0; i < K; i++) x[i] = bf16_e(s, (int)below(s, 9) - 4);
        for (int t = 0, n = 1 + (int)below(s, 3); t < n; t++) {
            int i = (int)below(s, (unsigned)K);
            unsigned r = below(s, 6);
            uint16_t sign = (uint16_t)(splitmix(s) & 0x8000);
            if (r == 0) x[i] = sign | 0x7fc0 | (uint16_t)(splitmix(s) & 0x3f);              /* quiet NaN */
            else if (r == 1) x[i] = sign | 0x7f80 | (uint16_t)(1 + below(s, 0x3f));         /* signaling NaN */
            else if (r <= 3) x[i] = sign | 0x7f80;                                           /* Inf */
            else x[i] = sign;                                                                /* zero (Inf * 0) */
        }
        break;
    case D_TIES:
        /* powers of two and 1.5 * powers of two near 2^0 (a) and 2^-12 .. 2^-13
         * (b): products 2^-24 .. 2^-11 of 1, 1.5 or 2.25; c (below) 1 + a few ulps */
        for (int i = 0; i < K; i++)
            x[i] = bf16((int)(below(s, 5) == 0), (side ? 127 - 10 - (int)below(s, 16) : 127 - (int)below(s, 3)),
                        below(s, 2) ? 0x40 : 0);
        break;
    }
}

/* c for a dot product of distribution d with sides a and b */
static uint32_t draw_c(int d, uint64_t *s, int K, const uint16_t *a, const uint16_t *b)
{
    double sum = 0;
    switch (d) {
    case D_BITS: {
        uint32_t v = (uint32_t)splitmix(s);
        unsigned r = below(s, 4);
        if (r == 0) v &= 0x807fffffu;
        else if (r == 1) v |= 0x7f800000u;
        return v;
    }
    case D_RANDOM: return below(s, 8) ? f32_e(s, (int)below(s, 29) - 14) : 0;
    case D_TINY: {
        unsigned r = below(s, 6);
        if (r == 0) return (uint32_t)(splitmix(s) & 0x807fffffu);              /* subnormal (or zero) */
        if (r == 1) {                                                          /* minus the products, near */
            for (int i = 0; i < K; i++) sum += bf16_val(a[i]) * bf16_val(b[i]);
            return f32_of(-sum) ^ (uint32_t)below(s, 3);
        }
        if (r <= 3) return f32((int)below(s, 2), 1 + (int)below(s, 2), below(s, 4));   /* 2^-126 or 2^-125 and a few ulps */
        return f32_e(s, -126 + (int)below(s, 4));
    }
    case D_OVERFLOW: return below(s, 4) ? f32(below(s, 2), 250 + (int)below(s, 5), (uint32_t)splitmix(s)) | (below(s, 2) ? 0x7fffff : 0)
                                        : 0;
    case D_CANCEL:
        for (int i = 0; i < K; i++) sum += bf16_val(a[i]) * bf16_val(b[i]);
        switch (below(s, 4)) {
        case 0: return f32_of(-sum);
        case 1: return f32_of(-sum) + (uint32_t)below(s, 3) - 1;
        case 2: return (uint32_t)(splitmix(s) & 0x80000000u);
        default: return f32_e(s, (int)below(s, 20) - 30);
        }
    case D_ZEROS: return below(s, 2) ? (uint32_t)(splitmix(s) & 0x80000000u) : f32_e(s, (int)below(s, 9) - 4);
    case D_NAN: {
        unsigned r = below(s, 8);
        uint32_t sign = (uint32_t)(splitmix(s) & 0x80000000u);
        if (r == 0) return sign | 0x7fc00000u | (uint32_t)(splitmix(s) & 0x3fffff);
        if (r == 1) return sign | 0x7f800000u | (uint32_t)(1 + below(s, 0x3fffff));
        if (r == 2) return sign | 0x7f800000u;
        return f32_e(s, (int)below(s, 9) - 4);
    }
    case D_TIES:
        /* 1 or 2 with a few ulps, of either sign: each product is a half, a
         * quarter or one and a half ulps of it */
        return f32(below(s, 5) == 0, 127 + (int)below(s, 2), below(s, 4));
    }
    return 0;
}

/* ---- the instructions ----------------------------------------------------- */

static int cpu_vdpbf16ps(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d) || !((a >> 5) & 1)) return 0;   /* AVX512_BF16 */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((b >> 16) & 1)) return 0;  /* AVX512F */
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0;           /* OSXSAVE */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6;                      /* XMM, YMM, opmask, ZMM state */
}

static int cpu_tdpbf16ps(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    if (!((d >> 22) & 1) || !((d >> 24) & 1)) return 0;                         /* AMX-BF16, AMX-TILE */
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0x60000) != 0x60000) return 0;         /* XTILECFG, XTILEDATA */
    return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}

/* 16 lanes: c[16], a and b [16][2] -> d[16] */
__attribute__((target("avx512f,avx512bf16"), noinline))
static void run_vdpbf16ps(const uint32_t *c, const uint16_t *a, const uint16_t *b, uint32_t *d)
{
    __m512 vc = _mm512_loadu_ps(c);
    __m512bh va, vb;
    memcpy(&va, a, 64);
    memcpy(&vb, b, 64);
    _mm512_storeu_ps(d, _mm512_dpbf16_ps(vc, va, vb));
}

struct tilecfg { uint8_t palette, start_row, reserved[14]; uint16_t colsb[16]; uint8_t rows[16]; };

/* C[16][16] += A[16][32] * B: B given as the tile (16 rows of 32 bf16:
 * B.row[r].bf16[2n + i] holds b_n[2r + i]) */
__attribute__((target("amx-tile,amx-bf16"), noinline))
static void run_tdpbf16ps(uint32_t *C, const uint16_t *A, const uint16_t *Btile)
{
    struct tilecfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 3; t++) { cfg.colsb[t] = 64; cfg.rows[t] = 16; }
    _tile_loadconfig(&cfg);
    _tile_loadd(0, C, 64);
    _tile_loadd(1, A, 64);
    _tile_loadd(2, Btile, 64);
    _tile_dpbf16ps(0, 1, 2);
    _tile_stored(0, C, 64);
    _tile_release();
}

/* ---- output ---------------------------------------------------------------- */

static char obuf[1 << 20];
static size_t olen;
static void out_flush(void) { fwrite(obuf, 1, olen, stdout); olen = 0; }
static void out_hex(uint64_t v, int digits)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--) obuf[olen++] = hx[(v >> (4 * i)) & 15];
}
static void out_vec(int K, uint32_t c, const uint16_t *a, const uint16_t *b, uint32_t d)
{
    if (olen > sizeof obuf - 4096) out_flush();
    out_hex(c, 8);
    for (int i = 0; i < K; i++) { obuf[olen++] = ' '; out_hex(a[i], 4); }
    for (int i = 0; i < K; i++) { obuf[olen++] = ' '; out_hex(b[i], 4); }
    obuf[olen++] = ' ';
    out_hex(d, 8);
    obuf[olen++] = '\n';
}

static void cpu_name(char *buf)
{
    unsigned r[12];
    memset(buf, 0, 49);
    for (unsigned i = 0; i < 3; i++) __get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
    memcpy(buf, r, 48);
    char *p = buf;
    while (*p == ' ') p++;
    memmove(buf, p, strlen(p) + 1);
}

static int usage(void)
{
    fprintf(stderr, "usage: capture_x86 --probe\n"
                    "       capture_x86 --instr vdpbf16ps|tdpbf16ps --dist NAME --count N [--seed S] [--shard I/N]\n"
                    "       distributions: bits random tiny overflow cancel zeros nan ties\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *instr = NULL, *dist = NULL;
    long count = -1, shard = 0, nshards = 1;
    unsigned long long seed = 1;
    char name[49];
    cpu_name(name);
    for (int i = 1; i < argc; i++) {
        char *end;
        if (!strcmp(argv[i], "--probe")) {
            fprintf(stderr, "cpu: %s\n", name);
            printf("%s%s\n", cpu_vdpbf16ps() ? "vdpbf16ps " : "", cpu_tdpbf16ps() ? "tdpbf16ps" : "");
            return 0;
        } else if (!strcmp(argv[i], "--instr") && i + 1 < argc) instr = argv[++i];
        else if (!strcmp(argv[i], "--dist") && i + 1 < argc) dist = argv[++i];
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            count = strtol(argv[++i], &end, 10);
            if (*end || count < 0) { fprintf(stderr, "capture_x86: --count: '%s' is no count\n", argv[i]); return 2; }
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 10);
            if (*end) { fprintf(stderr, "capture_x86: --seed: '%s' is no number\n", argv[i]); return 2; }
        } else if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (sscanf(argv[++i], "%ld/%ld", &shard, &nshards) != 2 || nshards < 1 || shard < 0 || shard >= nshards) {
                fprintf(stderr, "capture_x86: --shard: '%s' is not I/N with 0 <= I < N\n", argv[i]);
                return 2;
            }
        } else return usage();
    }
    if (!instr || !dist || count < 0) return usage();
    int d = -1;
    for (int i = 0; i < ND; i++) if (!strcmp(dist, dist_names[i])) d = i;
    if (d < 0) { fprintf(stderr, "capture_x86: --dist: unknown distribution '%s'\n", dist); return usage(); }
    int tile = !strcmp(instr, "tdpbf16ps");
    if (!tile && strcmp(instr, "vdpbf16ps")) { fprintf(stderr, "capture_x86: --instr: unknown instruction '%s'\n", instr); return usage(); }
    if (tile ? !cpu_tdpbf16ps() : !cpu_vdpbf16ps()) {
        fprintf(stderr, "capture_x86: this CPU (%s) or its kernel does not run %s\n", name, instr);
        return 3;
    }
    const int K = tile ? 32 : 2, per = tile ? 256 : 16;   /* vectors per instruction */
    printf("# mmavec 1\n# arch: x86\n# instr: x86:%s\n# k: %d\n# fields: c a[0..%d] b[0..%d] d\n"
           "# suite: %s\n# seed: %llu\n# shard: %ld/%ld\n# source: hw/xeon/capture_x86 on %s\n",
           instr, K, K - 1, K - 1, dist, seed, shard, nshards, name);
    /* vectors are made in groups of `per` (one instruction); group g
     * belongs to shard g mod nshards and its draws depend on (seed, d, g) only */
    long groups = (count + per - 1) / per, written = 0;
    for (long g = 0; g < groups && written < count; g++) {
        if (g % nshards != shard) { written += per; continue; }
        uint64_t s = seed * 0x100000001b3ull ^ (uint64_t)d << 56 ^ (uint64_t)g * 0x9e3779b97f4a7c15ull;
        splitmix(&s);
        long take = count - written < per ? count - written : per;
        if (tile) {
            static uint16_t A[16][32], Bv[16][32], Bt[16][32];
            static uint32_t C[16][16], D[16][16];
            for (int m = 0; m < 16; m++) draw_side(d, 0, &s, 32, A[m]);
            for (int n = 0; n < 16; n++) draw_side(d, 1, &s, 32, Bv[n]);
            for (int m = 0; m < 16; m++) for (int n = 0; n < 16; n++) C[m][n] = draw_c(d, &s, 32, A[m], Bv[n]);
            for (int r = 0; r < 16; r++) for (int n = 0; n < 16; n++) for (int i = 0; i < 2; i++) Bt[r][2 * n + i] = Bv[n][2 * r + i];
            memcpy(D, C, sizeof D);
            run_tdpbf16ps(&D[0][0], &A[0][0], &Bt[0][0]);
            for (long v = 0; v < take; v++) out_vec(32, C[v / 16][v % 16], A[v / 16], Bv[v % 16], D[v / 16][v % 16]);
        } else {
            uint32_t c[16], dd[16];
            uint16_t a[16][2], b[16][2];
            for (int l = 0; l < 16; l++) {
                draw_side(d, 0, &s, 2, a[l]);
                draw_side(d, 1, &s, 2, b[l]);
                c[l] = draw_c(d, &s, 2, a[l], b[l]);
            }
            run_vdpbf16ps(c, &a[0][0], &b[0][0], dd);
            for (long v = 0; v < take; v++) out_vec(2, c[v], a[v], b[v], dd[v]);
        }
        written += per;
    }
    out_flush();
    if (fflush(stdout) || ferror(stdout)) { fprintf(stderr, "capture_x86: writing the vectors failed\n"); return 1; }
    return 0;
}
