/* mmaref hardware capture: the instructions the harness can run.
 *
 * One X-macro list shared by the host program (capture.cu) and the kernels
 * (kernels.cu), so that names, shapes and types cannot drift apart.
 *
 * X(id, qualifier, form, K, atype, btype, dtype, ptx, tail)
 *   id        C identifier; the kernel is named cap_<id> (that name is what
 *             the build looks up in the cuobjdump SASS listing)
 *   qualifier the name in a vector file's "# instr: hopper:<qualifier>"
 *   form      register arity of the PTX instruction (see kernels.cu)
 *   K         dot-product length
 *   atype/btype/dtype  operand formats (c has the type of d)
 *   ptx       the PTX opcode as issued
 *   tail      trailing immediates of wgmma (scale-a, scale-b[, trans-b])
 */
#ifndef MMAREF_HW_INSTRS_H
#define MMAREF_HW_INSTRS_H

#include <stdint.h>

enum hw_fmt { HW_E4M3, HW_E5M2, HW_F16, HW_BF16, HW_TF32, HW_F32, HW_F64 };

#define HW_FAM_MMA 0   /* mma.sync, one warp, 16x8 (or 8x8) tile */
#define HW_FAM_WGMMA 1 /* wgmma.mma_async, one warpgroup, 64x8 tile */
#define HW_FAM_WMMA 2  /* wmma (CUDA C++ API), one warp, MxN tile */

