/* mmaref hardware capture: one kernel per instruction.
 *
 * Each vector is one dot product d = c + sum_k a[k]*b[k]. Eight vectors share
 * one instruction: vector v of the group goes to row v of A, column v of B and
 * C[v][v]; D[v][v] is read back. Every other element of A and C is zero; B
 * has only 8 columns. Operands are raw bit patterns packed into registers; the
 * only conversions are register reinterpretations (__uint_as_float and the
 * like), which move bits unchanged.
 *
 * Register fragments (PTX ISA, "Matrix fragments for mma.m16n8k*" and the
 * wgmma register fragment sections), g = lane/4, t = lane%4, E = elements per
 * 32-bit register (4 fp8, 2 f16/bf16, 1 tf32; f64 registers hold one):
 *   A register r, element j:  row g + 8*(r%2),  k = (r/2)*4E + E*t + j
 *   B register r, element j:  col g,            k = r*4E + E*t + j
 *   C/D logical element e:    row g + 8*(e/2),  col 2t + e%2
 *     (f32/f64: one element a register; f16: elements 2q, 2q+1 are the low
 *      and high halves of register q)
 * mma.m8n8k4.f64 is the first half of the same rules (A r=0, C e<2).
 * wgmma uses the same rules per warp with rows offset by 16*warp; the 64x8
 * tile has its diagonal in warp 0. Its B lives in shared memory, K-major,
 * no swizzle: two 8x16-byte core matrices (k bytes 0-15 then 16-31), each
 * row n at 16*n, the second core matrix 128 bytes after the first.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>
#include <stdio.h>

#include "instrs.h"

__host__ __device__ constexpr int fmt_bits(int f) {
  return (f == HW_E4M3 || f == HW_E5M2) ? 8
         : (f == HW_F16 || f == HW_BF16) ? 16
         : (f == HW_F64)                 ? 64
                                         : 32;
}

__device__ __forceinline__ uint64_t fmt_mask(int bits) {
  return bits == 64 ? ~0ull : ((1ull << bits) - 1);
}

/* ---- instruction forms: how registers are handed to the PTX instruction --- */

#define U32(x) ((uint32_t)(x))

#define FORM_MMA_F32_A4B2(id, PTX, TAIL)                                            \
  struct op_##id {                                                                  \
    static constexpr int NA = 4, NB = 2, NCE = 4, DOUT = HW_F32, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      float d0 = __uint_as_float(U32(c[0])), d1 = __uint_as_float(U32(c[1]));       \
      float d2 = __uint_as_float(U32(c[2])), d3 = __uint_as_float(U32(c[3]));       \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"     \
                   : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                         \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(a[2])),                \
                     "r"(U32(a[3])), "r"(U32(b[0])), "r"(U32(b[1])));               \
      c[0] = __float_as_uint(d0); c[1] = __float_as_uint(d1);                        \
      c[2] = __float_as_uint(d2); c[3] = __float_as_uint(d3);                        \
    }                                                                               \
  };

#define FORM_MMA_F32_A2B1(id, PTX, TAIL)                                            \
  struct op_##id {                                                                  \
    static constexpr int NA = 2, NB = 1, NCE = 4, DOUT = HW_F32, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      float d0 = __uint_as_float(U32(c[0])), d1 = __uint_as_float(U32(c[1]));       \
      float d2 = __uint_as_float(U32(c[2])), d3 = __uint_as_float(U32(c[3]));       \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"              \
                   : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                         \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(b[0])));               \
      c[0] = __float_as_uint(d0); c[1] = __float_as_uint(d1);                        \
      c[2] = __float_as_uint(d2); c[3] = __float_as_uint(d3);                        \
    }                                                                               \
  };

/* f16 accumulators: c[q] holds the packed pair (low half = even element). */
#define FORM_MMA_F16_A4B2(id, PTX, TAIL)                                            \
  struct op_##id {                                                                  \
    static constexpr int NA = 4, NB = 2, NCE = 4, DOUT = HW_F16, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      uint32_t d0 = U32(c[0]), d1 = U32(c[1]);                                      \
      asm volatile(PTX " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"                 \
                   : "+r"(d0), "+r"(d1)                                             \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(a[2])),                \
                     "r"(U32(a[3])), "r"(U32(b[0])), "r"(U32(b[1])));               \
      c[0] = d0; c[1] = d1;                                                         \
    }                                                                               \
  };

