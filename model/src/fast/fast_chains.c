/* The fast path of CHAINS (alg_chains.c): the same operations on fp32
 * values held as integers, for units with fp32 c and d and operands of 16
 * bits or fewer (or fp32 taken as tf32):
 *   - fma chains (fuse=1): each operation adds one exact product (22 bits
 *     at most) to the accumulator (24 bits) in 64-bit fixed point: when the
 *     smaller term lies more than 26 places below the larger's leading bit
 *     it is replaced by one bit of its sign 27 places below, which rounds
 *     the same in every mode (the sum stays strictly between the same two
 *     neighbours at a quarter ulp's distance) and is tiny the same way;
 *   - one fused operation a chain (start=none, per chain fuse products):
 *     two products as two terms; more, summed exactly in 128-bit fixed
 *     point where the formats' products fit it (AMX-FP8), or aligned to the
 *     largest with f bits cut rz, rd or to odd (RISC-V RVBNA);
 *   - the additions joining the chains and c, as two terms.
 * Every result is rounded to 24 bits with an unbounded exponent, then
 * flushed when tiny (ftz=out); a NaN or Inf operand, an overflow, or a
 * tiny result that is not flushed sends the whole dot product to the
 * reference (the special cases are the reference's). */
#include "fast.h"

#include <stdlib.h>

typedef struct {
    fast_hdr h;
    int k, l, ways, per, fuse, start, down, tf32, ftzin, ftzout, tiny_before, zero, rho, f, align, wide;
    int fa, fb;                      /* fraction bits of a's and b's encodings */
    int32_t lsb0;                    /* the wide sum's unit: the smallest product's last bit */
    const uint64_t *ta, *tb;
    uint64_t amask, bmask;
    unsigned csr;                    /* the host's MXCSR for the hardware kernel */
    int nan_x86, f16;                /* the hardware's NaN is the unit's; fp16 operands */
} chains_plan;
#define PLAN(h) ((const chains_plan *)(h))

/* a value (-1)^neg * m * 2^lsb (m 0: a zero of sign neg) and its fp32 encoding */
typedef struct { uint64_t m; int32_t lsb; int neg; uint32_t bits; } val;

static inline int msb(uint64_t m) { return 63 - __builtin_clzll(m); }

/* an operand of 16 bits or fewer through its table; 1 for Inf or NaN */
static inline int decode_op(const chains_plan *P, const uint64_t *tab, uint64_t mask, int fbits, uint64_t bits, val *v)
{
    if (P->tf32) {
        uint32_t w = (uint32_t)bits & ~(uint32_t)0x1fff, e = (w >> 23) & 0xff;
        if (e == 0xff) return 1;
        v->neg = (int)(w >> 31);
        v->m = ((w & 0x7fffff) | (e ? 0x800000u : 0)) >> 13;   /* (the low 13 bits are 0) */
        v->lsb = (int32_t)(e ? e : 1) - 150 + 13;
    } else {
        uint64_t x = tab[bits & mask];
        if (x & T_SPEC) return 1;
        v->neg = (x & T_NEG) != 0;
        v->m = (uint32_t)x;
        v->lsb = ent_e(x) - fbits;
    }
    if (v->m && P->ftzin && msb(v->m) + v->lsb < -126) v->m = 0;   /* DAZ */
    return 0;
}

static inline int decode_f32(const chains_plan *P, uint32_t w, val *v)
{
    uint32_t e = (w >> 23) & 0xff;
    if (e == 0xff) return 1;
    v->neg = (int)(w >> 31);
    v->m = (w & 0x7fffff) | (e ? 0x800000u : 0);
    v->lsb = (int32_t)(e ? e : 1) - 150;
    v->bits = w;
    if (v->m && P->ftzin && !e) { v->m = 0; v->bits = w & 0x80000000u; }
    return 0;
}

/* a zero result of IEEE sign zneg under the unit's zero rule */
static inline void zero_out(const chains_plan *P, int zneg, val *out)
{
    out->m = 0;
    out->neg = P->zero == MMA_ZS_IEEE ? zneg : 0;
    out->lsb = 0;
    out->bits = (uint32_t)out->neg << 31;
}

