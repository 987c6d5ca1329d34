/* The fused-sum algorithms (FDA, CoFDA) again, specialized for speed: the
 * same arithmetic as alg_fused.c, with operands of 16 bits or fewer decoded
 * through per-format tables built once at load time, and terms aligned
 * branch-free.  Any Inf or NaN operand falls back to alg_fused.c, which
 * owns the special-value rules.  tests/ compare the two on every suite. */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>

/* table entry: sig in bits 0..31, e (int16) in bits 32..47, flags above */
#define T_NEG  ((uint64_t)1 << 48)
#define T_SPEC ((uint64_t)1 << 50)
#define EZ_LOW (INT32_MIN / 4)

static uint64_t *tables[MMA_FMT_COUNT];
/* The same operands biased for the product loop: significand in bits
 * 0..31, exponent + 1024 in bits 32..43, Inf/NaN in bit 48, sign in bit 63,
 * so that adding two entries adds the exponents (with the product's bias
 * 2048), and xors the signs; the significands are multiplied apart. */
static uint64_t *btables[MMA_FMT_COUNT];
static uint64_t bstore16[2][65536];
#define B_SPEC ((uint64_t)1 << 48)
static uint64_t store8[9][256];
static uint64_t store16[2][65536];

static inline int32_t ent_e(uint64_t x) { return (int16_t)(uint16_t)(x >> 32); }

static uint64_t entry(mma_fmt f, uint64_t bits)
{
    mma_term t = mma_term_of(f, bits);
    uint64_t x = (uint64_t)(uint32_t)t.sig | ((uint64_t)(uint16_t)(int16_t)t.e << 32);
    if (t.neg) x |= T_NEG;
    if (t.cls == MMA_INF || t.cls == MMA_NAN) x |= T_SPEC;
    if (t.cls == MMA_ZERO) x &= ~(uint64_t)0xffffffffu;
    return x;
}

__attribute__((constructor)) static void build_tables(void)
{
    static const mma_fmt f8[9] = {MMA_FMT_E4M3, MMA_FMT_E5M2, MMA_FMT_E4M3FNUZ, MMA_FMT_E5M2FNUZ,
                                  MMA_FMT_E3M2, MMA_FMT_E2M3, MMA_FMT_E2M1, MMA_FMT_UE8M0, MMA_FMT_UE4M3};
    for (int i = 0; i < 9; i++) {
        int n = 1 << mma_format(f8[i])->width;
        for (int b = 0; b < 256; b++) store8[i][b] = entry(f8[i], (uint64_t)(b & (n - 1)));
        tables[f8[i]] = store8[i];
    }
    for (int b = 0; b < 65536; b++) {
        store16[0][b] = entry(MMA_FMT_FP16, (uint64_t)b);
        store16[1][b] = entry(MMA_FMT_BF16, (uint64_t)b);
    }
    tables[MMA_FMT_FP16] = store16[0];
    tables[MMA_FMT_BF16] = store16[1];
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < 65536; b++) {
            uint64_t x = store16[t][b];
            bstore16[t][b] = (uint64_t)(uint32_t)x | (uint64_t)(uint32_t)(ent_e(x) + 1024) << 32 |
                             ((x & T_SPEC) ? B_SPEC : 0) | ((x & T_NEG) ? (uint64_t)1 << 63 : 0);
        }
    btables[MMA_FMT_FP16] = bstore16[0];
    btables[MMA_FMT_BF16] = bstore16[1];
}

/* A product, packed: bits 0..31 significand, 32..43 exponent + 2048 (0 for a
 * zero product, so that it never sets emax), 49 Inf or NaN involved, 50
 * zero, 63 sign (so that an arithmetic shift makes the negation mask). */
#define P_EOFF 2048
#define P_EMASK ((uint64_t)0xfff << 32)
#define P_NEG  ((uint64_t)1 << 63)
#define P_SPEC ((uint64_t)1 << 49)
#define P_ZERO ((uint64_t)1 << 50)

static inline uint64_t pack_product(uint64_t x, uint64_t y)
{
    uint32_t s = (uint32_t)x * (uint32_t)y;
    int32_t e = ent_e(x) + ent_e(y);
    uint64_t p = (((x ^ y) & T_NEG) ? P_NEG : 0) | (((x | y) & T_SPEC) ? P_SPEC : 0);
    return s ? p | s | (uint64_t)(uint32_t)(e + P_EOFF) << 32 : p | P_ZERO;
}