#define FORM_MMA_F16_A2B1(id, PTX, TAIL)                                            \
  struct op_##id {                                                                  \
    static constexpr int NA = 2, NB = 1, NCE = 4, DOUT = HW_F16, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      uint32_t d0 = U32(c[0]), d1 = U32(c[1]);                                      \
      asm volatile(PTX " {%0,%1}, {%2,%3}, {%4}, {%0,%1};"                          \
                   : "+r"(d0), "+r"(d1)                                             \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(b[0])));               \
      c[0] = d0; c[1] = d1;                                                         \
    }                                                                               \
  };

#define D64(x) __longlong_as_double((long long)(x))
#define B64(x) ((uint64_t)__double_as_longlong(x))

#define FORM_DMMA_A1B1C2(id, PTX, TAIL)                                             \
  struct op_##id {                                                                  \
    static constexpr int NA = 1, NB = 1, NCE = 2, DOUT = HW_F64, M8 = 1;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      double d0 = D64(c[0]), d1 = D64(c[1]);                                        \
      asm volatile(PTX " {%0,%1}, {%2}, {%3}, {%0,%1};"                             \
                   : "+d"(d0), "+d"(d1)                                             \
                   : "d"(D64(a[0])), "d"(D64(b[0])));                               \
      c[0] = B64(d0); c[1] = B64(d1);                                               \
    }                                                                               \
  };

#define FORM_DMMA_A2B1(id, PTX, TAIL)                                               \
  struct op_##id {                                                                  \
    static constexpr int NA = 2, NB = 1, NCE = 4, DOUT = HW_F64, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      double d0 = D64(c[0]), d1 = D64(c[1]), d2 = D64(c[2]), d3 = D64(c[3]);        \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"              \
                   : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)                         \
                   : "d"(D64(a[0])), "d"(D64(a[1])), "d"(D64(b[0])));               \
      c[0] = B64(d0); c[1] = B64(d1); c[2] = B64(d2); c[3] = B64(d3);               \
    }                                                                               \
  };

#define FORM_DMMA_A4B2(id, PTX, TAIL)                                               \
  struct op_##id {                                                                  \
    static constexpr int NA = 4, NB = 2, NCE = 4, DOUT = HW_F64, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      double d0 = D64(c[0]), d1 = D64(c[1]), d2 = D64(c[2]), d3 = D64(c[3]);        \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"     \
                   : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)                         \
                   : "d"(D64(a[0])), "d"(D64(a[1])), "d"(D64(a[2])),                \
                     "d"(D64(a[3])), "d"(D64(b[0])), "d"(D64(b[1])));               \
      c[0] = B64(d0); c[1] = B64(d1); c[2] = B64(d2); c[3] = B64(d3);               \
    }                                                                               \
  };

