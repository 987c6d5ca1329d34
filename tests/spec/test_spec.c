/* The presets that rest on a specification only, against oracles written
 * here from the documents' own text, apart from model/ (no model code is
 * called but mma_unit_parse and mma_dot on the unit under test):
 *   - Arm BFDOT/BFMMLA, FPCR.EBF=0 and 1, and the FP8 FDOT/FMMLA (Arm ARM,
 *     shared pseudo-code J1.3.3: BFDotAdd, BFMulH, FPAdd_BF16, BFRound,
 *     BFMatMulAddH, FPDot, FPAdd, FP8DotAddFP, FP8MatMulAddFP, FP8Unpack,
 *     FPRoundBase), as functions of the same names below;
 *   - RISC-V RVBNA (the Zvdota/Zvbdota proposal v0.2, "RISC-V Bulk
 *     Normalization Algorithm": its BulkNormalizedDotProduct pseudo-code
 *     transcribed in integers, then c added rounded to odd);
 *   - the x86 forms not on the machines we hold (TDPFP16PS, TMMULTF32PS,
 *     the AMX-FP8 TDP*F8PS; Intel ISE pseudo-code) and the two checked on
 *     silicon (Intel SDM: VDPBF16PS, TDPBF16PS);
 *   - AMD CDNA4 V_MFMA_SCALE_F32_*_F8F6F4 (one exact sum, scaled, rounded
 *     to nearest: what the preset assumes).
 * Exact values are GNU MPFR numbers of ample precision; each rounding is
 * the document's, step for step.  Directed vectors aim at each rule
 * (round-to-odd ties, flushing of inputs and results, overflow to Inf or
 * saturation, 2^-LSCALE and E8M0 scaling, NaN and zero signs) and assert
 * the rule's own consequence as well as the oracle's bits; random vectors
 * (random bits with specials, normal values, narrow exponent bands) then
 * compare the preset with the oracle, bit for bit.
 *
 * usage: test_spec [count] [--mutate]   (make test-spec: count 20000)
 *   --mutate  replaces each preset by a unit one rule away (round-to-odd by
 *             RNE, no flushing, no saturation, no scaling, ...) and expects
 *             every one of them to fail: the tests can see each rule */
#include "mmaref.h"

#include <mpfr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREC 2400                /* exact for every sum here (2^-600 .. 2^600) */

static long n_checks, n_bad;
static int mutate;

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- formats, from their definitions -------------------------------------- */

enum { F_FP32, F_FP16, F_BF16, F_E4M3, F_E5M2, F_E2M3, F_E3M2, F_E2M1 };
static const struct { int E, F, bias, ieee, ocp_e4m3; } fmts[] = {
    {8, 23, 127, 1, 0}, {5, 10, 15, 1, 0}, {8, 7, 127, 1, 0}, {4, 3, 7, 0, 1},
    {5, 2, 15, 1, 0},   {2, 3, 1, 0, 0},   {3, 2, 3, 0, 0},    {2, 1, 1, 0, 0}};
enum { C_ZERO, C_NUM, C_INF, C_QNAN, C_SNAN };

/* FP8Unpack / FPUnpackBase without flushing: class, sign, value */
static int unpack(int f, uint64_t bits, int *neg, mpfr_t v)
{
    int E = fmts[f].E, F = fmts[f].F;
    *neg = (int)((bits >> (E + F)) & 1);
    uint64_t exp = (bits >> F) & ((1u << E) - 1), frac = bits & ((1u << F) - 1);
    mpfr_set_ui(v, 0, MPFR_RNDN);
    if (fmts[f].ieee && exp == (1u << E) - 1) {
        if (!frac) return C_INF;
        return (frac >> (F - 1)) & 1 ? C_QNAN : C_SNAN;
    }
    if (fmts[f].ocp_e4m3 && exp == 15 && frac == 7) return C_SNAN;     /* FP8Unpack: E4M3's NaN */
    if (!exp && !frac) return C_ZERO;
    mpfr_set_ui(v, exp ? (1u << F) | frac : frac, MPFR_RNDN);
    mpfr_mul_2si(v, v, (exp ? (long)exp : 1) - fmts[f].bias - F, MPFR_RNDN);
    if (*neg) mpfr_neg(v, v, MPFR_RNDN);
    return C_NUM;
}

enum { R_RNE, R_RZ, R_RU, R_RD, R_ODD };
enum { O_IEEE, O_INF, O_SAT };

/* FPRoundBase (and BFRound, RVBNA's normalization) on a nonzero exact
 * value into a binary format of E exponent and F fraction bits: fz flushes
 * a value whose exponent lies below the smallest normal's, before rounding;
 * ovf says what a result too large becomes */
static uint64_t fpround(const mpfr_t x, int E, int F, int mode, int fz, int ovf)
{
    mpfr_t m, t;
    mpfr_inits2(PREC, m, t, (mpfr_ptr)0);
    int sign = mpfr_sgn(x) < 0;
    mpfr_abs(m, x, MPFR_RNDN);
    long exponent = mpfr_get_exp(m) - 1;                     /* m = M * 2^exponent, M in [1, 2) */
    long minimum_exp = 2 - (1L << (E - 1));
    uint64_t sbit = (uint64_t)sign << (E + F), out;
    if (fz && exponent < minimum_exp) { out = sbit; goto done; }
    long biased_exp = exponent - minimum_exp + 1 > 0 ? exponent - minimum_exp + 1 : 0;
    /* mantissa * 2^F: m / 2^(max(exponent, minimum_exp) - F) */
    mpfr_mul_2si(t, m, F - (biased_exp ? exponent : minimum_exp), MPFR_RNDN);
    mpfr_t im;
    mpfr_init2(im, PREC);
    mpfr_floor(im, t);
    uint64_t int_mant = mpfr_get_ui(im, MPFR_RNDN);
    mpfr_sub(t, t, im, MPFR_RNDN);                           /* error, in [0, 1) */
    int cmp = mpfr_cmp_d(t, 0.5), inexact = !mpfr_zero_p(t);
    mpfr_clear(im);
    int up = 0;
    switch (mode) {
    case R_RNE: up = cmp > 0 || (cmp == 0 && (int_mant & 1)); break;
    case R_RU: up = inexact && !sign; break;
    case R_RD: up = inexact && sign; break;
    case R_ODD: up = inexact && !(int_mant & 1); break;
    default: break;
    }
    int_mant += (uint64_t)up;
    if (biased_exp == 0 && int_mant == (1ull << F)) biased_exp = 1;
    if (int_mant == (2ull << F)) { biased_exp++; int_mant >>= 1; }
    if (biased_exp >= (1L << E) - 1) {
        int inf = ovf == O_INF || (ovf == O_IEEE && (mode == R_RNE || (mode == R_RU && !sign) || (mode == R_RD && sign)));
        out = inf ? sbit | (((1ull << E) - 1) << F) : sbit | (((1ull << E) - 2) << F) | ((1ull << F) - 1);
        goto done;
    }
    out = sbit | (uint64_t)biased_exp << F | (int_mant & ((1ull << F) - 1));
done:
    mpfr_clears(m, t, (mpfr_ptr)0);
    return out;
}