/* For two formats of at most 8 bits one table gives the packed product.
 * Built on first use and published atomically (threads may race to build;
 * the loser frees its copy). */
static uint64_t *pair_tab[MMA_FMT_COUNT][MMA_FMT_COUNT];

static const uint64_t *pair_table(mma_fmt fa, mma_fmt fb)
{
    uint64_t *t = __atomic_load_n(&pair_tab[fa][fb], __ATOMIC_ACQUIRE);
    if (t) return t;
    t = malloc(sizeof(uint64_t) * 65536);
    if (!t) return NULL;
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++) t[x << 8 | y] = pack_product(tables[fa][x], tables[fb][y]);
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&pair_tab[fa][fb], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

static int pre_shift(const mma_unit *u)
{
    int fbp = mma_format(u->a)->mbits + mma_format(u->b)->mbits;
    return u->f > fbp ? u->f - fbp : 0;
}

int mma_fast_fused_ok(const mma_unit *u)
{
    /* products hold at most 22 bits; the left pre-shift must keep them
     * inside 63 bits */
    return u->tree == MMA_TREE_FUSED && u->cadd == MMA_CADD_FUSED && u->scale == MMA_FMT_NONE &&
           tables[u->a] && tables[u->b] && u->lmax <= 64 && pre_shift(u) <= 40 &&
           (u->c == MMA_FMT_FP32 || tables[u->c]) && u->d != MMA_FMT_FP64;
}

/* The alignment of the products with RZ: each term is cut to units of
 * 2^(emax - f) by one right shift (clamped at 63: the term is gone) of its
 * significand pre-shifted left by `pre`, then negated by its sign mask.
 * Small functions keep the loop's state in registers; the common
 * pre-shifts (F minus the products' fraction bits) get constant shifts. */
static inline int64_t align_rz_body(const uint64_t *p, int L, int64_t eb, int pre)
{
    int64_t sum = 0;
    for (int j = 0; j < L; j++) {
        uint64_t x = p[j];
        int64_t sh = eb - (int64_t)((x >> 32) & 0xfff);
        sh = sh > 63 ? 63 : sh;
        uint64_t v = ((uint64_t)(uint32_t)x << pre) >> sh;
        uint64_t ng = (uint64_t)((int64_t)x >> 63);
        sum += (int64_t)((v ^ ng) - ng);
    }
    return sum;
}
static __attribute__((noinline)) int64_t align_rz(const uint64_t *p, int L, int64_t eb, int pre)
{
    return align_rz_body(p, L, eb, pre);
}
#define ALIGN_RZ(PRE) static __attribute__((noinline)) int64_t align_rz_##PRE(const uint64_t *p, int L, int64_t eb) \
    { return align_rz_body(p, L, eb, PRE); }
ALIGN_RZ(4) ALIGN_RZ(5) ALIGN_RZ(7) ALIGN_RZ(10) ALIGN_RZ(11)
#undef ALIGN_RZ

/* fp32 accumulator operand, decoded inline */
static inline uint64_t entry_f32(uint64_t bits)
{
    uint32_t w = (uint32_t)bits;
    uint32_t ef = (w >> 23) & 0xff, m = w & 0x7fffff;
    if (ef == 0xff) return T_SPEC;
    uint32_t sig = ef ? m | 0x800000u : m;
    int32_t e = ef ? (int32_t)ef - 127 : -126;
    uint64_t x = (uint64_t)sig | ((uint64_t)(uint16_t)(int16_t)e << 32);
    return (w >> 31) ? x | T_NEG : x;
}

