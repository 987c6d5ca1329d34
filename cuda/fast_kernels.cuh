/* The specialized kernels of the CUDA backend: the hot families (FDA,
 * CoFDA, ST-FDPA; FDRDA, GFDRDA and their chained forms; GDFS) computed
 * as a stream, with nothing in the thread's local memory.  Included by
 * batch_cuda.cu after the model's files, whose functions they call for the
 * arithmetic itself: the exact products (mma_term_mul), the cut of each
 * aligned term (align_term, fused_sum.c), the rounding (mma_round_to), the
 * special values (mma_nan_out, mma_out_inf), AMD's last part of a step
 * (mma_amd_join).  What changes is where the terms live.  The reference
 * path stores every term of a step in an array, which the GPU keeps in
 * local memory (docs/cuda.md); here the step's operands stay in registers,
 * as they were loaded, and the terms are made twice from them: a first
 * pass finds the largest exponent and whether a term is Inf or NaN, a
 * second aligns and adds, in a 64-bit integer.
 *
 * The parameters of a step's shape (L products, the operands' byte sizes,
 * GDFS's K and group size) are template arguments, so that the loops over
 * a step unroll and the operands sit in registers; the rest of the unit
 * is a plan (fx_plan) built on the host, passed by value in constant
 * memory.  Operands of 8 bits or fewer are decoded through a table of the
 * 256 encodings, made on the host by the reference's own decoding (with
 * the unit's input flush and fp16 conversion applied) and copied into
 * shared memory, 32 copies side by side so that the 32 threads of a warp
 * read 32 different banks; fp16, bf16, tf32 and fp32 are decoded
 * arithmetically (fx_ieee, mma_decode's rules for IEEE-like formats).
 * A NaN result that must carry an operand's payload (nan=prop) sends that
 * dot product to the reference path. */

#define FX_TAB 256

/* the step loops unrolled on the GPU, so that the operands stay in
 * registers (the host compiler decides for the host-compiled body) */
#if defined(__CUDA_ARCH__)
#define FX_UNROLL _Pragma("unroll")
#else
#define FX_UNROLL
#endif

enum { FX_NONE = 0, FX_FUSED, FX_AMD, FX_GROUPS };

/* how an operand of the arithmetic decoding is read: mma_decode's rules for
 * the IEEE-like formats (fp16, bf16, tf32 in the fp32 layout, fp32) */
typedef struct {
    uint64_t mask;       /* the bits the decoding keeps                  */
    int width, mb, ebits, bias, emin;
    int ftz;             /* the unit flushes subnormal inputs (FDA only) */
} fx_dec;

typedef struct {
    int kind, L, steps, G;
    int bshift;          /* log2 of the scale block                      */
    int scaled, zeros_part, nanprop, ovf, evenodd;
    int32_t ez;          /* a zero term's exponent, or INT32_MIN (none)  */
    mma_rspec r;
    fx_dec da, db;
    int tabs;            /* tables in shared memory: 0, 1 (a and b share one), 2 */
    int rep;             /* copies of each table (1 or 32)               */
    uint32_t ta[FX_TAB], tb[FX_TAB];
} fx_plan;

/* A table entry: a term in 32 bits (sig 14, neg 1, cls 2, fb 5, e + 512 10) */
static MMA_HD inline mma_term fx_unpack(uint32_t w)
{
    mma_term t;
    t.sig = w & 0x3fff;
    t.neg = (int)((w >> 14) & 1);
    t.cls = (mma_class)((w >> 15) & 3);
    t.fb = (int)((w >> 17) & 31);
    t.e = (int32_t)(w >> 22) - 512;
    return t;
}

static int fx_pack(mma_term t, uint32_t *w)
{
    if (t.sig >> 14 || t.fb < 0 || t.fb > 31 || t.e < -512 || t.e > 511) return -1;
    *w = (uint32_t)t.sig | (uint32_t)(t.neg & 1) << 14 | (uint32_t)t.cls << 15 | (uint32_t)t.fb << 17 |
         (uint32_t)(t.e + 512) << 22;
    return 0;
}