static uint64_t inf_of(int E, int F, int neg) { return (uint64_t)neg << (E + F) | (((1ull << E) - 1) << F); }
static uint64_t default_nan(int E, int F) { return inf_of(E, F, 0) | (1ull << (F - 1)); }   /* FPDefaultNaN (AH=0) */

/* ---- Arm: FPCR.EBF=0 ------------------------------------------------------- */

/* BFUnpack: exponent 0 is a zero (the fixed flush), all ones Inf or QNaN */
static int bfunpack(uint64_t bits, int n32, int *neg, mpfr_t v)
{
    int F = n32 ? 23 : 7;
    *neg = (int)((bits >> (n32 ? 31 : 15)) & 1);
    uint64_t exp = (bits >> F) & 0xff, frac = bits & ((1u << F) - 1);
    mpfr_set_ui(v, 0, MPFR_RNDN);
    if (!exp) return C_ZERO;
    if (exp == 0xff) return frac ? C_QNAN : C_INF;
    mpfr_set_ui(v, (1u << F) | frac, MPFR_RNDN);
    mpfr_mul_2si(v, v, (long)exp - 127 - F, MPFR_RNDN);
    if (*neg) mpfr_neg(v, v, MPFR_RNDN);
    return C_NUM;
}

static uint32_t bfround(const mpfr_t v) { return (uint32_t)fpround(v, 8, 23, R_ODD, 1, O_INF); }