#define FORM_DMMA_A8B4(id, PTX, TAIL)                                               \
  struct op_##id {                                                                  \
    static constexpr int NA = 8, NB = 4, NCE = 4, DOUT = HW_F64, M8 = 0;            \
    __device__ static void run(const uint64_t *a, const uint64_t *b, uint64_t *c) { \
      double d0 = D64(c[0]), d1 = D64(c[1]), d2 = D64(c[2]), d3 = D64(c[3]);        \
      asm volatile(PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11},"               \
                       " {%12,%13,%14,%15}, {%0,%1,%2,%3};"                         \
                   : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)                         \
                   : "d"(D64(a[0])), "d"(D64(a[1])), "d"(D64(a[2])),                \
                     "d"(D64(a[3])), "d"(D64(a[4])), "d"(D64(a[5])),                \
                     "d"(D64(a[6])), "d"(D64(a[7])), "d"(D64(b[0])),                \
                     "d"(D64(b[1])), "d"(D64(b[2])), "d"(D64(b[3])));               \
      c[0] = B64(d0); c[1] = B64(d1); c[2] = B64(d2); c[3] = B64(d3);               \
    }                                                                               \
  };

/* wgmma: A from registers, B by shared-memory descriptor, D += A*B
 * (scale-d = 1). fence / commit / wait around the one instruction. */
#define WG_PRE(ONE) "{\n.reg .pred p;\nsetp.ne.b32 p, " ONE ", 0;\nwgmma.fence.sync.aligned;\n"
#define WG_POST                                                                    \
  ";\nwgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n}"

#define FORM_WG_F32(id, PTX, TAIL)                                                  \
  struct op_##id {                                                                  \
    static constexpr int NA = 4, NCE = 4, DOUT = HW_F32;                            \
    __device__ static void run(const uint64_t *a, uint64_t desc, uint64_t *c) {     \
      float d0 = __uint_as_float(U32(c[0])), d1 = __uint_as_float(U32(c[1]));       \
      float d2 = __uint_as_float(U32(c[2])), d3 = __uint_as_float(U32(c[3]));       \
      asm volatile(WG_PRE("%9") PTX " {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, " TAIL WG_POST \
                   : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)                         \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(a[2])),                \
                     "r"(U32(a[3])), "l"(desc), "r"(1)                        \
                   : "memory");                                                     \
      c[0] = __float_as_uint(d0); c[1] = __float_as_uint(d1);                        \
      c[2] = __float_as_uint(d2); c[3] = __float_as_uint(d3);                        \
    }                                                                               \
  };

#define FORM_WG_F16(id, PTX, TAIL)                                                  \
  struct op_##id {                                                                  \
    static constexpr int NA = 4, NCE = 4, DOUT = HW_F16;                            \
    __device__ static void run(const uint64_t *a, uint64_t desc, uint64_t *c) {     \
      uint32_t d0 = U32(c[0]), d1 = U32(c[1]);                                      \
      asm volatile(WG_PRE("%7") PTX " {%0,%1}, {%2,%3,%4,%5}, %6, p, " TAIL WG_POST     \
                   : "+r"(d0), "+r"(d1)                                             \
                   : "r"(U32(a[0])), "r"(U32(a[1])), "r"(U32(a[2])),                \
                     "r"(U32(a[3])), "l"(desc), "r"(1)                        \
                   : "memory");                                                     \
      c[0] = d0; c[1] = d1;                                                         \
    }                                                                               \
  };

#define FAMILY_MMA_F32_A4B2 mma_body
#define FAMILY_MMA_F32_A2B1 mma_body
#define FAMILY_MMA_F16_A4B2 mma_body
#define FAMILY_MMA_F16_A2B1 mma_body
#define FAMILY_DMMA_A1B1C2 mma_body
#define FAMILY_DMMA_A2B1 mma_body
#define FAMILY_DMMA_A4B2 mma_body
#define FAMILY_DMMA_A8B4 mma_body
#define FAMILY_WG_F32 wg_body
#define FAMILY_WG_F16 wg_body
#define FAMILY_WMMA_16x16 wmma_body
#define FAMILY_WMMA_32x8 wmma_body
#define FAMILY_WMMA_8x32 wmma_body
#define FAMILY_WMMA_8x8 wmma_body

/* wmma forms: the tile shape; the CUDA C++ API issues the instruction */
#define WMMA_FORM(id, MM, NN) \
  struct op_##id {            \
    static constexpr int M = MM, N = NN; \
  };
#define FORM_WMMA_16x16(id, PTX, TAIL) WMMA_FORM(id, 16, 16)
#define FORM_WMMA_32x8(id, PTX, TAIL) WMMA_FORM(id, 32, 8)
#define FORM_WMMA_8x32(id, PTX, TAIL) WMMA_FORM(id, 8, 32)
#define FORM_WMMA_8x8(id, PTX, TAIL) WMMA_FORM(id, 8, 8)

/* ---- shared helpers ------------------------------------------------------- */

/* Register r of A for a vector row (row of the tile; only rows 0..7 carry
 * vectors), or of B for the vector in column `col`: E elements from k =
 * kbase on, of vector `vec` whose operands are `stride` long. */