/* clang-format off */
#define HW_INSTR_LIST(X) \
  /* QGMMA: wgmma fp8, A in registers, B in shared memory (K-major) */ \
  X(wgmma_m64n8k32_f32_e4m3_e4m3, "wgmma.m64n8k32.f32.e4m3.e4m3", WG_F32, 32, E4M3, E4M3, F32, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3", "1, 1") \
  X(wgmma_m64n8k32_f32_e4m3_e5m2, "wgmma.m64n8k32.f32.e4m3.e5m2", WG_F32, 32, E4M3, E5M2, F32, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2", "1, 1") \
  X(wgmma_m64n8k32_f32_e5m2_e4m3, "wgmma.m64n8k32.f32.e5m2.e4m3", WG_F32, 32, E5M2, E4M3, F32, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e4m3", "1, 1") \
  X(wgmma_m64n8k32_f32_e5m2_e5m2, "wgmma.m64n8k32.f32.e5m2.e5m2", WG_F32, 32, E5M2, E5M2, F32, "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2", "1, 1") \
  X(wgmma_m64n8k32_f16_e4m3_e4m3, "wgmma.m64n8k32.f16.e4m3.e4m3", WG_F16, 32, E4M3, E4M3, F16, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3", "1, 1") \
  X(wgmma_m64n8k32_f16_e4m3_e5m2, "wgmma.m64n8k32.f16.e4m3.e5m2", WG_F16, 32, E4M3, E5M2, F16, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2", "1, 1") \
  X(wgmma_m64n8k32_f16_e5m2_e4m3, "wgmma.m64n8k32.f16.e5m2.e4m3", WG_F16, 32, E5M2, E4M3, F16, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e4m3", "1, 1") \
  X(wgmma_m64n8k32_f16_e5m2_e5m2, "wgmma.m64n8k32.f16.e5m2.e5m2", WG_F16, 32, E5M2, E5M2, F16, "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2", "1, 1") \
  /* HGMMA */ \
  X(wgmma_m64n8k16_f32_f16_f16,   "wgmma.m64n8k16.f32.f16.f16",   WG_F32, 16, F16,  F16,  F32, "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",   "1, 1, 0") \
  X(wgmma_m64n8k16_f16_f16_f16,   "wgmma.m64n8k16.f16.f16.f16",   WG_F16, 16, F16,  F16,  F16, "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16",   "1, 1, 0") \
  X(wgmma_m64n8k16_f32_bf16_bf16, "wgmma.m64n8k16.f32.bf16.bf16", WG_F32, 16, BF16, BF16, F32, "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16", "1, 1, 0") \
  X(wgmma_m64n8k8_f32_tf32_tf32,  "wgmma.m64n8k8.f32.tf32.tf32",  WG_F32, 8,  TF32, TF32, F32, "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",  "1, 1") \
  /* HMMA */ \
  X(mma_m16n8k16_f32_f16_f16_f32,   "mma.m16n8k16.f32.f16.f16.f32",   MMA_F32_A4B2, 16, F16,  F16,  F32, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",   "") \
  X(mma_m16n8k16_f16_f16_f16_f16,   "mma.m16n8k16.f16.f16.f16.f16",   MMA_F16_A4B2, 16, F16,  F16,  F16, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",   "") \
  X(mma_m16n8k16_f32_bf16_bf16_f32, "mma.m16n8k16.f32.bf16.bf16.f32", MMA_F32_A4B2, 16, BF16, BF16, F32, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "") \
  X(mma_m16n8k8_f32_tf32_tf32_f32,  "mma.m16n8k8.f32.tf32.tf32.f32",  MMA_F32_A4B2, 8,  TF32, TF32, F32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",  "") \
  X(mma_m16n8k4_f32_tf32_tf32_f32,  "mma.m16n8k4.f32.tf32.tf32.f32",  MMA_F32_A2B1, 4,  TF32, TF32, F32, "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32",  "") \
  X(mma_m16n8k8_f32_bf16_bf16_f32,  "mma.m16n8k8.f32.bf16.bf16.f32",  MMA_F32_A2B1, 8,  BF16, BF16, F32, "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",  "") \
  X(mma_m16n8k8_f32_f16_f16_f32,    "mma.m16n8k8.f32.f16.f16.f32",    MMA_F32_A2B1, 8,  F16,  F16,  F32, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",    "") \
  X(mma_m16n8k8_f16_f16_f16_f16,    "mma.m16n8k8.f16.f16.f16.f16",    MMA_F16_A2B1, 8,  F16,  F16,  F16, "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",    "") \
  /* DMMA */ \
  X(mma_m8n8k4_f64_f64_f64_f64,   "mma.m8n8k4.f64.f64.f64.f64",   DMMA_A1B1C2, 4,  F64, F64, F64, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",   "") \
  X(mma_m16n8k4_f64_f64_f64_f64,  "mma.m16n8k4.f64.f64.f64.f64",  DMMA_A2B1,   4,  F64, F64, F64, "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",  "") \
  X(mma_m16n8k8_f64_f64_f64_f64,  "mma.m16n8k8.f64.f64.f64.f64",  DMMA_A4B2,   8,  F64, F64, F64, "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",  "") \
  X(mma_m16n8k16_f64_f64_f64_f64, "mma.m16n8k16.f64.f64.f64.f64", DMMA_A8B4,   16, F64, F64, F64, "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", "") \
  /* fp8 mma.sync: not native on sm_90, ptxas emulates it */ \
  X(mma_m16n8k32_f32_e4m3_e4m3_f32, "mma.m16n8k32.f32.e4m3.e4m3.f32", MMA_F32_A4B2, 32, E4M3, E4M3, F32, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "") \
  X(mma_m16n8k32_f32_e4m3_e5m2_f32, "mma.m16n8k32.f32.e4m3.e5m2.f32", MMA_F32_A4B2, 32, E4M3, E5M2, F32, "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", "") \
  X(mma_m16n8k32_f32_e5m2_e4m3_f32, "mma.m16n8k32.f32.e5m2.e4m3.f32", MMA_F32_A4B2, 32, E5M2, E4M3, F32, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", "") \
  X(mma_m16n8k32_f32_e5m2_e5m2_f32, "mma.m16n8k32.f32.e5m2.e5m2.f32", MMA_F32_A4B2, 32, E5M2, E5M2, F32, "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", "") \
  X(mma_m16n8k32_f16_e4m3_e4m3_f16, "mma.m16n8k32.f16.e4m3.e4m3.f16", MMA_F16_A4B2, 32, E4M3, E4M3, F16, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", "") \
  X(mma_m16n8k32_f16_e4m3_e5m2_f16, "mma.m16n8k32.f16.e4m3.e5m2.f16", MMA_F16_A4B2, 32, E4M3, E5M2, F16, "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16", "") \
  X(mma_m16n8k32_f16_e5m2_e4m3_f16, "mma.m16n8k32.f16.e5m2.e4m3.f16", MMA_F16_A4B2, 32, E5M2, E4M3, F16, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16", "") \
  X(mma_m16n8k32_f16_e5m2_e5m2_f16, "mma.m16n8k32.f16.e5m2.e5m2.f16", MMA_F16_A4B2, 32, E5M2, E5M2, F16, "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16", "") \
  X(mma_m16n8k16_f32_e4m3_e4m3_f32, "mma.m16n8k16.f32.e4m3.e4m3.f32", MMA_F32_A2B1, 16, E4M3, E4M3, F32, "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32", "") \
  X(mma_m16n8k16_f32_e4m3_e5m2_f32, "mma.m16n8k16.f32.e4m3.e5m2.f32", MMA_F32_A2B1, 16, E4M3, E5M2, F32, "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32", "") \
  X(mma_m16n8k16_f32_e5m2_e4m3_f32, "mma.m16n8k16.f32.e5m2.e4m3.f32", MMA_F32_A2B1, 16, E5M2, E4M3, F32, "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e4m3.f32", "") \
  X(mma_m16n8k16_f32_e5m2_e5m2_f32, "mma.m16n8k16.f32.e5m2.e5m2.f32", MMA_F32_A2B1, 16, E5M2, E5M2, F32, "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f32", "") \
  X(mma_m16n8k16_f16_e4m3_e4m3_f16, "mma.m16n8k16.f16.e4m3.e4m3.f16", MMA_F16_A2B1, 16, E4M3, E4M3, F16, "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16", "") \
  X(mma_m16n8k16_f16_e4m3_e5m2_f16, "mma.m16n8k16.f16.e4m3.e5m2.f16", MMA_F16_A2B1, 16, E4M3, E5M2, F16, "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e5m2.f16", "") \
  X(mma_m16n8k16_f16_e5m2_e4m3_f16, "mma.m16n8k16.f16.e5m2.e4m3.f16", MMA_F16_A2B1, 16, E5M2, E4M3, F16, "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e4m3.f16", "") \
  X(mma_m16n8k16_f16_e5m2_e5m2_f16, "mma.m16n8k16.f16.e5m2.e5m2.f16", MMA_F16_A2B1, 16, E5M2, E5M2, F16, "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16", "") \
  /* wmma: the CUDA C++ wmma API (load/mma/store through shared memory); \
   * ptxas maps each onto HMMA or DMMA, chained over k where the native   \
   * instruction is shorter than K (tf32 k8: two HMMA.1684) */           \
  X(wmma_m16n16k16_f32_f16_f16_f32,   "wmma.m16n16k16.f32.f16.f16.f32",   WMMA_16x16, 16, F16,  F16,  F32, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", "") \
  X(wmma_m16n16k16_f16_f16_f16_f16,   "wmma.m16n16k16.f16.f16.f16.f16",   WMMA_16x16, 16, F16,  F16,  F16, "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16", "") \
  X(wmma_m32n8k16_f32_f16_f16_f32,    "wmma.m32n8k16.f32.f16.f16.f32",    WMMA_32x8,  16, F16,  F16,  F32, "wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32", "") \
  X(wmma_m32n8k16_f16_f16_f16_f16,    "wmma.m32n8k16.f16.f16.f16.f16",    WMMA_32x8,  16, F16,  F16,  F16, "wmma.mma.sync.aligned.row.col.m32n8k16.f16.f16", "") \
  X(wmma_m8n32k16_f32_f16_f16_f32,    "wmma.m8n32k16.f32.f16.f16.f32",    WMMA_8x32,  16, F16,  F16,  F32, "wmma.mma.sync.aligned.row.col.m8n32k16.f32.f32", "") \
  X(wmma_m8n32k16_f16_f16_f16_f16,    "wmma.m8n32k16.f16.f16.f16.f16",    WMMA_8x32,  16, F16,  F16,  F16, "wmma.mma.sync.aligned.row.col.m8n32k16.f16.f16", "") \
  X(wmma_m16n16k16_f32_bf16_bf16_f32, "wmma.m16n16k16.f32.bf16.bf16.f32", WMMA_16x16, 16, BF16, BF16, F32, "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32", "") \
  X(wmma_m32n8k16_f32_bf16_bf16_f32,  "wmma.m32n8k16.f32.bf16.bf16.f32",  WMMA_32x8,  16, BF16, BF16, F32, "wmma.mma.sync.aligned.row.col.m32n8k16.f32.bf16.bf16.f32", "") \
  X(wmma_m8n32k16_f32_bf16_bf16_f32,  "wmma.m8n32k16.f32.bf16.bf16.f32",  WMMA_8x32,  16, BF16, BF16, F32, "wmma.mma.sync.aligned.row.col.m8n32k16.f32.bf16.bf16.f32", "") \
  X(wmma_m16n16k8_f32_tf32_tf32_f32,  "wmma.m16n16k8.f32.tf32.tf32.f32",  WMMA_16x16, 8,  TF32, TF32, F32, "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32", "") \
  X(wmma_m8n8k4_f64_f64_f64_f64,      "wmma.m8n8k4.f64.f64.f64.f64",      WMMA_8x8,   4,  F64,  F64,  F64, "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64", "")
/* clang-format on */

/* Operands travel as raw bit patterns, one uint64_t per element (the low
 * bits hold the pattern: 8 for fp8, 16 for f16/bf16, 32 for tf32/f32, 64 for
 * f64). a and b are [n][K], c and d are [n]. */
struct hw_job {
  const uint64_t *a, *b, *c;
  uint64_t *d;
  int n, K;
  /* HW_MODE_CAPTURE: one instruction per vector, d = instr(c, a, b), a and
   * b K long.  The other modes (the accumulator-truncation experiment,
   * f32-output instructions only) run a depth-kt dot product, a and b kt
   * long, as kt/K chained calls from c = +0, with the low `ntrun` bits of
   * instruction outputs zeroed:
   *   HW_MODE_BLOCKS  every nc products (nc/K calls chained in the
   *                   accumulator) the block's output is truncated and added
   *                   into an FP32 register with an IEEE round-to-nearest add
   *                   (the Triton kernel of "Some Matrix Multiplication
   *                   Engines Are Not As Accurate As We Thought")
   *   HW_MODE_FEED    every call's output is truncated and is the next
   *                   call's c; d is the last call's truncated output */
  int mode, kt, nc, ntrun;
};

enum { HW_MODE_CAPTURE = 0, HW_MODE_BLOCKS = 1, HW_MODE_FEED = 2 };

#ifdef __cplusplus
extern "C" {
#endif
/* Number of instructions in HW_INSTR_LIST; index i follows the list order. */
int hw_instr_count(void);
/* Runs job on the current CUDA device with instruction i (device pointers in
 * job). Returns 0 or a cudaError_t value; err gets a message. */
int hw_run(int i, const struct hw_job *job, char *err, int errlen);
/* 1 when instruction i runs the truncation experiment's modes (mma.sync
 * and wgmma with f32 output). */
int hw_can_chain(int i);
#ifdef __cplusplus
}
#endif

#endif