uint64_t mma_fast_fused(const mma_unit *u, uint64_t c, const uint64_t *a,
                        const uint64_t *b)
{
    const mma_format_info *fa = mma_format(u->a), *fbi = mma_format(u->b);
    const uint64_t *ta = tables[u->a], *tb = tables[u->b], *tc = tables[u->c];
    const uint64_t *pt = fa->width <= 8 && fbi->width <= 8 ? pair_table(u->a, u->b) : NULL;
    const uint64_t *bta = btables[u->a], *btb = btables[u->b];
    const int fbp = fa->mbits + fbi->mbits;
    const int f = u->f, L = u->lmax;
    const int pre = f > fbp ? f - fbp : 0, base = fbp - f + pre;
    const int zeros_part = !(u->flags & MMA_F_NO_EZERO);
    const int zsigned = !(u->flags & MMA_F_ZERO_POS);
    const int rd = u->align == MMA_RD;
    mma_fmt cf = u->c;
    uint64_t acc = c;
    for (int k0 = 0; k0 < u->k; k0 += L) {
        uint64_t p[64];
        uint64_t any = 0, emf = 0;
        if (pt) {
            for (int j = 0; j < L; j++) {
                uint64_t x = pt[(a[k0 + j] & 0xff) << 8 | (b[k0 + j] & 0xff)];
                p[j] = x;
                any |= x;
                uint64_t ef = x & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
        } else if (bta && btb) {
            for (int j = 0; j < L; j++) {
                uint64_t x = bta[a[k0 + j] & 0xffff], y = btb[b[k0 + j] & 0xffff];
                uint32_t s = (uint32_t)x * (uint32_t)y;
                uint64_t hi = (x + y) & ~(uint64_t)0xffffffffu;    /* e sum, sign xor, specials */
                any |= (x | y) & B_SPEC;
                uint64_t v = (hi & ~(uint64_t)(B_SPEC | (B_SPEC << 1))) | s;
                v = s ? v : P_ZERO;
                p[j] = v;
                any |= v;
                uint64_t ef = v & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
            if (any & B_SPEC) any |= P_SPEC;
        } else {
            for (int j = 0; j < L; j++) {
                uint64_t x = pack_product(ta[a[k0 + j]], tb[b[k0 + j]]);
                p[j] = x;
                any |= x;
                uint64_t ef = x & P_EMASK;
                emf = ef > emf ? ef : emf;
            }
        }
        uint64_t xc = cf == MMA_FMT_FP32 ? entry_f32(acc) : tc[acc & 0xffff];
        if ((any & P_SPEC) || (xc & T_SPEC)) {
            /* specials decide: the reference path owns those rules */
            mma_unit one = *u;
            one.k = L;
            one.c = cf;
            acc = mma_alg_fused(&one, acc, a + k0, b + k0, NULL, NULL);
            cf = u->d;
            tc = tables[cf];
            continue;
        }
        int32_t emax = emf ? (int32_t)(emf >> 32) - P_EOFF : EZ_LOW;
        int anyzero = (any & P_ZERO) != 0;
        int fbc = cf == MMA_FMT_FP32 ? 23 : mma_format(cf)->mbits;
        uint32_t sc = (uint32_t)xc;
        int32_t ec = ent_e(xc);
        if (sc) emax = ec > emax ? ec : emax; else anyzero = 1;
        if (anyzero && zeros_part && u->ezero > emax) emax = u->ezero;
        int64_t sum = 0;
        if (emax != EZ_LOW) {
            /* units of 2^(emax - f).  Every shift is a right shift of the
             * pre-shifted significand, clamped at 63 (the term is gone).
             * RZ cuts the magnitude; RD is an arithmetic shift (floor). */
            const int64_t eb = (int64_t)emax + P_EOFF + base;
            if (!rd) {
                switch (pre) {
                case 4: sum = align_rz_4(p, L, eb); break;
                case 5: sum = align_rz_5(p, L, eb); break;
                case 7: sum = align_rz_7(p, L, eb); break;
                case 10: sum = align_rz_10(p, L, eb); break;
                case 11: sum = align_rz_11(p, L, eb); break;
                default: sum = align_rz(p, L, eb, pre); break;
                }
            } else {
                for (int j = 0; j < L; j++) {
                    uint64_t x = p[j];
                    int64_t sh = eb - (int64_t)((x >> 32) & 0xfff);
                    sh = sh > 63 ? 63 : sh;
                    int64_t m = (int64_t)(((uint64_t)(uint32_t)x) << pre);
                    sum += ((x & P_NEG) ? -m : m) >> sh;
                }
            }
            if (sc) {
                int sh = emax - ec + fbc - f;
                uint64_t m = sc;
                int neg = (xc & T_NEG) != 0;
                if (sh <= 0) {
                    int64_t v = (int64_t)(m << -sh);
                    sum += neg ? -v : v;
                } else if (rd) {
                    int64_t v = neg ? -(int64_t)m : (int64_t)m;
                    sum += v >> (sh > 63 ? 63 : sh);
                } else {
                    int64_t v = (int64_t)(sh > 63 ? 0 : m >> sh);
                    sum += neg ? -v : v;
                }
            }
        }
        uint64_t mag = sum < 0 ? (uint64_t)-sum : (uint64_t)sum;
        acc = mma_round_pack(u->d, u->p, u->rho, sum < 0, emax == EZ_LOW ? 0 : mag, emax - f, zsigned);
        cf = u->d;
        tc = tables[cf];
    }
    return acc;
}
