/* The fused family's AVX2 kernels (AVX2, BMI2 and LZCNT checked at run
 * time; fast_fused.h says which file holds what):
 *   - generic: eight products per vector, operands decoded
 *     arithmetically, each term aligned by one variable shift; any l, 32-
 *     or 64-bit lanes, RZ or RD, tf32, MX (ue8m0) block scales of 8 or
 *     more products (v_step);
 *   - specialized: the same for l = 8, 16 or 32, RZ, and the common
 *     outputs known at compile time (s_step), with its batch loops;
 *   - steps of four (Volta's f16, tf32), two to a vector (q_step);
 *   - Hopper's fp8 mma.sync: two interleaved steps, then c added (il2);
 *   - one step of 32 8-bit products in 16-bit lanes where AVX-512 is not
 *     there (h_dot1; fast_fused_avx512.c has the AVX-512 one). */
#include "fast_fused.h"

#ifdef FAST_HAVE_AVX2

/* ---- the generic kernel ---------------------------------------------------- */

/* The exponent offset of each group of eight from its block scales (ue8m0:
 * sig 1), and whether a scale is NaN; groups of one block share it. */
V_FN int v_scales(const fast_plan *P, const uint64_t *sa, const uint64_t *sb, int s, const int G, __m256i *so)
{
    /* a block holds whole steps, or a step whole blocks (fused_ok): one
     * pair of scales for gpb groups of eight */
    int nan = 0, one = P->block >= P->L;
    int blk = one ? s * P->L / P->block : s * (P->L / P->block), gpb = one ? G : P->block / 8;
    __m256i v = _mm256_setzero_si256();
    for (int g = 0, left = 0; g < G; g++, left--) {
        if (!left) {
            uint32_t x = (uint32_t)sa[blk] & 0xff, y = (uint32_t)sb[blk] & 0xff;
            nan |= x == 0xff || y == 0xff;
            v = _mm256_set1_epi32((int32_t)(x + y) - 254);
            blk++;
            left = gpb;
        }
        so[g] = v;
    }
    return nan;
}

/* One step: G groups of eight products, the last one holding `tail`
 * products when tail > 0.  G and tail are constants in the common
 * kernels, so that the loops unroll into straight code; tf: an operand
 * is tf32 (shifted first); sc: MX block scales. */
V_FN uint64_t v_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, const uint64_t *a,
                     const uint64_t *b, const uint64_t *psa, const uint64_t *psb, const int G, const int tail,
                     const int tf, const int sc)
{
    __m256i SP[8], EP[8], SG[8], SO[8];
    const __m256i zero = _mm256_setzero_si256();
    __m256i spec = zero, emv = V_LD(P->low);
    int snan = sc ? v_scales(P, psa, psb, s, G, SO) : 0;
#pragma GCC unroll 8
    for (int g = 0; g < G; g++) {
        __m256i xa, xb, sa, sb, ea, eb, valid = zero;
        const int part = tail && g == G - 1;
        v_operands(a, b, g, part ? tail : 0, tf, &P->ka, &P->kb, P->one, &xa, &xb, &sa, &sb, &ea, &eb, &valid, &spec);
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(ea, eb);
        if (sc) ep = _mm256_add_epi32(ep, SO[g]);
        __m256i z = _mm256_cmpeq_epi32(sp, zero);
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), z);
        if (part) ep = _mm256_blendv_epi8(V_LD(P->low), ep, valid);
        __m256i sg = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, V_CNT(P->ka.ssh)),
                                                        _mm256_sll_epi32(xb, V_CNT(P->kb.ssh))), 31);
        SG[g] = _mm256_andnot_si256(z, sg);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = c_decode(cf, acc);
    int pspec = (!_mm256_testz_si256(spec, spec)) | snan;
    if (__builtin_expect(pspec || xc.spec, 0)) return fused_special_step(P, u, first, s, acc, a, b, psa, psb);
    int32_t emax = emax_with_c(P, v_hmax(emv) - P->bab, &xc);
    int64_t sum = 0;
    if (emax >= FAST_EMPTY / 2) {
        const __m256i ebv = _mm256_set1_epi32(emax + P->bab + P->base);
        const __m128i pre = V_CNT(P->prec);
        __m256i sv = zero;
        if (P->narrow) {                        /* 32-bit lanes suffice */
            if (!P->rd) {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
                    sv = _mm256_sub_epi32(sv, SG[g]);
                }
            } else {
#pragma GCC unroll 8
                for (int g = 0; g < G; g++) {
                    __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
                    sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(_mm256_add_epi32(m, SG[g]), sh), SG[g]));
                }
            }
            sum = v_hsum32(sv);
        } else {                                /* 64-bit lanes */
            for (int g = 0; g < G; g++) {
                __m256i sh32 = _mm256_sub_epi32(ebv, EP[g]);
                for (int hh = 0; hh < 2; hh++) {
                    __m128i sp4 = hh ? _mm256_extracti128_si256(SP[g], 1) : _mm256_castsi256_si128(SP[g]);
                    __m128i sh4 = hh ? _mm256_extracti128_si256(sh32, 1) : _mm256_castsi256_si128(sh32);
                    __m128i sg4 = hh ? _mm256_extracti128_si256(SG[g], 1) : _mm256_castsi256_si128(SG[g]);
                    __m256i m = _mm256_sll_epi64(_mm256_cvtepu32_epi64(sp4), pre);
                    __m256i sh = _mm256_cvtepu32_epi64(sh4), sgn = _mm256_cvtepi32_epi64(sg4);
                    if (!P->rd) {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(m, sh), sgn));
                        sv = _mm256_sub_epi64(sv, sgn);
                    } else {
                        sv = _mm256_add_epi64(sv, _mm256_xor_si256(_mm256_srlv_epi64(_mm256_add_epi64(m, sgn), sh), sgn));
                    }
                }
            }
            sum = v_hsum64(sv);
        }
    }
    return finish(P, emax, sum, &xc, cf, 0);
}

