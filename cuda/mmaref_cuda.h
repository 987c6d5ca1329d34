/*
 * mmaref on a CUDA GPU: batches of dot products (mma_batch, mmaref_parallel.h)
 * computed by the model's own reference path compiled for the device (the
 * functions marked MMA_HD in model/src), one GPU thread a dot product.  The
 * results are the bits mma_batch_dot gives on the CPU.
 *
 * Link libmmaref_cuda.a before libmmaref.a, with the CUDA runtime
 * (-lcudart_static -ldl -lrt -lpthread, or -lcudart).  This header needs
 * no CUDA header: a stream is passed as void * (a cudaStream_t).
 */
#ifndef MMAREF_CUDA_H
#define MMAREF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "mmaref.h"
#include "mmaref_parallel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 0 when a CUDA device can be used, its name in name (may be NULL); else
 * -1 with why in err ("no CUDA device: ...", "CUDA driver too old"). */
int mma_cuda_device(char *name, size_t namelen, char *err, size_t errlen);

/* Computes the batch x of u on the current CUDA device: every array of x
 * (c, a, b, sa, sb, d, flags) is device memory, its elements of the sizes
 * x says, as mma_batch_dot takes them (x->threads is not used).  The work
 * is queued on stream (a cudaStream_t; NULL: the default stream) and the
 * call returns without waiting: d and flags are complete once the stream
 * is (mma_cuda_sync).  Returns 0; or -1 with a message in err, nothing
 * queued, for what mma_batch_check refuses, an array that is host memory
 * or of another device, or a launch the device refuses. */
int mma_batch_dot_cuda(const mma_unit *u, const mma_batch *x, void *stream, char *err, size_t errlen);

/* Waits for stream; 0, or -1 with the error of a kernel that failed. */
int mma_cuda_sync(void *stream, char *err, size_t errlen);

/* The same batch with every array in host memory: copied to the device in
 * pieces of at most 2^24 vectors, computed there, d and flags copied back;
 * returns when done.  0, or -1 with a message (out of GPU memory, ...). */
int mma_batch_dot_cuda_copy(const mma_unit *u, const mma_batch *x, char *err, size_t errlen);

/* A context for calls from one thread: its own CUDA stream and device
 * buffers kept between calls (grown as needed), so that many batches from
 * several threads overlap on the GPU.  NULL, with why in err, when no
 * device can be used. */
typedef struct mma_cuda_ctx mma_cuda_ctx;
mma_cuda_ctx *mma_cuda_ctx_new(char *err, size_t errlen);
void mma_cuda_ctx_free(mma_cuda_ctx *c);
/* mma_batch_dot_cuda_copy through the context's stream and buffers. */
int mma_batch_dot_cuda_ctx(mma_cuda_ctx *c, const mma_unit *u, const mma_batch *x, char *err, size_t errlen);

/* The GPU's speed on the batch x (host arrays, copied to the device once):
 * the kernel run reps times over it (after one run not counted), timed by
 * CUDA events.  *seconds: the time of the reps runs; d holds the results.
 * 0, or -1 with a message. */
int mma_cuda_bench(const mma_unit *u, const mma_batch *x, int reps, double *seconds, char *err, size_t errlen);

/* The kernel's launch: threads per block (0: the default, 256) and
 * blocks per multiprocessor (0: as many as fit).  For all later calls. */
void mma_cuda_launch(int block, int blocks_per_sm);

/* Which kernels compute: MMA_CUDA_KERNELS_AUTO (the default: a
 * specialized kernel where the unit's family and step shape have one,
 * docs/cuda.md, else the reference path's), MMA_CUDA_KERNELS_REFERENCE
 * (the reference path's kernel for every unit: tests compare the two).
 * For all later calls, the host-compiled body included.  The environment
 * variable MMAREF_CUDA_KERNELS=reference sets the second at start. */
enum { MMA_CUDA_KERNELS_AUTO = 0, MMA_CUDA_KERNELS_REFERENCE = 1 };
void mma_cuda_kernels(int mode);

/* 1 when the batch x of u (its element sizes and the alignment of a and
 * b, 16 bytes) takes a specialized kernel under the current mode, else 0. */
int mma_cuda_specialized(const mma_unit *u, const mma_batch *x);

/* mma_batch_dot_cuda_copy and mma_batch_dot_cuda_host with the kernels of
 * mode (MMA_CUDA_KERNELS_*) for this call alone, whatever the current
 * mode: tests run both kernels of a unit side by side. */
int mma_batch_dot_cuda_copy_with(const mma_unit *u, const mma_batch *x, int mode, char *err, size_t errlen);
int mma_batch_dot_cuda_host_with(const mma_unit *u, const mma_batch *x, int mode, char *err, size_t errlen);

/* What the kernel that computes u at natural sizes uses: which kernel,
 * registers and local memory bytes per thread (a line such as
 * "specialized FDA L=32 (1+1 B), regs 64, local 0 B, ..."), for bench. */
int mma_cuda_kernel_info(const mma_unit *u, char *buf, size_t len);

/* The batch x (host arrays) through the GPU kernel's body compiled for the
 * host: the code each GPU thread runs, on all cores, for tests on machines
 * without a GPU (it needs no device).  0, or -1 as mma_batch_dot. */
int mma_batch_dot_cuda_host(const mma_unit *u, const mma_batch *x, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