template <int BITS>
__device__ __forceinline__ uint64_t pack_operand(const uint64_t *src, int stride, int vec, int kbase) {
  constexpr int E = BITS == 64 ? 1 : 32 / BITS;
  uint64_t w = 0;
#pragma unroll
  for (int j = 0; j < E; j++) {
    uint64_t x = src[(size_t)vec * stride + kbase + j] & fmt_mask(BITS);
    w |= x << (BITS == 64 ? 0 : BITS * j);
  }
  return w;
}

/* C element e (row, col) into the accumulator registers. */
template <int DOUT>
__device__ __forceinline__ void put_c(uint64_t *c, int e, uint64_t x) {
  if (DOUT == HW_F16)
    c[e >> 1] |= (x & 0xffff) << (16 * (e & 1));
  else
    c[e] = x;
}

template <int DOUT>
__device__ __forceinline__ uint64_t get_d(const uint64_t *c, int e) {
  if (DOUT == HW_F16) return (c[e >> 1] >> (16 * (e & 1))) & 0xffff;
  if (DOUT == HW_F32) return c[e] & 0xffffffffull;
  return c[e];
}

/* The truncation experiment (HW_MODE_BLOCKS / HW_MODE_FEED) after the call
 * that ends at product w + K: f32 accumulators c (every element of the
 * tile, each its own chain), outer FP32 registers r. */
template <int NCE, int K>
__device__ __forceinline__ void trunc_step(const hw_job &jb, int w, uint64_t *c, float *r) {
  const uint64_t mask = ~((1ull << jb.ntrun) - 1) & 0xffffffffull;
#pragma unroll
  for (int e = 0; e < NCE; e++) {
    if (jb.mode == HW_MODE_FEED) {
      c[e] &= mask;
    } else if ((w + K) % jb.nc == 0) {
      r[e] = __fadd_rn(r[e], __uint_as_float((uint32_t)(c[e] & mask)));
      c[e] = 0;
    }
  }
}

template <int NCE>
__device__ __forceinline__ void trunc_result(const hw_job &jb, uint64_t *c, const float *r) {
  if (jb.mode == HW_MODE_BLOCKS)
#pragma unroll
    for (int e = 0; e < NCE; e++) c[e] = __float_as_uint(r[e]);
}

/* ---- mma.sync: one warp per group of 8 vectors ---------------------------- */

/* CHAIN: the truncation experiment's kernel (f32 output only), else the
 * capture's: one call from the vector's c. */
template <class Op, int K, int BITS, int AT, int DT, bool CHAIN>
__device__ __forceinline__ void mma_body(const hw_job &jb) {
  if constexpr (CHAIN && Op::DOUT != HW_F32) return;
  constexpr int E = BITS == 64 ? 1 : 32 / BITS;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int nwarps = (int)((gridDim.x * blockDim.x) >> 5);
  const int ngroups = (jb.n + 7) / 8;
  const int kt = CHAIN ? jb.kt : K;
#pragma unroll 1
  for (int grp = warp; grp < ngroups; grp += nwarps) {
    const int base = grp * 8;
    uint64_t a[Op::NA], b[Op::NB], c[Op::NCE];
    float r[Op::NCE];
#pragma unroll
    for (int e = 0; e < Op::NCE; e++) c[e] = 0, r[e] = 0.0f;
    if (!CHAIN) {
#pragma unroll
      for (int e = 0; e < Op::NCE; e++) {
        const int row = g + 8 * (e >> 1), col = 2 * t + (e & 1);
        if (row == col && base + row < jb.n) put_c<Op::DOUT>(c, e, jb.c[base + row]);
      }
    }
#pragma unroll 1
    for (int w = 0; w < kt; w += K) {
#pragma unroll
      for (int r2 = 0; r2 < Op::NA; r2++) {
        const int row = g + 8 * (r2 & 1);
        a[r2] = (row < 8 && base + row < jb.n)
                    ? pack_operand<BITS>(jb.a, kt, base + row, w + (r2 >> 1) * 4 * E + E * t)
                    : 0;
      }
#pragma unroll
      for (int r2 = 0; r2 < Op::NB; r2++)
        b[r2] = (base + g < jb.n) ? pack_operand<BITS>(jb.b, kt, base + g, w + r2 * 4 * E + E * t) : 0;
      __syncwarp(); /* .aligned: the whole warp issues it together */
      Op::run(a, b, c);
      if constexpr (CHAIN) trunc_step<Op::NCE, K>(jb, w, c, r);
    }
    if constexpr (CHAIN) trunc_result<Op::NCE>(jb, c, r);
#pragma unroll
    for (int e = 0; e < Op::NCE; e++) {
      const int row = g + 8 * (e >> 1), col = 2 * t + (e & 1);
      if (row == col && base + row < jb.n) jb.d[base + row] = get_d<Op::DOUT>(c, e);
    }
  }
}