#define V_KERNEL(NAME, G, TAIL, TF, SC)                                                            \
    V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a,        \
                                  const uint64_t *b, const uint64_t *sa, const uint64_t *sb)       \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        uint64_t acc = v_step(P, u, 1, 0, c, a, b, sa, sb, G, TAIL, TF, SC);                       \
        for (int s = 1; s < P->steps; s++) {                                                       \
            a += P->L;                                                                             \
            b += P->L;                                                                             \
            acc = v_step(P, u, 0, s, acc, a, b, sa, sb, G, TAIL, TF, SC);                          \
        }                                                                                          \
        return acc;                                                                                \
    }
V_KERNEL(fast_avx2_g1, 1, 0, 0, 0)
V_KERNEL(fast_avx2_g2, 2, 0, 0, 0)
V_KERNEL(fast_avx2_g4, 4, 0, 0, 0)
V_KERNEL(fast_avx2_gn, P->groups, P->tail, 0, 0)
V_KERNEL(fast_avx2_tf_g1, 1, 0, 1, 0)
V_KERNEL(fast_avx2_tf_gn, P->groups, P->tail, 1, 0)
V_KERNEL(fast_avx2_mx_gn, P->groups, 0, 0, 1)
#undef V_KERNEL

/* ---- the specialized kernel ------------------------------------------------ */

/* The specialized integer kernel: a and b of one width, 32-bit lanes, RZ
 * alignment, and the output (and c) one of the compile-time kinds.  Inf
 * and NaN operands are found through running maxima: of the exponent
 * fields (all ones: SPK_EXP, fp16/bf16/e5m2 only), of x & smask (equal to
 * sval: SPK_AND, e4m3 and the mixes), or not at all (SPK_NONE, fp6/fp4).
 * sc: 1 MX block scales; 2 interleaved runs of two in two steps (Hopper's
 * fp8 mma.sync: step 0 takes k = 0, 1 mod 4, step 1 k = 2, 3 mod 4, which
 * are the low and high halves of v_load8's lanes: two loads give a step's
 * group of eight by one lane permutation). */
/* group g of a step's operands (sc 2: the interleaved runs of two; tf:
 * tf32, shifted to its 19 bits) */
V_FN void s_load(const fast_plan *P, const void *pa, const void *pb, int g, int s, const int sc, const int tf,
                 const int nw, __m256i *xa, __m256i *xb)
{
    const uint64_t *a = (const uint64_t *)pa, *b = (const uint64_t *)pb;
    if (nw) {                            /* natural widths (batches): lanes in order */
        *xa = v_load8_n((const char *)pa + 8 * g * nw, nw);
        *xb = v_load8_n((const char *)pb + 8 * g * nw, nw);
        if (tf) {
            *xa = _mm256_srl_epi32(*xa, V_CNT(P->ka.shr));
            *xb = _mm256_srl_epi32(*xb, V_CNT(P->kb.shr));
        }
        return;
    }
    if (tf) {
        *xa = _mm256_srl_epi32(v_load8(a + 8 * g), V_CNT(P->ka.shr));
        *xb = _mm256_srl_epi32(v_load8(b + 8 * g), V_CNT(P->kb.shr));
        return;
    }
    if (sc == 2) {
        __m256i a0 = v_load8(a + 16 * g), a1 = v_load8(a + 16 * g + 8);
        __m256i b0 = v_load8(b + 16 * g), b1 = v_load8(b + 16 * g + 8);
        *xa = s ? _mm256_permute2x128_si256(a0, a1, 0x31) : _mm256_permute2x128_si256(a0, a1, 0x20);
        *xb = s ? _mm256_permute2x128_si256(b0, b1, 0x31) : _mm256_permute2x128_si256(b0, b1, 0x20);
    } else {
        *xa = v_load8(a + 8 * g);
        *xb = v_load8(b + 8 * g);
    }
}

/* fused_special_step's decision for s_step's operands, eight products a
 * vector: a lane is Inf or NaN where x & smask is sval, NaN where its
 * fraction is also nonzero (e4m3's S.1111.111 included), zero where its
 * magnitude bits are; then the rules of fused_special_step.  MX scales (sc 1)
 * have no zero and no Inf: a NaN one (snan) makes its block's products
 * NaN, and the others change no class. */
V_TARGET __attribute__((noinline)) uint64_t fused_s_special(const fast_plan *P, const mma_unit *u, int first, int s,
                                                            uint64_t acc, const void *a, const void *b,
                                                            const uint64_t *psa, const uint64_t *psb, int snan,
                                                            const int G, const int sc, const int tf, const int nw)
{
    if (snan) return P->o.nan;
    /* A NaN c makes the step NaN whatever its products are: with random
     * bits, a chain's later steps mostly meet the NaN of the one before */
    uint64_t x = c_class(first ? &P->c1 : &P->cd, acc);
    if (x & P_NAN) return P->o.nan;
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    const __m256i zero = _mm256_setzero_si256();
    const __m128i ssh = V_CNT(ka->ssh);
    __m256i nan = zero, infp = zero, infn = zero;
    for (int g = 0; g < G; g++) {
        __m256i xa, xb;
        s_load(P, a, b, g, s, sc, tf, nw, &xa, &xb);
        __m256i spa = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->sm)), V_LD(ka->sv));
        __m256i spb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->sm)), V_LD(kb->sv));
        __m256i fza = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->mm)), zero);
        __m256i fzb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->mm)), zero);
        __m256i za = _mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(P->mag_a)), zero);
        __m256i zb = _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(P->mag_b)), zero);
        __m256i ia = _mm256_and_si256(spa, fza), ib = _mm256_and_si256(spb, fzb);
        nan = _mm256_or_si256(nan, _mm256_or_si256(_mm256_andnot_si256(fza, spa), _mm256_andnot_si256(fzb, spb)));
        nan = _mm256_or_si256(nan, _mm256_or_si256(_mm256_and_si256(ia, zb), _mm256_and_si256(ib, za)));
        __m256i inf = _mm256_or_si256(ia, ib);
        __m256i sg = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, ssh), _mm256_sll_epi32(xb, V_CNT(kb->ssh))), 31);
        infp = _mm256_or_si256(infp, _mm256_andnot_si256(sg, inf));
        infn = _mm256_or_si256(infn, _mm256_and_si256(sg, inf));
    }
    if (!_mm256_testz_si256(nan, nan)) return P->o.nan;
    unsigned inf = (_mm256_testz_si256(infp, infp) ? 0 : 1) | (_mm256_testz_si256(infn, infn) ? 0 : 2);
    if (x & P_SPEC) inf |= (x & P_NEG) ? 2 : 1;
    if (inf == 3) return P->o.nan;
    if (inf) return P->o.inf | (inf == 2 ? P->o.sign : 0);
    /* (no Inf or NaN after all: fused_special_step's reference, on the step's
     * products in step order as uint64_t; a, b: the whole dot's for sc 2,
     * a batch's narrow operands for nw) */
    uint64_t pa[64], pb[64];
    if (nw) return fused_special_step(P, u, first, s, acc, fast_widen(a, nw, 8 * G, pa), fast_widen(b, nw, 8 * G, pb), NULL, NULL);
    if (sc != 2) return fused_special_step(P, u, first, s, acc, a, b, psa, psb);
    for (int j = 0; j < P->L; j++) {
        pa[j] = ((const uint64_t *)a)[P->perm[s * P->L + j]];
        pb[j] = ((const uint64_t *)b)[P->perm[s * P->L + j]];
    }
    return fused_special_step(P, u, first, s, acc, pa, pb, NULL, NULL);
}

