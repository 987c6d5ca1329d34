/* The fast path's shared pieces (fast.h): operand tables, pair tables,
 * the rounding's general case, and the cache of plans with the dispatch
 * to the families (fast_fused*.c, fast_amd.c, fast_groups.c, fast_ieee.c,
 * fast_exact.c). */
#include "fast.h"
#include "fast_hooks.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- operand tables ----------------------------------------------------- */

const uint64_t *fast_tab[MMA_FMT_COUNT];
const uint64_t *fast_btab[MMA_FMT_COUNT];
static uint64_t store8[9][256];
static uint64_t store16[2][65536];
static uint64_t bstore16[2][65536];

static uint64_t entry_of(mma_term t)
{
    uint64_t x = (uint64_t)(uint32_t)t.sig | ((uint64_t)(uint16_t)(int16_t)t.e << 32);
    if (t.neg) x |= T_NEG;
    if (t.cls == MMA_INF || t.cls == MMA_NAN) x |= T_SPEC;
    if (t.cls == MMA_NAN) x |= T_NAN;
    if (t.cls == MMA_ZERO) x = (x & ~(uint64_t)0xffffffffu) | T_ZERO;
    return x;
}

static uint64_t entry(mma_fmt f, uint64_t bits) { return entry_of(mma_term_of(f, bits)); }

__attribute__((constructor)) static void build_tables(void)
{
    static const mma_fmt f8[9] = {MMA_FMT_E4M3, MMA_FMT_E5M2, MMA_FMT_E4M3FNUZ, MMA_FMT_E5M2FNUZ,
                                  MMA_FMT_E3M2, MMA_FMT_E2M3, MMA_FMT_E2M1, MMA_FMT_UE8M0, MMA_FMT_UE4M3};
    for (int i = 0; i < 9; i++) {
        int n = 1 << mma_format(f8[i])->width;   /* (narrower formats repeat) */
        for (int b = 0; b < 256; b++) store8[i][b] = entry(f8[i], (uint64_t)(b & (n - 1)));
        fast_tab[f8[i]] = store8[i];
    }
    for (int b = 0; b < 65536; b++) {
        store16[0][b] = entry(MMA_FMT_FP16, (uint64_t)b);
        store16[1][b] = entry(MMA_FMT_BF16, (uint64_t)b);
    }
    fast_tab[MMA_FMT_FP16] = store16[0];
    fast_tab[MMA_FMT_BF16] = store16[1];
    for (int t = 0; t < 2; t++)
        for (int b = 0; b < 65536; b++) {
            uint64_t x = store16[t][b];
            bstore16[t][b] = (uint64_t)(uint32_t)x | (uint64_t)(uint32_t)(ent_e(x) + 1024) << 32 |
                             ((x & T_SPEC) ? B_SPEC : 0) | ((x & T_NEG) ? (uint64_t)1 << 63 : 0);
        }
    fast_btab[MMA_FMT_FP16] = bstore16[0];
    fast_btab[MMA_FMT_BF16] = bstore16[1];
}

/* Built on first use and published atomically (threads may race to build;
 * the loser frees its copy). */
static uint64_t *via_tab[MMA_FMT_COUNT];