/* mma_term_of (and alg_fused.c's operand(): the input flush) for fp16,
 * bf16, tf32 and fp32 */
static MMA_HD inline mma_term fx_ieee(const fx_dec &d, uint64_t bits)
{
    bits &= d.mask;
    mma_term t;
    const uint32_t top = (1u << d.ebits) - 1;
    uint32_t ef = (uint32_t)(bits >> d.mb) & top;
    uint64_t m = bits & (((uint64_t)1 << d.mb) - 1);
    t.neg = (int)((bits >> (d.width - 1)) & 1);
    t.fb = d.mb;
    if (ef == top) {
        t.cls = m ? MMA_NAN : MMA_INF;
        t.sig = 0;
        t.e = d.mb;
    } else if (ef == 0) {
        t.cls = m ? MMA_FINITE : MMA_ZERO;
        t.sig = m;
        t.e = d.emin;
    } else {
        t.cls = MMA_FINITE;
        t.sig = m | ((uint64_t)1 << d.mb);
        t.e = (int32_t)ef - d.bias;
    }
    if (d.ftz && t.cls == MMA_FINITE && t.sig >> t.fb == 0) {
        t.cls = MMA_ZERO;
        t.sig = 0;
        t.neg = 0;
    }
    return t;
}

/* ---- the operands of a step, in registers ------------------------------- */

template <int N, int S> struct fx_regs {
    static constexpr int W = (N * S + 3) / 4;
    uint32_t w[W];
};

/* elements [off, off + N) of an array of S-byte elements: 16-, 8- or 4-byte
 * loads where the run's size allows (the plan checked the base's
 * alignment), else one element at a time */
template <int N, int S>
static MMA_HD inline void fx_load(fx_regs<N, S> &v, const void *base, size_t off)
{
    const unsigned char *p = (const unsigned char *)base + off * S;
    constexpr int B = N * S;
#if defined(__CUDA_ARCH__)
    if constexpr (B % 16 == 0) {
FX_UNROLL
        for (int q = 0; q < B / 16; q++) {
            uint4 t = ((const uint4 *)p)[q];
            v.w[4 * q] = t.x; v.w[4 * q + 1] = t.y; v.w[4 * q + 2] = t.z; v.w[4 * q + 3] = t.w;
        }
    } else if constexpr (B % 8 == 0) {
FX_UNROLL
        for (int q = 0; q < B / 8; q++) {
            uint2 t = ((const uint2 *)p)[q];
            v.w[2 * q] = t.x; v.w[2 * q + 1] = t.y;
        }
    } else if constexpr (B % 4 == 0) {
FX_UNROLL
        for (int q = 0; q < B / 4; q++) v.w[q] = ((const uint32_t *)p)[q];
    } else {
FX_UNROLL
        for (int q = 0; q < fx_regs<N, S>::W; q++) v.w[q] = 0;
FX_UNROLL
        for (int j = 0; j < N; j++) {
            uint32_t e = S == 1 ? p[j] : S == 2 ? ((const uint16_t *)p)[j] : ((const uint32_t *)p)[j];
            v.w[j * S / 4] |= e << (j * S % 4 * 8);
        }
    }
#else
    memset(v.w, 0, sizeof v.w);
    memcpy(v.w, p, (size_t)B);                   /* (little-endian hosts) */
#endif
}

template <int S> static MMA_HD inline uint32_t fx_elem(const uint32_t *w, int j)
{
    if (S == 1) return (w[j >> 2] >> ((j & 3) * 8)) & 0xff;
    if (S == 2) return (w[j >> 1] >> ((j & 1) * 16)) & 0xffff;
    return w[j];
}

/* an operand's term: through the table (S == 1) or arithmetically */
template <int S>
static MMA_HD inline mma_term fx_term(const fx_dec &d, const uint32_t *tab, int rep, int lane, uint32_t bits)
{
    if (S == 1) return fx_unpack(tab[bits * (uint32_t)rep + (uint32_t)lane]);
    return fx_ieee(d, bits);
}

