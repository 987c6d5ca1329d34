/* The CUDA backend (mmaref_cuda.h): one GPU thread a dot product, each
 * running the model's reference path.  That path is not rewritten here:
 * the model's own files are compiled into this one translation unit, their
 * functions marked MMA_HD (model/src/internal.h) becoming __host__
 * __device__, so the GPU computes with the code the CPU library checks
 * against the hardware captures.  One kernel per tree (the template
 * parameter picks the algorithm in mma_dot_tree at compile time), so that
 * each kernel holds one algorithm, its registers and stack sized for it.
 *
 * The unit goes to the kernel by value as a __grid_constant__ parameter:
 * the parameter space is constant memory, read by every thread through
 * the constant cache, and two launches with different units on different
 * streams cannot see each other's. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <cuda_runtime.h>

/* The host copies of the model's public functions that the included files
 * define are renamed, so that they do not collide with libmmaref's own,
 * linked beside this library.  (Internal functions have C++ names here.) */
#define mma_format mmacu_format
#define mma_format_by_name mmacu_format_by_name
#define mma_decode mmacu_decode
#define mma_format_max mmacu_format_max

#include "internal.h"
#include "mmaref_cuda.h"

#include "format.c"
#include "term.c"
#include "round.c"
#include "fused_sum.c"
#include "specials.c"
#include "kacc.c"
#include "alg_fused.c"
#define step amd_step          /* (alg_exact.c has a step of its own) */
#include "alg_amd.c"
#undef step
#include "alg_groups.c"
#include "alg_ieee.c"
#include "alg_exact.c"
#include "alg_chains.c"

/* ---- the kernel body: what one thread does for vector i ---------------- */

static inline MMA_HD uint64_t ld(const void *p, int size, size_t i)
{
    switch (size) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

static inline MMA_HD void st(void *p, int size, size_t i, uint64_t v)
{
    switch (size) {
    case 1: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)p)[i] = (uint32_t)v; break;
    default: ((uint64_t *)p)[i] = v; break;
    }
}

static inline MMA_HD int nscales(const mma_unit *u)
{
    return u->scale == MMA_FMT_NONE ? 0 : u->k / u->block;
}

/* Vector i of x: its operands widened into a, b, sa, sb (the model takes
 * uint64_t encodings), d and the flags written at x's widths, as
 * mma_batch_dot writes them (flags: those of mma_dot_flags). */
static inline MMA_HD void dot_one(mma_tree t, const mma_unit *u, const mma_batch *x, size_t i, uint64_t *a,
                                  uint64_t *b, uint64_t *sa, uint64_t *sb)
{
    const size_t k = (size_t)u->k, ns = (size_t)nscales(u);
    for (size_t j = 0; j < k; j++) {
        a[j] = ld(x->a, x->a_size, i * k + j);
        b[j] = ld(x->b, x->b_size, i * k + j);
    }
    for (size_t j = 0; j < ns; j++) {
        sa[j] = ld(x->sa, x->sa_size, i * ns + j);
        sb[j] = ld(x->sb, x->sb_size, i * ns + j);
    }
    unsigned fl = 0;
    uint64_t d = mma_dot_tree(t, u, ld(x->c, x->c_size, i), a, b, ns ? sa : NULL, ns ? sb : NULL, &fl);
    st(x->d, x->d_size, i, d);
    if (x->flags) x->flags[i] = (uint8_t)fl;
}

#define MAX_BLOCK 256

template <mma_tree T>
__global__ void __launch_bounds__(MAX_BLOCK) dot_kernel(const __grid_constant__ mma_unit u,
                                                        const __grid_constant__ mma_batch x)
{
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_MAX_SCALES], sb[MMA_MAX_SCALES];
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < x.n; i += stride)
        dot_one(T, &u, &x, i, a, b, sa, sb);
}

#include "fast_kernels.cuh"

/* ---- the host side ------------------------------------------------------ */

typedef void (*kernel_fn)(mma_unit, mma_batch);

