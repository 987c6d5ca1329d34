/* mmaref_bits: operand vectors packed into SystemVerilog bit vectors
 * (svBitVecVal: little-endian 32-bit words), shared by the DPI layer
 * (mmaref_dpi.c) and the verify harness (verify/harness/mmaref_harness.c).  Element i of a
 * plain packed vector lies at bits [i*w +: w]; on a little-endian host 8-
 * and 16-bit elements are then plain bytes and halfwords of the word array,
 * which the byte loops use. */
#ifndef MMAREF_BITS_H
#define MMAREF_BITS_H

#include <stdint.h>
#include <string.h>
#include "svdpi.h"

static inline int mmaref_little_endian(void) { const uint16_t x = 1; return *(const uint8_t *)&x; }

/* w (at most 64) bits of x into v at bit offset off; the other bits kept */
static inline void mmaref_put_bits(svBitVecVal *v, int off, int w, uint64_t x)
{
    while (w > 0) {
        int word = off >> 5, sh = off & 31, n = 32 - sh < w ? 32 - sh : w;
        uint32_t m = (n == 32 ? 0xffffffffu : ((1u << n) - 1)) << sh;
        v[word] = (v[word] & ~m) | (((uint32_t)x << sh) & m);
        x = n == 64 ? 0 : x >> n;
        off += n;
        w -= n;
    }
}

/* w (at most 64) bits of v at bit offset off */
static inline uint64_t mmaref_get_bits(const svBitVecVal *v, int off, int w)
{
    uint64_t x = 0;
    int got = 0;
    while (got < w) {
        int word = off >> 5, sh = off & 31, n = 32 - sh < w - got ? 32 - sh : w - got;
        uint64_t part = ((uint64_t)v[word] >> sh) & (n == 32 ? 0xffffffffu : ((1u << n) - 1));
        x |= part << got;
        off += n;
        got += n;
    }
    return x;
}

/* restrict: the byte loops below vectorize only when the compiler knows the
 * uint8_t view of v does not alias the uint64_t elements */
static inline void mmaref_unpack(const svBitVecVal *restrict v, int k, int w, uint64_t *restrict out)
{
    if (w == 8 && mmaref_little_endian()) {
        const uint8_t *restrict p = (const uint8_t *)v;
        for (int i = 0; i < k; i++) out[i] = p[i];
    } else if (w == 16 && mmaref_little_endian()) {
        const uint8_t *p = (const uint8_t *)v;
        for (int i = 0; i < k; i++) out[i] = (uint64_t)p[2 * i] | (uint64_t)p[2 * i + 1] << 8;
    } else {
        for (int i = 0; i < k; i++) out[i] = mmaref_get_bits(v, i * w, w);
    }
}

/* k elements of w bits into the first (k*w+31)/32 words of v, the bits
 * above k*w zero */
static inline void mmaref_pack(svBitVecVal *restrict v, int k, int w, const uint64_t *restrict in)
{
    int words = (k * w + 31) / 32;
    if (w == 8 && mmaref_little_endian()) {
        uint8_t *restrict p = (uint8_t *)v;
        for (int i = 0; i < k; i++) p[i] = (uint8_t)in[i];
        for (int i = k; i < words * 4; i++) p[i] = 0;
    } else if (w == 16 && mmaref_little_endian()) {
        uint8_t *p = (uint8_t *)v;
        for (int i = 0; i < k; i++) p[2 * i] = (uint8_t)in[i], p[2 * i + 1] = (uint8_t)(in[i] >> 8);
        for (int i = 2 * k; i < words * 4; i++) p[i] = 0;
    } else {
        memset(v, 0, (size_t)words * sizeof *v);
        for (int i = 0; i < k; i++) mmaref_put_bits(v, i * w, w, in[i]);
    }
}

#endif