/* the special classes met so far (paper, FDA step 1) */
typedef struct {
    int nan, pinf, ninf;
} fx_spec;

static MMA_HD inline void fx_spec_add(fx_spec &s, const mma_term &t)
{
    s.nan |= t.cls == MMA_NAN;
    s.pinf |= t.cls == MMA_INF && !t.neg;
    s.ninf |= t.cls == MMA_INF && t.neg;
}

/* mma_step_special's decision, 1 when decided; -1: a NaN whose payload
 * comes from the operands (nan=prop), for the reference path */
static MMA_HD inline int fx_special(const mma_unit *u, const mma_rspec *r, const fx_spec &s, int nanprop,
                                    uint64_t *out)
{
    if (s.nan || (s.pinf && s.ninf)) {
        if (nanprop) return -1;
        *out = mma_nan_out(u, r->d, NULL);
        return 1;
    }
    if (s.pinf || s.ninf) {
        *out = mma_out_inf(r, s.ninf);
        return 1;
    }
    return 0;
}

/* the sign of an exactly zero sum (mma_terms_zneg) */
typedef struct {
    int allzero, anypos, anyneg;
} fx_zero;

static MMA_HD inline void fx_zero_add(fx_zero &z, const mma_term &t)
{
    z.allzero &= t.cls == MMA_ZERO;
    if (t.neg) z.anyneg = 1; else z.anypos = 1;
}

/* vector i by the reference path (a NaN with an operand's payload) */
template <int KIND>
static MMA_HD __noinline__ uint64_t fx_reference(const mma_unit *u, const mma_batch *x, size_t i)
{
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_MAX_SCALES], sb[MMA_MAX_SCALES];
    const size_t k = (size_t)u->k, ns = (size_t)nscales(u);
    for (size_t j = 0; j < k; j++) {
        a[j] = ld(x->a, x->a_size, i * k + j);
        b[j] = ld(x->b, x->b_size, i * k + j);
    }
    for (size_t j = 0; j < ns; j++) {
        sa[j] = ld(x->sa, x->sa_size, i * ns + j);
        sb[j] = ld(x->sb, x->sb_size, i * ns + j);
    }
    uint64_t c = ld(x->c, x->c_size, i);
    if (KIND == FX_FUSED) return mma_alg_fused(u, c, a, b, ns ? sa : NULL, ns ? sb : NULL);
    if (KIND == FX_AMD) return mma_alg_amd(u, c, a, b);
    return mma_alg_groups(u, c, a, b, sa, sb);
}

/* the scale product of block blk (alg_fused.c's product(), alg_groups.c);
 * out of line: once a block, and the unrolled steps stay short */
static MMA_HD __noinline__ mma_term fx_scale(const mma_unit *u, const mma_batch *x, size_t i, int ns, int blk)
{
    return mma_term_mul(mma_term_of(u->scale, ld(x->sa, x->sa_size, i * (size_t)ns + (size_t)blk)),
                        mma_term_of(u->scale, ld(x->sb, x->sb_size, i * (size_t)ns + (size_t)blk)));
}

/* ---- FDA, CoFDA, ST-FDPA (alg_fused.c, cadd=fused, no interleave) ------- */