static kernel_fn kernel_of(mma_tree t)
{
    switch (t) {
    case MMA_TREE_FUSED: return dot_kernel<MMA_TREE_FUSED>;
    case MMA_TREE_EVENODD: return dot_kernel<MMA_TREE_EVENODD>;
    case MMA_TREE_GROUPS: return dot_kernel<MMA_TREE_GROUPS>;
    case MMA_TREE_PAIRWISE: return dot_kernel<MMA_TREE_PAIRWISE>;
    case MMA_TREE_FMA: return dot_kernel<MMA_TREE_FMA>;
    case MMA_TREE_EXACT: return dot_kernel<MMA_TREE_EXACT>;
    case MMA_TREE_IEEE: return dot_kernel<MMA_TREE_IEEE>;
    case MMA_TREE_CHAINS: return dot_kernel<MMA_TREE_CHAINS>;
    }
    return NULL;
}

static int errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int errf(char *err, size_t len, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int cuda_err(cudaError_t e, const char *what, char *err, size_t len)
{
    if (e == cudaSuccess) return 0;
    return errf(err, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

int mma_cuda_device(char *name, size_t namelen, char *err, size_t errlen)
{
    int n = 0, dev = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) return errf(err, errlen, "no CUDA device: %s", cudaGetErrorString(e));
    if (n == 0) return errf(err, errlen, "no CUDA device: the driver sees none");
    cudaDeviceProp p;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess || (e = cudaGetDeviceProperties(&p, dev)) != cudaSuccess)
        return cuda_err(e, "CUDA device", err, errlen);
    if (name && namelen) snprintf(name, namelen, "%s (device %d of %d, sm_%d%d, %d multiprocessors)", p.name, dev, n,
                                  p.major, p.minor, p.multiProcessorCount);
    return 0;
}

/* 256 threads a block: on an H200 the fastest of 32 to 256 for QGMMA and
 * HGMMA (docs/data/cuda_launch_h200.txt) */
static int launch_block = 256, launch_per_sm = 0;

void mma_cuda_launch(int block, int blocks_per_sm)
{
    launch_block = block > 0 && block <= MAX_BLOCK ? (block + 31) / 32 * 32 : 256;
    launch_per_sm = blocks_per_sm > 0 ? blocks_per_sm : 0;
}

/* What a launch of tree t's kernel on device dev needs, found once: the
 * blocks of launch_block threads that fit a multiprocessor, the number of
 * multiprocessors; and the per-thread stack raised to the kernel's frame
 * (the pairwise tree recurses, which ptxas cannot count: room for that).
 * The stack limit is a device-wide setting, raised, never lowered. */
#define MAX_DEV 64
static struct { int ready, block, fit, sms; } setup[MAX_DEV][MMA_TREE_CHAINS + 1];
static pthread_mutex_t setup_mu = PTHREAD_MUTEX_INITIALIZER;

static int kernel_setup(mma_tree t, int *fit, int *sms, char *err, size_t errlen)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return cuda_err(e, "CUDA device", err, errlen);
    if (dev < 0 || dev >= MAX_DEV || (int)t < 0 || t > MMA_TREE_CHAINS) return errf(err, errlen, "CUDA device %d", dev);
    pthread_mutex_lock(&setup_mu);
    int rc = 0;
    if (!setup[dev][t].ready || setup[dev][t].block != launch_block) {
        kernel_fn fn = kernel_of(t);
        cudaFuncAttributes fa;
        size_t have = 0;
        int f = 0, m = 0;
        if ((e = cudaFuncGetAttributes(&fa, (const void *)fn)) != cudaSuccess ||
            (e = cudaDeviceGetAttribute(&m, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f, (const void *)fn, launch_block, 0)) != cudaSuccess ||
            (e = cudaDeviceGetLimit(&have, cudaLimitStackSize)) != cudaSuccess)
            rc = cuda_err(e, "CUDA kernel", err, errlen);
        size_t want = fa.localSizeBytes + (t == MMA_TREE_PAIRWISE ? 4096 : 1024);
        if (!rc && have < want) rc = cuda_err(cudaDeviceSetLimit(cudaLimitStackSize, want), "CUDA stack size", err, errlen);
        if (!rc) {
            setup[dev][t].fit = f > 0 ? f : 1;
            setup[dev][t].sms = m;
            setup[dev][t].block = launch_block;
            setup[dev][t].ready = 1;
        }
    }
    *fit = setup[dev][t].fit;
    *sms = setup[dev][t].sms;
    pthread_mutex_unlock(&setup_mu);
    return rc;
}