/* (-1)^neg * mag * 2^lsb, mag > 0, rounded to fp32 (24 bits, unbounded
 * exponent), flushed when tiny; 1 when the reference must decide */
static inline int round_out(const chains_plan *P, int neg, uint64_t mag, int32_t lsb, val *out)
{
    int top = msb(mag);
    int32_t x = top + lsb;
    int sh = top - 23;
    uint64_t q;
    if (sh > 0) {
        uint64_t rem = mag & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
        q = mag >> sh;
        int up;
        switch (P->rho) {
        case MMA_RNE: up = rem > half || (rem == half && (q & 1)); break;
        case MMA_RD: up = neg && rem; break;
        case MMA_RU: up = !neg && rem; break;
        case MMA_RODD: up = rem && !(q & 1); break;
        default: up = 0; break;
        }
        q += (uint64_t)up;
        if (q >> 24) { q >>= 1; x++; }
    } else {
        q = mag << -sh;
    }
    if ((P->tiny_before ? top + lsb : x) < -126) {
        if (!P->ftzout) return 1;                              /* a subnormal result */
        out->m = 0;
        out->neg = P->zero == MMA_ZS_POS ? 0 : neg;
        out->lsb = 0;
        out->bits = (uint32_t)out->neg << 31;
        return 0;
    }
    if (x > 127) return 1;                                     /* overflow */
    out->m = q;
    out->lsb = x - 23;
    out->neg = neg;
    out->bits = (uint32_t)neg << 31 | (uint32_t)(x + 127) << 23 | (uint32_t)(q & 0x7fffff);
    return 0;
}

/* x + y, both nonzero, into (neg, mag, lsb) exactly or with the far term
 * replaced (above) */
static inline void add2(val x, val y, int *neg, uint64_t *mag, int32_t *lsb)
{
    int32_t tx = msb(x.m) + x.lsb, ty = msb(y.m) + y.lsb;
    if (ty > tx) { val t = x; x = y; y = t; int32_t u = tx; tx = ty; ty = u; }
    if (ty < tx - 26) { y.m = 1; y.lsb = tx - 27; }
    int32_t lo = x.lsb < y.lsb ? x.lsb : y.lsb;
    int64_t X = (int64_t)(x.m << (x.lsb - lo)), Y = (int64_t)(y.m << (y.lsb - lo));
    int64_t s = (x.neg ? -X : X) + (y.neg ? -Y : Y);
    *neg = s < 0;
    *mag = (uint64_t)(s < 0 ? -s : s);
    *lsb = lo;
}

/* x + y rounded (an fma's accumulator and product, or an addition) */
static inline int op2(const chains_plan *P, const val *x, const val *y, val *out)
{
    if (!x->m && !y->m) {                                      /* zeros: IEEE 754 6.3 */
        zero_out(P, mma_zero_sign(1, !x->neg || !y->neg, x->neg || y->neg, (mma_rounding)P->rho), out);
        return 0;
    }
    if (!x->m || !y->m) {
        const val *v = x->m ? x : y;
        return round_out(P, v->neg, v->m, v->lsb, out);
    }
    int neg;
    uint64_t mag;
    int32_t lsb;
    add2(*x, *y, &neg, &mag, &lsb);
    if (!mag) { zero_out(P, P->rho == MMA_RD, out); return 0; }   /* terms that cancel */
    return round_out(P, neg, mag, lsb, out);
}

/* One operation of n products with no accumulator (start=none, the whole
 * chain): exact in 128 bits, or aligned to f bits */