template <int L, int AS, int BS>
static MMA_HD inline uint64_t fx_fused(const mma_unit *u, const fx_plan &P, const mma_batch *x, size_t i,
                                       const uint32_t *ta, const uint32_t *tb, int lane)
{
    const int K = u->k, ns = P.scaled ? K >> P.bshift : 0;
    uint64_t c = ld(x->c, x->c_size, i);
    mma_fmt cf = u->c;
    for (int s = 0; s < P.steps; s++) {
        fx_regs<L, AS> ra;
        fx_regs<L, BS> rb;
        fx_load<L, AS>(ra, x->a, i * (size_t)K + (size_t)(s * L));
        fx_load<L, BS>(rb, x->b, i * (size_t)K + (size_t)(s * L));
        /* 1. the largest exponent; Inf and NaN; the sign of a zero sum */
        int32_t emax = INT32_MIN;
        fx_spec sp = {0, 0, 0};
        fx_zero z = {1, 0, 0};
        mma_term scl = {MMA_ZERO, 0, 0, 0, 0};
        int blk = -1;
FX_UNROLL
        for (int j = 0; j < L; j++) {
            mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                      fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
            if (P.scaled) {
                int bj = (s * L + j) >> P.bshift;
                if (bj != blk) { blk = bj; scl = fx_scale(u, x, i, ns, blk); }
                p = mma_term_mul(p, scl);
            }
            if (P.ovf) mma_term_overflow(&p);
            int32_t e = p.cls == MMA_ZERO ? P.ez : p.e;
            emax = e > emax ? e : emax;
            fx_spec_add(sp, p);
            fx_zero_add(z, p);
        }
        mma_term ct = operand(u, cf, c);
        {
            int32_t e = ct.cls == MMA_ZERO ? P.ez : ct.e;
            emax = e > emax ? e : emax;
            fx_spec_add(sp, ct);
            fx_zero_add(z, ct);
        }
        int dec = fx_special(u, &P.r, sp, P.nanprop, &c);
        if (dec < 0) return fx_reference<FX_FUSED>(u, x, i);
        if (!dec) {
            /* 2. every term cut at emax - F and added */
            int64_t sum = 0;
            const int empty = emax == INT32_MIN;
            const int32_t lsb = (empty ? 0 : emax) - u->f;
            if (!empty) {
                blk = -1;
FX_UNROLL
                for (int j = 0; j < L; j++) {
                    mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                              fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
                    if (P.scaled) {
                        int bj = (s * L + j) >> P.bshift;
                        if (bj != blk) { blk = bj; scl = fx_scale(u, x, i, ns, blk); }
                        p = mma_term_mul(p, scl);
                    }
                    if (P.ovf) mma_term_overflow(&p);
                    if (p.cls != MMA_ZERO) sum += align_term(p.sig, p.neg, p.e, p.fb, lsb, u->align);
                }
                if (ct.cls != MMA_ZERO) sum += align_term(ct.sig, ct.neg, ct.e, ct.fb, lsb, u->align);
            }
            uint64_t mag = sum < 0 ? (uint64_t)-sum : (uint64_t)sum;
            c = mma_round_to(&P.r, sum < 0, empty ? 0 : mag, lsb,
                             P.r.zero == MMA_ZS_IEEE && mma_zero_sign(z.allzero, z.anypos, z.anyneg, u->rho), NULL);
        }
        cf = u->d;
    }
    return c;
}

/* ---- FDRDA, GFDRDA and the chained forms (alg_amd.c) -------------------- */