/* ---- wgmma: one warpgroup (the whole 128-thread block) per group ---------- */

__device__ __forceinline__ uint64_t smem_desc(const void *p) {
  const uint64_t addr = (uint64_t)__cvta_generic_to_shared(p);
  uint64_t d = (addr & 0x3ffff) >> 4;  /* start address, bits 0-13 */
  d |= (uint64_t)(128 >> 4) << 16;     /* leading-dimension byte offset */
  d |= (uint64_t)(128 >> 4) << 32;     /* stride-dimension byte offset */
  return d;                            /* base offset 0, no swizzle */
  /* With N = 8 there is one core matrix along N, so only the K-direction
   * offset (128 bytes) is used; both offsets are set to it. */
}

template <class Op, int K, int BITS, int AT, int DT, bool CHAIN>
__device__ __forceinline__ void wg_body(const hw_job &jb) {
  if constexpr (CHAIN && Op::DOUT != HW_F32) return;
  constexpr int E = 32 / BITS;
  __shared__ __align__(1024) uint32_t sB[64]; /* 8 (n) x 32 bytes (k) */
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int ngroups = (jb.n + 7) / 8;
  const int kt = CHAIN ? jb.kt : K;
#pragma unroll 1
  for (int grp = blockIdx.x; grp < ngroups; grp += gridDim.x) {
    const int base = grp * 8;
    uint64_t a[Op::NA], c[Op::NCE];
    float r[Op::NCE];
#pragma unroll
    for (int e = 0; e < Op::NCE; e++) c[e] = 0, r[e] = 0.0f;
    if (!CHAIN) {
#pragma unroll
      for (int e = 0; e < Op::NCE; e++) {
        const int row = 16 * warp + g + 8 * (e >> 1), col = 2 * t + (e & 1);
        if (row == col && base + row < jb.n) put_c<Op::DOUT>(c, e, jb.c[base + row]);
      }
    }
#pragma unroll 1
    for (int w = 0; w < kt; w += K) {
      __syncthreads(); /* the previous wgmma has completed (wait_group 0) */
      if (tid < 64) {
        const int off = 4 * tid;             /* byte offset of this word */
        const int cm = off >> 7;             /* core matrix: k bytes 0-15 / 16-31 */
        const int nn = (off & 127) >> 4;     /* row n within the core matrix */
        const int kb = cm * (128 / BITS) + ((off & 15) * 8) / BITS;
        sB[tid] = (base + nn < jb.n) ? (uint32_t)pack_operand<BITS>(jb.b, kt, base + nn, w + kb) : 0u;
      }
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
#pragma unroll
      for (int r2 = 0; r2 < Op::NA; r2++) {
        const int row = 16 * warp + g + 8 * (r2 & 1);
        a[r2] = (row < 8 && base + row < jb.n)
                    ? pack_operand<BITS>(jb.a, kt, base + row, w + (r2 >> 1) * 4 * E + E * t)
                    : 0;
      }
      __syncwarp(); /* .aligned: every warp of the warpgroup converged */
      Op::run(a, smem_desc(sB), c);
      if constexpr (CHAIN) trunc_step<Op::NCE, K>(jb, w, c, r);
    }
    if constexpr (CHAIN) trunc_result<Op::NCE>(jb, c, r);
#pragma unroll
    for (int e = 0; e < Op::NCE; e++) {
      const int row = 16 * warp + g + 8 * (e >> 1), col = 2 * t + (e & 1);
      if (row == col && base + row < jb.n) jb.d[base + row] = get_d<Op::DOUT>(c, e);
    }
  }
}