static inline int fused(const chains_plan *P, const val *p, int n, val *out)
{
    int anypos = 0, anyneg = 0, any = 0;
    for (int j = 0; j < n; j++) {
        if (p[j].neg) anyneg = 1; else anypos = 1;
        any |= p[j].m != 0;
    }
    if (!any) { zero_out(P, mma_zero_sign(1, anypos, anyneg, (mma_rounding)P->rho), out); return 0; }
    int neg;
    uint64_t mag;
    int32_t lsb;
    if (P->f) {
        /* the reference's aligned sum: term exponent e = lsb + fraction bits */
        const int fbp = P->fa + P->fb;
        int32_t emax = INT32_MIN;
        for (int j = 0; j < n; j++) if (p[j].m && p[j].lsb + fbp > emax) emax = p[j].lsb + fbp;
        int64_t s = 0;
        for (int j = 0; j < n; j++) {
            if (!p[j].m) continue;
            int32_t sh = emax - p[j].lsb - P->f;               /* (emax - e) + fbp - f */
            uint64_t m;
            int sticky = 0;
            if (sh <= 0) m = p[j].m << -sh;
            else if (sh >= 64) { m = 0; sticky = 1; }
            else { m = p[j].m >> sh; sticky = (p[j].m & (((uint64_t)1 << sh) - 1)) != 0; }
            if (sticky) {
                if (P->align == MMA_RODD) m |= 1;
                else if (P->align == MMA_RD && p[j].neg) m += 1;
            }
            s += p[j].neg ? -(int64_t)m : (int64_t)m;
        }
        neg = s < 0;
        mag = (uint64_t)(s < 0 ? -s : s);
        lsb = emax - P->f;
    } else if (n == 2) {
        if (!p[0].m || !p[1].m) return op2(P, &p[0], &p[1], out);
        add2(p[0], p[1], &neg, &mag, &lsb);
    } else {
        __int128 s = 0;
        for (int j = 0; j < n; j++) {
            if (!p[j].m) continue;
            __int128 m = (__int128)((unsigned __int128)p[j].m << (p[j].lsb - P->lsb0));
            s += p[j].neg ? -m : m;
        }
        neg = s < 0;
        unsigned __int128 a = (unsigned __int128)(s < 0 ? -s : s);
        lsb = P->lsb0;
        int sticky = 0;
        while (a >> 62) { sticky |= (int)(a & 1); a >>= 1; lsb++; }
        mag = (uint64_t)a << 1 | (uint64_t)sticky;             /* 62 bits and a sticky bit below: enough for 24 */
        lsb--;
    }
    if (!mag) { zero_out(P, P->rho == MMA_RD, out); return 0; }
    return round_out(P, neg, mag, lsb, out);
}

static __attribute__((noinline)) uint64_t reference(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b)
{
    return mma_ref_dot(&h->u, c, a, b, NULL, NULL);
}

static uint64_t chains_dot(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                           const uint64_t *sb)
{
    (void)sa; (void)sb;
    const chains_plan *P = PLAN(h);
    val cur;
    if (decode_f32(P, (uint32_t)c, &cur)) return reference(h, c, a, b);
    for (int k0 = 0; k0 < P->k; k0 += P->l) {
        val acc[8] = {{0, 0, 0, 0}};
        int has[8] = {0};
        for (int w = 0; w < P->ways; w++) {
            has[w] = P->start != MMA_START_NONE;
            acc[w] = (val){0, 0, 0, 0};
        }
        if (P->start == MMA_START_C) acc[0] = cur;
        for (int w = 0; w < P->ways; w++) {
            if (P->fuse > 1) {                                 /* one fused operation (build: per == fuse) */
                val p[MMA_MAX_K];
                for (int j = 0; j < P->per; j++) {
                    int k = k0 + w + P->ways * j;
                    val x, y;
                    if (decode_op(P, P->ta, P->amask, P->fa, a[k], &x) || decode_op(P, P->tb, P->bmask, P->fb, b[k], &y))
                        return reference(h, c, a, b);
                    p[j] = (val){x.m * y.m, x.lsb + y.lsb, x.neg ^ y.neg, 0};
                    if (!x.m || !y.m) p[j].m = 0;
                }
                if (fused(P, p, P->per, &acc[w])) return reference(h, c, a, b);
                continue;
            }
            for (int j0 = 0; j0 < P->per; j0++) {
                int jj = P->down ? P->per - 1 - j0 : j0;
                int k = k0 + w + P->ways * jj;
                val x, y;
                if (decode_op(P, P->ta, P->amask, P->fa, a[k], &x) || decode_op(P, P->tb, P->bmask, P->fb, b[k], &y))
                    return reference(h, c, a, b);
                val p = {x.m * y.m, x.lsb + y.lsb, x.neg ^ y.neg, 0};
                if (!x.m || !y.m) p.m = 0;
                if (has[w] ? op2(P, &acc[w], &p, &acc[w]) : op2(P, &p, &(val){0, 0, p.neg, 0}, &acc[w]))
                    return reference(h, c, a, b);
                has[w] = 1;
            }
        }
        val t = acc[0];
        for (int w = 1; w < P->ways; w++)
            if (op2(P, &t, &acc[w], &t)) return reference(h, c, a, b);
        if (P->start == MMA_START_C) cur = t;
        else if (op2(P, &cur, &t, &cur)) return reference(h, c, a, b);
    }
    return cur.bits;
}

