/*
 * mmaref: bit-exact reference models of GPU matrix-multiply-accumulate units.
 *
 * Every function takes and returns raw encodings (uint64_t bit patterns, right
 * aligned), never host floats, so that NaN payloads, signed zeros and
 * subnormals survive.  A unit computes one dot-product-accumulate
 *     d = f(c, a[0..K-1], b[0..K-1] [, scales])
 * which, per the MMA-Sim paper (arXiv 2511.10909, section "Problem reduction"), is all
 * an instruction does for each element of its output tile.
 */
#ifndef MMAREF_H
#define MMAREF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMAREF_VERSION "0.1.0"

/* ---- formats ---------------------------------------------------------- */
typedef enum {
    MMA_FMT_NONE = 0,
    MMA_FMT_FP64,
    MMA_FMT_FP32,
    MMA_FMT_TF32,      /* stored in 32 bits; the low 13 bits are ignored    */
    MMA_FMT_FP16,
    MMA_FMT_BF16,
    MMA_FMT_E4M3,      /* OCP e4m3fn: no Inf, NaN = S.1111.111              */
    MMA_FMT_E5M2,
    MMA_FMT_E4M3FNUZ,  /* AMD fp8: bias 8, NaN = 0x80 only, no -0           */
    MMA_FMT_E5M2FNUZ,  /* AMD bf8: bias 16, NaN = 0x80 only, no -0          */
    MMA_FMT_E3M2,      /* fp6 */
    MMA_FMT_E2M3,      /* fp6 */
    MMA_FMT_E2M1,      /* fp4 */
    MMA_FMT_UE8M0,     /* MX scale: 2^(e-127), 0xff = NaN                   */
    MMA_FMT_UE4M3,     /* NVFP4 scale: the hardware ignores the top bit     */
    MMA_FMT_E4M3IEEE,  /* e4m3 with IEEE Inf and NaN encodings (max 240): the
                          "FP8 alt" of RISC-V units, ml_dtypes float8_e4m3 */
    MMA_FMT_COUNT
} mma_fmt;

typedef struct {
    const char *name;   /* canonical lowercase name ("fp32", "e4m3", ...)   */
    int width;          /* bits in the encoding                             */
    int hexdigits;      /* digits in a vector file field                    */
    int ebits, mbits;   /* exponent and stored fraction bits                */
    int bias;
    int emin;           /* exponent of the smallest normal (and subnormals) */
    int has_sign;
    int has_inf;
} mma_format_info;

const mma_format_info *mma_format(mma_fmt f);
mma_fmt mma_format_by_name(const char *name);   /* MMA_FMT_NONE if unknown */

/* A decoded value: (-1)^neg * sig * 2^exp, sig an exact integer. */
typedef enum { MMA_ZERO, MMA_FINITE, MMA_INF, MMA_NAN } mma_class;
typedef struct {
    mma_class cls;
    int neg;
    int32_t exp;   /* exponent of sig's least significant bit              */
    uint64_t sig;  /* includes the hidden bit; 0 for zero                  */
} mma_value;

mma_value mma_decode(mma_fmt f, uint64_t bits);
/* The encoding of f's largest finite (positive) number: 0x7f7fffff for fp32,
 * 0x7e (448) for e4m3, 0x77 (240) for e4m3ieee, 0x1f (6) for e2m1, ... */
uint64_t mma_format_max(mma_fmt f);

/* ---- a dot-product-accumulate unit (the configuration) ---------------- */
typedef enum {
    MMA_TREE_FUSED,     /* one fused aligned sum of c and L products (FDA)  */
    MMA_TREE_EVENODD,   /* even and odd products fused apart, then joined   */
    MMA_TREE_GROUPS,    /* exact sums of G products, scaled, then fused     */
    MMA_TREE_PAIRWISE,  /* FP32 pairwise sums in groups of G, then chained  */
    MMA_TREE_FMA,       /* sequential IEEE fma in k order                   */
    MMA_TREE_EXACT,     /* exact sum, one rounding (CDNA1 E-FDPA)           */
    MMA_TREE_IEEE,      /* the same with IEEE 754 semantics and flags       */
    MMA_TREE_CHAINS     /* interleaved chains of rounded operations (fma or
                           fused dot steps), joined by rounded additions:
                           x86 AMX and AVX512-BF16, Arm BF16, RISC-V RVBNA  */
} mma_tree;

/* Rounding directions: toward zero, to nearest (ties to even), down (toward
 * -inf), up (toward +inf), to nearest with ties away from zero, and to odd
 * (truncate, then set the last kept bit if anything was lost). */
typedef enum { MMA_RZ, MMA_RNE, MMA_RD, MMA_RU, MMA_RMM, MMA_RODD } mma_rounding;

typedef enum {
    MMA_CADD_FUSED,     /* c is one more term of the fused sum              */
    MMA_CADD_RD,        /* AMD FDRDA: products fused, then c added, both
                           aligned with round-down (dot at F2+1, c at F)    */
    MMA_CADD_RDZ,       /* AMD GFDRDA: as RD, but c is cut toward zero when
                           its exponent is below emax - F - 1               */
    MMA_CADD_AFTER      /* the fused steps start from +0 and c is added at
                           the end by one IEEE round-to-nearest addition
                           (Hopper's emulation of fp8 mma.sync,
                           docs/hardware.md)                                */
} mma_cadd;