static uint32_t BFMulH(uint16_t a, uint16_t b)
{
    mpfr_t x, y;
    mpfr_inits2(PREC, x, y, (mpfr_ptr)0);
    int s1, s2, t1 = bfunpack(a, 0, &s1, x), t2 = bfunpack(b, 0, &s2, y);
    uint32_t r;
    if (t1 == C_QNAN || t2 == C_QNAN) r = 0x7fc00000u;
    else if ((t1 == C_INF && t2 == C_ZERO) || (t1 == C_ZERO && t2 == C_INF)) r = 0x7fc00000u;
    else if (t1 == C_INF || t2 == C_INF) r = (uint32_t)inf_of(8, 23, s1 ^ s2);
    else if (t1 == C_ZERO || t2 == C_ZERO) r = (uint32_t)(s1 ^ s2) << 31;
    else { mpfr_mul(x, x, y, MPFR_RNDN); r = bfround(x); }
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

static uint32_t FPAdd_BF16(uint32_t a, uint32_t b)
{
    mpfr_t x, y;
    mpfr_inits2(PREC, x, y, (mpfr_ptr)0);
    int s1, s2, t1 = bfunpack(a, 1, &s1, x), t2 = bfunpack(b, 1, &s2, y);
    uint32_t r;
    if (t1 == C_QNAN || t2 == C_QNAN) r = 0x7fc00000u;
    else if (t1 == C_INF && t2 == C_INF && s1 != s2) r = 0x7fc00000u;
    else if ((t1 == C_INF && !s1) || (t2 == C_INF && !s2)) r = 0x7f800000u;
    else if (t1 == C_INF || t2 == C_INF) r = 0xff800000u;
    else if (t1 == C_ZERO && t2 == C_ZERO && s1 == s2) r = (uint32_t)s1 << 31;
    else {
        mpfr_add(x, x, y, MPFR_RNDN);
        r = mpfr_zero_p(x) ? 0 : bfround(x);                  /* positive zero under round to odd */
    }
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

/* BFDotAdd, EBF=0 */
static uint32_t BFDotAdd0(uint32_t addend, const uint64_t *a, const uint64_t *b)
{
    return FPAdd_BF16(addend, FPAdd_BF16(BFMulH((uint16_t)a[0], (uint16_t)b[0]), BFMulH((uint16_t)a[1], (uint16_t)b[1])));
}

/* ---- Arm: FPCR.EBF=1 (FPCR.FZ=0, DN=1, RMode mode) ------------------------- */

static int fp32_unpack(uint32_t w, int *neg, mpfr_t v) { return unpack(F_FP32, w, neg, v); }

/* FPRound with FZ=0: IEEE rounding with subnormals into fp32 */
static uint32_t fpround32(const mpfr_t v, int mode) { return (uint32_t)fpround(v, 8, 23, mode, 0, O_IEEE); }

static uint32_t FPDot(const uint64_t *a, const uint64_t *b, int mode)
{
    mpfr_t x[2], y[2];
    int sx[2], sy[2], tx[2], ty[2];
    for (int i = 0; i < 2; i++) {
        mpfr_inits2(PREC, x[i], y[i], (mpfr_ptr)0);
        tx[i] = unpack(F_BF16, a[i], &sx[i], x[i]);
        ty[i] = unpack(F_BF16, b[i], &sy[i], y[i]);
    }
    uint32_t r;
    int nan = 0, inv = 0, infP[2], zeroP[2], sP[2];
    for (int i = 0; i < 2; i++) {
        nan |= tx[i] >= C_QNAN || ty[i] >= C_QNAN;
        inv |= (tx[i] == C_INF && ty[i] == C_ZERO) || (tx[i] == C_ZERO && ty[i] == C_INF);
        infP[i] = tx[i] == C_INF || ty[i] == C_INF;
        zeroP[i] = tx[i] == C_ZERO || ty[i] == C_ZERO;
        sP[i] = sx[i] ^ sy[i];
    }
    inv |= infP[0] && infP[1] && sP[0] != sP[1];
    if (nan || inv) r = 0x7fc00000u;                          /* DN=1 */
    else if ((infP[0] && !sP[0]) || (infP[1] && !sP[1])) r = 0x7f800000u;
    else if (infP[0] || infP[1]) r = 0xff800000u;
    else if (zeroP[0] && zeroP[1] && sP[0] == sP[1]) r = (uint32_t)sP[0] << 31;
    else {
        mpfr_mul(x[0], x[0], y[0], MPFR_RNDN);
        mpfr_mul(x[1], x[1], y[1], MPFR_RNDN);
        mpfr_add(x[0], x[0], x[1], MPFR_RNDN);
        r = mpfr_zero_p(x[0]) ? (mode == R_RD ? 0x80000000u : 0) : fpround32(x[0], mode);
    }
    for (int i = 0; i < 2; i++) mpfr_clears(x[i], y[i], (mpfr_ptr)0);
    return r;
}

static uint32_t FPAdd(uint32_t a, uint32_t b, int mode)
{
    mpfr_t x, y;
    mpfr_inits2(PREC, x, y, (mpfr_ptr)0);
    int s1, s2, t1 = fp32_unpack(a, &s1, x), t2 = fp32_unpack(b, &s2, y);
    uint32_t r;
    if (t1 >= C_QNAN || t2 >= C_QNAN) r = 0x7fc00000u;
    else if (t1 == C_INF && t2 == C_INF && s1 != s2) r = 0x7fc00000u;
    else if ((t1 == C_INF && !s1) || (t2 == C_INF && !s2)) r = 0x7f800000u;
    else if (t1 == C_INF || t2 == C_INF) r = 0xff800000u;
    else if (t1 == C_ZERO && t2 == C_ZERO && s1 == s2) r = (uint32_t)s1 << 31;
    else {
        mpfr_add(x, x, y, MPFR_RNDN);
        r = mpfr_zero_p(x) ? (mode == R_RD ? 0x80000000u : 0) : fpround32(x, mode);
    }
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

static uint32_t BFDotAdd1(uint32_t addend, const uint64_t *a, const uint64_t *b, int mode)
{
    return FPAdd(addend, FPDot(a, b, mode), mode);
}

/* ---- Arm: FP8DotAddFP -------------------------------------------------------- */

static uint64_t FP8DotAddFP(uint64_t addend, int m16, const uint64_t *a, const uint64_t *b, int E, int fa, int fb,
                            int lscale, int osm)
{
    int EA = m16 ? 5 : 8, FA = m16 ? 10 : 23;
    mpfr_t vA, x, y, dp;
    mpfr_inits2(PREC, vA, x, y, dp, (mpfr_ptr)0);
    int sA, tA = unpack(m16 ? F_FP16 : F_FP32, addend, &sA, vA);
    int infA = tA == C_INF, zeroA = tA == C_ZERO, any_nan = tA >= C_QNAN;
    int posInfR = infA && !sA, negInfR = infA && sA, zeroR = zeroA, inv = 0;
    int infP[8], signP[8];
    mpfr_set_ui(dp, 0, MPFR_RNDN);
    for (int i = 0; i < E; i++) {
        int s1, s2, t1 = unpack(fa, a[i], &s1, x), t2 = unpack(fb, b[i], &s2, y);
        any_nan |= t1 >= C_QNAN || t2 >= C_QNAN;
        signP[i] = s1 ^ s2;
        infP[i] = t1 == C_INF || t2 == C_INF;
        int zeroP = t1 == C_ZERO || t2 == C_ZERO;
        posInfR |= infP[i] && !signP[i];
        negInfR |= infP[i] && signP[i];
        zeroR = zeroR && zeroP && sA == signP[i];
        inv |= (t1 == C_INF && t2 == C_ZERO) || (t1 == C_ZERO && t2 == C_INF) || (infA && infP[i] && sA != signP[i]);
        for (int j = 0; j < i; j++) inv |= infP[i] && infP[j] && signP[i] != signP[j];
        if (t1 == C_NUM && t2 == C_NUM) { mpfr_mul(x, x, y, MPFR_RNDN); mpfr_add(dp, dp, x, MPFR_RNDN); }
    }
    uint64_t r;
    if (any_nan || inv) r = default_nan(EA, FA);
    else if (posInfR) r = inf_of(EA, FA, 0);
    else if (negInfR) r = inf_of(EA, FA, 1);
    else if (zeroR) r = (uint64_t)sA << (EA + FA);
    else {
        mpfr_mul_2si(dp, dp, -lscale, MPFR_RNDN);
        mpfr_add(dp, vA, dp, MPFR_RNDN);
        r = mpfr_zero_p(dp) ? 0 : fpround(dp, EA, FA, R_RNE, 0, osm ? O_SAT : O_IEEE);
    }
    mpfr_clears(vA, x, y, dp, (mpfr_ptr)0);
    return r;
}

/* ---- RISC-V: BulkNormalizedDotProduct, then c added rounded to odd ----------- */

/* the proposal's pseudo-code: A[i] (fa) and B[i] (fb), n products, g = o =
 * log2(n), result binary32 (f = 8, q = 24); the product bias the sum of the
 * two operands' biases (mixed FP8 formats: the proposal's note on
 * asymmetric products) */
static uint32_t rvbna(int n, const uint64_t *A, const uint64_t *B, int fa, int fb)
{
    const int g = __builtin_ctz((unsigned)n), o = g, q = 24, f = 8;
    const int ma = fmts[fa].F, mb = fmts[fb].F, ea = fmts[fa].E, eb = fmts[fb].E;
    const int pa = ma + 1, pb = mb + 1, prodOpBias = fmts[fa].bias + fmts[fb].bias - 127;
    int maxExp = 0, nanResult = 0, infiniteResult = 0, infiniteSign = 0;
    int prodRefExps[64], prodSigns[64];
    uint64_t prodSigs[64];
    const int overflowExp = (1 << f) - 1;
    for (int i = 0; i < n; i++) {
        uint64_t Aexp = (A[i] >> ma) & ((1u << ea) - 1), Bexp = (B[i] >> mb) & ((1u << eb) - 1);
        uint64_t Amant = A[i] & ((1u << ma) - 1), Bmant = B[i] & ((1u << mb) - 1);
        int As = (int)((A[i] >> (ea + ma)) & 1), Bs = (int)((B[i] >> (eb + mb)) & 1);
        prodSigns[i] = As ^ Bs;
        int AisSub = Aexp == 0, BisSub = Bexp == 0;
        int AisZero = AisSub && !Amant, BisZero = BisSub && !Bmant;
        int prodZero = AisZero || BisZero;
        /* specials: IEEE-like formats (bf16, e5m2); OCP e4m3's NaN only */
        int AisInf = fmts[fa].ieee && Aexp == (1u << ea) - 1 && !Amant;
        int BisInf = fmts[fb].ieee && Bexp == (1u << eb) - 1 && !Bmant;
        int AisNaN = fmts[fa].ieee ? Aexp == (1u << ea) - 1 && Amant : fmts[fa].ocp_e4m3 && (A[i] & 0x7f) == 0x7f;
        int BisNaN = fmts[fb].ieee ? Bexp == (1u << eb) - 1 && Bmant : fmts[fb].ocp_e4m3 && (B[i] & 0x7f) == 0x7f;
        int invalidProd = (AisInf && BisZero) || (BisInf && AisZero);
        int infLHS = AisInf && !BisNaN && !BisZero, infRHS = BisInf && !AisNaN && !AisZero;
        int infiniteProd = infLHS || infRHS;
        int invalidSum = infiniteResult && infiniteProd && infiniteSign != prodSigns[i];
        infiniteResult |= infiniteProd;
        if (infiniteProd) infiniteSign = prodSigns[i];
        nanResult |= AisNaN || BisNaN || invalidProd || invalidSum;
        uint64_t Asig = ((uint64_t)!AisSub << (pa - 1)) | Amant, Bsig = ((uint64_t)!BisSub << (pb - 1)) | Bmant;
        prodSigs[i] = Asig * Bsig;
        int Aref = AisSub ? 1 : (int)Aexp, Bref = BisSub ? 1 : (int)Bexp;
        prodRefExps[i] = prodZero ? 0 : Aref + Bref;
        if (prodRefExps[i] > maxExp) maxExp = prodRefExps[i];
    }
    if (nanResult) return (uint32_t)(overflowExp << (q - 1)) | (1u << (q - 2));
    if (infiniteResult) return (uint32_t)infiniteSign << (q + f - 1) | (uint32_t)overflowExp << (q - 1);
    /* products of pa + pb bits, fraction pa + pb - 2 (the proposal's 2p - 2) */
    const int padRight = q + 1 + g - (pa + pb);
    __int128 accumulator = 0;
    for (int i = 0; i < n; i++) {
        int alignShift = maxExp - prodRefExps[i];
        unsigned __int128 sig = (unsigned __int128)prodSigs[i] << padRight, aligned;
        int jam;
        if (alignShift >= 100) { aligned = 0; jam = sig != 0; }
        else { aligned = sig >> alignShift; jam = (sig & ((((unsigned __int128)1) << alignShift) - 1)) != 0; }
        aligned |= (unsigned __int128)jam;                        /* rounding to odd the aligned product */
        accumulator += prodSigns[i] ? -(__int128)aligned : (__int128)aligned;
    }
    int accSign = accumulator < 0;
    unsigned __int128 accAbs = (unsigned __int128)(accSign ? -accumulator : accumulator);
    if (!accAbs) return 0;                                        /* a zero result is always +0 */
    const int W = g + q + 1 + o;                                  /* the accumulator's width */
    int top = (accAbs >> 64) ? 127 - __builtin_clzll((uint64_t)(accAbs >> 64)) : 63 - __builtin_clzll((uint64_t)accAbs);
    int lzc = W - 1 - top;
    int resExp = (maxExp + o + 1 - lzc) - prodOpBias;
    unsigned __int128 shifted = lzc >= 0 ? accAbs << lzc : accAbs >> -lzc;   /* (lzc >= 0: the sum fits W bits) */
    uint64_t unroundedSig = (uint64_t)(shifted >> (g + o + 1));
    uint64_t jamSig = (shifted & ((((unsigned __int128)1) << (g + o + 1)) - 1)) != 0;
    uint64_t roundedSig = unroundedSig | jamSig;
    if (resExp >= overflowExp) return (uint32_t)accSign << (q + f - 1) | (uint32_t)overflowExp << (q - 1);
    if (resExp >= 1) return (uint32_t)accSign << (q + f - 1) | (uint32_t)resExp << (q - 1) | (uint32_t)(roundedSig & ((1u << (q - 1)) - 1));
    /* denormalization and the final round to odd: the value is accAbs
     * times 2^(maxExp - the two biases - (q - 1 + g)), rounded to odd at
     * 2^-149 */
    mpfr_t v;
    mpfr_init2(v, PREC);
    mpfr_set_ui(v, (unsigned long)(uint64_t)(accAbs >> 64), MPFR_RNDN);
    mpfr_mul_2si(v, v, 64, MPFR_RNDN);
    mpfr_add_ui(v, v, (unsigned long)(uint64_t)accAbs, MPFR_RNDN);
    mpfr_mul_2si(v, v, maxExp - (fmts[fa].bias + fmts[fb].bias) - (q - 1 + g), MPFR_RNDN);
    if (accSign) mpfr_neg(v, v, MPFR_RNDN);
    uint32_t r = (uint32_t)fpround(v, 8, 23, R_ODD, 0, O_INF);
    mpfr_clear(v);
    return r;
}

/* c + dot, "consistent with vfredusum.vs, rounding to odd" (binary32,
 * infinity on overflow, +0 for a zero) */
static uint32_t add_odd(uint32_t c, uint32_t d)
{
    mpfr_t x, y;
    mpfr_inits2(PREC, x, y, (mpfr_ptr)0);
    int s1, s2, t1 = fp32_unpack(c, &s1, x), t2 = fp32_unpack(d, &s2, y);
    uint32_t r;
    if (t1 >= C_QNAN || t2 >= C_QNAN || (t1 == C_INF && t2 == C_INF && s1 != s2)) r = 0x7fc00000u;
    else if (t1 == C_INF || t2 == C_INF) r = (uint32_t)inf_of(8, 23, t1 == C_INF ? s1 : s2);
    else {
        mpfr_add(x, x, y, MPFR_RNDN);
        r = mpfr_zero_p(x) ? 0 : (uint32_t)fpround(x, 8, 23, R_ODD, 0, O_INF);
    }
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

/* ---- x86: the ISE and SDM pseudo-code ------------------------------------- */

#define INDEF 0xffc00000u

/* an FP32 operand of the x86 forms: fp32 bits, with DAZ when daz */
static int x86_op(uint32_t w, int daz, int *neg, mpfr_t v)
{
    int t = fp32_unpack(w, neg, v);
    if (daz && t == C_NUM && !((w >> 23) & 0xff)) { mpfr_set_ui(v, 0, MPFR_RNDN); t = C_ZERO; }
    return t;
}

/* RNE, output denormals flushed (tininess after rounding), into fp32 */
static uint32_t x86_round(const mpfr_t v)
{
    mpfr_t r;
    mpfr_init2(r, 24);
    mpfr_set(r, v, MPFR_RNDN);                                /* 24 bits, MPFR's exponent range: unbounded here */
    uint32_t out;
    if (mpfr_get_exp(r) - 1 < -126) out = mpfr_signbit(v) ? 0x80000000u : 0;
    else out = (uint32_t)fpround(v, 8, 23, R_RNE, 0, O_IEEE);
    mpfr_clear(r);
    return out;
}

/* an FMA (or an addition: b 0) of the FP32 operands a * b + acc, "DAZ,
 * FTZ, RNE": a NaN operand (a, b, then acc) comes back quieted; 0 * Inf or
 * Inf - Inf gives the QNaN indefinite */
static uint32_t x86_fma(uint32_t a, uint32_t b, uint32_t acc, int mul, int daz)
{
    mpfr_t x, y, z;
    mpfr_inits2(PREC, x, y, z, (mpfr_ptr)0);
    int sa, sb = 0, sc, ta = x86_op(a, daz, &sa, x), tb = mul ? x86_op(b, daz, &sb, y) : C_NUM, tc = x86_op(acc, daz, &sc, z);
    if (!mul) mpfr_set_ui(y, 1, MPFR_RNDN);
    uint32_t r;
    if (ta >= C_QNAN) r = a | 0x400000u;
    else if (tb >= C_QNAN) r = b | 0x400000u;
    else if (tc >= C_QNAN) r = acc | 0x400000u;
    else {
        int tp = (ta == C_INF || tb == C_INF) ? ((ta == C_ZERO || tb == C_ZERO) ? C_QNAN : C_INF)
                 : (ta == C_ZERO || tb == C_ZERO) ? C_ZERO : C_NUM, sp = sa ^ sb;
        if (tp == C_QNAN || (tp == C_INF && tc == C_INF && sp != sc)) r = INDEF;
        else if (tp == C_INF) r = (uint32_t)inf_of(8, 23, sp);
        else if (tc == C_INF) r = (uint32_t)inf_of(8, 23, sc);
        else {
            mpfr_mul(x, x, y, MPFR_RNDN);
            mpfr_add(x, x, z, MPFR_RNDN);
            if (mpfr_zero_p(x)) r = (tp == C_ZERO && tc == C_ZERO && sp == sc) ? (uint32_t)sc << 31 : 0;
            else r = x86_round(x);
        }
    }
    mpfr_clears(x, y, z, (mpfr_ptr)0);
    return r;
}

/* make_fp32 / FP32(): bf16 or fp16 to fp32, exactly (a NaN's payload at
 * the top, as a conversion writes it) */
static uint32_t to_fp32(int f, uint64_t bits)
{
    if (f == F_BF16) return (uint32_t)bits << 16;
    mpfr_t v;
    mpfr_init2(v, PREC);
    int s, t = unpack(F_FP16, bits, &s, v);
    uint32_t r = t == C_ZERO ? (uint32_t)s << 31 : t == C_INF ? (uint32_t)inf_of(8, 23, s)
               : t >= C_QNAN ? ((uint32_t)s << 31 | 0x7f800000u | (uint32_t)(bits & 0x3ff) << 13) : (uint32_t)fpround(v, 8, 23, R_RNE, 0, O_IEEE);
    mpfr_clear(v);
    return r;
}

/* TDPBF16PS / TDPFP16PS (one element, K = 32): even and odd FMA chains
 * from 0, then even + odd, then srcdest + that */
static uint32_t tdp16(int f, uint32_t c, const uint64_t *a, const uint64_t *b)
{
    uint32_t t[2] = {0, 0};
    for (int k = 0; k < 32; k++) t[k & 1] = x86_fma(to_fp32(f, a[k]), to_fp32(f, b[k]), t[k & 1], 1, 1);
    return x86_fma(c, 0, x86_fma(t[0], 0, t[1], 0, 1), 0, 1);
}

/* VDPBF16PS: srcdest += odd, then += even */
static uint32_t vdp(uint32_t c, const uint64_t *a, const uint64_t *b)
{
    uint32_t acc = x86_fma(to_fp32(F_BF16, a[1]), to_fp32(F_BF16, b[1]), c, 1, 1);
    return x86_fma(to_fp32(F_BF16, a[0]), to_fp32(F_BF16, b[0]), acc, 1, 1);
}

/* TMMULTF32PS (K = 16): silence_snan, zero the low 13 mantissa bits; FMA
 * chain from 0 (FP32 input denormals handled: no DAZ; outputs flushed);
 * then srcdest + that */
static uint32_t tmmul(uint32_t c, const uint64_t *a, const uint64_t *b)
{
    uint32_t t = 0;
    for (int k = 0; k < 16; k++) {
        uint32_t x = (uint32_t)a[k], y = (uint32_t)b[k];
        if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffff)) x |= 0x400000u;
        if ((y & 0x7f800000u) == 0x7f800000u && (y & 0x7fffff)) y |= 0x400000u;
        t = x86_fma(x & ~0x1fffu, y & ~0x1fffu, t, 1, 0);
    }
    return x86_fma(c, 0, t, 0, 0);
}

/* TDPBF8PS and kin (K = 64): every product exactly, summed exactly,
 * converted to FP32 once (RNE, FTZ), then srcdest + that (DAZ, FTZ, RNE);
 * any NaN, 0 * Inf or Inf - Inf gives the QNaN indefinite */
static uint32_t tdpf8(uint32_t c, const uint64_t *a, const uint64_t *b, int fa, int fb)
{
    mpfr_t s, x, y;
    mpfr_inits2(PREC, s, x, y, (mpfr_ptr)0);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    int nan = (c & 0x7f800000u) == 0x7f800000u && (c & 0x7fffff), pinf = 0, ninf = 0;
    for (int k = 0; k < 64; k++) {
        int s1, s2, t1 = unpack(fa, a[k], &s1, x), t2 = unpack(fb, b[k], &s2, y);
        if (t1 >= C_QNAN || t2 >= C_QNAN) nan = 1;
        else if (t1 == C_INF || t2 == C_INF) {
            if (t1 == C_ZERO || t2 == C_ZERO) nan = 1;
            else if (s1 ^ s2) ninf = 1; else pinf = 1;
        } else if (t1 == C_NUM && t2 == C_NUM) { mpfr_mul(x, x, y, MPFR_RNDN); mpfr_add(s, s, x, MPFR_RNDN); }
    }
    uint32_t r;
    if (nan || (pinf && ninf)) r = INDEF;
    else {
        uint32_t t = pinf ? 0x7f800000u : ninf ? 0xff800000u : mpfr_zero_p(s) ? 0 : x86_round(s);
        r = x86_fma(c, 0, t, 0, 1);
        if ((r & 0x7f800000u) == 0x7f800000u && (r & 0x7fffff)) r = INDEF;
    }
    mpfr_clears(s, x, y, (mpfr_ptr)0);
    return r;
}

/* ---- AMD CDNA4: c + sum of a*b*2^(sa-127)*2^(sb-127), one RNE rounding --- */

static uint32_t cdna4(uint32_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa, const uint64_t *sb, int K,
                      int fa, int fb, int *is_nan)
{
    mpfr_t s, x, y;
    mpfr_inits2(PREC, s, x, y, (mpfr_ptr)0);
    int sc, tc = fp32_unpack(c, &sc, s), nan = tc >= C_QNAN, pinf = tc == C_INF && !sc, ninf = tc == C_INF && sc;
    if (tc != C_NUM) mpfr_set_ui(s, 0, MPFR_RNDN);
    for (int k = 0; k < K; k++) {
        int s1, s2, t1 = unpack(fa, a[k], &s1, x), t2 = unpack(fb, b[k], &s2, y);
        if (sa[k / 32] == 0xff || sb[k / 32] == 0xff) { nan = 1; continue; }
        if (t1 >= C_QNAN || t2 >= C_QNAN) nan = 1;
        else if (t1 == C_INF || t2 == C_INF) {
            if (t1 == C_ZERO || t2 == C_ZERO) nan = 1;
            else if (s1 ^ s2) ninf = 1; else pinf = 1;
        } else if (t1 == C_NUM && t2 == C_NUM) {
            mpfr_mul(x, x, y, MPFR_RNDN);
            mpfr_mul_2si(x, x, (long)sa[k / 32] + (long)sb[k / 32] - 254, MPFR_RNDN);
            mpfr_add(s, s, x, MPFR_RNDN);
        }
    }
    uint32_t r = 0;
    *is_nan = nan || (pinf && ninf);
    if (!*is_nan) r = pinf ? 0x7f800000u : ninf ? 0xff800000u : mpfr_zero_p(s) ? 0 : fpround32(s, R_RNE);
    mpfr_clears(s, x, y, (mpfr_ptr)0);
    return r;
}

/* ---- the checks --------------------------------------------------------------- */

typedef struct {
    const char *name;             /* the preset */
    const char *mutant;           /* a unit one rule away (--mutate) */
    int kind, K, fa, fb, m16, lscale, osm, mode;
} preset;
enum { K_BFDOT0, K_BFMMLA0, K_BFDOT1, K_BFMMLA1, K_FP8, K_RV, K_TDPBF16, K_VDP, K_TDPFP16, K_TMMUL, K_TDPF8, K_CDNA4 };

static uint64_t oracle(const preset *p, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                       const uint64_t *sb, int *nan_any)
{
    *nan_any = 0;
    switch (p->kind) {
    case K_BFDOT0: return BFDotAdd0((uint32_t)c, a, b);
    case K_BFMMLA0: return BFDotAdd0(BFDotAdd0((uint32_t)c, a, b), a + 2, b + 2);
    case K_BFDOT1: return BFDotAdd1((uint32_t)c, a, b, p->mode);
    case K_BFMMLA1: return BFDotAdd1(BFDotAdd1((uint32_t)c, a, b, p->mode), a + 2, b + 2, p->mode);
    case K_FP8: return FP8DotAddFP(c, p->m16, a, b, p->K, p->fa, p->fb, p->lscale, p->osm);
    case K_RV: return add_odd((uint32_t)c, rvbna(p->K, a, b, p->fa, p->fb));
    case K_TDPBF16: return tdp16(F_BF16, (uint32_t)c, a, b);
    case K_VDP: return vdp((uint32_t)c, a, b);
    case K_TDPFP16: return tdp16(F_FP16, (uint32_t)c, a, b);
    case K_TMMUL: return tmmul((uint32_t)c, a, b);
    case K_TDPF8: return tdpf8((uint32_t)c, a, b, p->fa, p->fb);
    case K_CDNA4: return cdna4((uint32_t)c, a, b, sa, sb, p->K, p->fa, p->fb, nan_any);
    }
    return 0;
}

static int is_nan32(uint64_t x) { return (x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffff); }

/* one vector: the preset (or its mutant) against the oracle; returns 1 on a mismatch */
static int check(const preset *p, const mma_unit *u, const char *what, uint64_t c, const uint64_t *a, const uint64_t *b,
                 const uint64_t *sa, const uint64_t *sb)
{
    int nan_any;
    uint64_t want = oracle(p, c, a, b, sa, sb, &nan_any);
    uint64_t got = mma_dot(u, c, a, b, sa, sb);
    n_checks++;
    if (got == want || (nan_any && is_nan32(got))) return 0;
    if (!mutate && n_bad < 30) {
        fprintf(stderr, "MISMATCH %s (%s): c=%llx a=", p->name, what, (unsigned long long)c);
        for (int k = 0; k < p->K && k < 8; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)a[k]);
        fprintf(stderr, " b=");
        for (int k = 0; k < p->K && k < 8; k++) fprintf(stderr, "%s%llx", k ? "," : "", (unsigned long long)b[k]);
        fprintf(stderr, "%s: oracle %llx, preset %llx\n", p->K > 8 ? ",..." : "", (unsigned long long)want, (unsigned long long)got);
    }
    if (!mutate) n_bad++;
    return 1;
}

/* a rule's own consequence on a directed vector, beside the oracle's bits */
#define RULE(cond, ...) do { n_checks++; if (!(cond)) { n_bad++; fprintf(stderr, "RULE FAILED: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const preset presets[] = {
    {"armv9:bfdot", "chains,a=bf16,k=2,ways=2,start=none,round=rne,ovf=inf,ftz=in+out,nan=default", K_BFDOT0, 2, F_BF16, F_BF16, 0, 0, 0, 0},
    {"armv9:bfmmla", "chains,a=bf16,k=4,l=2,ways=2,start=none,round=rodd,ovf=inf,ftz=out,nan=default", K_BFMMLA0, 4, F_BF16, F_BF16, 0, 0, 0, 0},
    {"armv9:bfdot.ebf", "chains,a=bf16,k=2,ways=1,fuse=2,start=none,round=rne,ftz=in+out,nan=default", K_BFDOT1, 2, F_BF16, F_BF16, 0, 0, 0, R_RNE},
    {"armv9:bfdot.ebf,round=rz", "chains,a=bf16,k=2,ways=1,fuse=2,start=none,round=rz,ftz=in+out,nan=default", K_BFDOT1, 2, F_BF16, F_BF16, 0, 0, 0, R_RZ},
    {"armv9:bfmmla.ebf,round=rd", "chains,a=bf16,k=4,ways=1,fuse=4,start=none,round=rd,nan=default", K_BFMMLA1, 4, F_BF16, F_BF16, 0, 0, 0, R_RD},
    {"armv9:fdot.f16.e4m3.e5m2", "exact,a=e4m3,b=e5m2,c=fp16,k=2,round=rne,nan=default,zero=ieee,ovf=sat", K_FP8, 2, F_E4M3, F_E5M2, 1, 0, 0, 0},
    {"armv9:fdot.f16.e5m2.e5m2,lscale=5,ovf=sat+inf", "exact,a=e5m2,c=fp16,k=2,round=rne,nan=default,zero=ieee,ovf=sat+inf", K_FP8, 2, F_E5M2, F_E5M2, 1, 5, 1, 0},
    {"armv9:fdot.f32.e4m3.e4m3,lscale=40", "exact,a=e4m3,k=4,round=rne,nan=default,zero=ieee,lscale=39", K_FP8, 4, F_E4M3, F_E4M3, 0, 40, 0, 0},
    {"armv9:fmmla.f32.e5m2.e4m3,ovf=sat+inf", "exact,a=e5m2,b=e4m3,k=8,round=rne,nan=default,zero=ieee,ovf=sat", K_FP8, 8, F_E5M2, F_E4M3, 0, 0, 1, 0},
    {"armv9:fmmla.f16.e4m3.e4m3", "exact,a=e4m3,c=fp16,k=4,round=rz,nan=default,zero=ieee", K_FP8, 4, F_E4M3, F_E4M3, 1, 0, 0, 0},
    {"riscv:vfwdota.vv.n8", "chains,a=bf16,k=8,ways=1,fuse=8,start=none,f=26,align=rz,round=rodd,ovf=inf,nan=default,zero=pos", K_RV, 8, F_BF16, F_BF16, 0, 0, 0, 0},
    {"riscv:vfwdota.vv.n32", "chains,a=bf16,k=32,ways=1,fuse=32,start=none,f=28,align=rodd,round=rne,ovf=inf,nan=default,zero=pos", K_RV, 32, F_BF16, F_BF16, 0, 0, 0, 0},
    {"riscv:vfqwdota.vv.e5m2.n16", "chains,a=e4m3,b=e5m2,k=16,ways=1,fuse=16,start=none,f=27,align=rodd,round=rne,ovf=inf,nan=default,zero=pos", K_RV, 16, F_E4M3, F_E5M2, 0, 0, 0, 0},
    {"riscv:vfqwdota.alt.vv.e5m2.n32", "chains,a=e5m2,k=32,ways=2,fuse=16,start=none,f=27,align=rodd,round=rodd,ovf=inf,nan=default,zero=pos", K_RV, 32, F_E5M2, F_E5M2, 0, 0, 0, 0},
    {"x86:tdpbf16ps", "chains,a=bf16,k=32,ways=1,start=c,ftz=in+out,nan=x86", K_TDPBF16, 32, F_BF16, F_BF16, 0, 0, 0, 0},
    {"x86:vdpbf16ps", "chains,a=bf16,k=2,ways=1,start=c,ftz=in+out,nan=x86", K_VDP, 2, F_BF16, F_BF16, 0, 0, 0, 0},
    {"x86:tdpfp16ps", "chains,a=fp16,k=32,ways=1,start=c,ftz=in+out,nan=x86", K_TDPFP16, 32, F_FP16, F_FP16, 0, 0, 0, 0},
    {"x86:tmmultf32ps", "chains,a=fp32,k=16,ways=1,start=c,via=tf32,ftz=out,nan=x86", K_TMMUL, 16, F_FP32, F_FP32, 0, 0, 0, 0},
    {"x86:tdpbhf8ps", "chains,a=e5m2,b=e4m3,k=64,ways=2,fuse=32,start=none,ftz=in+out,nan=x86", K_TDPF8, 64, F_E5M2, F_E4M3, 0, 0, 0, 0},
    {"x86:tdphf8ps", "chains,a=e4m3,k=64,ways=1,fuse=64,start=none,ftz=in+out,nan=default", K_TDPF8, 64, F_E4M3, F_E4M3, 0, 0, 0, 0},
    {"cdna4:v_mfma_scale_f32_16x16x128_f8f6f4.e4m3.e2m1", "exact,a=e4m3,b=e2m1,k=128,round=rz,nan=canon+any,zero=fixed,scale=ue8m0,block=32", K_CDNA4, 128, F_E4M3, F_E2M1, 0, 0, 0, 0},
    {"cdna4:v_mfma_scale_f32_32x32x64_f8f6f4.e3m2.e2m3", "exact,a=e3m2,b=e2m3,k=64,round=rne,nan=canon+any,zero=fixed,scale=ue8m0,block=16", K_CDNA4, 64, F_E3M2, F_E2M3, 0, 0, 0, 0},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

static int width(int f) { return 1 + fmts[f].E + fmts[f].F; }

/* a random operand of format f: random bits; normal values of a narrow
 * band; or specials */
static uint64_t draw(int f, int mode, int band)
{
    int w = width(f), E = fmts[f].E, F = fmts[f].F;
    uint64_t bits = rnd() & ((1ull << w) - 1);
    if (mode == 0) {                                           /* random bits, exponent all 0 or all 1 often */
        uint64_t r = rnd() % 4, em = ((1ull << E) - 1) << F;
        if (r == 0) bits &= ~em;
        else if (r == 1) bits |= em;
        return bits;
    }
    /* a value of exponent near band (biased), or of any normal exponent
     * (mode 3), either sign */
    long e = mode == 3 ? 1 + (long)(rnd() % ((1u << E) - 2)) : band + (long)(rnd() % 5) - 2;
    if (e < 1) e = 1;
    if (e > (1L << E) - 2) e = (1L << E) - 2;
    if (fmts[f].ocp_e4m3 && e == 15) e = 14;
    if (!fmts[f].ieee && !fmts[f].ocp_e4m3 && e > (1L << E) - 1) e = (1L << E) - 1;
    return (bits & ((1ull << F) - 1)) | (uint64_t)e << F | (rnd() & 1) << (E + F);
}

static void random_vectors(const preset *p, const mma_unit *u, long count)
{
    uint64_t a[256], b[256], sa[8], sb[8], c;
    int cf = p->kind == K_FP8 && p->m16 ? F_FP16 : F_FP32;
    for (long i = 0; i < count; i++) {
        int mode = (int)(i % 4);                               /* bits, normal band, tiny band, any exponent */
        int ba = (1 << (fmts[p->fa].E - 1)) - 1, bb = (1 << (fmts[p->fb].E - 1)) - 1;
        if (mode == 2) { ba = 2; bb = 2; }                     /* near the smallest normals */
        for (int k = 0; k < p->K; k++) { a[k] = draw(p->fa, mode, ba); b[k] = draw(p->fb, mode, bb); }
        if (p->kind == K_TMMUL)                                /* (fp32: any low bits) */
            for (int k = 0; k < p->K; k++) { a[k] |= rnd() & 0x1fff; b[k] |= rnd() & 0x1fff; }
        c = draw(cf, mode == 2 ? 2 : mode, mode == 2 ? 1 : (1 << (fmts[cf].E - 1)) - 1 + (int)(rnd() % 9) - 4);
        for (int s = 0; s < 8; s++) { sa[s] = 120 + rnd() % 16; sb[s] = 120 + rnd() % 16; if (rnd() % 64 == 0) sa[s] = 0xff; }
        check(p, u, mode == 0 ? "random bits" : mode == 1 ? "normal values" : mode == 2 ? "tiny values" : "any exponent", c, a, b, sa, sb);
    }
}

/* the directed vectors of each rule */
static void directed(const mma_unit *units)
{
    const mma_unit *u;
    uint64_t a[256] = {0}, b[256] = {0}, sa[8], sb[8];
    int na;
    /* Arm EBF=0: 1 + 2^-24 is a tie: round to odd gives 1 + 2^-23, the odd
     * neighbour (RNE: 1) */
    u = &units[0];
    a[0] = 0x3f80; b[0] = 0x3f80; a[1] = 0x3980; b[1] = 0x3980;      /* 1 * 1 + 2^-12 * 2^-12 */
    check(&presets[0], u, "round-to-odd tie", 0, a, b, NULL, NULL);
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x3f800001u, "armv9:bfdot: 1 + 2^-24 rounds to odd (0x3f800001)");
    /* an inexact sum always has its last bit set */
    a[1] = 0x3a40; b[1] = 0x3980;                                      /* 2^-24 * 1.5 */
    RULE(mma_dot(u, 0x3f800000, a, b, NULL, NULL) & 1, "armv9:bfdot: an inexact result has bit 0 set");
    check(&presets[0], u, "round to odd", 0x3f800000, a, b, NULL, NULL);
    /* a subnormal input is zero: 0x0001 * 2^127 (2^-6 unflushed) adds nothing */
    a[0] = 0x0001; b[0] = 0x7f00; a[1] = 0; b[1] = 0;
    RULE(mma_dot(u, 0x3f800000, a, b, NULL, NULL) == 0x3f800000u, "armv9:bfdot: a subnormal input is a zero");
    check(&presets[0], u, "input flush", 0x3f800000, a, b, NULL, NULL);
    /* a tiny result is zero of its sign: 2^-100 * -2^-30 */
    a[0] = 0x0d80; b[0] = 0xb080; a[1] = 0x8000;                       /* and -0 * 0 */
    RULE(mma_dot(u, 0x80000000, a, b, NULL, NULL) == 0x80000000u, "armv9:bfdot: a tiny product flushes to -0");
    check(&presets[0], u, "output flush", 0x80000000, a, b, NULL, NULL);
    /* overflow rounds to Inf, not to the largest finite (round to odd) */
    a[0] = 0x7f00; b[0] = 0x4000; a[1] = 0x7f00; b[1] = 0x4000;       /* 2^127 * 2, twice */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x7f800000u, "armv9:bfdot: overflow gives Inf");
    check(&presets[0], u, "overflow", 0, a, b, NULL, NULL);
    /* a NaN is the default NaN */
    a[0] = 0xffc1;
    RULE(mma_dot(u, 0x7fa00000, a, b, NULL, NULL) == 0x7fc00000u, "armv9:bfdot: a NaN gives the default NaN");
    /* EBF=1: one rounding of a0*b0 + a1*b1: 1 + 2^-24 + 2^-25*... a tie broken by the fused sum */
    u = &units[2];
    a[0] = 0x3f80; b[0] = 0x3f80; a[1] = 0x39c0; b[1] = 0x3980;       /* 1 + 1.5 * 2^-24: 0.75 ulp, RNE up */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x3f800001u, "armv9:bfdot.ebf: 1 + 0.75 ulp rounds up, once");
    check(&presets[2], u, "fused rounding", 0, a, b, NULL, NULL);
    a[0] = 0x0001; b[0] = 0x3f80; a[1] = 0; b[1] = 0;                  /* a subnormal input is used */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x00010000u, "armv9:bfdot.ebf: subnormals are not flushed (FPCR.FZ=0)");
    /* FP8: saturation (FPMR.OSM=1) and 2^-LSCALE; no flush of subnormals */
    u = &units[6];                                                      /* fdot.f16.e5m2.e5m2,lscale=5,ovf=sat+inf */
    memset(a, 0, sizeof a); memset(b, 0, sizeof b);
    a[0] = 0x7b; b[0] = 0x7b; a[1] = 0x7b; b[1] = 0x7b;                 /* 57344^2 * 2 / 32: far past fp16 */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x7bffu, "armv9:fdot,ovf=sat+inf: overflow saturates to 65504");
    check(&presets[6], u, "saturation", 0, a, b, NULL, NULL);
    a[0] = 0x7c; b[0] = 0x3c;                                           /* Inf * 1: still Inf */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x7c00u, "armv9:fdot,ovf=sat+inf: an Inf operand gives Inf");
    a[0] = 0x48; b[0] = 0x3c; a[1] = 0; b[1] = 0;                       /* 8 * 1 / 2^5 = 0.25 */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x3400u, "armv9:fdot,lscale=5: the products scaled by 2^-5");
    check(&presets[6], u, "scaling", 0, a, b, NULL, NULL);
    u = &units[5];                                                      /* fdot.f16.e4m3.e5m2 */
    a[0] = 0x01; b[0] = 0x04; a[1] = 0; b[1] = 0;                       /* 2^-9 * 2^-14 = 2^-23: an fp16 subnormal */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x0002u, "armv9:fdot: subnormal products are kept (no flush)");
    check(&presets[5], u, "no flush", 0, a, b, NULL, NULL);
    a[0] = 0x7e; b[0] = 0x7b; a[1] = 0x7e; b[1] = 0x7b;                 /* 448 * 57344 * 2: overflow */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x7c00u, "armv9:fdot (OSM=0): overflow gives Inf");
    /* RISC-V: the aligned products rounded to odd; a zero is +0 */
    u = &units[10];
    memset(a, 0, sizeof a); memset(b, 0, sizeof b);
    a[0] = 0x3f80; b[0] = 0x3f80; a[1] = 0x2f80; b[1] = 0x3f80;         /* 1 + 2^-32: below every kept bit */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x3f800001u, "riscv: a product below the kept bits sets the last bit (odd)");
    check(&presets[10], u, "jam", 0, a, b, NULL, NULL);
    a[1] = 0xbf80;                                                      /* 1 - 1 */
    RULE(mma_dot(u, 0x80000000, a, b, NULL, NULL) == 0, "riscv: a zero result is +0");
    check(&presets[10], u, "zero", 0x80000000, a, b, NULL, NULL);
    /* x86 TDPFP16PS: fp16 subnormal inputs are used; tiny results flush */
    u = &units[16];
    memset(a, 0, sizeof a); memset(b, 0, sizeof b);
    a[0] = 0x0001; b[0] = 0x3c00;                                       /* 2^-24 */
    RULE(mma_dot(u, 0, a, b, NULL, NULL) == 0x33800000u, "x86:tdpfp16ps: fp16 subnormal inputs are honoured");
    check(&presets[16], u, "fp16 subnormal", 0, a, b, NULL, NULL);
    RULE(mma_dot(u, 0x00000001, a, b, NULL, NULL) == 0x33800000u, "x86:tdpfp16ps: a subnormal c is a zero (DAZ)");
    /* AMX-FP8: any NaN gives the indefinite */
    u = &units[18];
    memset(a, 0, sizeof a); memset(b, 0, sizeof b);
    a[3] = 0x7e;                                                        /* an e5m2 NaN */
    RULE(mma_dot(u, 0x3f800000, a, b, NULL, NULL) == INDEF, "x86:tdpbhf8ps: a NaN gives the QNaN indefinite");
    check(&presets[18], u, "NaN", 0x3f800000, a, b, NULL, NULL);
    /* CDNA4: E8M0 scales: 2^(128-127) * 2^(125-127) = 2^-1 */
    u = &units[20];
    memset(a, 0, sizeof a); memset(b, 0, sizeof b);
    for (int s = 0; s < 8; s++) { sa[s] = 127; sb[s] = 127; }
    a[33] = 0x38; b[33] = 0x2;                                          /* e4m3 1.0 * e2m1 1.0, block 1 */
    sa[1] = 128; sb[1] = 125;
    RULE(mma_dot(u, 0, a, b, sa, sb) == 0x3f000000u, "cdna4: the product scaled by its block's 2^1 * 2^-2");
    check(&presets[20], u, "scales", 0, a, b, sa, sb);
    sa[1] = 0xff;
    RULE(is_nan32(mma_dot(u, 0, a, b, sa, sb)), "cdna4: a NaN scale gives NaN");
    (void)na;
}