const uint64_t *fast_via_fp16_table(mma_fmt f)
{
    uint64_t *t = __atomic_load_n(&via_tab[f], __ATOMIC_ACQUIRE);
    if (t) return t;
    if (mma_format(f)->width > 8 || !(t = malloc(sizeof(uint64_t) * 256))) return NULL;
    for (int x = 0; x < 256; x++) {
        mma_term v = mma_term_of(f, (uint64_t)(x & ((1 << mma_format(f)->width) - 1)));
        if (v.cls == MMA_FINITE) {           /* (alg_fused.c: via_fp16) */
            v.sig <<= 10 - v.fb;
            v.fb = 10;
            while (v.sig < (1u << 10) && v.e > -14) { v.sig <<= 1; v.e--; }
        }
        t[x] = entry_of(v);
    }
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&via_tab[f], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

static uint64_t *pair_tab[2][MMA_FMT_COUNT][MMA_FMT_COUNT];

static const uint64_t *pair_table(mma_fmt fa, mma_fmt fb, int via)
{
    uint64_t *t = __atomic_load_n(&pair_tab[via][fa][fb], __ATOMIC_ACQUIRE);
    if (t) return t;
    const uint64_t *ta = via ? fast_via_fp16_table(fa) : fast_tab[fa], *tb = via ? fast_via_fp16_table(fb) : fast_tab[fb];
    if (!ta || !tb || !(t = malloc(sizeof(uint64_t) * 65536))) return NULL;
    for (int x = 0; x < 256; x++)
        for (int y = 0; y < 256; y++) t[x << 8 | y] = pack_product(ta[x], tb[y]);
    uint64_t *expected = NULL;
    if (!__atomic_compare_exchange_n(&pair_tab[via][fa][fb], &expected, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(t);
        return expected;
    }
    return t;
}

const uint64_t *fast_pair_table(mma_fmt fa, mma_fmt fb) { return pair_table(fa, fb, 0); }
const uint64_t *fast_via_fp16_pair_table(mma_fmt fa, mma_fmt fb) { return pair_table(fa, fb, 1); }

void fast_src_init(fast_src *s, mma_fmt a, mma_fmt b)
{
    const mma_format_info *fa = mma_format(a), *fb = mma_format(b);
    s->ta = fast_tab[a];
    s->tb = fast_tab[b];
    s->amask = fa->width <= 8 ? 0xff : 0xffff;   /* (the 8-bit tables repeat narrower formats) */
    s->bmask = fb->width <= 8 ? 0xff : 0xffff;
    s->pt = fa->width <= 8 && fb->width <= 8 ? fast_pair_table(a, b) : NULL;
    s->bta = fast_btab[a];
    s->btb = fast_btab[b];
}

void fast_cfmt_init(fast_cfmt *cf, mma_fmt f, int F)
{
    cf->tab = f == MMA_FMT_FP32 ? NULL : fast_tab[f];
    cf->mask = f == MMA_FMT_FP32 ? 0xffffffffu : ((uint64_t)1 << mma_format(f)->width) - 1;
    cf->fb = mma_format(f)->mbits;
    cf->pre = F > cf->fb ? F - cf->fb : 0;
    cf->base = cf->fb - F + cf->pre;
}

/* ---- the rounding --------------------------------------------------------- */

void fast_out_init(fast_out *o, const mma_unit *u)
{
    const mma_format_info *fd = mma_format(u->d);
    o->zsigned = !(u->flags & MMA_F_ZERO_POS);
    o->width = fd->width;
    o->mb = fd->mbits;
    o->p = u->p;
    o->rho = u->rho;
    o->emin = fd->emin;
    o->emaxe = (1 << (fd->ebits - 1)) - 1;
    o->inf = (((uint64_t)1 << fd->ebits) - 1) << fd->mbits;
    o->maxf = o->inf - ((uint64_t)1 << (fd->mbits - u->p));
    o->sign = (uint64_t)1 << (fd->width - 1);
    /* alg_fused.c's NaN: canonical, or the default quiet NaN */
    o->nan = (u->flags & MMA_F_NAN_CANON) ? mma_canonical_nan(u->d)
                                          : mma_inf(u->d, 0) | ((uint64_t)1 << (fd->mbits - 1));
}

/* mma_round_to with the constants of d taken from o: the same steps, the
 * same results (round.c) */
__attribute__((noinline)) uint64_t fast_round_general(const fast_out *o, int neg, uint64_t mag, int32_t lsb)
{
    uint64_t sign = (uint64_t)neg << (o->width - 1);
    if (mag == 0) return o->zsigned ? sign : 0;
    int32_t x = 63 - __builtin_clzll(mag) + lsb;          /* leading-bit exponent */
    int32_t keep = (x < o->emin ? o->emin : x) - o->p;
    int32_t sh = keep - lsb;
    uint64_t q;
    if (sh <= 0) {
        q = mag << -sh;
    } else {
        uint64_t rem, half;
        if (sh >= 64) { q = 0; rem = mag; half = sh == 64 ? (uint64_t)1 << 63 : 0; }
        else { q = mag >> sh; rem = mag & (((uint64_t)1 << sh) - 1); half = (uint64_t)1 << (sh - 1); }
        if (rem && o->rho != MMA_RZ) {
            int up;
            if (o->rho == MMA_RNE) up = sh > 64 ? 0 : rem > half || (rem == half && (q & 1));
            else if (o->rho == MMA_RD) up = neg;
            else up = !neg;
            q += (uint64_t)up;
        }
        if (q == 0) return o->zsigned ? sign : 0;
    }
    int32_t xq = 63 - __builtin_clzll(q) + keep;           /* q may have carried out */
    if (xq > o->emaxe) {
        int to_inf = o->rho == MMA_RZ || o->rho == MMA_RNE || (o->rho == MMA_RD && neg) ||
                     (o->rho == MMA_RU && !neg);
        return sign | (to_inf ? o->inf : o->maxf);
    }
    uint64_t bexp, frac;
    if (xq < o->emin) {
        bexp = 0;
        frac = q << (o->mb - o->p);
    } else {
        bexp = (uint64_t)(xq - o->emin + 1);
        int32_t shift = (xq - o->p) - keep;
        uint64_t qq = shift > 0 ? q >> shift : q;
        frac = (qq & (((uint64_t)1 << o->p) - 1)) << (o->mb - o->p);
    }
    return sign | (bexp << o->mb) | frac;
}

__attribute__((noinline)) uint64_t fast_round_f32rz_rare(const fast_out *o, int64_t sum, int32_t lsb, uint32_t be)
{
    uint64_t sg = (uint64_t)(sum >> 63);
    /* An overflow (be 255 and up; an exponent below 1 wraps round to 1024
     * and up: |sum| < 2^53, and a nonzero sum's lsb lies within a few
     * hundred of 0, a term aligned to emax keeping some bits) is Inf, as
     * mma_round_to's RZ gives it, without the general steps: random bits
     * overflow in a third to half of the dot products. */
    if (sum != 0 && be - 255 < 1024 - 255) return o->inf | (sg & o->sign);
    return fast_round_general(o, (int)(sg & 1), ((uint64_t)sum ^ sg) - sg, lsb);
}

/* ---- operands the vector kernels decode arithmetically ---------------------- */

int fast_vec_op(fast_op *o, mma_fmt f)
{
    const mma_format_info *fi = mma_format(f);
    int width = fi->width, mb = fi->mbits;
    o->shr = 0;
    switch (f) {
    case MMA_FMT_TF32:                                           /* fp32's layout, 13 bits ignored */
        o->shr = 13;
        width = 19;
        /* fall through */
    case MMA_FMT_FP16: case MMA_FMT_BF16: case MMA_FMT_E5M2:     /* Inf/NaN: exponent all ones */
        o->smask = o->sval = (((uint32_t)1 << fi->ebits) - 1) << mb;
        break;
    case MMA_FMT_E4M3:                                           /* NaN: S.1111.111 */
        o->smask = o->sval = 0x7f;
        break;
    case MMA_FMT_E4M3FNUZ: case MMA_FMT_E5M2FNUZ:                /* NaN: 0x80 */
        o->smask = 0xff;
        o->sval = 0x80;
        break;
    case MMA_FMT_E3M2: case MMA_FMT_E2M3: case MMA_FMT_E2M1:     /* no specials */
        o->smask = 0;
        o->sval = 1;
        break;
    default:
        return 0;
    }
    if (fi->emin != 1 - fi->bias || !fi->has_sign || width > 19) return 0;
    o->mb = mb;
    o->mmask = ((uint32_t)1 << mb) - 1;
    o->emask = ((uint32_t)1 << fi->ebits) - 1;
    o->hidden = (uint32_t)1 << mb;
    o->sshift = 32 - width;
    o->bias = fi->bias;
    return 1;
}

#ifdef FAST_HAVE_AVX2
#include <cpuid.h>

const int64_t fast_v_ramp[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

void fast_vop_init(fast_vop *k, const fast_op *o)
{
    for (int i = 0; i < 8; i++) {
        k->mm[i] = (int32_t)o->mmask;
        k->em[i] = (int32_t)o->emask;
        k->hid[i] = (int32_t)o->hidden;
        k->sm[i] = (int32_t)o->smask;
        k->sv[i] = (int32_t)o->sval;
    }
    k->mb[0] = o->mb;
    k->ssh[0] = o->sshift;
    k->shr[0] = o->shr;
}

/* LZCNT (ABM): CPUID leaf 0x80000001, ECX bit 5 */
static int cpu_has_lzcnt(void)
{
    unsigned ea, eb, ec, ed;
    if (!__get_cpuid(0x80000001, &ea, &eb, &ec, &ed)) return 0;
    return (ec >> 5) & 1;
}

/* F16C: CPUID leaf 1, ECX bit 29 (clang 14's __builtin_cpu_supports does
 * not know "f16c") */
int fast_f16c_usable(void)
{
    unsigned ea, eb, ec, ed;
    if (!__get_cpuid(1, &ea, &eb, &ec, &ed)) return 0;
    return (ec >> 29) & 1;
}

static __thread int building_avx2_only;   /* plan_build of FAST_MODE_AVX2 */

int fast_avx512_usable(void)
{
    static int r = -1;
    int v = __atomic_load_n(&r, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        /* (MMAREF_NO_AVX512 set: the AVX2 kernels, to compare the two on one machine) */
        const char *off = getenv("MMAREF_NO_AVX512");
        v = fast_avx2_usable() && !(off && *off) && __builtin_cpu_supports("avx512f") &&
                    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                    __builtin_cpu_supports("avx512dq") ? 1 : 0;
        __atomic_store_n(&r, v, __ATOMIC_RELAXED);
    }
    return v && !building_avx2_only;
}

int fast_avx2_usable(void)
{
    static int r = -1;
    int v = __atomic_load_n(&r, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && cpu_has_lzcnt() ? 1 : 0;
        __atomic_store_n(&r, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

/* ---- plans: made once per unit content, cached ------------------------- */

static const fast_family *const families[] = {&fast_fused_family, &fast_amd_family, &fast_groups_family,
                                              &fast_ieee_family, &fast_exact_family};
#define NFAMILIES (sizeof families / sizeof families[0])

/* The semantics every family's kernels implement (the GPUs'): RZ, RNE, RD
 * or RU; overflow to Inf under RZ and RNE, IEEE's under RD and RU; zero=pos
 * or fixed; the canonical or the default NaN.  The chains of IEEE
 * operations (fma, pairwise) run on the host's arithmetic: RNE only.  The
 * other options of a configuration string (round=rmm|rodd, ovf=, zero=ieee,
 * nan=prop) stay with the reference algorithms. */
static int semantics_ok(const mma_unit *u)
{
    mma_ovr o = mma_unit_ovf(u);
    int ovf_ok = u->rho == MMA_RNE ? o != MMA_OVR_SAT : o == (u->rho == MMA_RZ ? MMA_OVR_INF : MMA_OVR_IEEE);
    if ((u->tree == MMA_TREE_FMA || u->tree == MMA_TREE_PAIRWISE) && u->rho != MMA_RNE) return 0;
    return u->rho <= MMA_RU && ovf_ok && !(u->flags & (MMA_F_ZERO_IEEE | MMA_F_NAN_PROP));
}

static const fast_family *family_of(const mma_unit *u)
{
    if ((int)u->a <= 0 || u->a >= MMA_FMT_COUNT || (int)u->b <= 0 || u->b >= MMA_FMT_COUNT ||
        (int)u->c <= 0 || u->c >= MMA_FMT_COUNT || (int)u->d <= 0 || u->d >= MMA_FMT_COUNT ||
        u->k < 1 || u->k > MMA_MAX_K)
        return NULL;
    /* negated products (neg=1): the reference algorithms compute them */
    if (u->flags & MMA_F_NEG) return NULL;
    /* (the chains family knows its own rules: rodd, IEEE zeros, x86 NaNs) */
    if (u->tree == MMA_TREE_CHAINS) return fast_chains_family.ok(u) ? &fast_chains_family : NULL;
    if (fast_known(u) && !u->lscale && semantics_ok(u))
        for (size_t i = 0; i < NFAMILIES; i++)
            if (families[i]->ok(u)) return families[i];
    /* (exact sums the exact family leaves: block scales, lscale, IEEE zeros,
     * any rounding and overflow rule, through the reference's rounding) */
    return fast_xsum_family.ok(u) ? &fast_xsum_family : NULL;
}

int mma_fast_ok(const mma_unit *u) { return family_of(u) != NULL; }

static int fast_mode_forced;

static inline int key_eq(const fast_hdr *P, const mma_unit *u)
{
    const unsigned char *s = (const unsigned char *)u + FAST_KEY_OFF;
#ifdef FAST_HAVE_AVX2
    if (FAST_KEY_BYTES % 16 == 0) {       /* SSE2, part of x86-64 */
        const unsigned char *k = (const unsigned char *)P->key;
        __m128i d = _mm_setzero_si128();
#pragma GCC unroll 16
        for (size_t i = 0; i < FAST_KEY_BYTES; i += 16)
            d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + i)),
                                              _mm_loadu_si128((const __m128i *)(k + i))));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) == 0xffff;
    }
#endif
    if (FAST_KEY_BYTES % 8 == 0) {
        uint64_t d = 0;
#pragma GCC unroll 32
        for (size_t i = 0; i < FAST_KEY_BYTES / 8; i++) {
            uint64_t w;
            memcpy(&w, s + 8 * i, 8);
            d |= w ^ P->key[i];
        }
        return d == 0;
    }
    return memcmp(s, P->key, FAST_KEY_BYTES) == 0;
}

static void plan_free(fast_hdr *P)
{
    if (P) plan_free(P->sub);
    free(P);
}

static fast_hdr *plan_build(const fast_family *fam, const mma_unit *u, int mode)
{
#ifdef FAST_HAVE_AVX2
    building_avx2_only = mode == FAST_MODE_AVX2;
#endif
    fast_hdr *P = fam->build(u, mode == FAST_MODE_AVX2 ? FAST_MODE_BEST : mode);
#ifdef FAST_HAVE_AVX2
    building_avx2_only = 0;
#endif
    if (!P) return NULL;
    memset(P->key, 0, sizeof P->key);
    memcpy(P->key, (const unsigned char *)u + FAST_KEY_OFF, FAST_KEY_BYTES);
    P->mode = mode;
    P->u = *u;
    P->u.impl = 1;
    return P;
}

/* Plans are immutable once published in the table and never freed; when
 * the table is full a thread builds its own spare plan on each miss. */
#define PLAN_SLOTS 256
static fast_hdr *plan_tab[PLAN_SLOTS];
static __thread const fast_hdr *tl_last __attribute__((tls_model("initial-exec")));
static __thread fast_hdr *tl_spare __attribute__((tls_model("initial-exec")));
/* the spare plan is freed when its thread ends: mma_parallel_for's threads
 * come and go, and the probe (hundreds of units) fills the table */
static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static void spare_free(void *p) { plan_free(p); }
static void spare_key_make(void) { (void)pthread_key_create(&spare_key, spare_free); }

static __attribute__((noinline)) const fast_hdr *plan_lookup(const mma_unit *u)
{
    int mode = __atomic_load_n(&fast_mode_forced, __ATOMIC_RELAXED);
    for (int i = 0; i < PLAN_SLOTS; i++) {
        fast_hdr *P = __atomic_load_n(&plan_tab[i], __ATOMIC_ACQUIRE);
        if (!P) break;
        if (P->mode == mode && key_eq(P, u)) return tl_last = P;
    }
    const fast_family *fam = family_of(u);
    if (!fam) return NULL;
    fast_hdr *P = plan_build(fam, u, mode);
    if (P) {
        for (int i = 0; i < PLAN_SLOTS; i++) {
            fast_hdr *seen = NULL;
            if (__atomic_compare_exchange_n(&plan_tab[i], &seen, P, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return tl_last = P;
            if (seen->mode == mode && key_eq(seen, u)) {   /* another thread was first */
                plan_free(P);
                return tl_last = seen;
            }
        }
        plan_free(tl_spare);
        tl_spare = P;
        pthread_once(&spare_once, spare_key_make);
        pthread_setspecific(spare_key, tl_spare);
        return tl_last = P;
    }
    return tl_last = NULL;
}

/* Tests: mode FAST_MODE_* for plans looked up from now on (not for
 * concurrent use). */
void mma_fast_force(int mode)
{
    __atomic_store_n(&fast_mode_forced, mode, __ATOMIC_RELAXED);
    tl_last = NULL;
}

/* Tests and bench: the kernel that computes u (FAST_K_*; 0: the reference) */
int mma_fast_kernel(const mma_unit *u)
{
    if (!mma_fast_ok(u)) return FAST_K_REF;
    const fast_hdr *P = plan_lookup(u);
    return P ? P->kernel : FAST_K_REF;
}

const fast_hdr *fast_plan_of(const mma_unit *u)
{
    if (u->impl != 2 && !(u->impl == 0 && mma_fast_ok(u))) return NULL;   /* (mma_dot's choice) */
    const fast_hdr *P = tl_last;
    return P && key_eq(P, u) ? P : plan_lookup(u);
}

/* Tests: what a batch of u at natural widths takes: 2 the plan's batch
 * loop (bfn), 1 its narrow kernel (nfn), 0 the widening path */
int mma_fast_narrow(const mma_unit *u)
{
    const fast_hdr *P = fast_plan_of(u);
    if (!P) return 0;
    if (P->bfn && !mma_unit_nscales(u)) return 2;
    return P->nfn ? 1 : 0;
}

static __attribute__((noinline)) uint64_t fast_miss(const mma_unit *u, uint64_t c, const uint64_t *a,
                                                     const uint64_t *b, const uint64_t *sa, const uint64_t *sb)
{
    const fast_hdr *P = plan_lookup(u);
    if (!P) return mma_ref_dot(u, c, a, b, sa, sb);   /* (no memory for a plan) */
    return P->fn(P, c, a, b, sa, sb);
}

/* (mma_fast_force clears this thread's last plan, so that the mode needs
 * no check here) */
static uint64_t fast_dot_sse(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                             const uint64_t *sa, const uint64_t *sb)
{
    const fast_hdr *P = tl_last;
    if (__builtin_expect(P && key_eq(P, u), 1)) return P->fn(P, c, a, b, sa, sb);
    return fast_miss(u, c, a, b, sa, sb);
}

typedef uint64_t (*fast_dot_fn)(const mma_unit *, uint64_t, const uint64_t *, const uint64_t *, const uint64_t *,
                                const uint64_t *);
static fast_dot_fn fast_dot_impl = fast_dot_sse;

#ifdef FAST_HAVE_AVX2
/* The same with the key compared 32 bytes at a time: the check every dot
 * product pays, about half the instructions of SSE2's. */
static V_TARGET uint64_t fast_dot_avx2(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                                       const uint64_t *sa, const uint64_t *sb)
{
    const fast_hdr *P = tl_last;
    if (__builtin_expect(P != NULL, 1)) {
        const unsigned char *s = (const unsigned char *)u + FAST_KEY_OFF, *k = (const unsigned char *)P->key;
        __m256i d = _mm256_setzero_si256();
        size_t i = 0;
#pragma GCC unroll 8
        for (; i + 32 <= FAST_KEY_BYTES; i += 32)
            d = _mm256_or_si256(d, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(s + i)),
                                                    _mm256_loadu_si256((const __m256i *)(k + i))));
        if (FAST_KEY_BYTES % 32 >= 16) {
            d = _mm256_or_si256(d, _mm256_castsi128_si256(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(s + i)),
                                                                        _mm_loadu_si128((const __m128i *)(k + i)))));
            i += 16;
        }
        uint64_t r = 0;
#pragma GCC unroll 2
        for (; i < FAST_KEY_BYTES; i += 8) {
            uint64_t w, x;
            memcpy(&w, s + i, 8);
            memcpy(&x, k + i, 8);
            r |= w ^ x;
        }
        if (__builtin_expect(_mm256_testz_si256(d, d) && !r, 1)) return P->fn(P, c, a, b, sa, sb);
    }
    return fast_miss(u, c, a, b, sa, sb);
}
_Static_assert(FAST_KEY_BYTES % 8 == 0, "the key compares in whole words");

__attribute__((constructor)) static void fast_dot_choose(void)
{
    if (fast_avx2_usable()) fast_dot_impl = fast_dot_avx2;
}
#endif

uint64_t mma_fast_dot(const mma_unit *u, uint64_t c, const uint64_t *a, const uint64_t *b,
                      const uint64_t *sa, const uint64_t *sb)
{
    return fast_dot_impl(u, c, a, b, sa, sb);
}