/* ---- the host's fma ---------------------------------------------------------- */

/* fma chains of bf16, fp16 or tf32 operands with fp32 c and d, IEEE
 * overflow and zeros, tininess after rounding, in RNE, RZ, RD or RU, are
 * the host's own binary32 operations: fmaf for an fma (exact product and
 * sum, one rounding), a product rounded alone for a chain's first
 * operation with no accumulator, additions joining the chains and c, with
 * MXCSR's rounding control set to the unit's rounding, DAZ for ftz=in and
 * FTZ for ftz=out (x86 flushes tiny results after rounding and treats
 * subnormal operands as zeros of their sign, as the unit says; a bf16 or
 * tf32 subnormal is an fp32 one, an fp16 one is a normal fp32 value).  Inf
 * or NaN operands take the integer kernel above (and the reference); an
 * overflow is the host's Inf, as the unit's, and an Inf - Inf the host's
 * indefinite 0xffc00000, the unit's under nan=x86 (its only NaN then:
 * there is no NaN operand); under another NaN rule a NaN result goes to
 * the reference.  MXCSR is set for the chain and restored; the barriers
 * keep the compiler from moving the operations across either. */
#ifdef FAST_HAVE_AVX2
static inline float f_of_w(uint32_t w) { float f; memcpy(&f, &w, sizeof f); return f; }
static inline uint32_t w_of_f(float f) { uint32_t w; memcpy(&w, &f, sizeof w); return w; }

/* the operands as binary32 (0), or 1 where one is Inf or NaN */
static __attribute__((target(FAST_ISA_F16C))) int hw_operands(const chains_plan *P, const uint64_t *a, const uint64_t *b,
                                                       float *x, float *y)
{
    uint32_t spec = 0;
    for (int k = 0; k < P->k; k++) {
        uint32_t wa, wb;
        if (P->tf32) {
            wa = (uint32_t)a[k] & ~(uint32_t)0x1fff;
            wb = (uint32_t)b[k] & ~(uint32_t)0x1fff;
        } else if (P->f16) {
            uint32_t ha = (uint32_t)a[k] & 0xffff, hb = (uint32_t)b[k] & 0xffff;
            spec |= ((ha & 0x7c00) == 0x7c00) | ((hb & 0x7c00) == 0x7c00);
            x[k] = _cvtsh_ss((unsigned short)ha);
            y[k] = _cvtsh_ss((unsigned short)hb);
            continue;
        } else {
            wa = (uint32_t)a[k] << 16;
            wb = (uint32_t)b[k] << 16;
        }
        spec |= ((wa & 0x7f800000u) == 0x7f800000u) | ((wb & 0x7f800000u) == 0x7f800000u);
        x[k] = f_of_w(wa);
        y[k] = f_of_w(wb);
    }
    return spec != 0;
}

/* a product rounded alone: kept from being contracted into a later addition */
static inline __attribute__((always_inline)) float mul_rounded(float x, float y)
{
    float p = x * y;
    __asm__("" : "+x"(p));
    return p;
}

static __attribute__((target(FAST_ISA_FMA), noinline)) uint32_t hw_chains(const chains_plan *P, float c, const float *x,
                                                                   const float *y)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr(P->csr);
    __asm__ volatile("" : "+x"(c) : : "memory");
    float cur = c;
    for (int k0 = 0; k0 < P->k; k0 += P->l) {
        float acc[8];
        int has = P->start != MMA_START_NONE;
        for (int w = 0; w < P->ways; w++) acc[w] = 0.0f;
        if (P->start == MMA_START_C) acc[0] = cur;
        for (int w = 0; w < P->ways; w++)
            for (int j0 = 0; j0 < P->per; j0++) {
                int k = k0 + w + P->ways * (P->down ? P->per - 1 - j0 : j0);
                acc[w] = has || j0 ? __builtin_fmaf(x[k], y[k], acc[w]) : mul_rounded(x[k], y[k]);
            }
        float t = acc[0];
        for (int w = 1; w < P->ways; w++) t = t + acc[w];
        cur = P->start == MMA_START_C ? t : cur + t;
    }
    __asm__ volatile("" : "+x"(cur) : : "memory");
    _mm_setcsr(old);
    return w_of_f(cur);
}