template <int L, int AS, int BS>
static MMA_HD inline uint64_t fx_amd(const mma_unit *u, const fx_plan &P, const mma_batch *x, size_t i,
                                     const uint32_t *ta, const uint32_t *tb, int lane)
{
    const int K = u->k;
    uint64_t c = ld(x->c, x->c_size, i);
    mma_fmt cf = u->c;
    for (int s = 0; s < P.steps; s++) {
        fx_regs<L, AS> ra;
        fx_regs<L, BS> rb;
        fx_load<L, AS>(ra, x->a, i * (size_t)K + (size_t)(s * L));
        fx_load<L, BS>(rb, x->b, i * (size_t)K + (size_t)(s * L));
        /* 1. the largest exponent of the even and the odd products (of all
         * of them, in [0], without GFDRDA's split); zeros take no part */
        int32_t emax[2] = {INT32_MIN, INT32_MIN};
        fx_spec sp = {0, 0, 0};
        fx_zero z = {1, 0, 0};
FX_UNROLL
        for (int j = 0; j < L; j++) {
            mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                      fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
            if (P.ovf) mma_term_overflow(&p);
            const int h = P.evenodd ? (j & 1) : 0;
            if (p.cls != MMA_ZERO && p.e > emax[h]) emax[h] = p.e;
            fx_spec_add(sp, p);
            fx_zero_add(z, p);
        }
        mma_term ct = mma_term_of(cf, c);
        fx_spec_add(sp, ct);
        fx_zero_add(z, ct);
        int dec = fx_special(u, &P.r, sp, P.nanprop, &c);
        if (dec < 0) return fx_reference<FX_AMD>(u, x, i);
        if (!dec) {
            /* 2. the products' fused sums (F bits, cut toward zero) */
            int64_t sum[2] = {0, 0};
            const int32_t lsb0 = emax[0] == INT32_MIN ? 0 : emax[0] - u->f;
            const int32_t lsb1 = emax[1] == INT32_MIN ? 0 : emax[1] - u->f;
FX_UNROLL
            for (int j = 0; j < L; j++) {
                mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                          fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
                if (P.ovf) mma_term_overflow(&p);
                const int h = P.evenodd ? (j & 1) : 0;
                if (p.cls != MMA_ZERO) sum[h] += align_term(p.sig, p.neg, p.e, p.fb, h ? lsb1 : lsb0, MMA_RZ);
            }
            mma_fixed f0 = {sum[0], emax[0] == INT32_MIN ? 0 : emax[0], u->f, emax[0] == INT32_MIN};
            if (P.evenodd) {
                mma_fixed f1 = {sum[1], emax[1] == INT32_MIN ? 0 : emax[1], u->f, emax[1] == INT32_MIN};
                f0 = mma_amd_evenodd_join(u, f0, f1);
            }
            c = mma_amd_join(u, &P.r, f0, ct,
                             P.r.zero == MMA_ZS_IEEE && mma_zero_sign(z.allzero, z.anypos, z.anyneg, u->rho));
        }
        cf = u->d;
    }
    return c;
}

/* ---- GDFS (alg_groups.c) -------------------------------------------------- */

template <int K, int G, int AS, int BS>
static MMA_HD inline uint64_t fx_groups(const mma_unit *u, const fx_plan &P, const mma_batch *x, size_t i,
                                        const uint32_t *ta, const uint32_t *tb, int lane)
{
    constexpr int NG = K / G;
    const int ns = K >> P.bshift;
    uint64_t c = ld(x->c, x->c_size, i);
    mma_term t[NG + 1];
    fx_zero z = {1, 0, 0};
    fx_spec sp = {0, 0, 0};
FX_UNROLL
    for (int g = 0; g < NG; g++) {
        fx_regs<G, AS> ra;
        fx_regs<G, BS> rb;
        fx_load<G, AS>(ra, x->a, i * (size_t)K + (size_t)(g * G));
        fx_load<G, BS>(rb, x->b, i * (size_t)K + (size_t)(g * G));
        /* the exact group sum in units of its smallest LSB weight */
        int32_t lsb = INT32_MAX;
        int allzero = 1;
FX_UNROLL
        for (int j = 0; j < G; j++) {
            mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                      fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
            if (p.cls != MMA_ZERO) allzero = 0;
            fx_zero_add(z, p);
            int32_t l = p.e - p.fb;
            lsb = l < lsb ? l : lsb;
        }
        int64_t gs = 0;
FX_UNROLL
        for (int j = 0; j < G; j++) {
            mma_term p = mma_term_mul(fx_term<AS>(P.da, ta, P.rep, lane, fx_elem<AS>(ra.w, j)),
                                      fx_term<BS>(P.db, tb, P.rep, lane, fx_elem<BS>(rb.w, j)));
            if (p.cls == MMA_ZERO) continue;
            int64_t v = (int64_t)(p.sig << ((p.e - p.fb) - lsb));
            gs += p.neg ? -v : v;
        }
        mma_term s = fx_scale(u, x, i, ns, (g * G) >> P.bshift);
        mma_term gt = {MMA_FINITE, gs < 0, s.e, 0, gs < 0 ? (uint64_t)-gs : (uint64_t)gs};
        gt.sig *= s.sig;
        gt.fb = s.fb - lsb;
        if (s.cls == MMA_NAN) gt.cls = MMA_NAN;
        else if (allzero || s.cls == MMA_ZERO) { gt.cls = MMA_ZERO; gt.sig = 0; }
        t[g] = gt;
        fx_spec_add(sp, gt);
    }
    mma_term ct = mma_term_of(u->c, c);
    t[NG] = ct;
    fx_spec_add(sp, ct);
    fx_zero_add(z, ct);
    uint64_t out;
    int dec = fx_special(u, &P.r, sp, P.nanprop, &out);
    if (dec < 0) return fx_reference<FX_GROUPS>(u, x, i);
    if (dec) return out;
    /* mma_fused_sum over the group terms and c */
    int32_t emax = INT32_MIN;
FX_UNROLL
    for (int g = 0; g <= NG; g++) {
        int32_t e = t[g].cls == MMA_ZERO ? P.ez : t[g].e;
        emax = e > emax ? e : emax;
    }
    const int empty = emax == INT32_MIN;
    const int32_t lsb = (empty ? 0 : emax) - u->f;
    int64_t sum = 0;
FX_UNROLL
    for (int g = 0; g <= NG; g++)
        if (!empty && t[g].cls != MMA_ZERO) sum += align_term(t[g].sig, t[g].neg, t[g].e, t[g].fb, lsb, u->align);
    uint64_t mag = sum < 0 ? (uint64_t)-sum : (uint64_t)sum;
    return mma_round_to(&P.r, sum < 0, empty ? 0 : mag, lsb, mma_zero_sign(z.allzero, z.anypos, z.anyneg, u->rho),
                        NULL);
}

