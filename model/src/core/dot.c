/* One dot product and one tile: dispatch to the unit's algorithm. */
#include "internal.h"

#include <stdio.h>

int mma_unit_impl(const mma_unit *u)
{
    return mma_fast_ok(u) ? 2 : 1;   /* the families (fast*.c) own the conditions */
}

uint64_t mma_ref_dot(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                     const uint64_t *sa, const uint64_t *sb)
{
    return mma_dot_tree(u->tree, u, c, a, b, sa, sb, NULL);
}

/* the reference algorithms (and units decided on each call, impl 0) */
static __attribute__((noinline)) uint64_t dot_other(const mma_unit *u, uint64_t c, const uint64_t *a,
                                                    const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    if (u->impl == 0 && mma_unit_impl(u) == 2) return mma_fast_dot(u, c, a, b, sa, sb);
    return mma_ref_dot(u, c, a, b, sa, sb);
}

/* (the fast path is a tail call, with nothing saved first) */
uint64_t mma_dot(const mma_unit *u, uint64_t c, const uint64_t *a,
                 const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    if (__builtin_expect(u->impl == 2, 1)) return mma_fast_dot(u, c, a, b, sa, sb);
    return dot_other(u, c, a, b, sa, sb);
}

int mma_unit_has_flags(const mma_unit *u)
{
    return u->tree == MMA_TREE_IEEE;
}

uint64_t mma_dot_flags(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                       const uint64_t *sa, const uint64_t *sb, unsigned *flags)
{
    unsigned fl = 0;
    uint64_t d = u->tree == MMA_TREE_IEEE ? mma_dot_tree(MMA_TREE_IEEE, u, c, a, b, sa, sb, &fl)
                                          : mma_dot(u, c, a, b, sa, sb);
    if (flags) *flags = fl;
    return d;
}

int mma_flags_describe(unsigned flags, char *buf, size_t len)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        {MMA_FLAG_INVALID, "invalid"}, {MMA_FLAG_INFINITE, "infinite"}, {MMA_FLAG_OVERFLOW, "overflow"},
        {MMA_FLAG_UNDERFLOW, "underflow"}, {MMA_FLAG_INEXACT, "inexact"}};
    size_t n = 0;
    if (len) buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].bit) {
            int w = snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? " " : "", names[i].name);
            if (w > 0) n += (size_t)w;
        }
    if (!n) { int w = snprintf(buf, len, "none"); if (w > 0) n = (size_t)w; }
    return (int)n;
}

void mma_tile(const mma_unit *u, int m, int n, const uint64_t *A,
              const uint64_t *B, const uint64_t *C, uint64_t *D)
{
    mma_tile_scaled(u, m, n, A, B, C, NULL, NULL, D);
}

void mma_tile_scaled(const mma_unit *u, int m, int n, const uint64_t *A, const uint64_t *B,
                     const uint64_t *C, const uint64_t *SA, const uint64_t *SB, uint64_t *D)
{
    int ns = mma_unit_nscales(u);
    /* scales not given: each 1.0 (the exponent bias, no fraction) */
    uint64_t one[MMA_MAX_K];
    if (ns) {
        const mma_format_info *fs = mma_format(u->scale);
        for (int s = 0; s < ns; s++) one[s] = (uint64_t)fs->bias << fs->mbits;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            D[(size_t)i * (size_t)n + (size_t)j] =
                mma_dot(u, C[(size_t)i * (size_t)n + (size_t)j], A + (size_t)i * (size_t)u->k,
                        B + (size_t)j * (size_t)u->k,
                        !ns ? NULL : SA ? SA + (size_t)i * (size_t)ns : one,
                        !ns ? NULL : SB ? SB + (size_t)j * (size_t)ns : one);
}

int mma_result_equal(const mma_unit *u, uint64_t x, uint64_t y)
{
    if (x == y) return 1;
    return (u->flags & MMA_F_NAN_ANY) && mma_is_nan(u->d, x) && mma_is_nan(u->d, y);
}

int mma_unit_nscales(const mma_unit *u)
{
    return u->scale == MMA_FMT_NONE ? 0 : u->k / u->block;
}

const char *mma_unit_algorithm(const mma_unit *u)
{
    int chained = u->k > u->lmax;
    switch (u->tree) {
    case MMA_TREE_FUSED:
        if (u->cadd == MMA_CADD_AFTER) return chained ? "CoFDA+FADD" : "FDA+FADD";
        if (u->cadd != MMA_CADD_FUSED) return chained ? "CoFDRDA" : "FDRDA";
        if (u->scale != MMA_FMT_NONE) return chained ? "CoST-FDPA" : "ST-FDPA";
        return chained ? "CoFDA" : "FDA";
    case MMA_TREE_EVENODD:  return chained ? "CoGFDRDA" : "GFDRDA";
    case MMA_TREE_GROUPS:   return "GDFS";
    case MMA_TREE_PAIRWISE: return "GPS";
    case MMA_TREE_FMA:      return "SFMA";
    case MMA_TREE_EXACT:    return chained ? "CoE-FDPA" : "E-FDPA";
    case MMA_TREE_IEEE:     return chained ? "IEEE CoE-FDPA" : "IEEE E-FDPA";
    case MMA_TREE_CHAINS:   return chained ? "CoCHAINS" : "CHAINS";
    }
    return "?";
}