enum {
    MMA_F_FTZ_IN     = 1u << 0,  /* subnormal inputs (a, b, c) flush to +0  */
    MMA_F_FTZ_SUM    = 1u << 1,  /* subnormal products/sums flush, sign kept*/
    MMA_F_PROD_OVF   = 1u << 2,  /* products >= 2^128 overflow to Inf (AMD) */
    MMA_F_NAN_CANON  = 1u << 3,  /* NaN result is the canonical 0x7fffffff  */
    MMA_F_ZERO_POS   = 1u << 4,  /* an exactly zero result is +0            */
    MMA_F_NO_EZERO   = 1u << 5,  /* zero terms take no part in emax         */
    MMA_F_NAN_ANY    = 1u << 6,  /* NaN payload unspecified: checkers match
                                    any NaN against any NaN                 */
    MMA_F_NAN_PROP   = 1u << 7,  /* NaN result: the first NaN operand,
                                    quieted (else the default quiet NaN)    */
    MMA_F_ZERO_IEEE  = 1u << 8,  /* an exactly zero sum is signed as IEEE 754
                                    6.3 says (neither ZERO bit: +0, and a
                                    nonzero sum rounded to zero keeps its
                                    sign: zero=fixed)                       */
    MMA_F_TINY_BEFORE = 1u << 9, /* underflow: tininess before rounding     */
    /* What a finite result too large for the output format becomes (none
     * of the two bits: MMA_F_OVF_INF under RZ on the fused, evenodd,
     * groups and exact trees, else MMA_F_OVF_IEEE) */
    MMA_F_OVF_IEEE   = 1u << 10, /* IEEE 754 7.4: Inf under RNE, RMM and the
                                    rounding toward the result's sign; the
                                    largest finite under RZ, RODD, away     */
    MMA_F_OVF_INF    = 2u << 10, /* always Inf (NVIDIA, even under RZ)      */
    MMA_F_OVF_SAT    = 3u << 10, /* always the largest finite (OCP
                                    "satfinite"), an Inf result too         */
    MMA_F_VIA_FP16   = 1u << 16, /* a and b are converted to fp16 before
                                    the products (Hopper's emulated fp8
                                    mma.sync: an e4m3 subnormal becomes a
                                    normal fp16, which moves emax)          */
    /* the chains tree (and ovf=sat+inf on the rounding trees) */
    MMA_F_NAN_X86    = 1u << 20, /* NaN: each operation returns its first NaN
                                    operand (an fma's a, then b, then the
                                    accumulator; an addition's first
                                    operand), quieted; an invalid operation
                                    gives x86's QNaN indefinite (0xffc00000)*/
    MMA_F_NAN_INDEF  = 1u << 21, /* every NaN result is the QNaN indefinite */
    MMA_F_SAT_INF    = 1u << 22, /* with ovf=sat: an Inf operand still gives
                                    Inf, only a finite result too large
                                    saturates (Arm FPMR.OSM, ovf=sat+inf)   */
    MMA_F_ORDER_DOWN = 1u << 23, /* chains: products in descending k order  */
    MMA_F_VIA_TF32   = 1u << 24, /* a and b fp32, quieted when NaN, then the
                                    low 13 bits cleared (x86 AMX-TF32)      */
    MMA_F_NEG        = 1u << 17  /* negated products: d = c - sum a_k*b_k,
                                    each product's sign flipped before the
                                    sum (RISC-V SDOTPN-like forms; neg=1)   */
};

/* Where a chain of the chains tree starts (mma_unit.start) */
enum {
    MMA_START_C = 1,    /* chain 0's accumulator is c (one chain)           */
    MMA_START_ZERO,     /* every chain from +0, c added at the end          */
    MMA_START_NONE      /* a chain's first operation rounds its products
                           alone; c added at the end                        */
};
#define MMA_F_OVF_MASK (3u << 10)

/* IEEE 754 exception flags, TestFloat's bit assignment (the flag byte of
 * vector files) */
#define MMA_FLAG_INEXACT   0x01u
#define MMA_FLAG_UNDERFLOW 0x02u
#define MMA_FLAG_OVERFLOW  0x04u
#define MMA_FLAG_INFINITE  0x08u   /* divide by zero: never raised by a dot product */
#define MMA_FLAG_INVALID   0x10u

#define MMA_MAX_K 256
#define MMA_MAX_SCALES 16   /* block scales per operand (k / block) */