/* p is memory of the current device (or NULL) */
static int on_device(const void *p, const char *name, char *err, size_t errlen)
{
    if (!p) return 0;
    cudaPointerAttributes at;
    cudaError_t e = cudaPointerGetAttributes(&at, p);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return errf(err, errlen, "%s: %s", name, cudaGetErrorString(e));
    }
    int dev = 0;
    cudaGetDevice(&dev);
    if (at.type != cudaMemoryTypeDevice && at.type != cudaMemoryTypeManaged)
        return errf(err, errlen, "%s: host memory (mma_batch_dot_cuda takes device memory; mma_batch_dot_cuda_copy "
                                 "takes host arrays)", name);
    if (at.device != dev) return errf(err, errlen, "%s: memory of CUDA device %d, not of the current device %d", name,
                                      at.device, dev);
    return 0;
}

/* Which kernels: the specialized ones where they apply (fast_kernels.cuh)
 * or the reference path's alone; MMAREF_CUDA_KERNELS=reference at start.
 * The copies of each 8-bit table in shared memory: 32 (one a bank) or
 * MMAREF_CUDA_TABLE_COPIES (1 to 32, a power of two), read once. */
static int kernels_mode = -1, table_copies = 0;

static int kernels_now(void)
{
    if (kernels_mode < 0) {
        const char *e = getenv("MMAREF_CUDA_KERNELS");
        kernels_mode = e && !strcmp(e, "reference") ? MMA_CUDA_KERNELS_REFERENCE : MMA_CUDA_KERNELS_AUTO;
    }
    return kernels_mode;
}

void mma_cuda_kernels(int mode)
{
    kernels_mode = mode == MMA_CUDA_KERNELS_REFERENCE ? mode : MMA_CUDA_KERNELS_AUTO;
}

static int copies_now(void)
{
    if (!table_copies) {
        const char *e = getenv("MMAREF_CUDA_TABLE_COPIES");
        int v = e ? atoi(e) : 32;
        table_copies = is_pow2(v) && v <= 32 ? v : 32;
    }
    return table_copies;
}

/* 0, or the specialized kernel's row + 1 (P filled); mode -1: the
 * current one */
static int fx_choose(const mma_unit *u, const mma_batch *x, fx_plan *P, int mode)
{
    if ((mode < 0 ? kernels_now() : mode) != MMA_CUDA_KERNELS_AUTO) return 0;
    return fx_plan_make(u, x, P);
}

int mma_cuda_specialized(const mma_unit *u, const mma_batch *x)
{
    fx_plan *P = (fx_plan *)malloc(sizeof *P);
    int r = P ? fx_choose(u, x, P, -1) != 0 : 0;
    free(P);
    return r;
}

/* The specialized kernels' launch: as kernel_setup, per shape and shared
 * memory size (the tables' copies) */
static struct { int ready, block, fit, sms; size_t smem; } fx_setup[MAX_DEV][FX_NSHAPES];