/* ---- the kernels and their table ------------------------------------------- */

template <int KIND, int L, int AS, int BS, int G>
static MMA_HD inline uint64_t fx_dot(const mma_unit *u, const fx_plan &P, const mma_batch *x, size_t i,
                                     const uint32_t *ta, const uint32_t *tb, int lane)
{
    if constexpr (KIND == FX_FUSED) return fx_fused<L, AS, BS>(u, P, x, i, ta, tb, lane);
    else if constexpr (KIND == FX_AMD) return fx_amd<L, AS, BS>(u, P, x, i, ta, tb, lane);
    else return fx_groups<L, G, AS, BS>(u, P, x, i, ta, tb, lane);
}

template <int KIND, int L, int AS, int BS, int G>
__global__ void __launch_bounds__(MAX_BLOCK) fx_kernel(const __grid_constant__ mma_unit u,
                                                       const __grid_constant__ mma_batch x,
                                                       const __grid_constant__ fx_plan P)
{
    extern __shared__ uint32_t fx_shared[];
    const int rep = P.rep, n = FX_TAB * rep;
    uint32_t *ta = fx_shared, *tb = P.tabs == 2 ? fx_shared + n : fx_shared;
    for (int t = threadIdx.x; t < n; t += blockDim.x) {
        if (P.tabs >= 1) ta[t] = P.ta[t / rep];
        if (P.tabs == 2) tb[t] = P.tb[t / rep];
    }
    __syncthreads();
    const int lane = threadIdx.x & (rep - 1);
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < x.n; i += stride)
    {
        st(x.d, x.d_size, i, fx_dot<KIND, L, AS, BS, G>(&u, P, &x, i, ta, tb, lane));
        if (x.flags) x.flags[i] = 0;        /* (these trees raise none) */
    }
}

/* the body on the host (mma_batch_dot_cuda_host): one copy of each table */
template <int KIND, int L, int AS, int BS, int G>
static void fx_host(const mma_unit *u, const mma_batch *x, const fx_plan *P, long lo, long hi)
{
    for (long i = lo; i < hi; i++) {
        st(x->d, x->d_size, (size_t)i, fx_dot<KIND, L, AS, BS, G>(u, *P, x, (size_t)i, P->ta, P->tb, 0));
        if (x->flags) x->flags[i] = 0;
    }
}