/* ---- wmma: one warp per group of min(M, N) vectors ------------------------- */

/* Fragment element types of the CUDA C++ wmma API and the storage the
 * fragments are loaded from (the raw bit patterns, reinterpreted). */
template <int F> struct wtype;
template <> struct wtype<HW_F16> { typedef half frag; typedef half mem; typedef uint16_t raw; };
template <> struct wtype<HW_BF16> { typedef __nv_bfloat16 frag; typedef __nv_bfloat16 mem; typedef uint16_t raw; };
template <> struct wtype<HW_TF32> { typedef nvcuda::wmma::precision::tf32 frag; typedef float mem; typedef uint32_t raw; };
template <> struct wtype<HW_F32> { typedef float frag; typedef float mem; typedef uint32_t raw; };
template <> struct wtype<HW_F64> { typedef double frag; typedef double mem; typedef uint64_t raw; };

/* Vector v of a group is row v of A (M x K, row-major), column v of B
 * (K x N, column-major) and C[v][v] (M x N, row-major); every other element
 * is zero.  load_matrix_sync moves the bits unchanged (tf32 included: the
 * low 13 bits reach the HMMA, as with mma.sync). */
template <class Op, int K, int BITS, int AT, int DT, bool CHAIN>
__device__ __forceinline__ void wmma_body(const hw_job &jb) {
  if constexpr (CHAIN) return;
  using namespace nvcuda;
  constexpr int M = Op::M, N = Op::N, G = M < N ? M : N, WARPS = 8;
  typedef typename wtype<AT>::raw RA;
  typedef typename wtype<DT>::raw RC;
  __shared__ __align__(128) RA sA[WARPS][M * K];
  __shared__ __align__(128) RA sB[WARPS][K * N];
  __shared__ __align__(128) RC sC[WARPS][M * N];
  const int lane = threadIdx.x & 31, wb = (threadIdx.x >> 5) % WARPS;
  const int warp = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int nwarps = (int)((gridDim.x * blockDim.x) >> 5);
  const int ngroups = (jb.n + G - 1) / G;
#pragma unroll 1
  for (int grp = warp; grp < ngroups; grp += nwarps) {
    const int base = grp * G;
    for (int i = lane; i < M * K; i += 32) {
      const int row = i / K, k = i % K;
      sA[wb][i] = (RA)((row < G && base + row < jb.n) ? jb.a[(size_t)(base + row) * K + k] & fmt_mask(BITS) : 0);
    }
    for (int i = lane; i < K * N; i += 32) {
      const int col = i / K, k = i % K;
      sB[wb][i] = (RA)((col < G && base + col < jb.n) ? jb.b[(size_t)(base + col) * K + k] & fmt_mask(BITS) : 0);
    }
    for (int i = lane; i < M * N; i += 32) {
      const int row = i / N, col = i % N;
      sC[wb][i] = (RC)((row == col && base + row < jb.n) ? jb.c[base + row] : 0);
    }
    __syncwarp();
    typedef typename wtype<AT>::frag FA;
    typedef typename wtype<AT>::mem MA;
    typedef typename wtype<DT>::frag FC;
    wmma::fragment<wmma::matrix_a, M, N, K, FA, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, FA, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, FC> fc;
    wmma::load_matrix_sync(fa, reinterpret_cast<const MA *>(sA[wb]), K);
    wmma::load_matrix_sync(fb, reinterpret_cast<const MA *>(sB[wb]), K);
    wmma::load_matrix_sync(fc, reinterpret_cast<const FC *>(sC[wb]), N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(reinterpret_cast<FC *>(sC[wb]), fc, N, wmma::mem_row_major);
    __syncwarp();
    if (lane < G && base + lane < jb.n) jb.d[base + lane] = sC[wb][lane * N + lane];
    __syncwarp();
  }
}

/* ---- the kernels ---------------------------------------------------------- */

#define DEFINE_OP(id, q, form, K, at, bt, dt, ptx, tail) FORM_##form(id, ptx, tail)
HW_INSTR_LIST(DEFINE_OP)

/* cap_<id>: the capture; trn_<id>: the truncation experiment (an empty
 * kernel for instructions without f32 output).  gen_sass_table.py reads
 * the cap_ kernels only. */
#define DEFINE_KERNEL(id, q, form, K, at, bt, dt, ptx, tail)                                     \
  extern "C" __global__ void __launch_bounds__(256) cap_##id(hw_job jb) {                       \
    FAMILY_##form<op_##id, K, fmt_bits(HW_##at), HW_##at, HW_##dt, false>(jb);                  \
  }                                                                                              \
  extern "C" __global__ void __launch_bounds__(256) trn_##id(hw_job jb) {                       \
    FAMILY_##form<op_##id, K, fmt_bits(HW_##at), HW_##at, HW_##dt, true>(jb);                   \
  }
