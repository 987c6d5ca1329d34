/* The instruction catalogue: one row per instruction family, as data.
 * A row is (architecture, qualifier pattern, shape freedom, output types,
 * input types, K, the fused-step width L_max in bytes of one input, the
 * configuration that realizes it, and the per-output-type ezero / output
 * precision).  Parameters follow the final MMA-Sim paper (arXiv 2511.10909)
 * and its package mmasim 2.x; section numbers refer to the MMA-Sim paper (arXiv 2511.10909).
 *
 * Pattern placeholders: {d} output (and accumulator) type, {a} {b} input
 * types.  A d token "D/C" gives different output and accumulator types.
 * bset "=" pairs b with a. */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SKIP 1         /* no ezero (IEEE and AMD forms) */
#define NONE INT_MIN   /* zero terms take no part        */

typedef struct {
    const char *arch, *qual, *ranges, *dset, *aset, *bset;
    int k, lbytes;          /* lbytes 0: one step of all k            */
    const char *cfg;
    int ez32, ez16, p32;
} cat_row;

#define F8 "e5m2 e4m3"
#define F864 "e5m2 e4m3 e3m2 e2m3 e2m1"
#define WN "n=8..256/8"
#define TCN "m=64,128 n=8..256/8"

/* NVIDIA mma.sync of sm_75 and sm_80, which every later architecture keeps:
 * F and L_max and ezero per architecture (paper section C; mmasim 2.x). */
