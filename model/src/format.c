/* Floating-point formats (the table below), and decoding of raw encodings
 * into exact (sign, integer significand, exponent) triples. */
#include "internal.h"

#include <string.h>

/* The table, written once for the host and (under nvcc) for the GPU's
 * constant memory, which the CUDA backend's decoding reads. */
/*                     name        w  hx  e  m bias emin sign inf */
#define FORMATS {                                                                 \
    [MMA_FMT_NONE]     = {"none",      0, 0, 0,  0,    0,     0, 0, 0},           \
    [MMA_FMT_FP64]     = {"fp64",     64, 16, 11, 52, 1023, -1022, 1, 1},         \
    [MMA_FMT_FP32]     = {"fp32",     32, 8, 8,  23,  127,  -126, 1, 1},          \
    [MMA_FMT_TF32]     = {"tf32",     32, 8, 8,  10,  127,  -126, 1, 1},          \
    [MMA_FMT_FP16]     = {"fp16",     16, 4, 5,  10,   15,   -14, 1, 1},          \
    [MMA_FMT_BF16]     = {"bf16",     16, 4, 8,   7,  127,  -126, 1, 1},          \
    [MMA_FMT_E4M3]     = {"e4m3",      8, 2, 4,   3,    7,    -6, 1, 0},          \
    [MMA_FMT_E5M2]     = {"e5m2",      8, 2, 5,   2,   15,   -14, 1, 1},          \
    [MMA_FMT_E4M3FNUZ] = {"e4m3fnuz",  8, 2, 4,   3,    8,    -7, 1, 0},          \
    [MMA_FMT_E5M2FNUZ] = {"e5m2fnuz",  8, 2, 5,   2,   16,   -15, 1, 0},          \
    [MMA_FMT_E3M2]     = {"e3m2",      6, 2, 3,   2,    3,    -2, 1, 0},          \
    [MMA_FMT_E2M3]     = {"e2m3",      6, 2, 2,   3,    1,     0, 1, 0},          \
    [MMA_FMT_E2M1]     = {"e2m1",      4, 1, 2,   1,    1,     0, 1, 0},          \
    [MMA_FMT_UE8M0]    = {"ue8m0",     8, 2, 8,   0,  127,  -127, 0, 0},          \
    [MMA_FMT_UE4M3]    = {"ue4m3",     8, 2, 4,   3,    7,    -6, 0, 0},          \
    [MMA_FMT_E4M3IEEE] = {"e4m3ieee",  8, 2, 4,   3,    7,    -6, 1, 1},          \
}
static const mma_format_info fmt_table[MMA_FMT_COUNT] = FORMATS;
#if defined(__CUDACC__)
static __constant__ mma_format_info fmt_table_dev[MMA_FMT_COUNT] = FORMATS;
#endif

/* Other spellings accepted on input: PTX and AMD names. */
static const struct { const char *alias; mma_fmt f; } fmt_alias[] = {
    {"f64", MMA_FMT_FP64}, {"f32", MMA_FMT_FP32}, {"f16", MMA_FMT_FP16},
    {"xf32", MMA_FMT_TF32}, {"fp8", MMA_FMT_E4M3FNUZ}, {"bf8", MMA_FMT_E5M2FNUZ},
    {"e4m3fn", MMA_FMT_E4M3}, {"fp6e3m2", MMA_FMT_E3M2}, {"fp6e2m3", MMA_FMT_E2M3},
    {"fp4", MMA_FMT_E2M1}, {"fp8alt", MMA_FMT_E4M3IEEE},
};

MMA_HD const mma_format_info *mma_format(mma_fmt f)
{
    if ((int)f <= 0 || f >= MMA_FMT_COUNT) return NULL;
#if defined(__CUDA_ARCH__)
    return &fmt_table_dev[f];
#else
    return &fmt_table[f];
#endif
}

mma_fmt mma_format_by_name(const char *name)
{
    for (int f = 1; f < MMA_FMT_COUNT; f++)
        if (strcmp(fmt_table[f].name, name) == 0) return (mma_fmt)f;
    for (size_t i = 0; i < sizeof fmt_alias / sizeof fmt_alias[0]; i++)
        if (strcmp(fmt_alias[i].alias, name) == 0) return fmt_alias[i].f;
    return MMA_FMT_NONE;
}

/* Is this encoding a NaN / Inf under the format's own rules? */
static MMA_HD mma_class special_class(mma_fmt f, uint64_t bits, uint64_t mag)
{
    const mma_format_info *fi = mma_format(f);
    int mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;      /* tf32 keeps fp32 layout */
    uint64_t emask = ((uint64_t)1 << fi->ebits) - 1;
    uint64_t mmask = ((uint64_t)1 << mb) - 1;
    switch (f) {
    case MMA_FMT_E4M3:      /* OCP e4m3fn: only S.1111.111 is NaN          */
        return mag == 0x7f ? MMA_NAN : MMA_FINITE;
    case MMA_FMT_E4M3FNUZ:  /* AMD fnuz: the "negative zero" 0x80 is NaN   */
    case MMA_FMT_E5M2FNUZ:
        return bits == 0x80 ? MMA_NAN : MMA_FINITE;
    case MMA_FMT_E3M2: case MMA_FMT_E2M3: case MMA_FMT_E2M1:
        return MMA_FINITE;
    case MMA_FMT_UE8M0:
        return bits == 0xff ? MMA_NAN : MMA_FINITE;
    case MMA_FMT_UE4M3:     /* top bit ignored (paper, GDFS); 0x7f is NaN  */
        return (bits & 0x7f) == 0x7f ? MMA_NAN : MMA_FINITE;
    default:
        if (((mag >> mb) & emask) != emask) return MMA_FINITE;
        return (mag & mmask) ? MMA_NAN : MMA_INF;
    }
}

MMA_HD mma_value mma_decode(mma_fmt f, uint64_t bits)
{
    mma_value v = {MMA_ZERO, 0, 0, 0};
    const mma_format_info *fi = mma_format(f);
    if (!fi) { v.cls = MMA_NAN; return v; }
    if (fi->width < 64) bits &= ((uint64_t)1 << fi->width) - 1;
    if (f == MMA_FMT_TF32) bits &= ~(uint64_t)0x1fff;  /* tensor cores ignore them */
    if (f == MMA_FMT_UE4M3) bits &= 0x7f;
    uint64_t mag = fi->has_sign ? bits & ~((uint64_t)1 << (fi->width - 1)) : bits;
    v.neg = fi->has_sign ? (int)(bits >> (fi->width - 1)) : 0;
    if (f == MMA_FMT_UE8M0) {          /* a pure power of two, no significand */
        v.cls = bits == 0xff ? MMA_NAN : MMA_FINITE;
        v.sig = 1;
        v.exp = (int32_t)bits - 127;
        return v;
    }
    int mbits = f == MMA_FMT_TF32 ? 23 : fi->mbits;   /* tf32 keeps fp32 layout */
    v.cls = special_class(f, bits, mag);
    if (v.cls != MMA_FINITE) return v;
    uint64_t e = mag >> mbits;
    uint64_t m = mag & (((uint64_t)1 << mbits) - 1);
    if (e == 0) {
        if (m == 0) { v.cls = MMA_ZERO; v.exp = fi->emin; return v; }
        v.sig = m;
    } else {
        v.sig = m | ((uint64_t)1 << mbits);
    }
    v.exp = (e == 0 ? fi->emin : (int32_t)e - fi->bias) - mbits;
    return v;
}