V_FN uint64_t s_step(const fast_plan *P, const mma_unit *u, const int first, int s, uint64_t acc, fast_c *xcp,
                     const void *a, const void *b, const uint64_t *psa, const uint64_t *psb, const int G,
                     const int out, const int ck, const int spk, const int scw, const int via, const int nw)
{
    /* scw: sc, + 8 for a and b of 16 bits or fewer (any two widths),
     * decoded as 16-bit halves of one lane (a low, b high), + 16 for tf32
     * (else a and b of one width) */
    const int sc = scw & 3, pk = (scw >> 3) & 1, tf = scw >> 4;
    __m256i SP[4], EP[4], SG[4], SO[4];
    const __m256i zero = _mm256_setzero_si256();
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    const __m128i mba = V_CNT(ka->mb), mbb = V_CNT(kb->mb), ssh = V_CNT(ka->ssh);
    __m256i smaxa = zero, smaxb = zero, emv = V_LD(P->low);
    int snan = sc == 1 ? v_scales(P, psa, psb, s, G, SO) : 0;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i xa, xb;
        s_load(P, a, b, g, s, sc, tf, nw, &xa, &xb);
        if (pk) {                        /* (the fields' shifts by a multiply: one per half) */
            __m256i x = _mm256_blend_epi16(xa, _mm256_slli_epi32(xb, 16), 0xaa);
            __m256i r = _mm256_and_si256(_mm256_mulhi_epu16(x, V_LD(P->pk_shr)), V_LD(P->pk_em));
            __m256i sig = _mm256_or_si256(_mm256_and_si256(x, V_LD(P->pk_mm)),
                                          _mm256_andnot_si256(_mm256_cmpeq_epi16(r, zero), V_LD(P->pk_hid)));
            __m256i lz = zero;
            if (via) {                   /* (high bytes: index bit 7, a 0) */
                __m256i idx = _mm256_or_si256(_mm256_and_si256(sig, V_LD(P->pk_lzm)), _mm256_set1_epi16((short)0x8000));
                lz = _mm256_shuffle_epi8(V_LD(P->pk_lz), idx);
                sig = _mm256_mullo_epi16(sig, _mm256_shuffle_epi8(V_LD(P->pk_pw), idx));
            }
            if (spk == SPK_EXP) smaxa = _mm256_max_epu16(smaxa, r);
            if (spk == SPK_AND) smaxa = _mm256_max_epu16(smaxa, _mm256_and_si256(x, V_LD(P->pk_sm)));
            __m256i sp = _mm256_madd_epi16(sig, _mm256_srli_epi32(sig, 16));   /* (times the high half: 0) */
            __m256i ep = _mm256_madd_epi16(_mm256_max_epi16(r, V_LD(P->pk_one)), V_LD(P->pk_one));
            if (via) ep = _mm256_sub_epi32(ep, _mm256_madd_epi16(lz, V_LD(P->pk_one)));
            if (sc == 1) ep = _mm256_add_epi32(ep, SO[g]);
            ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
            SG[g] = _mm256_srai_epi32(_mm256_xor_si256(_mm256_sll_epi32(xa, ssh), _mm256_sll_epi32(xb, V_CNT(kb->ssh))), 31);
            SP[g] = sp;
            EP[g] = ep;
            emv = _mm256_max_epi32(emv, ep);
            continue;
        }
        __m256i ra = _mm256_and_si256(_mm256_srl_epi32(xa, mba), V_LD(ka->em));
        __m256i rb = _mm256_and_si256(_mm256_srl_epi32(xb, mbb), V_LD(kb->em));
        __m256i sa = _mm256_or_si256(_mm256_and_si256(xa, V_LD(ka->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(ra, zero), V_LD(ka->hid)));
        __m256i sb = _mm256_or_si256(_mm256_and_si256(xb, V_LD(kb->mm)),
                                     _mm256_andnot_si256(_mm256_cmpeq_epi32(rb, zero), V_LD(kb->hid)));
        if (spk == SPK_EXP) {
            smaxa = _mm256_max_epi32(smaxa, ra);
            smaxb = _mm256_max_epi32(smaxb, rb);
        }
        if (spk == SPK_AND) {
            smaxa = _mm256_max_epi32(smaxa, _mm256_and_si256(xa, V_LD(ka->sm)));
            smaxb = _mm256_max_epi32(smaxb, _mm256_and_si256(xb, V_LD(kb->sm)));
        }
        __m256i lz = zero;
        if (via) {                       /* a subnormal converted to fp16: the same value, normalized */
            __m256i la = _mm256_shuffle_epi8(V_LD(P->lz_a), sa), lb = _mm256_shuffle_epi8(V_LD(P->lz_b), sb);
            sa = _mm256_sllv_epi32(sa, la);
            sb = _mm256_sllv_epi32(sb, lb);
            lz = _mm256_add_epi32(la, lb);
        }
        __m256i sp = _mm256_mullo_epi32(sa, sb);
        __m256i ep = _mm256_add_epi32(_mm256_max_epi32(ra, V_LD(P->one)), _mm256_max_epi32(rb, V_LD(P->one)));
        if (via) ep = _mm256_sub_epi32(ep, lz);
        if (sc == 1) ep = _mm256_add_epi32(ep, SO[g]);
        ep = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
        /* the product's sign (a zero product's does not matter with RZ) */
        SG[g] = _mm256_srai_epi32(_mm256_sll_epi32(_mm256_xor_si256(xa, xb), ssh), 31);
        SP[g] = sp;
        EP[g] = ep;
        emv = _mm256_max_epi32(emv, ep);
    }
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    /* (the last step's result, decoded; xcp NULL: a single step) */
    fast_c xc = !xcp || xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    int pspec = snan;
    if (pk && spk != SPK_NONE) {
        __m256i q = _mm256_cmpeq_epi16(smaxa, spk == SPK_EXP ? V_LD(P->pk_em) : V_LD(P->pk_sv));
        pspec |= !_mm256_testz_si256(q, q);
    } else if (spk != SPK_NONE) {
        __m256i qa = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxa, V_LD(ka->em)) : _mm256_cmpeq_epi32(smaxa, V_LD(ka->sv));
        __m256i qb = spk == SPK_EXP ? _mm256_cmpeq_epi32(smaxb, V_LD(kb->em)) : _mm256_cmpeq_epi32(smaxb, V_LD(kb->sv));
        pspec |= !_mm256_testz_si256(_mm256_or_si256(qa, qb), _mm256_or_si256(qa, qb));
    }
    if (__builtin_expect(pspec, 0)) {
        if (xcp) xcp->spec = 1;
        return fused_s_special(P, u, first, s, acc, a, b, psa, psb, snan, G, sc, tf, nw);   /* (both shifts: any widths) */
    }
    if (__builtin_expect(xc.spec, 0)) {
        if (xcp) xcp->spec = 1;
        return c_decides(P, first, acc);
    }
    int32_t er = v_hmax(emv);
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;    /* c's exponent (a zero c's: ezero) */
    int32_t emr = ecr > er ? ecr : er;                  /* emax, relative */
    /* (nothing sets emax: every term is 0, so is the sum, and the rounding
     * of 0 gives +0 as the reference does) */
    const __m256i ebv = _mm256_set1_epi32(emr + P->base);
    const __m128i pre = V_CNT(P->prec);
    __m256i sv = zero;