#define NV_SM75(A, F, LB, E32, E16) \
    {A, "mma.m16n8k8.{d}.f16.f16.{d}", "", "f32 f16", "f16", "=", 8, LB, "fused,f=" #F, E32, E16, 23}
#define NV_SM80(A, F, LB, E32, E16) \
    {A, "mma.m8n8k4.f64.f64.f64.f64", "", "f64", "f64", "=", 4, 0, "fma", SKIP, SKIP, 0}, \
    {A, "mma.m16n8k8.f32.tf32.tf32.f32", "", "f32", "tf32", "=", 8, LB, "fused,f=" #F, E32, E16, 23}, \
    {A, "mma.m16n8k4.f32.tf32.tf32.f32", "", "f32", "tf32", "=", 4, LB, "fused,f=" #F, E32, E16, 23}, \
    {A, "mma.m16n8k16.{d}.f16.f16.{d}", "", "f32 f16", "f16", "=", 16, LB, "fused,f=" #F, E32, E16, 23}, \
    {A, "mma.m16n8k16.f32.bf16.bf16.f32", "", "f32", "bf16", "=", 16, LB, "fused,f=" #F, E32, E16, 23}, \
    {A, "mma.m16n8k8.f32.bf16.bf16.f32", "", "f32", "bf16", "=", 8, LB, "fused,f=" #F, E32, E16, 23}
#define NV_SM89(A, F, LB, E32, E16, P32) \
    {A, "mma.m16n8k32.{d}.{a}.{b}.{d}", "", "f32 f16", F8, F8, 32, LB, "fused,f=" #F, E32, E16, P32}, \
    {A, "mma.m16n8k16.{d}.{a}.{b}.{d}", "", "f32 f16", F8, F8, 16, LB, "fused,f=" #F, E32, E16, P32}
/* wmma: ptxas maps every shape onto the architecture's native HMMA (DMMA
 * for f64), chained over k where the native step is shorter than K (SASS
 * of nvcc 13.0 for sm_75 to sm_120; docs/hardware.md, "wmma").  LB: the
 * native f16/bf16 step in bytes of one input (Volta's HMMA.884: 8, four
 * steps; Turing HMMA.1688 and Ampere/Ada HMMA.16816: 16, two; Hopper and
 * Blackwell HMMA.16816: 32, one).  tf32 m16n16k8 is two HMMA.1684 on
 * every architecture that has it: lbytes 16. */
#define NV_WMMA_F16(A, S, F, LB, E32, E16) \
    {A, "wmma." S ".{d}.f16.f16.{d}", "", "f32 f16", "f16", "=", 16, LB, "fused,f=" #F, E32, E16, 23}
#define NV_WMMA70(A, F, LB, E32, E16) \
    NV_WMMA_F16(A, "m16n16k16", F, LB, E32, E16), NV_WMMA_F16(A, "m32n8k16", F, LB, E32, E16), \
    NV_WMMA_F16(A, "m8n32k16", F, LB, E32, E16)
#define NV_WMMA_BF16(A, S, F, LB, E32, E16) \
    {A, "wmma." S ".f32.bf16.bf16.f32", "", "f32", "bf16", "=", 16, LB, "fused,f=" #F, E32, E16, 23}
#define NV_WMMA80(A, F, LB, E32, E16) \
    NV_WMMA70(A, F, LB, E32, E16), \
    NV_WMMA_BF16(A, "m16n16k16", F, LB, E32, E16), NV_WMMA_BF16(A, "m32n8k16", F, LB, E32, E16), \
    NV_WMMA_BF16(A, "m8n32k16", F, LB, E32, E16), \
    {A, "wmma.m16n16k8.f32.tf32.tf32.f32", "", "f32", "tf32", "=", 8, 16, "fused,f=" #F, E32, E16, 23}, \
    {A, "wmma.m8n8k4.f64.f64.f64.f64", "", "f64", "f64", "=", 4, 0, "fma", SKIP, SKIP, 0}
/* fp8 mma.sync where the architecture has no fp8 HMMA (sm_90, sm_100):
 * ptxas converts the operands to f16 and issues two HMMA over k mod 4 in
 * {0,1} and {2,3}, the first from +0, then adds c with one FADD (HMMA.F16
 * and HADD2 for f16 output; HMMA.1688 for k16).  Read from the SASS of the
 * H100 captures (hw/, docs/capture.md) and of nvcc 13.0 for sm_100a, and
 * fitted by published B200 outputs (docs/hardware.md). */
#define NV_FP8_EMULATED(A) \
    {A, "mma.m16n8k32.{d}.{a}.{b}.{d}", "", "f32 f16", F8, F8, 32, 16, \
     "fused,interleave=2,cadd=after,via=fp16,f=25", -133, -21, 23}, \
    {A, "mma.m16n8k16.{d}.{a}.{b}.{d}", "", "f32 f16", F8, F8, 16, 8, \
     "fused,interleave=2,cadd=after,via=fp16,f=25", -133, -21, 23}
#define NV_SM70(A) \
    {A, "mma.m8n8k4.{d}.f16.f16.f32", "", "f32", "f16", "=", 4, 8, "fused,f=23", -131, -19, 23}, \
    {A, "mma.m8n8k4.{d}.f16.f16.f16", "", "f32/f16 f16", "f16", "=", 4, 8, "fused,f=23", -131, -19, 23}

static const cat_row rows[] = {
    NV_SM70("volta"),
    NV_WMMA70("volta", 23, 8, -131, -19),
    NV_SM70("turing"),          /* Volta shapes keep Volta's arithmetic on Turing */
    NV_SM75("turing", 24, 16, -132, -20),
    NV_WMMA70("turing", 24, 16, -132, -20),
    NV_SM75("ampere", 24, 16, -132, -20),
    NV_SM80("ampere", 24, 16, -132, -20),
    NV_WMMA80("ampere", 24, 16, -132, -20),
    NV_SM75("ada", 24, 16, -132, -20),
    NV_SM80("ada", 24, 16, -132, -20),
    NV_WMMA80("ada", 24, 16, -132, -20),
    NV_SM89("ada", 13, 16, -132, -20, 13),   /* QMMA: F=13, e8m13 output */
    NV_SM75("hopper", 25, 32, -133, -21),
    NV_SM80("hopper", 25, 32, -133, -21),
    NV_WMMA80("hopper", 25, 32, -133, -21),
    {"hopper", "mma.m16n8k16.f64.f64.f64.f64", "", "f64", "f64", "=", 16, 0, "fma", SKIP, SKIP, 0},
    {"hopper", "mma.m16n8k8.f64.f64.f64.f64", "", "f64", "f64", "=", 8, 0, "fma", SKIP, SKIP, 0},
    {"hopper", "mma.m16n8k4.f64.f64.f64.f64", "", "f64", "f64", "=", 4, 0, "fma", SKIP, SKIP, 0},
    NV_FP8_EMULATED("hopper"),
    {"hopper", "wgmma.m64nNk8.f32.tf32.tf32", WN, "f32", "tf32", "=", 8, 32, "fused,f=25", -133, -21, 23},
    {"hopper", "wgmma.m64nNk16.{d}.f16.f16", WN, "f32 f16", "f16", "=", 16, 32, "fused,f=25", -133, -21, 23},
    {"hopper", "wgmma.m64nNk16.f32.bf16.bf16", WN, "f32", "bf16", "=", 16, 32, "fused,f=25", -133, -21, 23},
    {"hopper", "wgmma.m64nNk32.{d}.{a}.{b}", WN, "f32 f16", F8, F8, 32, 32, "fused,f=13", -133, -21, 13},
    NV_SM75("blackwell", 25, 32, -133, -21),
    NV_SM80("blackwell", 25, 32, -133, -21),
    NV_WMMA80("blackwell", 25, 32, -133, -21),
    NV_FP8_EMULATED("blackwell"),
    {"blackwell", "tcgen05.mma.mMnNk8.kind::tf32.f32.tf32.tf32", TCN, "f32", "tf32", "=", 8, 32, "fused,f=25", -133, -21, 23},
    {"blackwell", "tcgen05.mma.mMnNk16.kind::f16.f32.{a}.{b}", TCN, "f32", "f16 bf16", "=", 16, 32, "fused,f=25", -133, -21, 23},
    {"blackwell", "tcgen05.mma.mMnNk16.kind::f16.f16.f16.f16", TCN, "f16", "f16", "=", 16, 32, "fused,f=25", -133, -21, 23},
    {"blackwell", "tcgen05.mma.mMnNk32.kind::f8f6f4.{d}.{a}.{b}", TCN, "f32 f16", F864, F864, 32, 32, "fused,f=25", -133, -21, 23},
    {"blackwell", "tcgen05.mma.m128nNk32.kind::mxf8f6f4.block32.f32.{a}.{b}.ue8m0", WN, "f32", F864, F864, 32, 32,
     "fused,f=25,scale=ue8m0,block=32", -133, -21, 23},
    {"blackwell", "tcgen05.mma.m128nNk64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0", WN, "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=32", -139, -139, 23},
    {"blackwell", "tcgen05.mma.m128nNk64.kind::mxf4nvf4.block32.f32.e2m1.e2m1.ue8m0", WN, "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=32", -139, -139, 23},
    {"blackwell", "tcgen05.mma.m128nNk64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue8m0", WN, "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=16", -139, -139, 23},
    {"blackwell", "tcgen05.mma.m128nNk64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3", WN, "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue4m3,block=16", -139, -139, 23},
    NV_SM75("rtx-blackwell", 25, 32, -133, -21),
    NV_SM80("rtx-blackwell", 25, 32, -133, -21),
    NV_WMMA80("rtx-blackwell", 25, 32, -133, -21),
    NV_SM89("rtx-blackwell", 25, 32, -133, -21, 23),
    {"rtx-blackwell", "mma.m16n8k32.kind::f8f6f4.{d}.{a}.{b}.{d}", "", "f32 f16", F864, F864, 32, 32, "fused,f=25", -133, -21, 23},
    {"rtx-blackwell", "mma.m16n8k32.kind::mxf8f6f4.block32.f32.{a}.{b}.f32.ue8m0", "", "f32", F864, F864, 32, 32,
     "fused,f=25,scale=ue8m0,block=32", -133, -21, 23},
    {"rtx-blackwell", "mma.m16n8k64.kind::mxf4.block32.f32.e2m1.e2m1.f32.ue8m0", "", "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=32", -139, -139, 23},
    {"rtx-blackwell", "mma.m16n8k64.kind::mxf4nvf4.block32.f32.e2m1.e2m1.f32.ue8m0", "", "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=32", -139, -139, 23},
    {"rtx-blackwell", "mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue8m0", "", "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue8m0,block=16", -139, -139, 23},
    {"rtx-blackwell", "mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3", "", "f32", "e2m1", "=", 64, 64,
     "groups,g=16,f=35,scale=ue4m3,block=16", -139, -139, 23},

    /* AMD: the NaN payloads of MFMA are not known (the paper, section on
     * its validation: MFMA NaNs are not canonical and their payload rule is
     * unknown), so every AMD unit matches any NaN against any NaN. */
#define AMD_FMA "fma,nan=any"
    /* AMD CDNA1: fp32 sequential FMA; fp16/bf16 exact sums of 4/2 products.
     * A nonzero sum that rounds to zero keeps its sign (IEEE), an exact
     * zero is +0, as mmasim 2.x's E-FDPA has it (docs/peer-comparison.md). */
#define CDNA1(A) \
    {A, "v_mfma_f32_32x32x2f32", "", "f32", "f32", "=", 2, 0, AMD_FMA, SKIP, SKIP, 0}, \
    {A, "v_mfma_f32_32x32x1f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0}, \
    {A, "v_mfma_f32_16x16x4f32", "", "f32", "f32", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0}, \
    {A, "v_mfma_f32_16x16x1f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0}, \
    {A, "v_mfma_f32_4x4x1f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0}
    CDNA1("cdna1"),
    {"cdna1", "v_mfma_f32_32x32x8f16", "", "f32", "f16", "=", 8, 8, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_32x32x4f16", "", "f32", "f16", "=", 4, 8, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_16x16x16f16", "", "f32", "f16", "=", 16, 8, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_16x16x4f16", "", "f32", "f16", "=", 4, 8, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_4x4x4f16", "", "f32", "f16", "=", 4, 8, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_32x32x4bf16", "", "f32", "bf16", "=", 4, 4, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_32x32x2bf16", "", "f32", "bf16", "=", 2, 4, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_16x16x8bf16", "", "f32", "bf16", "=", 8, 4, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_16x16x2bf16", "", "f32", "bf16", "=", 2, 4, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},
    {"cdna1", "v_mfma_f32_4x4x2bf16", "", "f32", "bf16", "=", 2, 4, "exact,round=rne,nan=canon+any,zero=fixed", SKIP, SKIP, 0},

    /* AMD CDNA2: fp16/bf16 GPS (FTZ-AddMul), G=4, or G=2 for bf16 without _1k */
    {"cdna2", "v_mfma_f64_16x16x4f64", "", "f64", "f64", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f64_4x4x4f64", "", "f64", "f64", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_32x32x8bf16_1k", "", "f32", "bf16", "=", 8, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_32x32x4bf16_1k", "", "f32", "bf16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x16bf16_1k", "", "f32", "bf16", "=", 16, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x4bf16_1k", "", "f32", "bf16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_4x4x4bf16_1k", "", "f32", "bf16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    CDNA1("cdna2"),
    {"cdna2", "v_mfma_f32_32x32x8f16", "", "f32", "f16", "=", 8, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_32x32x4f16", "", "f32", "f16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x16f16", "", "f32", "f16", "=", 16, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x4f16", "", "f32", "f16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_4x4x4f16", "", "f32", "f16", "=", 4, 0, "pairwise,g=4,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_32x32x4bf16", "", "f32", "bf16", "=", 4, 0, "pairwise,g=2,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_32x32x2bf16", "", "f32", "bf16", "=", 2, 0, "pairwise,g=2,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x8bf16", "", "f32", "bf16", "=", 8, 0, "pairwise,g=2,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_16x16x2bf16", "", "f32", "bf16", "=", 2, 0, "pairwise,g=2,nan=any", SKIP, SKIP, 0},
    {"cdna2", "v_mfma_f32_4x4x2bf16", "", "f32", "bf16", "=", 2, 0, "pairwise,g=2,nan=any", SKIP, SKIP, 0},

    /* AMD CDNA3: FDRDA family (paper sections F-I), F=24, F2=31, RNE out.
     * The sum is a two's complement fixed-point number: an exact zero is +0,
     * but a negative sum that the final rounding takes to zero gives -0
     * (zero=fixed; mmasim 2.x, validated on MI300X, adds no +0.0 here as it
     * does for NVIDIA; docs/peer-comparison.md). */
#define TR "fused,f=24,f2=31,cadd=rd,round=rne,povf=1,nan=canon+any,zero=fixed"
#define GTR "evenodd,f=24,f2=31,cadd=rdz,round=rne,nan=canon+any,zero=fixed"
    {"cdna3", "v_mfma_f64_16x16x4_f64", "", "f64", "f64", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f64_4x4x4_4b_f64", "", "f64", "f64", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x1_2b_f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x1_4b_f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_4x4x1_16b_f32", "", "f32", "f32", "=", 1, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x2_f32", "", "f32", "f32", "=", 2, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x4_f32", "", "f32", "f32", "=", 4, 0, AMD_FMA, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x8_xf32", "", "f32", "tf32", "=", 8, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x4_xf32", "", "f32", "tf32", "=", 4, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x4_2b_{a}", "", "f32", "f16 bf16", "=", 4, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x4_4b_{a}", "", "f32", "f16 bf16", "=", 4, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_4x4x4_16b_{a}", "", "f32", "f16 bf16", "=", 4, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x8_{a}", "", "f32", "f16 bf16", "=", 8, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x16_{a}", "", "f32", "f16 bf16", "=", 16, 16, TR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_16x16x32_{a}_{b}", "", "f32", "bf8 fp8", "bf8 fp8", 32, 16, GTR, SKIP, SKIP, 0},
    {"cdna3", "v_mfma_f32_32x32x16_{a}_{b}", "", "f32", "bf8 fp8", "bf8 fp8", 16, 16, GTR, SKIP, SKIP, 0},

    /* x86 (docs/hardware.md, "x86"): the Intel SDM's and ISE's pseudo-code.
     * TDPBF16PS and VDPBF16PS checked on silicon (Xeon AMX; Zen 4's
     * VDPBF16PS); the others from their specification only.  K is one
     * output element with full 64-byte tile rows: b[i] is
     * B.row[i/2].bf16[2n + i%2] (TDPBF16PS, TDPFP16PS), B.row[i/4].fp8[4n +
     * i%4] (AMX-FP8), B.row[i].fp32[n] (TMMULTF32PS). */
#define X86_FMA "round=rne,ovf=ieee,ftz=in+out,tiny=after,nan=x86,zero=ieee"
    {"x86", "tdpbf16ps", "", "f32", "bf16", "=", 32, 0, "chains,ways=2,start=zero," X86_FMA, SKIP, SKIP, 0},
    {"x86", "vdpbf16ps", "", "f32", "bf16", "=", 2, 0, "chains,ways=1,start=c,order=down," X86_FMA, SKIP, SKIP, 0},
    {"x86", "tdpfp16ps", "", "f32", "f16", "=", 32, 0, "chains,ways=2,start=zero," X86_FMA, SKIP, SKIP, 0},
    {"x86", "tmmultf32ps", "", "f32", "f32", "=", 16, 0,
     "chains,ways=1,start=zero,via=tf32,round=rne,ovf=ieee,ftz=out,tiny=after,nan=x86,zero=ieee", SKIP, SKIP, 0},
#define X86_FP8 "chains,ways=1,fuse=64,start=none,round=rne,ovf=ieee,ftz=in+out,tiny=after,nan=indef,zero=fixed"
    {"x86", "tdpbf8ps", "", "f32", "e5m2", "e5m2", 64, 0, X86_FP8, SKIP, SKIP, 0},
    {"x86", "tdpbhf8ps", "", "f32", "e5m2", "e4m3", 64, 0, X86_FP8, SKIP, SKIP, 0},
    {"x86", "tdphbf8ps", "", "f32", "e4m3", "e5m2", 64, 0, X86_FP8, SKIP, SKIP, 0},
    {"x86", "tdphf8ps", "", "f32", "e4m3", "e4m3", 64, 0, X86_FP8, SKIP, SKIP, 0},

    /* Arm A-profile (Arm ARM, shared pseudo-code J1.3.3: BFDotAdd,
     * BFMatMulAddH, FP8DotAddFP, FP8MatMulAddFP), from the specification
     * only.  FPCR.EBF=0: BFMulH products rounded to odd, FPAdd_BF16 sums
     * rounded to odd, inputs and results flushed, default NaN; EBF=1
     * (.ebf): FPDot (one rounding) then FPAdd, by FPCR.RMode (RN here,
     * round= as a mode), no flushing (FPCR.FZ=0), default NaN.  FP8:
     * exact products and sum, times 2^-FPMR.LSCALE, plus the addend, one
     * rounding to nearest; FPMR.OSM=1 saturates (ovf=sat+inf). */
#define ARM_EBF0 "chains,ways=2,start=none,round=rodd,ovf=inf,ftz=in+out,tiny=before,nan=default,zero=ieee"
#define ARM_EBF1 "chains,ways=1,fuse=2,start=none,round=rne,ovf=ieee,tiny=before,nan=default,zero=ieee"
#define ARM_FP8 "exact,round=rne,ovf=ieee,nan=default,zero=ieee"
    {"armv9", "bfdot", "", "f32", "bf16", "=", 2, 0, ARM_EBF0, SKIP, SKIP, 0},
    {"armv9", "bfmmla", "", "f32", "bf16", "=", 4, 4, ARM_EBF0, SKIP, SKIP, 0},
    {"armv9", "bfdot.ebf", "", "f32", "bf16", "=", 2, 0, ARM_EBF1, SKIP, SKIP, 0},
    {"armv9", "bfmmla.ebf", "", "f32", "bf16", "=", 4, 4, ARM_EBF1, SKIP, SKIP, 0},
    {"armv9", "fdot.f16.{a}.{b}", "", "f16", F8, F8, 2, 0, ARM_FP8, SKIP, SKIP, 0},
    {"armv9", "fdot.f32.{a}.{b}", "", "f32", F8, F8, 4, 0, ARM_FP8, SKIP, SKIP, 0},
    {"armv9", "fmmla.f16.{a}.{b}", "", "f16", F8, F8, 4, 0, ARM_FP8, SKIP, SKIP, 0},
    {"armv9", "fmmla.f32.{a}.{b}", "", "f32", F8, F8, 8, 0, ARM_FP8, SKIP, SKIP, 0},

    /* RISC-V Zvdota/Zvbdota proposal v0.2 (A. Waterman, "Zvdota and
     * Zvbdota Families of Dot-Product Extensions", section "RISC-V Bulk
     * Normalization Algorithm"), from the specification only: n products
     * aligned to the largest reference exponent, each rounded to odd at
     * 23 + log2(n) fraction bits (q - 1 + g), summed, rounded to odd into
     * fp32 (overflow: Inf; a zero: +0); then c added rounded to odd.  n,
     * the set size, is the implementation's: .n8 .n16 .n32.  The batched
     * forms (vfwbdota, vfqwbdota) compute each dot product the same way. */
#define RVBNA(N, F) "chains,ways=1,fuse=" #N ",start=none,f=" #F ",align=rodd,round=rodd,ovf=inf,nan=default,zero=pos"
    {"riscv", "vfwdota.vv.n8", "", "f32", "bf16", "=", 8, 0, RVBNA(8, 26), SKIP, SKIP, 0},
    {"riscv", "vfwdota.vv.n16", "", "f32", "bf16", "=", 16, 0, RVBNA(16, 27), SKIP, SKIP, 0},
    {"riscv", "vfwdota.vv.n32", "", "f32", "bf16", "=", 32, 0, RVBNA(32, 28), SKIP, SKIP, 0},
    {"riscv", "vfqwdota.vv.{b}.n16", "", "f32", "e4m3", F8, 16, 0, RVBNA(16, 27), SKIP, SKIP, 0},
    {"riscv", "vfqwdota.vv.{b}.n32", "", "f32", "e4m3", F8, 32, 0, RVBNA(32, 28), SKIP, SKIP, 0},
    {"riscv", "vfqwdota.alt.vv.{b}.n16", "", "f32", "e5m2", F8, 16, 0, RVBNA(16, 27), SKIP, SKIP, 0},
    {"riscv", "vfqwdota.alt.vv.{b}.n32", "", "f32", "e5m2", F8, 32, 0, RVBNA(32, 28), SKIP, SKIP, 0},

    /* AMD CDNA4 (AMD Instinct CDNA4 ISA reference guide, matrix arithmetic
     * instructions, V_MFMA_SCALE_F32_{16X16X128,32X32X64}_F8F6F4): operand
     * formats chosen per operand (OCP fp8, fp6, fp4), one E8M0 scale per 32
     * k; the guide states D = C + (A x scaleA)(B x scaleB) and not the
     * internal precision, so this is one exact sum rounded to nearest:
     * from the specification, unverified until silicon is available. */
#define CDNA4 "exact,round=rne,nan=canon+any,zero=fixed,scale=ue8m0,block=32"
    {"cdna4", "v_mfma_scale_f32_16x16x128_f8f6f4.{a}.{b}", "", "f32", F864, F864, 128, 0, CDNA4, SKIP, SKIP, 0},
    {"cdna4", "v_mfma_scale_f32_32x32x64_f8f6f4.{a}.{b}", "", "f32", F864, F864, 64, 0, CDNA4, SKIP, SKIP, 0},
};

/* Options a name takes beyond restating its own arithmetic: the mode
 * registers a program sets around the instruction (Arm FPMR.LSCALE and
 * FPMR.OSM for the FP8 forms, FPCR.RMode for the EBF=1 forms), each with
 * the values it may take. */
static const struct { const char *arch, *prefix, *key, *values; int lo, hi; } modes[] = {
    {"armv9", "fdot.f16.", "lscale", NULL, 0, 15},    /* FP8 to fp16: FPMR.LSCALE<3:0> */
    {"armv9", "fmmla.f16.", "lscale", NULL, 0, 15},
    {"armv9", "fdot.f32.", "lscale", NULL, 0, 63},    /* FP8 to fp32: FPMR.LSCALE<5:0> */
    {"armv9", "fmmla.f32.", "lscale", NULL, 0, 63},
    {"armv9", "fdot.", "ovf", " ieee sat+inf ", 0, 0},
    {"armv9", "fmmla.", "ovf", " ieee sat+inf ", 0, 0},
    {"armv9", "bfdot.ebf", "round", " rne ru rd rz ", 0, 0},
    {"armv9", "bfmmla.ebf", "round", " rne ru rd rz ", 0, 0},
};

/* What each non-GPU entry follows (mma_catalogue_source), by name prefix */
#define SPEC_ONLY "from the specification, not checked on silicon."
static const struct { const char *prefix, *text; } sources[] = {
    {"x86:tdpbf16ps", "Intel SDM vol. 2, TDPBF16PS (operation: two FP32 FMA chains, DAZ, FTZ, RNE); checked on silicon, "
                      "Intel Xeon (AMX), docs/hardware.md \"x86\"."},
    {"x86:vdpbf16ps", "Intel SDM vol. 2, VDPBF16PS (operation; Table 5-1, NaN propagation priorities); checked on silicon, "
                      "AMD Zen 4 (10,000,000 vectors) and Intel Xeon, docs/hardware.md \"x86\"."},
    {"x86:tdpfp16ps", "Intel Architecture Instruction Set Extensions Programming Reference (ISE, 319433), TDPFP16PS; " SPEC_ONLY},
    {"x86:tmmultf32ps", "Intel ISE (319433), TMMULTF32PS (AMX-TF32); " SPEC_ONLY},
    {"x86:tdp", "Intel ISE (319433), AMX-FP8 TDPBF8PS/TDPBHF8PS/TDPHBF8PS/TDPHF8PS, read through the Bochs emulator's "
                "implementation (bochs/cpu/avx/amx.cc); " SPEC_ONLY},
    {"armv9:bfdot.ebf", "Arm ARM (A-profile) C8.2.49 BFDOT and J1.3.3 BFDotAdd, FPDot, FPAdd (FPCR.EBF=1, FPCR.FZ=0, "
                        "DN; round= is FPCR.RMode); " SPEC_ONLY},
    {"armv9:bfmmla.ebf", "Arm ARM (A-profile) C8.2.67 BFMMLA and J1.3.3 BFMatMulAddH, BFDotAdd, FPDot, FPAdd (FPCR.EBF=1, "
                         "FPCR.FZ=0, DN; round= is FPCR.RMode); " SPEC_ONLY},
    {"armv9:bfdot", "Arm ARM (A-profile) C8.2.49 BFDOT and J1.3.3 BFDotAdd, BFMulH, FPAdd_BF16, BFRound (FPCR.EBF=0); " SPEC_ONLY},
    {"armv9:bfmmla", "Arm ARM (A-profile) C8.2.67 BFMMLA and J1.3.3 BFMatMulAddH, BFDotAdd (FPCR.EBF=0); " SPEC_ONLY},
    {"armv9:f", "Arm ARM (A-profile) FP8 FDOT/FMMLA and J1.3.3 FP8DotAddFP, FP8MatMulAddFP, FP8Unpack, FPRound_FP8 "
                "(lscale= is FPMR.LSCALE, ovf=sat+inf is FPMR.OSM=1); " SPEC_ONLY},
    {"riscv:", "Zvdota/Zvbdota dot-product proposal v0.2 (github.com/aswaterman/riscv-misc, isa/ldot-bdot/ldot-bdot.adoc), "
               "\"RISC-V Bulk Normalization Algorithm\" and \"Bulk Normalization of Dot Products\", one set of n products "
               "(.nN); " SPEC_ONLY},
    {"cdna4:", "AMD Instinct CDNA4 ISA reference guide, matrix arithmetic instructions, V_MFMA_SCALE_F32_*_F8F6F4 "
               "(D = C + (A x scaleA)(B x scaleB); the internal precision is not stated: modelled exact); "
               "from the specification, not checked on silicon (unverified until silicon is available)."},
};

const char *mma_catalogue_source(const char *name)
{
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (!strncmp(name, sources[i].prefix, strlen(sources[i].prefix))) return sources[i].text;
    return NULL;
}

/* The values mode key (of option o) takes on arch:qual, in words; 0 when
 * the key is no mode of it */
static int mode_values(const char *arch, const char *qual, const char *o, char *buf, size_t len)
{
    size_t kl = strcspn(o, "=");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(arch, modes[i].arch) || strncmp(qual, modes[i].prefix, strlen(modes[i].prefix)) ||
            strlen(modes[i].key) != kl || strncmp(o, modes[i].key, kl))
            continue;
        if (modes[i].values) snprintf(buf, len, "%s=one of%s", modes[i].key, modes[i].values);
        else snprintf(buf, len, "%s=%d..%d", modes[i].key, modes[i].lo, modes[i].hi);
        return 1;
    }
    return 0;
}

/* Whether option o (key=value) sets a mode of instruction arch:qual */
static int mode_option(const char *arch, const char *qual, const char *o)
{
    size_t kl = strcspn(o, "=");
    if (!o[kl]) return 0;
    const char *v = o + kl + 1;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(arch, modes[i].arch) || strncmp(qual, modes[i].prefix, strlen(modes[i].prefix)) ||
            strlen(modes[i].key) != kl || strncmp(o, modes[i].key, kl))
            continue;
        if (modes[i].values) {
            char w[40];
            snprintf(w, sizeof w, " %s ", v);
            if (strlen(v) < 30 && strstr(modes[i].values, w)) return 1;
        } else {
            char *end;
            long x = strtol(v, &end, 10);
            if (*v && !*end && x >= modes[i].lo && x <= modes[i].hi) return 1;
        }
    }
    return 0;
}

typedef struct {
    char arch[16];
    char qual[96];
    const char *ranges;
    mma_unit u;
} cat_entry;

static cat_entry *entries;
static size_t n_entries;

int mma_config_parse(const char *text, mma_unit *u, char *err, size_t len);

static void subst(char *out, size_t len, const char *pat, const char *d,
                  const char *a, const char *b)
{
    size_t n = 0;
    for (const char *p = pat; *p && n + 1 < len; ) {
        const char *r = NULL;
        if (!strncmp(p, "{d}", 3)) r = d; else if (!strncmp(p, "{a}", 3)) r = a;
        else if (!strncmp(p, "{b}", 3)) r = b;
        if (r) { while (*r && n + 1 < len) out[n++] = *r++; p += 3; }
        else out[n++] = *p++;
    }
    out[n] = 0;
}

static int itemsize(const char *t)
{
    if (!strcmp(t, "tf32") || !strcmp(t, "f32")) return 4;
    if (!strcmp(t, "f16") || !strcmp(t, "bf16")) return 2;
    if (!strcmp(t, "f64")) return 8;
    return 1;
}

/* Expand one (row, d, a, b) into an entry; aborts on a table error, which
 * the unit tests exercise for every row. */
static void add_entry(const cat_row *r, const char *dtok, const char *a, const char *b)
{
    char d[8], c[8], cfg[256], err[256];
    const char *slash = strchr(dtok, '/');
    if (slash) { snprintf(d, sizeof d, "%.*s", (int)(slash - dtok), dtok); snprintf(c, sizeof c, "%s", slash + 1); }
    else { snprintf(d, sizeof d, "%s", dtok); snprintf(c, sizeof c, "%s", dtok); }
    cat_entry *e = &entries[n_entries];
    snprintf(e->arch, sizeof e->arch, "%s", r->arch);
    subst(e->qual, sizeof e->qual, r->qual, d, a, b);
    /* canonical shape for the shape-free patterns: m128 / n8 */
    char *m = strstr(e->qual, "mMn");
    if (m) { memmove(m + 4, m + 2, strlen(m + 2) + 1); memcpy(m, "m128", 4); }
    char *nn = strstr(e->qual, "nNk");
    if (nn) nn[1] = '8';
    e->ranges = r->ranges;
    int l = r->k;
    if (r->lbytes) { int lm = r->lbytes / itemsize(a); if (lm < l) l = lm; }
    int n = snprintf(cfg, sizeof cfg, "%s,a=%s,b=%s,c=%s,d=%s,k=%d", r->cfg, a, b, c, d, r->k);
    if (strncmp(r->cfg, "fma", 3) && strncmp(r->cfg, "pairwise", 8))
        n += snprintf(cfg + n, sizeof cfg - (size_t)n, ",l=%d", l);
    int f16out = !strcmp(d, "f16");
    int ez = f16out ? r->ez16 : r->ez32;
    if (ez != SKIP && !strstr(r->cfg, "ezero")) {
        if (ez == NONE) n += snprintf(cfg + n, sizeof cfg - (size_t)n, ",ezero=none");
        else n += snprintf(cfg + n, sizeof cfg - (size_t)n, ",ezero=%d", ez);
    }
    if (!f16out && r->p32 && r->p32 != 23) snprintf(cfg + n, sizeof cfg - (size_t)n, ",p=%d", r->p32);
    if (mma_config_parse(cfg, &e->u, err, sizeof err)) {
        fprintf(stderr, "mmaref: catalogue row %s:%s: %s\n", r->arch, e->qual, err);
        abort();
    }
    snprintf(e->u.name, sizeof e->u.name, "%s:%s", e->arch, e->qual);
    n_entries++;
}

static int count_words(const char *s) { int n = 0; for (const char *p = s; *p; ) { while (*p == ' ') p++; if (*p) { n++; while (*p && *p != ' ') p++; } } return n; }
static void word(const char *s, int i, char *out, size_t len)
{
    const char *p = s;
    for (;;) {
        while (*p == ' ') p++;
        const char *q = p; while (*q && *q != ' ') q++;
        if (i-- == 0) { snprintf(out, len, "%.*s", (int)(q - p), p); return; }
        p = q;
    }
}

/* The table is expanded on first use, once for all threads: 16 threads
 * making their first mma_unit_parse at once filled it together before. */
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
    size_t cap = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int nb = strcmp(rows[i].bset, "=") ? count_words(rows[i].bset) : 1;
        cap += (size_t)(count_words(rows[i].dset) * count_words(rows[i].aset) * nb);
    }
    entries = calloc(cap, sizeof *entries);
    if (!entries) abort();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const cat_row *r = &rows[i];
        int paired = !strcmp(r->bset, "=");
        for (int di = 0; di < count_words(r->dset); di++)
            for (int ai = 0; ai < count_words(r->aset); ai++)
                for (int bi = 0; bi < (paired ? 1 : count_words(r->bset)); bi++) {
                    char d[16], a[16], b[16];
                    word(r->dset, di, d, sizeof d);
                    word(r->aset, ai, a, sizeof a);
                    if (paired) strcpy(b, a); else word(r->bset, bi, b, sizeof b);
                    add_entry(r, d, a, b);
                }
    }
}

static void build(void) { pthread_once(&build_once, build_table); }

size_t mma_catalogue_size(void) { build(); return n_entries; }

int mma_catalogue_get(size_t i, mma_catalogue_entry *e, mma_unit *u)
{
    build();
    if (i >= n_entries) return -1;
    if (e) { e->arch = entries[i].arch; e->qualifier = entries[i].qual; e->ranges = entries[i].ranges; }
    if (u) *u = entries[i].u;
    return 0;
}

/* wgmma and tcgen05 compute the same way for every N (and, for tcgen05,
 * every M: 64 and 128; 256 is cta_group::2's, 32 only .ws's): rewrite the
 * shape to the catalogue's m128/n8 form. */
static void canon_shape(char *q, size_t len, int cta2, int ws)
{
    int is_tc = !strncmp(q, "tcgen05.mma.", 12), is_wg = !strncmp(q, "wgmma.", 6);
    if (!is_tc && !is_wg) return;
    char *p = strchr(q, '.') + (is_tc ? 5 : 1);     /* at the shape */
    int m, n, k, used = 0;
    if (sscanf(p, "m%dn%dk%d%n", &m, &n, &k, &used) != 3) return;
    /* only the shape as PTX writes it: sscanf also takes blanks, signs and
     * leading zeros ("k  32"), and a name kept with them did not read back
     * from a vector file's header (found by fuzzing) */
    char shape[48];
    snprintf(shape, sizeof shape, "m%dn%dk%d", m, n, k);
    if (strlen(shape) != (size_t)used || strncmp(shape, p, (size_t)used)) return;
    if (n < 8 || n > 256 || n % 8) return;
    if (is_tc && !(m == 64 || m == 128 || (m == 256 && !ws) || (m == 32 && !cta2))) return;
    if (is_wg && m != 64) return;
    char out[200];
    snprintf(out, sizeof out, "%.*sm%dn8k%d%s", (int)(p - q), q, is_tc ? 128 : 64, k, p + used);
    snprintf(q, len, "%s", out);
}

static const char *arch_names[] = {"volta", "turing", "ampere", "ada", "hopper", "blackwell",
                                   "rtx-blackwell", "cdna1", "cdna2", "cdna3", "cdna4", "x86", "armv9", "riscv"};
#define ARCH_LIST "volta turing ampere ada hopper blackwell rtx-blackwell cdna1 cdna2 cdna3 cdna4 x86 armv9 riscv"

/* The three catalogue names nearest to qual (edit distance), among the
 * entries of arch when it is an architecture we know, else among all
 * <arch>:<qualifier> names. */
static void nearest(const char *arch, const char *qual, const char *text, char *buf, size_t len)
{
    int known = 0;
    for (size_t i = 0; i < sizeof arch_names / sizeof arch_names[0]; i++) known |= !strcmp(arch, arch_names[i]);
    size_t best[3] = {0, 0, 0};
    int bd[3] = {1 << 30, 1 << 30, 1 << 30}, nb = 0;
    /* 4 KiB: not on the stack, and not thread-local either (a library with
     * initial-exec TLS, fast.c's, gets its whole TLS block from the small
     * static reserve when Python dlopens it: 4 KiB more did not fit) */
    mma_edit_pattern *pat = malloc(sizeof *pat);
    if (len) buf[0] = 0;
    if (!pat) return;
    mma_edit_prepare(pat, known ? qual : text);
    for (size_t i = 0; i < n_entries; i++) {
        if (known && strcmp(entries[i].arch, arch)) continue;
        char full[200];
        snprintf(full, sizeof full, "%s:%s", entries[i].arch, entries[i].qual);
        /* a candidate at or beyond the third best cannot enter: its distance
         * need not be finished */
        int dd = mma_edit_distance(pat, known ? entries[i].qual : full, bd[2]);
        for (int j = 0; j < 3; j++) if (dd < bd[j]) {
            for (int m = 2; m > j; m--) { bd[m] = bd[m - 1]; best[m] = best[m - 1]; }
            bd[j] = dd; best[j] = i; if (nb < 3) nb++; break;
        }
    }
    free(pat);
    size_t n = 0;
    for (int j = 0; j < nb && n < len; j++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s:%s", j ? ", " : "", entries[best[j]].arch, entries[best[j]].qual);
}

static int same_unit(const mma_unit *x, const mma_unit *y)
{
    return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d && x->scale == y->scale &&
           x->k == y->k && x->lmax == y->lmax && x->block == y->block && x->tree == y->tree &&
           x->f == y->f && x->f2 == y->f2 && x->g == y->g && x->align == y->align && x->rho == y->rho &&
           x->p == y->p && x->cadd == y->cadd && x->ezero == y->ezero && x->interleave == y->interleave &&
           x->ways == y->ways && x->fuse == y->fuse && x->start == y->start && x->lscale == y->lscale &&
           x->flags == y->flags;
}

static int parse_name(const char *text, mma_unit *u, char *err, size_t len);

/* "<instruction>,key=value,...": the hardware fixes every choice, so an
 * option is accepted only where it restates the instruction's own. */
/* the value of key in configuration string cfg ("" when absent) */
static void cfg_value(const char *cfg, const char *key, char *out, size_t len)
{
    char k[40];
    snprintf(k, sizeof k, ",%s=", key);
    const char *at = strstr(cfg, k);
    if (!at) { if (len) out[0] = 0; return; }
    at += strlen(k);
    snprintf(out, len, "%.*s", (int)strcspn(at, ","), at);
}

static int parse_name_options(const char *text, size_t namelen, mma_unit *u, char *err, size_t len)
{
    char name[200], opts[400];
    if (namelen >= sizeof name || strlen(text + namelen) >= sizeof opts) {
        if (err) snprintf(err, len, "instruction with options '%s': too long", text);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)namelen, text);
    snprintf(opts, sizeof opts, "%s", text + namelen + 1);
    if (parse_name(name, u, err, len)) return -1;
    char cfg[512], base[512], arch[32], qual[200];
    mma_unit_config(u, cfg, sizeof cfg);
    snprintf(base, sizeof base, "%s", cfg);
    char own_name[sizeof u->name];
    snprintf(own_name, sizeof own_name, "%s", u->name);
    mma_name_split(own_name, arch, sizeof arch, qual, sizeof qual);
    char seen[sizeof opts + 8] = "";                /* the modes set, as ",key=value" each */
    for (char *rest = opts, *o; (o = strsep(&rest, ",")) != NULL; ) {
        char with[1024], perr[400];
        if (!*o) {
            if (err) snprintf(err, len, "%s: an empty option (two commas in a row, or one at an end)", name);
            return -1;
        }
        mma_unit v;
        /* the option replaces the instruction's own value of that field */
        char key[64];
        snprintf(key, sizeof key, ",%.*s=", (int)strcspn(o, "="), o);
        const char *at = strstr(cfg, key);
        if (at) {
            const char *end = at + 1 + strcspn(at + 1, ",");
            snprintf(with, sizeof with, "%.*s%s,%s", (int)(at - cfg), cfg, end, o);
        } else {
            snprintf(with, sizeof with, "%s,%s", cfg, o);
        }
        if (mma_config_parse(with, &v, perr, sizeof perr)) {
            if (err) snprintf(err, len, "%s: option '%s' refused: %s", name, o, perr + (strncmp(perr, "configuration: ", 15) ? 0 : 15));
            return -1;
        }
        if (mode_option(arch, qual, o)) {           /* a mode the program sets (FPMR, FPCR) */
            const char *prev = strstr(seen, key);   /* ",lscale=" among the modes set already */
            if (prev) {
                prev += strlen(key);
                if (err) snprintf(err, len, "%s: option '%.*s' given twice ('%.*s', then '%s')", name,
                                  (int)strlen(key) - 2, key + 1, (int)strcspn(prev, ","), prev, o + strlen(key) - 1);
                return -1;
            }
            size_t used = strlen(seen);
            snprintf(seen + used, sizeof seen - used, ",%s", o);
            *u = v;
            mma_unit_config(u, cfg, sizeof cfg);
            continue;
        }
        char range[80];
        if (mode_values(arch, qual, o, range, sizeof range)) {
            if (err) snprintf(err, len, "%s: option '%s' refused: this mode takes %s", name, o, range);
            return -1;
        }
        if (!same_unit(u, &v)) {
            char own[64] = "";
            if (at) snprintf(own, sizeof own, " (its own: %.*s)", (int)strcspn(at + 1, ","), at + 1);
            if (err) snprintf(err, len, "%s: option '%s' refused: the instruction's arithmetic is fixed by the hardware%s; "
                              "to model another unit start from its configuration string (mmaref describe %s)", name, o, own, name);
            return -1;
        }
    }
    /* the name: the instruction's, and the modes set away from their
     * defaults in the table's order (one unit, one name) */
    size_t n = (size_t)snprintf(u->name, sizeof u->name, "%s", own_name);
    const char *done = "";
    for (size_t i = 0; i < sizeof modes / sizeof modes[0] && n < sizeof u->name; i++) {
        if (strcmp(arch, modes[i].arch) || strncmp(qual, modes[i].prefix, strlen(modes[i].prefix)) ||
            !strcmp(done, modes[i].key))
            continue;
        char was[64], now[64];
        cfg_value(base, modes[i].key, was, sizeof was);
        cfg_value(cfg, modes[i].key, now, sizeof now);
        if (strcmp(was, now) && now[0])
            n += (size_t)snprintf(u->name + n, sizeof u->name - n, ",%s=%s", modes[i].key, now);
        done = modes[i].key;
    }
    return 0;
}

int mma_unit_parse(const char *text, mma_unit *u, char *err, size_t len)
{
    size_t first = strcspn(text, ",");
    if (memchr(text, ':', first) && text[first] == ',') return parse_name_options(text, first, u, err, len);
    if (strchr(text, '=')) return mma_config_parse(text, u, err, len);
    return parse_name(text, u, err, len);
}

static int parse_name(const char *text, mma_unit *u, char *err, size_t len)
{
    build();
    char arch[32], qual[200], canon[200], look[200], near[400];
    int cta2, ws;
    int has_arch = mma_name_split(text, arch, sizeof arch, qual, sizeof qual);
    mma_name_canon(qual, canon, sizeof canon, &cta2, &ws);
    snprintf(look, sizeof look, "%s", canon);
    canon_shape(look, sizeof look, cta2, ws);
    if (!has_arch) {
        /* a bare qualifier: say which architectures have it */
        size_t n = 0;
        near[0] = 0;
        for (size_t i = 0; i < n_entries && n < sizeof near; i++)
            if (!strcmp(entries[i].qual, look) && (!n || !strstr(near, entries[i].arch)))
                n += (size_t)snprintf(near + n, sizeof near - n, "%s%s", n ? ", " : "", entries[i].arch);
        if (err) {
            if (n) snprintf(err, len, "unknown instruction '%s': give the architecture as <arch>:<qualifier> (this qualifier exists on %s)", text, near);
            else snprintf(err, len, "unknown instruction '%s': names are <arch>:<qualifier>, arch one of " ARCH_LIST, text);
        }
        return -1;
    }
    for (size_t i = 0; i < n_entries; i++)
        if (!strcmp(entries[i].arch, arch) && !strcmp(entries[i].qual, look)) {
            *u = entries[i].u;
            snprintf(u->name, sizeof u->name, "%.31s:%.95s", arch, canon);
            return 0;
        }
    int known = 0;
    for (size_t i = 0; i < sizeof arch_names / sizeof arch_names[0]; i++) known |= !strcmp(arch, arch_names[i]);
    nearest(arch, look, text, near, sizeof near);
    if (err) snprintf(err, len, "unknown instruction '%s'%s; nearest: %s", text,
                      known ? "" : " (unknown architecture; architectures: " ARCH_LIST ")", near);
    return -1;
}