int main(int argc, char **argv)
{
    long count = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mutate")) mutate = 1;
        else count = atol(argv[i]);
    }
    mpfr_set_default_prec(PREC);
    mma_unit units[NPRESETS];
    char err[512];
    for (size_t i = 0; i < NPRESETS; i++)
        if (mma_unit_parse(mutate ? presets[i].mutant : presets[i].name, &units[i], err, sizeof err)) {
            fprintf(stderr, "FAIL: %s\n", err);
            return 1;
        }
    if (!mutate) directed(units);
    int caught = 0;
    for (size_t i = 0; i < NPRESETS; i++) {
        if (!mutate) { random_vectors(&presets[i], &units[i], count); continue; }
        /* a mutant is caught when some vector tells it from the oracle */
        long bad_before = n_checks;
        uint64_t a[256], b[256], sa[8], sb[8], c;
        long diff = 0;
        for (long j = 0; j < count; j++) {
            int nan_any, mode = (int)(j % 4);
            int cf = presets[i].kind == K_FP8 && presets[i].m16 ? F_FP16 : F_FP32;
            int ba = mode == 2 ? 2 : (1 << (fmts[presets[i].fa].E - 1)) - 1, bb = mode == 2 ? 2 : (1 << (fmts[presets[i].fb].E - 1)) - 1;
            for (int k = 0; k < presets[i].K; k++) { a[k] = draw(presets[i].fa, mode, ba); b[k] = draw(presets[i].fb, mode, bb); }
            c = draw(cf, mode, mode == 2 ? 1 : (1 << (fmts[cf].E - 1)) - 1);
            for (int s = 0; s < 8; s++) { sa[s] = 120 + rnd() % 16; sb[s] = 120 + rnd() % 16; }
            uint64_t want = oracle(&presets[i], c, a, b, sa, sb, &nan_any), got = mma_dot(&units[i], c, a, b, sa, sb);
            diff += !(got == want || (nan_any && is_nan32(got)));
        }
        (void)bad_before;
        printf("  mutant of %-48s %-11s %6ld of %ld vectors differ  (%s)\n", presets[i].name, diff ? "caught:" : "NOT CAUGHT:",
               diff, count, presets[i].mutant);
        caught += diff > 0;
    }
    if (mutate) {
        printf("test_spec --mutate: %d of %zu mutants caught\n", caught, NPRESETS);
        return caught == (int)NPRESETS ? 0 : 1;
    }
    printf("test_spec: %zu specification presets, %ld vectors and rules checked against the documents' oracles, %ld failures\n",
           NPRESETS, n_checks, n_bad);
    return n_bad ? 1 : 0;
}