typedef void (*fx_kernel_fn)(mma_unit, mma_batch, fx_plan);
typedef void (*fx_host_fn)(const mma_unit *, const mma_batch *, const fx_plan *, long, long);

/* the shapes compiled: every step shape of the catalogue's FDA, FDRDA,
 * GFDRDA and GDFS units at their natural sizes, and the 16- and 32-bit
 * containers of narrower formats where the step is short */
#define FX_SHAPES(X)                                                                                      \
    X(FX_FUSED, 32, 1, 1, 0) X(FX_FUSED, 16, 1, 1, 0) X(FX_FUSED, 8, 1, 1, 0) X(FX_FUSED, 4, 1, 1, 0)   \
    X(FX_FUSED, 16, 2, 2, 0) X(FX_FUSED, 8, 2, 2, 0) X(FX_FUSED, 4, 2, 2, 0) X(FX_FUSED, 2, 2, 2, 0)   \
    X(FX_FUSED, 8, 4, 4, 0) X(FX_FUSED, 4, 4, 4, 0) X(FX_FUSED, 2, 4, 4, 0)                            \
    X(FX_FUSED, 16, 2, 1, 0) X(FX_FUSED, 16, 1, 2, 0) X(FX_FUSED, 8, 2, 1, 0) X(FX_FUSED, 8, 1, 2, 0)  \
    X(FX_FUSED, 4, 2, 1, 0) X(FX_FUSED, 4, 1, 2, 0)                                                      \
    X(FX_AMD, 16, 1, 1, 0) X(FX_AMD, 8, 1, 1, 0) X(FX_AMD, 8, 2, 2, 0) X(FX_AMD, 4, 2, 2, 0)           \
    X(FX_AMD, 2, 2, 2, 0) X(FX_AMD, 4, 4, 4, 0) X(FX_AMD, 2, 4, 4, 0)                                   \
    X(FX_GROUPS, 64, 1, 1, 16) X(FX_GROUPS, 64, 1, 1, 8) X(FX_GROUPS, 32, 1, 1, 8)                     \
    X(FX_GROUPS, 32, 1, 1, 16) X(FX_GROUPS, 32, 1, 1, 32)

static const struct {
    int kind, L, as, bs, g;
    fx_kernel_fn dev;
    fx_host_fn host;
} fx_shapes[] = {
#define FX_ROW(K, L, A, B, G) {K, L, A, B, G, fx_kernel<K, L, A, B, G>, fx_host<K, L, A, B, G>},
    FX_SHAPES(FX_ROW)
#undef FX_ROW
};
#define FX_NSHAPES ((int)(sizeof fx_shapes / sizeof fx_shapes[0]))

/* ---- the plan of a unit and a batch ------------------------------------- */

static int fx_ieee_dec(mma_fmt f, int size, int ftz, fx_dec *d)
{
    if (f != MMA_FMT_FP16 && f != MMA_FMT_BF16 && f != MMA_FMT_TF32 && f != MMA_FMT_FP32) return -1;
    const mma_format_info *fi = mma_format(f);
    if (size < fi->width / 8) return -1;
    d->width = fi->width;
    d->mb = f == MMA_FMT_TF32 ? 23 : fi->mbits;
    d->ebits = fi->ebits;
    d->bias = fi->bias;
    d->emin = fi->emin;
    d->ftz = ftz;
    d->mask = (fi->width == 32 ? 0xffffffffull : (1ull << fi->width) - 1) & (f == MMA_FMT_TF32 ? ~0x1fffull : ~0ull);
    return 0;
}

/* the table of an 8-bit operand: the term of each encoding as the tree
 * makes it (FDA: operand(), with the fp16 conversion where the unit has
 * it; the others: mma_term_of) */
static int fx_table(const mma_unit *u, int kind, mma_fmt f, uint32_t *tab)
{
    if (mma_format(f)->width > 8) return -1;
    for (int v = 0; v < FX_TAB; v++) {
        mma_term t;
        if (kind == FX_FUSED) {
            t = operand(u, f, (uint64_t)v);
            if (u->flags & MMA_F_VIA_FP16) t = via_fp16(t);
        } else {
            t = mma_term_of(f, (uint64_t)v);
        }
        if (fx_pack(t, &tab[v])) return -1;
    }
    return 0;
}