static int fx_kernel_setup(int row, size_t smem, int *fit, int *sms, char *err, size_t errlen)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return cuda_err(e, "CUDA device", err, errlen);
    if (dev < 0 || dev >= MAX_DEV) return errf(err, errlen, "CUDA device %d", dev);
    pthread_mutex_lock(&setup_mu);
    int rc = 0;
    if (!fx_setup[dev][row].ready || fx_setup[dev][row].block != launch_block || fx_setup[dev][row].smem != smem) {
        const void *fn = (const void *)fx_shapes[row].dev;
        cudaFuncAttributes fa;
        size_t have = 0;
        int f = 0, m = 0;
        if ((e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)) != cudaSuccess ||
            (e = cudaFuncGetAttributes(&fa, fn)) != cudaSuccess ||
            (e = cudaDeviceGetAttribute(&m, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f, fn, launch_block, smem)) != cudaSuccess ||
            (e = cudaDeviceGetLimit(&have, cudaLimitStackSize)) != cudaSuccess)
            rc = cuda_err(e, "CUDA kernel", err, errlen);
        size_t want = fa.localSizeBytes + 1024;
        if (!rc && have < want) rc = cuda_err(cudaDeviceSetLimit(cudaLimitStackSize, want), "CUDA stack size", err, errlen);
        if (!rc) {
            fx_setup[dev][row].fit = f > 0 ? f : 1;
            fx_setup[dev][row].sms = m;
            fx_setup[dev][row].block = launch_block;
            fx_setup[dev][row].smem = smem;
            fx_setup[dev][row].ready = 1;
        }
    }
    *fit = fx_setup[dev][row].fit;
    *sms = fx_setup[dev][row].sms;
    pthread_mutex_unlock(&setup_mu);
    return rc;
}

/* x on device memory, checked: queue the kernel.  A grid of at most the
 * blocks that fit the device at once, each thread taking every stride-th
 * vector. */
static int launch(const mma_unit *u, const mma_batch *x, cudaStream_t s, int mode, char *err, size_t errlen)
{
    int fit = 1, sms = 1;
    mma_batch xd = *x;
    xd.threads = 0;
    fx_plan P;           /* (2 kB on the caller's stack: a thread_local this size fails to load in Python) */
    int row = fx_choose(u, x, &P, mode);
    if (row) {
        row--;
        P.rep = P.tabs ? copies_now() : 1;
        size_t smem = (size_t)P.tabs * FX_TAB * (size_t)P.rep * sizeof(uint32_t);
        if (fx_kernel_setup(row, smem, &fit, &sms, err, errlen)) return -1;
        long per = launch_per_sm > 0 && launch_per_sm < fit ? launch_per_sm : fit;
        size_t want = (x->n + (size_t)launch_block - 1) / (size_t)launch_block, most = (size_t)sms * (size_t)per;
        int grid = (int)(want < most ? want : most);
        fx_shapes[row].dev<<<grid, launch_block, smem, s>>>(*u, xd, P);
        return cuda_err(cudaGetLastError(), "CUDA launch", err, errlen);
    }
    kernel_fn fn = kernel_of(u->tree);
    if (!fn) return errf(err, errlen, "unit: unknown tree %d", (int)u->tree);
    if (kernel_setup(u->tree, &fit, &sms, err, errlen)) return -1;
    long per = launch_per_sm > 0 && launch_per_sm < fit ? launch_per_sm : fit;
    size_t want = (x->n + (size_t)launch_block - 1) / (size_t)launch_block, most = (size_t)sms * (size_t)per;
    int grid = (int)(want < most ? want : most);
    fn<<<grid, launch_block, 0, s>>>(*u, xd);
    return cuda_err(cudaGetLastError(), "CUDA launch", err, errlen);
}

int mma_batch_dot_cuda(const mma_unit *u, const mma_batch *x, void *stream, char *err, size_t errlen)
{
    if (mma_batch_check(u, x, err, errlen)) return -1;
    if (!x->n) return 0;
    int ns = nscales(u);
    if (on_device(x->c, "c", err, errlen) || on_device(x->a, "a", err, errlen) || on_device(x->b, "b", err, errlen) ||
        on_device(x->d, "d", err, errlen) || on_device(x->flags, "flags", err, errlen) ||
        (ns && (on_device(x->sa, "sa", err, errlen) || on_device(x->sb, "sb", err, errlen))))
        return -1;
    return launch(u, x, (cudaStream_t)stream, -1, err, errlen);
}