HW_INSTR_LIST(DEFINE_KERNEL)

/* ---- host side ------------------------------------------------------------ */

struct kentry {
  void (*fn)(hw_job), (*trn)(hw_job);
  int wg, chain;
};

#define IS_WG_MMA_F32_A4B2 0
#define IS_WG_MMA_F32_A2B1 0
#define IS_WG_MMA_F16_A4B2 0
#define IS_WG_MMA_F16_A2B1 0
#define IS_WG_DMMA_A1B1C2 0
#define IS_WG_DMMA_A2B1 0
#define IS_WG_DMMA_A4B2 0
#define IS_WG_DMMA_A8B4 0
#define IS_WG_WG_F32 1
#define IS_WG_WG_F16 1
#define IS_WG_WMMA_16x16 0
#define IS_WG_WMMA_32x8 0
#define IS_WG_WMMA_8x32 0
#define IS_WG_WMMA_8x8 0
#define IS_WMMA_WMMA_16x16 1
#define IS_WMMA_WMMA_32x8 1
#define IS_WMMA_WMMA_8x32 1
#define IS_WMMA_WMMA_8x8 1
#define IS_WMMA_MMA_F32_A4B2 0
#define IS_WMMA_MMA_F32_A2B1 0
#define IS_WMMA_MMA_F16_A4B2 0
#define IS_WMMA_MMA_F16_A2B1 0
#define IS_WMMA_DMMA_A1B1C2 0
#define IS_WMMA_DMMA_A2B1 0
#define IS_WMMA_DMMA_A4B2 0
#define IS_WMMA_DMMA_A8B4 0
#define IS_WMMA_WG_F32 0
#define IS_WMMA_WG_F16 0

#define KTAB(id, q, form, K, at, bt, dt, ptx, tail) \
  {cap_##id, trn_##id, IS_WG_##form, HW_##dt == HW_F32 && !IS_WMMA_##form},
static const kentry ktab[] = {HW_INSTR_LIST(KTAB)};

extern "C" int hw_instr_count(void) { return (int)(sizeof ktab / sizeof ktab[0]); }

extern "C" int hw_can_chain(int i) { return i >= 0 && i < hw_instr_count() && ktab[i].chain; }

extern "C" int hw_run(int i, const hw_job *job, char *err, int errlen) {
  if (i < 0 || i >= hw_instr_count()) {
    snprintf(err, errlen, "no kernel %d", i);
    return (int)cudaErrorInvalidValue;
  }
  if (job->mode != HW_MODE_CAPTURE && !ktab[i].chain) {
    snprintf(err, errlen, "the truncation experiment needs an mma.sync or wgmma instruction with f32 output");
    return (int)cudaErrorInvalidValue;
  }
  if (job->n <= 0) return 0;
  const int ngroups = (job->n + 7) / 8;
  int threads, blocks;
  if (ktab[i].wg) {
    threads = 128; /* one warpgroup, one group of 8 vectors at a time */
    blocks = ngroups < 4096 ? ngroups : 4096;
  } else {
    threads = 256; /* 8 warps, one group each (wmma: 8 or 16 vectors) */
    blocks = (ngroups + 7) / 8;
    if (blocks > 4096) blocks = 4096;
  }
  (job->mode == HW_MODE_CAPTURE ? ktab[i].fn : ktab[i].trn)<<<blocks, threads>>>(*job);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    snprintf(err, errlen, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return (int)e;
  }
  return 0;
}