/* x * y + z by the host under MXCSR csr */
static __attribute__((target(FAST_ISA_FMA), noinline)) uint32_t hw_fma(unsigned csr, float x, float y, float z)
{
    unsigned old = _mm_getcsr();
    _mm_setcsr(csr);
    __asm__ volatile("" : "+x"(x), "+x"(y), "+x"(z) : : "memory");
    float r = __builtin_fmaf(x, y, z);
    __asm__ volatile("" : "+x"(r) : : "memory");
    _mm_setcsr(old);
    return w_of_f(r);
}

/* Whether the host's fma, rounding control, DAZ and FTZ work as x86
 * defines them (an emulator may not: valgrind ignores DAZ and FTZ); the
 * kernel is used only then.  MMAREF_NO_HOST_FMA=1 in the environment
 * leaves it out: a check of x86 silicon is then judged by the integer
 * kernel, which owes nothing to the host's floating-point unit. */
static int hw_honoured;
__attribute__((constructor)) static void hw_probe(void)
{
    const char *off = getenv("MMAREF_NO_HOST_FMA");
    __builtin_cpu_init();
    if ((off && *off) || !__builtin_cpu_supports("fma")) return;
    const float one = 1.0f, eps = f_of_w(0x34000000u) /* 2^-23 */, tiny = f_of_w(0x00200000u) /* 2^-129 */;
    hw_honoured = hw_fma(0x1f80u, one + eps, one + eps, -(one + 2 * eps)) == 0x28800000u /* 2^-46: one rounding */ &&
                  hw_fma(0x1f80u | 0x40u, tiny, one, 0.0f) == 0 /* DAZ */ &&
                  hw_fma(0x1f80u, tiny, one, 0.0f) == 0x00200000u &&
                  hw_fma(0x1f80u | 0x8000u, f_of_w(0x0d800000u) /* 2^-100 */, f_of_w(0x30800000u) /* 2^-30 */, 0.0f) == 0 /* FTZ */ &&
                  hw_fma(0x1f80u | 0x4000u, one, f_of_w(0x30800000u), one) == 0x3f800001u /* RU */ &&
                  hw_fma(0x1f80u | 0x2000u, -one, f_of_w(0x30800000u), one) == 0x3f7fffffu /* RD */ &&
                  hw_fma(0x1f80u | 0x6000u, one, f_of_w(0x30800000u), one) == 0x3f800000u /* RZ */;
}

static uint64_t chains_dot_hw(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const uint64_t *sa,
                              const uint64_t *sb)
{
    const chains_plan *P = PLAN(h);
    float x[MMA_MAX_K], y[MMA_MAX_K];
    uint32_t cw = (uint32_t)c;
    if ((cw & 0x7f800000u) == 0x7f800000u || hw_operands(P, a, b, x, y)) return chains_dot(h, c, a, b, sa, sb);
    uint32_t d = hw_chains(P, f_of_w(cw), x, y);
    if ((d & 0x7fffffffu) > 0x7f800000u && !P->nan_x86) return reference(h, c, a, b);
    return d;
}
#endif

/* ---- the family ------------------------------------------------------------ */

/* the formats a table decodes, with their fraction bits */
static int op_ok(mma_fmt f) { return f == MMA_FMT_BF16 || f == MMA_FMT_FP16 || f == MMA_FMT_E4M3 || f == MMA_FMT_E5M2; }

/* the exponent of the last bit of f's smallest subnormal, and of the
 * leading bit of its largest finite */
static int32_t lowest_lsb(mma_fmt f) { return mma_format(f)->emin - mma_format(f)->mbits; }
static int32_t highest_msb(mma_fmt f)
{
    mma_value v = mma_decode(f, mma_format_max(f));
    return 63 - __builtin_clzll(v.sig) + v.exp;
}