int mma_cuda_sync(void *stream, char *err, size_t errlen)
{
    return cuda_err(cudaStreamSynchronize((cudaStream_t)stream), "CUDA kernel", err, errlen);
}

/* ---- host arrays: device copies ------------------------------------------ */

#define PIECE ((size_t)1 << 24)

/* Device buffers for pieces of up to cap vectors, in x's layout (c, a,
 * b, sa, sb, d, flags), grown as needed, and a stream of their own */
struct mma_cuda_ctx {
    void *p[7];
    size_t bytes[7];
    cudaStream_t s;
};

mma_cuda_ctx *mma_cuda_ctx_new(char *err, size_t errlen)
{
    if (mma_cuda_device(NULL, 0, err, errlen)) return NULL;
    mma_cuda_ctx *c = (mma_cuda_ctx *)calloc(1, sizeof *c);
    if (!c) { errf(err, errlen, "out of memory"); return NULL; }
    if (cuda_err(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking), "CUDA stream", err, errlen)) {
        free(c);
        return NULL;
    }
    return c;
}

void mma_cuda_ctx_free(mma_cuda_ctx *c)
{
    if (!c) return;
    for (int i = 0; i < 7; i++) if (c->p[i]) cudaFree(c->p[i]);
    cudaStreamDestroy(c->s);
    free(c);
}

/* device buffers for n vectors of u in x's layout; the batch xd on them */
static int ctx_reserve(mma_cuda_ctx *c, const mma_unit *u, const mma_batch *x, size_t n, mma_batch *xd, char *err,
                       size_t errlen)
{
    size_t k = (size_t)u->k, ns = (size_t)nscales(u);
    size_t want[7] = {n * (size_t)x->c_size, n * k * (size_t)x->a_size, n * k * (size_t)x->b_size,
                      ns ? n * ns * (size_t)x->sa_size : 0, ns ? n * ns * (size_t)x->sb_size : 0,
                      n * (size_t)x->d_size, x->flags ? n : 0};
    for (int i = 0; i < 7; i++) {
        if (want[i] <= c->bytes[i]) continue;
        if (c->p[i]) cudaFree(c->p[i]);
        c->p[i] = NULL;
        c->bytes[i] = 0;
        size_t b = want[i] + want[i] / 4;     /* (room to grow) */
        cudaError_t e = cudaMalloc(&c->p[i], b);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return errf(err, errlen, "out of GPU memory (%zu bytes for %zu vectors): %s", b, n, cudaGetErrorString(e));
        }
        c->bytes[i] = b;
    }
    *xd = *x;
    xd->n = n;
    xd->c = c->p[0]; xd->a = c->p[1]; xd->b = c->p[2];
    xd->sa = ns ? c->p[3] : NULL; xd->sb = ns ? c->p[4] : NULL;
    xd->d = c->p[5]; xd->flags = x->flags ? (uint8_t *)c->p[6] : NULL;
    return 0;
}

/* vectors [lo, lo + n) of x to the device buffers of xd, on c's stream */
static cudaError_t ctx_put(mma_cuda_ctx *c, const mma_unit *u, const mma_batch *x, const mma_batch *xd, size_t lo,
                           size_t n)
{
    size_t k = (size_t)u->k, ns = (size_t)nscales(u);
    cudaError_t e = cudaSuccess;
#define PUT(dst, src, per, size)                                                                                   \
    if (e == cudaSuccess)                                                                                          \
        e = cudaMemcpyAsync((void *)(dst), (const char *)(src) + lo * (per) * (size_t)(size),                     \
                            n * (per) * (size_t)(size), cudaMemcpyHostToDevice, c->s)
    PUT(xd->c, x->c, 1, x->c_size);
    PUT(xd->a, x->a, k, x->a_size);
    PUT(xd->b, x->b, k, x->b_size);
    if (ns) {
        PUT(xd->sa, x->sa, ns, x->sa_size);
        PUT(xd->sb, x->sb, ns, x->sb_size);
    }
#undef PUT
    return e;
}

