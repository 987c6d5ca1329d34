/* AMD CDNA3 FDRDA / CoFDRDA (tf32, fp16, bf16) and GFDRDA / CoGFDRDA (fp8),
 * paper sections F-I.  Products are fused among themselves (F bits, cut
 * toward zero; for fp8 the even and odd products apart, then joined with
 * round-down), and only then is c added: both aligned to the larger
 * exponent with round-down, the dot part at F2+1 bits and c at F bits.  The
 * sum is rounded down to F2 bits and then to nearest-even FP32.  The
 * round-down is what makes 2048*2048 - 2048*2048 - 1e-6 come out as -0.25. */
#include "internal.h"

/* the even and the odd products' sums joined, each cut down to the larger
 * exponent's F bits (GFDRDA) */
MMA_HD mma_fixed mma_amd_evenodd_join(const mma_unit *u, mma_fixed e, mma_fixed o)
{
    if (e.empty) return o;
    if (o.empty) return e;
    mma_fixed r = {0, e.emax > o.emax ? e.emax : o.emax, u->f, 0};
    r.s = mma_fixed_realign(e.s, e.emax - u->f, r.emax - u->f, MMA_RD) +
          mma_fixed_realign(o.s, o.emax - u->f, r.emax - u->f, MMA_RD);
    return r;
}

static MMA_HD mma_fixed dot_part(const mma_unit *u, const mma_term *t, int n)
{
    if (u->tree != MMA_TREE_EVENODD)
        return mma_fused_sum(t, n, u->f, MMA_RZ, 0, 0);
    mma_term ev[MMA_MAX_K], od[MMA_MAX_K];
    int ne = 0, no = 0;
    for (int i = 0; i < n; i++) { if (i & 1) od[no++] = t[i]; else ev[ne++] = t[i]; }
    return mma_amd_evenodd_join(u, mma_fused_sum(ev, ne, u->f, MMA_RZ, 0, 0), mma_fused_sum(od, no, u->f, MMA_RZ, 0, 0));
}

/* c joins the products' sum dot: both aligned to the larger exponent with
 * round-down, the sum rounded down to F2 bits, then by r (zneg: the sign
 * of an exactly zero sum).  The CUDA backend's streaming kernel (cuda/)
 * ends its steps here too. */
MMA_HD uint64_t mma_amd_join(const mma_unit *u, const mma_rspec *r, mma_fixed dot, mma_term ct, int zneg)
{
    int32_t emax = ct.e;
    if (!dot.empty && dot.emax > emax) emax = dot.emax;
    int32_t lsb = emax - u->f2 - 1;
    int64_t s = dot.empty ? 0
              : mma_fixed_realign(dot.s, dot.emax - u->f, lsb, MMA_RD);
    int drop_c = u->cadd == MMA_CADD_RDZ && ct.e < emax - u->f - 1;
    if (ct.cls != MMA_ZERO && !drop_c) {
        int64_t cs = ct.neg ? -(int64_t)ct.sig : (int64_t)ct.sig;
        s += mma_fixed_realign(cs, ct.e - ct.fb, emax - u->f, MMA_RD)
             * ((int64_t)1 << (u->f2 + 1 - u->f));
    }
    uint64_t mag = s < 0 ? (uint64_t)-s : (uint64_t)s;
    int32_t mlsb = lsb;
    mma_round_keep(u->d, u->f2, MMA_RD, s < 0, &mag, &mlsb);
    return mma_round_to(r, s < 0, mag, mlsb, zneg, NULL);
}

static MMA_HD uint64_t step(const mma_unit *u, mma_fmt cf, uint64_t c,
                            const uint64_t *a, const uint64_t *b)
{
    mma_term t[MMA_MAX_K + 1];
    int n = u->lmax;
    for (int k = 0; k < n; k++) {
        t[k] = mma_term_mul(mma_term_of(u->a, a[k]), mma_term_of(u->b, b[k]));
        if (u->flags & MMA_F_PROD_OVF) mma_term_overflow(&t[k]);
    }
    mma_term ct = mma_term_of(cf, c);      /* a zero c keeps emin (-126) */
    t[n] = ct;
    uint64_t out;
    mma_rspec r = mma_unit_rspec(u);
    mma_nansrc src = {cf, u->a, u->b, c, a, b, NULL, n};
    if (mma_step_special(u, &r, t, n + 1, &src, &out)) return out;

    return mma_amd_join(u, &r, dot_part(u, t, n), ct, r.zero == MMA_ZS_IEEE && mma_terms_zneg(t, n + 1, u->rho));
}

MMA_HD uint64_t mma_alg_amd(const mma_unit *u, uint64_t c, const uint64_t *a,
                            const uint64_t *b)
{
    mma_fmt cf = u->c;
    for (int k0 = 0; k0 < u->k; k0 += u->lmax) {
        c = step(u, cf, c, a + k0, b + k0);
        cf = u->d;
    }
    return c;
}