static int chains_ok(const mma_unit *u)
{
    if (u->tree != MMA_TREE_CHAINS || u->c != MMA_FMT_FP32 || u->d != MMA_FMT_FP32 || u->p != 23) return 0;
    if (u->rho == MMA_RMM || u->ways < 1 || u->ways > 8 || u->lmax % u->ways || u->fuse < 1) return 0;
    int tf32 = (u->flags & MMA_F_VIA_TF32) != 0;
    if (tf32 ? (u->a != MMA_FMT_FP32 || u->b != MMA_FMT_FP32) : !(op_ok(u->a) && op_ok(u->b))) return 0;
    int per = u->lmax / u->ways;
    if (u->fuse == 1) return !u->f;
    /* one fused operation a chain, with no accumulator */
    if (u->fuse != per || u->start != MMA_START_NONE) return 0;
    if (u->f) return u->f <= 48 && per <= 64 && !tf32;
    if (per == 2) return 1;
    /* an exact sum in 128 bits: the products' span and the carries */
    if (tf32) return 0;
    int32_t span = highest_msb(u->a) + highest_msb(u->b) + 2 - (lowest_lsb(u->a) + lowest_lsb(u->b));
    return span + 9 < 126;
}

static fast_hdr *chains_build(const mma_unit *u, int mode)
{
    (void)mode;                                            /* (used where the host has AVX2) */
    chains_plan *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->k = u->k;
    P->l = u->lmax;
    P->ways = u->ways;
    P->per = u->lmax / u->ways;
    P->fuse = u->fuse;
    P->start = u->start;
    P->down = (u->flags & MMA_F_ORDER_DOWN) != 0;
    P->tf32 = (u->flags & MMA_F_VIA_TF32) != 0;
    P->ftzin = (u->flags & MMA_F_FTZ_IN) != 0;
    P->ftzout = (u->flags & MMA_F_FTZ_SUM) != 0;
    P->tiny_before = (u->flags & MMA_F_TINY_BEFORE) != 0;
    P->zero = mma_unit_rspec(u).zero;
    P->rho = u->rho;
    P->f = u->f;
    P->align = u->align;
    if (!P->tf32) {
        P->ta = fast_tab[u->a];
        P->tb = fast_tab[u->b];
        P->amask = mma_format(u->a)->width <= 8 ? 0xff : 0xffff;
        P->bmask = mma_format(u->b)->width <= 8 ? 0xff : 0xffff;
        P->fa = mma_format(u->a)->mbits;
        P->fb = mma_format(u->b)->mbits;
        P->lsb0 = lowest_lsb(u->a) + lowest_lsb(u->b);
    } else {
        P->fa = P->fb = 10;
    }
    P->h.fn = chains_dot;
    P->h.kernel = FAST_K_SCALAR;
#ifdef FAST_HAVE_AVX2
    /* the host's fma (above) where the unit's operations are IEEE binary32 ones */
    static const unsigned rc[] = {[MMA_RNE] = 0, [MMA_RD] = 0x2000, [MMA_RU] = 0x4000, [MMA_RZ] = 0x6000};
    P->f16 = u->a == MMA_FMT_FP16;
    if (mode != FAST_MODE_SCALAR && hw_honoured && P->fuse == 1 && !P->f && !P->tiny_before &&
        P->zero == MMA_ZS_IEEE && mma_unit_ovf(u) == MMA_OVR_IEEE && P->rho <= MMA_RU &&
        (P->tf32 || (u->a == u->b && (u->a == MMA_FMT_BF16 || (u->a == MMA_FMT_FP16 && fast_f16c_usable()))))) {
        P->csr = 0x1f80u | rc[P->rho] | (P->ftzin ? 0x40u : 0) | (P->ftzout ? 0x8000u : 0);
        P->nan_x86 = (u->flags & MMA_F_NAN_X86) != 0;
        P->h.fn = chains_dot_hw;
        P->h.kernel = FAST_K_SPECIAL;
    }
#endif
    return &P->h;
}

const fast_family fast_chains_family = {chains_ok, chains_build};