typedef struct {
    char name[128];     /* "<arch>:<qualifier>"; "" for a bare configuration */
    mma_fmt a, b, c, d; /* operand formats; d is the output                  */
    mma_fmt scale;      /* block-scale format, MMA_FMT_NONE when unscaled    */
    int k;              /* products per dot product                          */
    int lmax;           /* products per fused step; k/lmax steps are chained */
    int block;          /* products per scale (block-scaled forms)           */
    mma_tree tree;
    int f;              /* fraction bits kept in alignment (F)               */
    int f2;             /* AMD second-stage fraction bits (F2)               */
    int g;              /* group size for PAIRWISE and GROUPS                */
    mma_rounding align; /* how aligned terms are cut: RZ or RD               */
    mma_rounding rho;   /* output rounding                                   */
    int p;              /* output fraction bits (23 fp32, 13 e8m13, 10 fp16) */
    mma_cadd cadd;
    int ezero;          /* exponent given to zero terms when finding emax    */
    int interleave;     /* 0: step s takes products s*lmax..; n > 0: runs of
                           n consecutive k go round-robin to the steps       */
    int ways;           /* chains tree: chains of a step; product k of the
                           step goes to chain k mod ways                     */
    int fuse;           /* chains tree: products per rounded operation       */
    int start;          /* chains tree: MMA_START_*                          */
    int lscale;         /* products scaled by 2^-lscale before c is added
                           (Arm FPMR.LSCALE; exact and ieee trees)           */
    unsigned flags;     /* MMA_F_*                                           */
    int impl;           /* set by mma_unit_parse: which code path computes
                           it (0: decide on every call, for hand-made units) */
} mma_unit;

/* Parse an instruction name ("hopper:wgmma.m64n8k32.f32.e4m3.e4m3") or a
 * configuration string ("fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,f=13,...").
 * Returns 0 on success; otherwise writes a message into err (naming the bad
 * field and, for unknown names, the nearest valid ones) and returns -1. */
int mma_unit_parse(const char *text, mma_unit *u, char *err, size_t errlen);

/* The canonical configuration string of u (parseable by mma_unit_parse). */
int mma_unit_config(const mma_unit *u, char *buf, size_t len);

/* A paragraph explaining what u computes. */
int mma_unit_explain(const mma_unit *u, char *buf, size_t len);

/* Name of the paper's algorithm u realizes ("FDA", "CoFDA", "GDFS", ...). */
const char *mma_unit_algorithm(const mma_unit *u);

/* Number of scale fields per operand in one dot product (0 if unscaled). */
int mma_unit_nscales(const mma_unit *u);

/* One dot product.  a, b hold u->k encodings; sa, sb hold the block scales
 * of a and b (mma_unit_nscales each) or NULL for unscaled units.  Returns
 * d's encoding. */
uint64_t mma_dot(const mma_unit *u, uint64_t c, const uint64_t *a,
                 const uint64_t *b, const uint64_t *sa, const uint64_t *sb);

/* mma_dot and the IEEE 754 exception flags it raises (MMA_FLAG_*, 0 where
 * the unit defines none): for the whole operation, as one IEEE operation
 * (or a sequence of them, for chained steps) would raise them. */
uint64_t mma_dot_flags(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                       const uint64_t *sa, const uint64_t *sb, unsigned *flags);
/* 1 when u defines exception flags (the ieee tree), else 0. */
int mma_unit_has_flags(const mma_unit *u);
/* The names of the flags set in flags ("inexact overflow"), or "none". */
int mma_flags_describe(unsigned flags, char *buf, size_t len);

/* Whole tile D = A*B + C: A is M x K row-major, B is K x N column-major
 * (so that B's column j is contiguous, as the dot product reads it), C and
 * D are M x N row-major.  K must equal u->k.  For a block-scaled unit every
 * scale is 1 here; mma_tile_scaled takes them. */
void mma_tile(const mma_unit *u, int m, int n, const uint64_t *A,
              const uint64_t *B, const uint64_t *C, uint64_t *D);

/* The same with the block scales of a block-scaled unit: SA holds A's,
 * M x (K / block) row-major (row i's scales contiguous, as A's row), SB
 * holds B's, N x (K / block) (column j's contiguous, as B's column).  SA or
 * SB NULL, or an unscaled unit: every scale 1. */
void mma_tile_scaled(const mma_unit *u, int m, int n, const uint64_t *A, const uint64_t *B,
                     const uint64_t *C, const uint64_t *SA, const uint64_t *SB, uint64_t *D);

/* Do two output encodings match under u's rules (NaN payload freedom)? */
int mma_result_equal(const mma_unit *u, uint64_t x, uint64_t y);

/* ---- the instruction catalogue ---------------------------------------- */
typedef struct {
    const char *arch;       /* "hopper", "cdna3", ...                         */
    const char *qualifier;  /* as PTX writes it / the AMD mnemonic            */
    const char *ranges;     /* shape freedom ("n=8..256/8"), or ""            */
} mma_catalogue_entry;

size_t mma_catalogue_size(void);
/* Fills e and u for entry i (0-based); returns -1 past the end. */
int mma_catalogue_get(size_t i, mma_catalogue_entry *e, mma_unit *u);
/* The document an instruction's model follows, and whether it was checked
 * on silicon, in words ("Intel SDM, VDPBF16PS (operation); checked on
 * silicon: ..."), for a catalogue name ("x86:vdpbf16ps", with or without
 * mode options); NULL for names without such a note.  mma_unit_explain
 * ends with it. */
const char *mma_catalogue_source(const char *name);

#ifdef __cplusplus
}
#endif
#endif