static cudaError_t ctx_get(mma_cuda_ctx *c, const mma_batch *x, const mma_batch *xd, size_t lo, size_t n)
{
    cudaError_t e = cudaMemcpyAsync((char *)x->d + lo * (size_t)x->d_size, xd->d, n * (size_t)x->d_size,
                                    cudaMemcpyDeviceToHost, c->s);
    if (e == cudaSuccess && x->flags) e = cudaMemcpyAsync(x->flags + lo, xd->flags, n, cudaMemcpyDeviceToHost, c->s);
    return e;
}

static int ctx_run(mma_cuda_ctx *c, const mma_unit *u, const mma_batch *x, int mode, char *err, size_t errlen)
{
    if (mma_batch_check(u, x, err, errlen)) return -1;
    if (!x->n) return 0;
    size_t cap = x->n < PIECE ? x->n : PIECE;
    mma_batch xd;
    if (ctx_reserve(c, u, x, cap, &xd, err, errlen)) return -1;
    for (size_t lo = 0; lo < x->n; lo += cap) {
        size_t n = x->n - lo < cap ? x->n - lo : cap;
        xd.n = n;
        if (cuda_err(ctx_put(c, u, x, &xd, lo, n), "copy to the GPU", err, errlen) ||
            launch(u, &xd, c->s, mode, err, errlen) ||
            cuda_err(ctx_get(c, x, &xd, lo, n), "copy from the GPU", err, errlen) || mma_cuda_sync(c->s, err, errlen))
            return -1;
    }
    return 0;
}

int mma_batch_dot_cuda_ctx(mma_cuda_ctx *c, const mma_unit *u, const mma_batch *x, char *err, size_t errlen)
{
    return ctx_run(c, u, x, -1, err, errlen);
}

int mma_batch_dot_cuda_copy_with(const mma_unit *u, const mma_batch *x, int mode, char *err, size_t errlen)
{
    if (mma_batch_check(u, x, err, errlen)) return -1;
    if (!x->n) return 0;
    mma_cuda_ctx *c = mma_cuda_ctx_new(err, errlen);
    if (!c) return -1;
    int rc = ctx_run(c, u, x, mode, err, errlen);
    mma_cuda_ctx_free(c);
    return rc;
}

int mma_batch_dot_cuda_copy(const mma_unit *u, const mma_batch *x, char *err, size_t errlen)
{
    return mma_batch_dot_cuda_copy_with(u, x, -1, err, errlen);
}

int mma_cuda_bench(const mma_unit *u, const mma_batch *x, int reps, double *seconds, char *err, size_t errlen)
{
    if (mma_batch_check(u, x, err, errlen)) return -1;
    if (x->n > PIECE * 8) return errf(err, errlen, "bench: at most %zu vectors", PIECE * 8);
    mma_cuda_ctx *c = mma_cuda_ctx_new(err, errlen);
    if (!c) return -1;
    mma_batch xd;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0;
    int rc = ctx_reserve(c, u, x, x->n ? x->n : 1, &xd, err, errlen);
    xd.n = x->n;
    /* (the first run, not timed: module load, the stack size) */
    if (!rc) rc = cuda_err(ctx_put(c, u, x, &xd, 0, x->n), "copy to the GPU", err, errlen) ||
                  launch(u, &xd, c->s, -1, err, errlen) || mma_cuda_sync(c->s, err, errlen) ? -1 : 0;
    if (!rc && (cuda_err(cudaEventCreate(&e0), "CUDA event", err, errlen) ||
                cuda_err(cudaEventCreate(&e1), "CUDA event", err, errlen)))
        rc = -1;
    if (!rc) {
        cudaEventRecord(e0, c->s);
        for (int r = 0; !rc && r < reps; r++) rc = launch(u, &xd, c->s, -1, err, errlen);
        cudaEventRecord(e1, c->s);
        if (!rc && !(rc = cuda_err(cudaEventSynchronize(e1), "CUDA kernel", err, errlen)))
            rc = cuda_err(cudaEventElapsedTime(&ms, e0, e1), "CUDA event", err, errlen);
    }
    if (!rc) rc = cuda_err(ctx_get(c, x, &xd, 0, x->n), "copy from the GPU", err, errlen) || mma_cuda_sync(c->s, err, errlen);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    mma_cuda_ctx_free(c);
    *seconds = ms / 1e3;
    return rc ? -1 : 0;
}