#pragma GCC unroll 4
    for (int g = 0; g < G; g++) {
        __m256i m = _mm256_sll_epi32(SP[g], pre), sh = _mm256_sub_epi32(ebv, EP[g]);
        sv = _mm256_add_epi32(sv, _mm256_xor_si256(_mm256_srlv_epi32(m, sh), SG[g]));
        sv = _mm256_sub_epi32(sv, SG[g]);
    }
    /* (the branch-free overflow only in a batch's single steps: in a
     * chain it cost Ampere's normal inputs 8%, per call tf32's 9% and
     * ST-FDPA's 4%) */
    return finish_k(P, emr - P->bab, v_hsum32(sv), &xc, cf, out, xcp, !xcp && nw);
}

/* A dot product through s_step; nw: 0 the operands as uint64_t (mma_dot),
 * else the bytes of each (a batch at natural widths) */
V_FN uint64_t s_dot(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                    const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                    const int nw)
{
    const mma_unit *u = &P->h.u;
    const size_t st = 8 * G * (nw ? nw : 8);     /* a step's operand bytes */
    fast_c xc = {0, 0, 0, 1};                    /* (spec: decode c) */
    if (!nw && P->steps == 1)                    /* (nothing to hand on) */
        return s_step(P, u, 1, 0, c, NULL, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    uint64_t acc = s_step(P, u, 1, 0, c, &xc, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    const char *ca = (const char *)a, *cb = (const char *)b;
    if (!nw && P->steps == 2)                    /* (the common chain, straight; not in the batch
                                                    loops, whose two chains side by side cost
                                                    enough compile time already) */
        return s_step(P, u, 0, 1, acc, &xc, ca + st, cb + st, psa, psb, G, out, ck, spk, sc, 0, nw);
    for (int s = 1; s < P->steps; s++) {
        /* (a NaN stays one: each later step meets it as its c) */
        if (__builtin_expect(xc.spec, 0) && acc == P->o.nan) break;
        ca += st;
        cb += st;
        acc = s_step(P, u, 0, s, acc, &xc, ca, cb, psa, psb, G, out, ck, spk, sc, 0, nw);
    }
    return acc;
}

/* A batch's dot product of a single step: nothing handed on, so s_step
 * neither loops nor decodes its result for a next step */
V_FN uint64_t s_dot1(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                     const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                     const int nw)
{
    return s_step(P, &P->h.u, 1, 0, c, NULL, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
}

/* A batch's dot product of two steps (Ampere's k = 16 in steps of 8),
 * straight: the first step's result handed on decoded, a NaN kept */
V_FN uint64_t s_dot2(const fast_plan *P, uint64_t c, const void *a, const void *b, const uint64_t *psa,
                     const uint64_t *psb, const int G, const int out, const int ck, const int spk, const int sc,
                     const int nw)
{
    const mma_unit *u = &P->h.u;
    const size_t st = 8 * G * nw;                /* a step's operand bytes */
    fast_c xc = {0, 0, 0, 1};
    uint64_t acc = s_step(P, u, 1, 0, c, &xc, a, b, psa, psb, G, out, ck, spk, sc, 0, nw);
    if (__builtin_expect(xc.spec, 0) && acc == P->o.nan) return acc;
    return s_step(P, u, 0, 1, acc, &xc, (const char *)a + st, (const char *)b + st, psa, psb, G, out, ck, spk, sc, 0,
                  nw);
}



#define S_KERNEL(NAME, G, OUT, CK, SPK, SC)                                                        \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        return s_dot(PLAN(h), c, a, b, sa, sb, G, OUT, CK, SPK, SC, 0);                            \
    }
#define S_KERNELS(OUT, CK, SPK, SC) S_KERNEL(fast_s_1_##OUT##_##SPK##_##SC, 1, OUT, CK, SPK, SC) \
    S_KERNEL(fast_s_2_##OUT##_##SPK##_##SC, 2, OUT, CK, SPK, SC) S_KERNEL(fast_s_4_##OUT##_##SPK##_##SC, 4, OUT, CK, SPK, SC)
/* the batch ranges at natural widths: NW bytes an operand (1 or 2; 4 for tf32) */
#define S_BATCH(NAME, G, OUT, CK, SPK, SC, NW) B_RANGE(NAME, V_TARGET, NW, s_dot, NULL, NULL, G, OUT, CK, SPK, SC, NW)
#define S_BATCHES_W(OUT, CK, SPK, SC, NW) S_BATCH(fast_sb##NW##_1_##OUT##_##SPK##_##SC, 1, OUT, CK, SPK, SC, NW) \
    S_BATCH(fast_sb##NW##_2_##OUT##_##SPK##_##SC, 2, OUT, CK, SPK, SC, NW)                         \
    S_BATCH(fast_sb##NW##_4_##OUT##_##SPK##_##SC, 4, OUT, CK, SPK, SC, NW)
#define S_KERNELS_N(OUT, CK, SPK, SC) S_KERNELS(OUT, CK, SPK, SC) S_BATCHES_W(OUT, CK, SPK, SC, 1) \
    S_BATCHES_W(OUT, CK, SPK, SC, 2)
S_KERNELS_N(1, CK_F32, 0, 8) S_KERNELS_N(1, CK_F32, 1, 8) S_KERNELS_N(1, CK_F32, 2, 8)
S_KERNELS_N(2, CK_F32, 0, 8) S_KERNELS_N(2, CK_F32, 1, 8) S_KERNELS_N(2, CK_F32, 2, 8)
S_KERNELS_N(3, CK_F16, 0, 8) S_KERNELS_N(3, CK_F16, 1, 8) S_KERNELS_N(3, CK_F16, 2, 8)
S_KERNELS(1, CK_F32, 0, 9) S_KERNELS(1, CK_F32, 1, 9) S_KERNELS(1, CK_F32, 2, 9)
S_KERNELS(1, CK_F32, 1, 16) S_BATCHES_W(1, CK_F32, 1, 16, 4)
#define S_BATCH2(OUT, CK, SPK) B_RANGE(fast_sb2s2_##OUT##_##SPK, V_TARGET, 2, s_dot2, NULL, NULL, 1, OUT, CK, SPK, 8, 2)
OUT_SPK_FORMS(S_BATCH2)
#undef S_BATCH2
#define S_BATCH1(NAME, G) B_RANGE(NAME, V_TARGET, 4, s_dot1, NULL, NULL, G, 1, CK_F32, 1, 16, 4)
S_BATCH1(fast_sb4s1_1, 1) S_BATCH1(fast_sb4s1_2, 2) S_BATCH1(fast_sb4s1_4, 4)
#undef S_BATCH1
#undef S_KERNELS_N
#undef S_BATCHES_W
#undef S_BATCH
#undef S_KERNELS
#undef S_KERNEL
#define S_ROW(OUT, SPK, SC) {fast_s_1_##OUT##_##SPK##_##SC, fast_s_2_##OUT##_##SPK##_##SC, fast_s_4_##OUT##_##SPK##_##SC}
#define S_ROWB(NW, OUT, SPK, SC) {fast_sb##NW##_1_##OUT##_##SPK##_##SC, fast_sb##NW##_2_##OUT##_##SPK##_##SC, fast_sb##NW##_4_##OUT##_##SPK##_##SC}
/* operands of 16 bits or fewer, any two widths, decoded in halves */
const fast_fn fused_s_kernels[FUSED_OUTS][FUSED_SPKS][FUSED_GROUPS] = {
    {S_ROW(1, 0, 8), S_ROW(1, 1, 8), S_ROW(1, 2, 8)}, {S_ROW(2, 0, 8), S_ROW(2, 1, 8), S_ROW(2, 2, 8)},
    {S_ROW(3, 0, 8), S_ROW(3, 1, 8), S_ROW(3, 2, 8)}};
/* the same for batches, both operands of one byte or both of two */
const fast_bfn fused_s_batches[FUSED_NW][FUSED_OUTS][FUSED_SPKS][FUSED_GROUPS] = {
    {{S_ROWB(1, 1, 0, 8), S_ROWB(1, 1, 1, 8), S_ROWB(1, 1, 2, 8)},
     {S_ROWB(1, 2, 0, 8), S_ROWB(1, 2, 1, 8), S_ROWB(1, 2, 2, 8)},
     {S_ROWB(1, 3, 0, 8), S_ROWB(1, 3, 1, 8), S_ROWB(1, 3, 2, 8)}},
    {{S_ROWB(2, 1, 0, 8), S_ROWB(2, 1, 1, 8), S_ROWB(2, 1, 2, 8)},
     {S_ROWB(2, 2, 0, 8), S_ROWB(2, 2, 1, 8), S_ROWB(2, 2, 2, 8)},
     {S_ROWB(2, 3, 0, 8), S_ROWB(2, 3, 1, 8), S_ROWB(2, 3, 2, 8)}}};
/* two steps of eight, operands of two bytes: [out - 1][spk] */
const fast_bfn fused_s_batches2[FUSED_OUTS][FUSED_SPKS] = {{fast_sb2s2_1_0, fast_sb2s2_1_1, fast_sb2s2_1_2},
                                          {fast_sb2s2_2_0, fast_sb2s2_2_1, fast_sb2s2_2_2},
                                          {fast_sb2s2_3_0, fast_sb2s2_3_1, fast_sb2s2_3_2}};
const fast_fn fused_s_kernels_mx[FUSED_SPKS][FUSED_GROUPS] = {
    S_ROW(1, 0, 9), S_ROW(1, 1, 9), S_ROW(1, 2, 9)};
const fast_fn fused_s_kernels_tf[FUSED_GROUPS] = S_ROW(1, 1, 16);
const fast_bfn fused_s_batches_tf[2][FUSED_GROUPS] = {S_ROWB(4, 1, 1, 16),
                                            {fast_sb4s1_1, fast_sb4s1_2, fast_sb4s1_4}};
#undef S_ROWB
#undef S_ROW

/* ---- steps of four; interleaved steps of two --------------------------- */

/* Steps of four products (Volta's f16, the tf32 units): two steps
 * decoded together in one vector (step s in the low half, s + 1 in the
 * high one), each then aligned, summed and rounded in 128 bits.  The
 * specialized kernel's conditions otherwise; tf: tf32 operands. */
V_FN void q_decode(const fast_plan *P, const uint64_t *a, const uint64_t *b, const int two, const int spk, const int tf,
                   __m256i *SP, __m256i *EP, __m256i *SG, int *spec)
{
    const __m256i zero = _mm256_setzero_si256();
    const fast_vop *ka = &P->ka, *kb = &P->kb;
    __m256i xa, xb;
    if (two) {                           /* operands 0..7 in order */
        xa = _mm256_permute4x64_epi64(v_load8(a), 0xd8);
        xb = _mm256_permute4x64_epi64(v_load8(b), 0xd8);
    } else {                             /* 0..3, twice */
        const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
        xa = _mm256_permutevar8x32_epi32(V_LD(a), idx);
        xb = _mm256_permutevar8x32_epi32(V_LD(b), idx);
    }
    if (tf) {
        xa = _mm256_srl_epi32(xa, V_CNT(ka->shr));
        xb = _mm256_srl_epi32(xb, V_CNT(kb->shr));
    }
    __m256i ra = _mm256_and_si256(_mm256_srl_epi32(xa, V_CNT(ka->mb)), V_LD(ka->em));
    __m256i rb = _mm256_and_si256(_mm256_srl_epi32(xb, V_CNT(kb->mb)), V_LD(kb->em));
    __m256i sa = _mm256_or_si256(_mm256_and_si256(xa, V_LD(ka->mm)),
                                 _mm256_andnot_si256(_mm256_cmpeq_epi32(ra, zero), V_LD(ka->hid)));
    __m256i sb = _mm256_or_si256(_mm256_and_si256(xb, V_LD(kb->mm)),
                                 _mm256_andnot_si256(_mm256_cmpeq_epi32(rb, zero), V_LD(kb->hid)));
    __m256i q = zero;
    if (spk == SPK_EXP) q = _mm256_or_si256(_mm256_cmpeq_epi32(ra, V_LD(ka->em)), _mm256_cmpeq_epi32(rb, V_LD(kb->em)));
    if (spk == SPK_AND)
        q = _mm256_or_si256(_mm256_cmpeq_epi32(_mm256_and_si256(xa, V_LD(ka->sm)), V_LD(ka->sv)),
                            _mm256_cmpeq_epi32(_mm256_and_si256(xb, V_LD(kb->sm)), V_LD(kb->sv)));
    *spec = _mm256_movemask_ps(_mm256_castsi256_ps(q));
    __m256i sp = _mm256_mullo_epi32(sa, sb);
    __m256i ep = _mm256_add_epi32(_mm256_max_epi32(ra, V_LD(P->one)), _mm256_max_epi32(rb, V_LD(P->one)));
    *EP = _mm256_blendv_epi8(ep, V_LD(P->ezv), _mm256_cmpeq_epi32(sp, zero));
    *SG = _mm256_srai_epi32(_mm256_sll_epi32(_mm256_xor_si256(xa, xb), V_CNT(ka->ssh)), 31);
    *SP = sp;
}

/* one step of four (a, b: its operands; spec: its Inf/NaN lanes) */
V_FN uint64_t q_step(const fast_plan *P, const mma_unit *u, int first, int s, uint64_t acc, fast_c *xcp, __m128i sp,
                     __m128i ep, __m128i sg, int spec, const uint64_t *a, const uint64_t *b, const int out, const int ck)
{
    const fast_cfmt *cf = first ? &P->c1 : &P->cd;
    fast_c xc = xcp->spec ? c_decode_k(cf, acc, ck) : *xcp;
    if (__builtin_expect(spec | xc.spec, 0)) {
        xcp->spec = 1;
        return fused_special_step(P, u, first, s, acc, a, b, NULL, NULL);
    }
    __m128i m = _mm_max_epi32(ep, _mm_shuffle_epi32(ep, 0x4e));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1));
    int32_t er = _mm_cvtsi128_si32(m);
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    __m128i t = _mm_srlv_epi32(_mm_sll_epi32(sp, V_CNT(P->prec)), _mm_sub_epi32(_mm_set1_epi32(emr + P->base), ep));
    t = _mm_sub_epi32(_mm_xor_si128(t, sg), sg);
    return finish_k(P, emr - P->bab, v_hsum64(_mm256_cvtepi32_epi64(t)), &xc, cf, out, xcp, 0);
}

#define Q_KERNEL(NAME, OUT, CK, SPK, TF)                                                           \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        fast_c xc;                                                                                 \
        xc.spec = 1;                                                                               \
        uint64_t acc = c;                                                                          \
        __m256i SP, EP, SG;                                                                        \
        int s = 0, spec;                                                                           \
        (void)sa;                                                                                  \
        (void)sb;                                                                                  \
        for (; s + 2 <= P->steps; s += 2, a += 8, b += 8) {                                        \
            q_decode(P, a, b, 1, SPK, TF, &SP, &EP, &SG, &spec);                                   \
            acc = q_step(P, u, s == 0, s, acc, &xc, _mm256_castsi256_si128(SP), _mm256_castsi256_si128(EP), \
                         _mm256_castsi256_si128(SG), spec & 15, a, b, OUT, CK);                    \
            acc = q_step(P, u, 0, s + 1, acc, &xc, _mm256_extracti128_si256(SP, 1),                \
                         _mm256_extracti128_si256(EP, 1), _mm256_extracti128_si256(SG, 1), spec >> 4, \
                         a + 4, b + 4, OUT, CK);                                                   \
        }                                                                                          \
        if (s < P->steps) {                                                                        \
            q_decode(P, a, b, 0, SPK, TF, &SP, &EP, &SG, &spec);                                   \
            acc = q_step(P, u, s == 0, s, acc, &xc, _mm256_castsi256_si128(SP), _mm256_castsi256_si128(EP), \
                         _mm256_castsi256_si128(SG), spec & 15, a, b, OUT, CK);                    \
        }                                                                                          \
        return acc;                                                                                \
    }
#define Q_KERNELS(OUT, CK, SPK) Q_KERNEL(fast_q_##OUT##_##SPK##_0, OUT, CK, SPK, 0) \
    Q_KERNEL(fast_q_##OUT##_##SPK##_1, OUT, CK, SPK, 1)
OUT_SPK_FORMS(Q_KERNELS)
#undef Q_KERNELS
#undef Q_KERNEL
#define Q_ROW(OUT, SPK) {fast_q_##OUT##_##SPK##_0, fast_q_##OUT##_##SPK##_1}
const fast_fn fused_q_kernels[FUSED_OUTS][FUSED_SPKS][2] = {
    {Q_ROW(1, 0), Q_ROW(1, 1), Q_ROW(1, 2)}, {Q_ROW(2, 0), Q_ROW(2, 1), Q_ROW(2, 2)},
    {Q_ROW(3, 0), Q_ROW(3, 1), Q_ROW(3, 2)}};
#undef Q_ROW

/* Hopper's fp8 mma.sync: two interleaved steps from +0, then c added.
 * VIA: the operands converted to fp16 (s_step normalizes subnormals, in
 * 32-bit lanes); without it, the 16-bit halves' decoding. */
#define S_KERNEL_IL2(NAME, G, OUT, CK, SPK, VIA)                                                   \
    static V_TARGET uint64_t NAME(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, \
                                  const uint64_t *sa, const uint64_t *sb)                          \
    {                                                                                              \
        const fast_plan *P = PLAN(h);                                                              \
        const mma_unit *u = &h->u;                                                                 \
        fast_c xc;                                                                                 \
        xc.spec = 1;                                                                               \
        uint64_t acc = s_step(P, u, 1, 0, 0, &xc, a, b, sa, sb, G, OUT, CK, SPK, VIA == 1 ? 2 : 2 + 8, VIA, 0); \
        if (OUT == OUT_F16 ? (acc & 0x7fff) > 0x7c00 : (acc & 0x7fffffff) > 0x7f800000)            \
            return P->cnan;              /* a NaN stays one, and the addition makes it canonical */ \
        acc = s_step(P, u, 0, 1, acc, &xc, a, b, sa, sb, G, OUT, CK, SPK, VIA == 1 ? 2 : 2 + 8, VIA, 0); \
        return fused_ieee_add(P, c, acc);                                                          \
    }
#define S_KERNELS_IL2(OUT, CK, SPK, VIA) S_KERNEL_IL2(fast_il2_1_##OUT##_##SPK##_##VIA, 1, OUT, CK, SPK, VIA) \
    S_KERNEL_IL2(fast_il2_2_##OUT##_##SPK##_##VIA, 2, OUT, CK, SPK, VIA)
S_KERNELS_IL2(1, CK_F32, 0, 0) S_KERNELS_IL2(1, CK_F32, 1, 0) S_KERNELS_IL2(1, CK_F32, 2, 0)
S_KERNELS_IL2(3, CK_F16, 0, 0) S_KERNELS_IL2(3, CK_F16, 1, 0) S_KERNELS_IL2(3, CK_F16, 2, 0)
S_KERNELS_IL2(1, CK_F32, 0, 1) S_KERNELS_IL2(1, CK_F32, 1, 1) S_KERNELS_IL2(1, CK_F32, 2, 1)
S_KERNELS_IL2(3, CK_F16, 0, 1) S_KERNELS_IL2(3, CK_F16, 1, 1) S_KERNELS_IL2(3, CK_F16, 2, 1)
S_KERNELS_IL2(1, CK_F32, 0, 2) S_KERNELS_IL2(1, CK_F32, 1, 2) S_KERNELS_IL2(1, CK_F32, 2, 2)
S_KERNELS_IL2(3, CK_F16, 0, 2) S_KERNELS_IL2(3, CK_F16, 1, 2) S_KERNELS_IL2(3, CK_F16, 2, 2)
#undef S_KERNELS_IL2
#undef S_KERNEL_IL2
#define S_ROW(OUT, SPK, VIA) {fast_il2_1_##OUT##_##SPK##_##VIA, fast_il2_2_##OUT##_##SPK##_##VIA}
const fast_fn fused_s_kernels_il2[FUSED_IL2_VIAS][FUSED_IL2_OUTS][FUSED_SPKS][FUSED_IL2_GROUPS] = {
    {{S_ROW(1, 0, 0), S_ROW(1, 1, 0), S_ROW(1, 2, 0)}, {S_ROW(3, 0, 0), S_ROW(3, 1, 0), S_ROW(3, 2, 0)}},
    {{S_ROW(1, 0, 1), S_ROW(1, 1, 1), S_ROW(1, 2, 1)}, {S_ROW(3, 0, 1), S_ROW(3, 1, 1), S_ROW(3, 2, 1)}},
    {{S_ROW(1, 0, 2), S_ROW(1, 1, 2), S_ROW(1, 2, 2)}, {S_ROW(3, 0, 2), S_ROW(3, 1, 2), S_ROW(3, 2, 2)}}};
#undef S_ROW

/* ---- AVX2: the same 16-bit lanes, 16 products a register ------------- */

/* w_step's semantics and fused_w_plan's constants (their first 16 words) for a
 * dot product of one step through mma_dot where AVX-512 is not there.
 * AVX2 has no per-lane 16-bit shift: m >> sh (m < 2^15) is the high word
 * of 2m * 2^(15 - sh), the power looked up by vpshufb from sh in both
 * bytes of its word (saturated to a byte, plus 0x70 in the low byte and
 * 0x78 in the high one: 16 and more set the index's bit 7, which gives
 * 0).  A step with an Inf or NaN operand or c, and a rare rounding, goes
 * (a tail call) to the general kernel, as w_step's rare. */
V_FN void h_load(const uint64_t *p, __m256i *lo, __m256i *hi)
{
    /* words in the order 0 8 1 9 ..., the same for a and b: the sum does
     * not care */
    *lo = _mm256_blend_epi16(v_load8(p), _mm256_slli_epi32(v_load8(p + 8), 16), 0xaa);
    *hi = _mm256_blend_epi16(v_load8(p + 16), _mm256_slli_epi32(v_load8(p + 24), 16), 0xaa);
}

/* significand (hidden bit added where the exponent field is nonzero) and
 * the exponent field of 16 operands of side i */
V_FN void h_decode(const fast_plan *P, int i, __m256i x, __m256i *sig, __m256i *r)
{
    *r = _mm256_and_si256(_mm256_srl_epi16(x, V_CNT(i ? P->kb.mb : P->ka.mb)), V_LD(P->w_em[i]));
    __m256i h = _mm256_andnot_si256(_mm256_cmpeq_epi16(*r, _mm256_setzero_si256()), V_LD(P->w_hid[i]));
    *sig = _mm256_add_epi16(_mm256_and_si256(x, V_LD(P->w_mm[i])), h);
}

/* 16 products: the significands' product, the exponent (ezero's where the
 * product is zero), the sign word (negative where the product is, never 0) */
V_FN void h_prod(const fast_plan *P, __m256i xa, __m256i xb, __m256i *sp, __m256i *ep, __m256i *sg, __m256i *ra,
                 __m256i *rb)
{
    const __m256i one = V_LD(P->w_one);
    __m256i sa, sb;
    h_decode(P, 0, xa, &sa, ra);
    h_decode(P, 1, xb, &sb, rb);
    *sp = _mm256_mullo_epi16(sa, sb);
    __m256i e = _mm256_add_epi16(_mm256_max_epu16(*ra, one), _mm256_max_epu16(*rb, one));
    *ep = _mm256_blendv_epi8(e, V_LD(P->w_ezv), _mm256_cmpeq_epi16(*sp, _mm256_setzero_si256()));
    *sg = _mm256_or_si256(_mm256_xor_si256(_mm256_sll_epi16(xa, V_CNT(P->w_ss[0])), _mm256_sll_epi16(xb, V_CNT(P->w_ss[1]))),
                          one);
}

/* the 16 products aligned (RZ) to ebv and signed, summed in pairs */
V_FN __m256i h_align(const fast_plan *P, __m256i ebv, __m256i sp, __m256i ep, __m256i sg)
{
    const __m256i pow = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, (char)0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1,
                                         0, 0, 0, 0, 0, 0, 0, 0, (char)0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1);
    __m256i sh = _mm256_min_epu16(_mm256_sub_epi16(ebv, ep), _mm256_set1_epi16(0xff));
    __m256i idx = _mm256_adds_epu8(_mm256_mullo_epi16(sh, _mm256_set1_epi16(0x0101)), _mm256_set1_epi16(0x7870));
    __m256i t = _mm256_mulhi_epu16(_mm256_sll_epi16(sp, V_CNT(P->w_pre1)), _mm256_shuffle_epi8(pow, idx));
    return _mm256_madd_epi16(_mm256_sign_epi16(t, sg), V_LD(P->w_one));
}

V_FN uint64_t h_dot1(const fast_hdr *h, uint64_t c, const uint64_t *a, const uint64_t *b, const int out,
                     const int ck, const int spk, const fast_fn rare)
{
    const fast_plan *P = PLAN(h);
    __m256i a0, a1, b0, b1, sp0, sp1, ep0, ep1, sg0, sg1, ra0, ra1, rb0, rb1;
    h_load(a, &a0, &a1);
    h_load(b, &b0, &b1);
    h_prod(P, a0, b0, &sp0, &ep0, &sg0, &ra0, &rb0);
    h_prod(P, a1, b1, &sp1, &ep1, &sg1, &ra1, &rb1);
    __m256i q = _mm256_setzero_si256();
    if (spk == SPK_AND) {                /* (sval is the largest x & smask: s_step's running maxima) */
        __m256i ma = _mm256_max_epu16(_mm256_and_si256(a0, V_LD(P->w_sm[0])), _mm256_and_si256(a1, V_LD(P->w_sm[0])));
        __m256i mb = _mm256_max_epu16(_mm256_and_si256(b0, V_LD(P->w_sm[1])), _mm256_and_si256(b1, V_LD(P->w_sm[1])));
        q = _mm256_or_si256(_mm256_cmpeq_epi16(ma, V_LD(P->w_sv[0])), _mm256_cmpeq_epi16(mb, V_LD(P->w_sv[1])));
    }
    if (spk == SPK_EXP)
        q = _mm256_or_si256(_mm256_cmpeq_epi16(_mm256_max_epu16(ra0, ra1), V_LD(P->w_em[0])),
                            _mm256_cmpeq_epi16(_mm256_max_epu16(rb0, rb1), V_LD(P->w_em[1])));
    fast_c xc = c_decode_k(&P->c1, c, ck);
    if (__builtin_expect((!_mm256_testz_si256(q, q)) | xc.spec, 0)) return rare(h, c, a, b, NULL, NULL);
    /* emax as w_step finds it */
    __m256i m8 = _mm256_max_epi16(ep0, ep1);
    __m128i m4 = _mm_max_epi16(_mm256_castsi256_si128(m8), _mm256_extracti128_si256(m8, 1));
    int32_t er = 0x7fff - (int32_t)(uint16_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_sub_epi16(_mm_set1_epi16(0x7fff), m4)));
    er = er == -32768 ? V_LOW : er;
    int32_t ecr = xc.sig ? xc.e + P->bab : P->ez_rel;
    int32_t emr = ecr > er ? ecr : er;
    const __m256i ebv = _mm256_set1_epi16((short)(emr + P->base));
    __m256i sv = _mm256_add_epi32(h_align(P, ebv, sp0, ep0, sg0), h_align(P, ebv, sp1, ep1, sg1));
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sv), _mm256_extracti128_si256(sv, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
    return finish_k(P, emr - P->bab, _mm_cvtsi128_si32(s4), &xc, &P->c1, out, NULL, 0);
}
#define H_KERNEL(OUT, CK, SPK)                                                                     \
    FN_UNSCALED(fast_h1_##OUT##_##SPK, V_TARGET, h_dot1(h, c, a, b, OUT, CK, SPK, fast_s_4_##OUT##_##SPK##_8))
OUT_SPK_FORMS(H_KERNEL)
#undef H_KERNEL
const fast_fn fused_h1_kernels[FUSED_OUTS][FUSED_SPKS] = {
    {fast_h1_1_0, fast_h1_1_1, fast_h1_1_2}, {fast_h1_2_0, fast_h1_2_1, fast_h1_2_2}, {fast_h1_3_0, fast_h1_3_1, fast_h1_3_2}};
#endif