static int is_pow2(int v) { return v > 0 && !(v & (v - 1)); }
static int log2i(int v) { int l = 0; while ((1 << l) < v) l++; return l; }

/* 0: no specialized kernel for u and x (the reference's then); else the
 * index + 1 of its shape in fx_shapes, with P filled */
static int fx_plan_make(const mma_unit *u, const mma_batch *x, fx_plan *P)
{
    memset(P, 0, sizeof *P);
    int kind = FX_NONE, L = u->lmax, G = 0;
    if (u->tree == MMA_TREE_FUSED && u->cadd == MMA_CADD_FUSED && !u->interleave) kind = FX_FUSED;
    else if ((u->tree == MMA_TREE_FUSED && (u->cadd == MMA_CADD_RD || u->cadd == MMA_CADD_RDZ)) ||
             u->tree == MMA_TREE_EVENODD)
        kind = FX_AMD;
    else if (u->tree == MMA_TREE_GROUPS) kind = FX_GROUPS;
    if (kind == FX_NONE || L < 1 || u->k % L) return 0;
    if (kind == FX_GROUPS) {
        G = u->g;
        L = u->k;
        if (u->scale == MMA_FMT_NONE || G < 1 || u->k % G || !is_pow2(u->block) || u->k % u->block) return 0;
    }
    if (kind == FX_FUSED && u->scale != MMA_FMT_NONE && (!is_pow2(u->block) || u->k % u->block)) return 0;
    if (kind == FX_AMD && u->scale != MMA_FMT_NONE) return 0;
    if ((u->flags & MMA_F_VIA_FP16) && (x->a_size != 1 || x->b_size != 1)) return 0;
    /* the loads: 16-byte aligned arrays */
    if (((uintptr_t)x->a | (uintptr_t)x->b) % 16) return 0;
    int row = -1;
    for (int r = 0; r < FX_NSHAPES; r++)
        if (fx_shapes[r].kind == kind && fx_shapes[r].L == L && fx_shapes[r].as == x->a_size &&
            fx_shapes[r].bs == x->b_size && fx_shapes[r].g == G)
            row = r;
    if (row < 0) return 0;
    int ftz = kind == FX_FUSED && (u->flags & MMA_F_FTZ_IN);
    if (x->a_size == 1 ? fx_table(u, kind, u->a, P->ta) : fx_ieee_dec(u->a, x->a_size, ftz, &P->da)) return 0;
    if (x->b_size == 1 ? fx_table(u, kind, u->b, P->tb) : fx_ieee_dec(u->b, x->b_size, ftz, &P->db)) return 0;
    P->kind = kind;
    P->L = L;
    P->G = G;
    P->steps = u->k / L;
    P->scaled = u->scale != MMA_FMT_NONE;
    P->bshift = P->scaled ? log2i(u->block) : 0;
    P->zeros_part = !(u->flags & MMA_F_NO_EZERO);
    P->ez = P->zeros_part ? u->ezero : INT32_MIN;
    P->nanprop = (u->flags & MMA_F_NAN_PROP) && !(u->flags & MMA_F_NAN_CANON);
    P->ovf = (u->flags & MMA_F_PROD_OVF) != 0;
    P->evenodd = u->tree == MMA_TREE_EVENODD;
    P->r = mma_unit_rspec(u);
    if (x->a_size == 1 && x->b_size == 1 && u->a == u->b) P->tabs = 1;
    else if (x->a_size == 1 && x->b_size == 1) P->tabs = 2;
    else if (x->a_size == 1) P->tabs = 1;
    else if (x->b_size == 1) {          /* (the b table in the first place) */
        memcpy(P->ta, P->tb, sizeof P->ta);
        P->tabs = 1;
    }
    P->rep = 1;
    return row + 1;
}