static const char *fx_kind_name(int kind)
{
    return kind == FX_FUSED ? "FDA" : kind == FX_AMD ? "FDRDA" : "GDFS";
}

int mma_cuda_kernel_info(const mma_unit *u, char *buf, size_t len)
{
    cudaFuncAttributes fa;
    /* a batch at natural sizes, 16-byte aligned (never read) */
    mma_batch x;
    mma_batch_init(&x);
    x.a_size = mma_natural_size(u->a);
    x.b_size = mma_natural_size(u->b);
    x.a = x.b = (const void *)(uintptr_t)256;
    fx_plan *P = (fx_plan *)malloc(sizeof *P);
    int row = P ? fx_choose(u, &x, P, -1) : 0, fit = 0;
    const void *fn = row ? (const void *)fx_shapes[row - 1].dev : (const void *)kernel_of(u->tree);
    size_t smem = row ? (size_t)P->tabs * FX_TAB * (size_t)copies_now() * sizeof(uint32_t) : 0;
    free(P);
    if (!fn || (row && cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) ||
        cudaFuncGetAttributes(&fa, fn) != cudaSuccess) {
        cudaGetLastError();
        return snprintf(buf, len, "?");
    }
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, fn, launch_block, smem);
    if (row)
        return snprintf(buf, len, "specialized %s L=%d (%d+%d B), regs %d, local %zu B, shared %zu B, %d blocks of %d a multiprocessor",
                        fx_kind_name(fx_shapes[row - 1].kind), fx_shapes[row - 1].L, fx_shapes[row - 1].as,
                        fx_shapes[row - 1].bs, fa.numRegs, fa.localSizeBytes, smem, fit, launch_block);
    return snprintf(buf, len, "reference, regs %d, local %zu B, %d blocks of %d a multiprocessor", fa.numRegs,
                    fa.localSizeBytes, fit, launch_block);
}

/* ---- the kernel body on the host ------------------------------------------ */

typedef struct {
    const mma_unit *u;
    const mma_batch *x;
    const fx_plan *P;
    int row;             /* the specialized kernel's row + 1, or 0 */
} host_job;

static void host_chunk(void *ctx, int tid, long lo, long hi)
{
    (void)tid;
    const host_job *j = (const host_job *)ctx;
    if (j->row) {
        fx_shapes[j->row - 1].host(j->u, j->x, j->P, lo, hi);
        return;
    }
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_MAX_SCALES], sb[MMA_MAX_SCALES];
    for (long i = lo; i < hi; i++) dot_one(j->u->tree, j->u, j->x, (size_t)i, a, b, sa, sb);
}

int mma_batch_dot_cuda_host_with(const mma_unit *u, const mma_batch *x, int mode, char *err, size_t errlen)
{
    if (mma_batch_check(u, x, err, errlen)) return -1;
    fx_plan *P = (fx_plan *)malloc(sizeof *P);
    if (!P) return errf(err, errlen, "out of memory");
    host_job j = {u, x, P, fx_choose(u, x, P, mode)};
    mma_parallel_for((long)x->n, 256, x->threads, host_chunk, &j, NULL, NULL);
    free(P);
    return 0;
}

int mma_batch_dot_cuda_host(const mma_unit *u, const mma_batch *x, char *err, size_t errlen)
{
    return mma_batch_dot_cuda_host_with(u, x, -1, err, errlen);
}
