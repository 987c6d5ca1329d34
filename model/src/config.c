/* Configuration strings: every unit, preset or not, is a list of
 *   <tree>,key=value,...
 * e.g. "fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,l=32,f=13,align=rz,round=rz,
 * p=13,ezero=-133".  mma_unit_config() writes the canonical form, which
 * mma_unit_parse() reads back to the same unit. */
#include "internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EZ_NONE INT_MIN

static const char *tree_names[] = {"fused", "evenodd", "groups", "pairwise", "fma", "exact", "ieee", "chains"};
#define NTREES 8
static const char *rnd_names[] = {"rz", "rne", "rd", "ru", "rmm", "rodd"};
static const char *ovf_names[] = {"", "ieee", "inf", "sat"};
static const char *cadd_names[] = {"fused", "rd", "rdz", "after"};
static const char *start_names[] = {"", "c", "zero", "none"};

int mma_errf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static int lookup(const char *v, const char **names, int n)
{
    for (int i = 0; i < n; i++) if (strcmp(v, names[i]) == 0) return i;
    return -1;
}

static int parse_int(const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < INT_MIN / 2 || x > INT_MAX / 2) return -1;
    *out = (int)x;
    return 0;
}

/* Defaults that depend on other fields, then the checks that keep every
 * accepted unit inside what the fixed-point code computes exactly. */
int mma_unit_finish(mma_unit *u, unsigned given, char *err, size_t len);

enum { G_L = 1, G_ROUND = 2, G_P = 4, G_ZERO = 8, G_NAN = 16, G_F2 = 32, G_C = 64, G_D = 128, G_B = 256,
       G_OVF = 512, G_TINY = 1024, G_NAN_NOTANY = 2048, G_F = 4096, G_K = 8192 };

/* Output formats: the fused, exact and ieee trees round into any format
 * the model takes as an input (but tf32); the AMD and block-scaled fp4
 * trees into fp32, fp16 or bf16; fma and pairwise compute in fp32/fp64. */
static int any_output(mma_fmt d)
{
    return d != MMA_FMT_NONE && d != MMA_FMT_TF32 && d != MMA_FMT_UE8M0 && d != MMA_FMT_UE4M3;
}

int mma_unit_finish(mma_unit *u, unsigned given, char *err, size_t len)
{
    const char *tn = tree_names[u->tree];
    int exactish = u->tree == MMA_TREE_EXACT || u->tree == MMA_TREE_IEEE;
    int chains = u->tree == MMA_TREE_CHAINS;       /* (alg_chains.c: IEEE defaults, its own checks) */
    int free_out = exactish || chains || (u->tree == MMA_TREE_FUSED && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER)
                                && u->scale == MMA_FMT_NONE);
    if (!(given & G_B)) u->b = u->a;
    if (!(given & G_C)) u->c = MMA_FMT_FP32;
    if (!(given & G_D)) u->d = u->c;
    if (u->a == MMA_FMT_NONE) return mma_errf(err, len, "configuration: field 'a' (input format) is required");
    if (!(given & G_K)) return mma_errf(err, len, "configuration: field 'k' (products per dot product, 1..%d) is required", MMA_MAX_K);
    if (u->k <= 0 || u->k > MMA_MAX_K)
        return mma_errf(err, len, "configuration: field 'k' must be 1..%d (got %d)", MMA_MAX_K, u->k);
    if (!(given & G_L)) u->lmax = u->k;
    if (u->lmax <= 0 || u->k % u->lmax)
        return mma_errf(err, len, "configuration: field 'l' must divide k (k=%d, l=%d)", u->k, u->lmax);
    mma_fmt d = u->d;
    if (free_out) {
        if (!any_output(d))
            return mma_errf(err, len, "configuration: field 'd': %s is no output format", mma_format(d)->name);
    } else if (d != MMA_FMT_FP32 && d != MMA_FMT_FP16 && d != MMA_FMT_BF16 && d != MMA_FMT_FP64) {
        return mma_errf(err, len, "configuration: field 'd' must be fp32, fp16, bf16 or fp64 for tree '%s'%s", tn,
                    u->tree == MMA_TREE_FUSED ? (u->scale != MMA_FMT_NONE ? " with block scales" : " with cadd=rd/rdz") : "");
    }
    if (!exactish && !free_out && u->c != d && !(u->c == MMA_FMT_FP32 || u->c == MMA_FMT_FP16 || u->c == MMA_FMT_BF16))
        return mma_errf(err, len, "configuration: field 'c' must be fp32, fp16, bf16 or the output format");
    const mma_format_info *di = mma_format(d);
    int ieee = u->tree == MMA_TREE_FMA || u->tree == MMA_TREE_PAIRWISE;   /* host IEEE arithmetic */
    if (!(given & G_ROUND)) u->rho = d == MMA_FMT_FP32 && u->tree != MMA_TREE_FMA &&
                                     u->tree != MMA_TREE_PAIRWISE && !exactish && !chains
                                     && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER) ? MMA_RZ : MMA_RNE;
    if (!(given & G_P)) u->p = di->mbits;
    if (u->p < 1 || u->p > di->mbits)
        return mma_errf(err, len, "configuration: field 'p' must be 1..%d for d=%s", di->mbits, di->name);
    if ((ieee || u->tree == MMA_TREE_IEEE || chains) && u->p != di->mbits)
        return mma_errf(err, len, "configuration: tree '%s' rounds to the full output format (p=%d)", tn, di->mbits);
    /* the semantics of results: IEEE 754 on the ieee tree, NVIDIA's
     * conventions on the others unless given */
    if (u->tree == MMA_TREE_IEEE || chains) {
        if (!(given & G_ZERO)) u->flags |= MMA_F_ZERO_IEEE;
    } else {
        if ((given & G_TINY))
            return mma_errf(err, len, "configuration: field 'tiny': tree '%s' defines no exception flags (tree 'ieee' does)", tn);
        if (!(given & G_ZERO) && !ieee) u->flags |= MMA_F_ZERO_POS;
        if (!(given & G_NAN) && !ieee) u->flags |= MMA_F_NAN_CANON;
    }
    if (!(given & G_OVF)) u->flags |= (unsigned)(ieee ? MMA_OVR_IEEE : mma_default_ovf(u->tree, u->rho)) << 10;
    if ((u->flags & MMA_F_PROD_OVF) && !(u->tree == MMA_TREE_FUSED || u->tree == MMA_TREE_EVENODD))
        return mma_errf(err, len, "configuration: field 'povf': tree '%s' has no product overflow (fused, evenodd)", tn);
    /* for every tree (found by fuzzing: exact,...,scale=ue8m0 without a block
     * divided by zero counting the scales) */
    if (u->scale != MMA_FMT_NONE) {
        if (u->scale != MMA_FMT_UE8M0 && u->scale != MMA_FMT_UE4M3)
            return mma_errf(err, len, "configuration: field 'scale' must be ue8m0 or ue4m3");
        if (u->block <= 0 || u->k % u->block)
            return mma_errf(err, len, "configuration: field 'block' must divide k");
        if (u->k / u->block > MMA_MAX_SCALES)   /* found by fuzzing: 32 scales overran every scale array */
            return mma_errf(err, len, "configuration: field 'block': at most %d blocks (k / block) per operand", MMA_MAX_SCALES);
    }
    int wide = u->a == MMA_FMT_FP64 || u->b == MMA_FMT_FP64 || u->c == MMA_FMT_FP64 || u->d == MMA_FMT_FP64;
    if (ieee) {
        /* the host's fma and fp32 adds decide rounding, overflow, zeros
         * and NaN payloads */
        if (given & (G_OVF | G_ZERO | G_NAN_NOTANY))
            return mma_errf(err, len, "configuration: tree '%s' computes with the host's IEEE %s: fields 'ovf', 'zero' and 'nan' (but nan=any) do not apply (tree 'ieee' takes them)",
                        tn, u->tree == MMA_TREE_FMA ? "fma (NaN payloads as NVIDIA DMMA passes them)" : "fp32 additions");
        if (u->scale != MMA_FMT_NONE)
            return mma_errf(err, len, "configuration: tree '%s' does not take block scales", tn);
        if (u->cadd != MMA_CADD_FUSED || u->interleave)
            return mma_errf(err, len, "configuration: tree '%s' adds in k order (fields 'cadd', 'interleave' do not apply)", tn);
    }
    if ((u->flags & (MMA_F_NAN_X86 | MMA_F_NAN_INDEF | MMA_F_VIA_TF32 | MMA_F_ORDER_DOWN)) || u->ways || u->fuse || u->start) {
        if (!chains) return mma_errf(err, len, "configuration: fields 'ways', 'fuse', 'start', 'order', nan=x86|indef and via=tf32 belong to tree 'chains'");
    }
    if (u->align == MMA_RODD && !chains) return mma_errf(err, len, "configuration: align=rodd belongs to tree 'chains'");
    if (u->lscale && !exactish) return mma_errf(err, len, "configuration: field 'lscale' belongs to trees 'exact' and 'ieee'");
    if (chains) return mma_chains_finish(u, err, len);
    if (u->tree == MMA_TREE_FMA) {
        if (!(u->a == d && u->b == d && u->c == d && (d == MMA_FMT_FP64 || d == MMA_FMT_FP32)))
            return mma_errf(err, len, "configuration: tree 'fma' needs a=b=c=d=fp32 or fp64");
        if (u->rho != MMA_RNE) return mma_errf(err, len, "configuration: tree 'fma' rounds to nearest even (round=rne; tree 'ieee' with l=1 takes any rounding)");
        return 0;
    }
    if (wide && !exactish) return mma_errf(err, len, "configuration: fp64 operands or output need tree 'fma', 'exact' or 'ieee'");
    if (u->scale != MMA_FMT_NONE && wide) return mma_errf(err, len, "configuration: block scales do not take fp64 operands");
    if (u->tree == MMA_TREE_PAIRWISE) {
        if (u->g <= 0 || u->k % u->g || (u->g & (u->g - 1)))
            return mma_errf(err, len, "configuration: field 'g' must be a power of two dividing k (tree pairwise)");
        if (d != MMA_FMT_FP32 || u->rho != MMA_RNE)
            return mma_errf(err, len, "configuration: tree 'pairwise' computes in fp32 with round=rne");
        return 0;
    }
    if (exactish) {
        if (u->cadd != MMA_CADD_FUSED || u->interleave)
            return mma_errf(err, len, "configuration: tree '%s' sums c with the products exactly, in k order (fields 'cadd', 'interleave' do not apply)", tn);
        return 0;
    }
    int fmax = u->tree == MMA_TREE_GROUPS ? 45 : 48;
    if (!(given & G_F))
        return mma_errf(err, len, "configuration: field 'f' is missing (the fraction bits kept in alignment, 1..%d)", fmax);
    if (u->f < 1 || u->f > fmax)
        return mma_errf(err, len, "configuration: field 'f' must be 1..%d (got %d)", fmax, u->f);
    if (u->tree == MMA_TREE_GROUPS) {
        if (u->scale == MMA_FMT_NONE) return mma_errf(err, len, "configuration: tree 'groups' needs 'scale' and 'block'");
        if (u->g <= 0 || u->k % u->g || u->block % u->g)
            return mma_errf(err, len, "configuration: field 'g' must divide k and the block size");
        if (mma_format(u->a)->width > 8 || mma_format(u->b)->width > 8)
            return mma_errf(err, len, "configuration: tree 'groups' takes 8-bit or narrower inputs");
        if (!mma_groups_sums_fit(u))
            return mma_errf(err, len, "configuration: tree 'groups' with a=%s, b=%s, g=%d, f=%d: a group's sum needs more "
                        "than the model's 64-bit fixed point (narrower inputs, a smaller g or f)",
                        mma_format(u->a)->name, mma_format(u->b)->name, u->g, u->f);
    }
    if (u->tree == MMA_TREE_EVENODD && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER))
        return mma_errf(err, len, "configuration: tree 'evenodd' needs cadd=rd or cadd=rdz");
    if (u->tree == MMA_TREE_GROUPS && u->cadd != MMA_CADD_FUSED)
        return mma_errf(err, len, "configuration: tree 'groups' adds c in its fused sum (cadd=fused)");
    if ((u->flags & MMA_F_VIA_FP16) && (u->tree != MMA_TREE_FUSED || u->scale != MMA_FMT_NONE ||
                                        (u->a != MMA_FMT_E4M3 && u->a != MMA_FMT_E5M2) ||
                                        (u->b != MMA_FMT_E4M3 && u->b != MMA_FMT_E5M2)))
        return mma_errf(err, len, "configuration: via=fp16 takes e4m3 or e5m2 inputs (tree fused, no scales)");
    if (u->interleave && (u->lmax % u->interleave || u->tree != MMA_TREE_FUSED))
        return mma_errf(err, len, "configuration: field 'interleave' must divide l (tree fused)");
    if (u->cadd == MMA_CADD_AFTER) {
        if (u->scale != MMA_FMT_NONE) return mma_errf(err, len, "configuration: cadd=after does not take block scales");
        if (u->c != u->d) return mma_errf(err, len, "configuration: cadd=after needs c and d of one format");
        return 0;
    }
    if (u->cadd != MMA_CADD_FUSED) {
        if (!(given & G_F2)) u->f2 = u->f + 7;
        if (u->f2 < u->f || u->f2 > 40)
            return mma_errf(err, len, "configuration: field 'f2' must be f..40");
        if (u->scale != MMA_FMT_NONE)
            return mma_errf(err, len, "configuration: cadd=%s does not take block scales", cadd_names[u->cadd]);
    }
    return 0;
}

int mma_config_parse(const char *text, mma_unit *u, char *err, size_t len)
{
    char buf[512];
    if (strlen(text) >= sizeof buf) return mma_errf(err, len, "configuration string too long");
    strcpy(buf, text);
    memset(u, 0, sizeof *u);
    u->tree = MMA_TREE_FUSED;
    u->align = MMA_RZ;
    u->ezero = EZ_NONE;
    unsigned given = 0;
    int first = 1, nseen = 0;
    const char *seen_k[64], *seen_v[64];
    for (char *rest = buf, *tok; (tok = strsep(&rest, ",")) != NULL; first = 0) {
        if (!*tok) return mma_errf(err, len, "configuration: an empty field (two commas in a row, or one at an end)");
        char *eq = strchr(tok, '=');
        if (!eq) {
            int t = lookup(tok, tree_names, NTREES);
            if (!first || t < 0)
                return mma_errf(err, len, "configuration: '%s' is not key=value (trees: fused evenodd groups pairwise fma exact ieee)", tok);
            u->tree = (mma_tree)t;
            continue;
        }
        *eq = 0;
        const char *k = tok, *v = eq + 1;
        int iv = 0, bad = 0;
        /* a key given twice is a mistake (a=e4m3,a=e5m2 changed b too) */
        for (int i = 0; i < nseen; i++)
            if (!strcmp(seen_k[i], k))
                return mma_errf(err, len, "configuration: field '%s' given twice ('%s', then '%s')", k, seen_v[i], v);
        if (nseen < (int)(sizeof seen_k / sizeof seen_k[0])) { seen_k[nseen] = k; seen_v[nseen++] = v; }
        mma_fmt f = mma_format_by_name(v);
        if (!strcmp(k, "tree")) { int t = lookup(v, tree_names, NTREES); bad = t < 0; if (!bad) u->tree = (mma_tree)t; }
        else if (!strcmp(k, "a")) { bad = !f; u->a = f; }
        else if (!strcmp(k, "b")) { bad = !f; u->b = f; given |= G_B; }
        else if (!strcmp(k, "c")) { bad = !f; u->c = f; given |= G_C; }
        else if (!strcmp(k, "d")) {
            if (!strcmp(v, "e8m13")) { u->d = MMA_FMT_FP32; u->p = 13; given |= G_P; }
            else { bad = !f; u->d = f; }
            given |= G_D;
        }
        else if (!strcmp(k, "scale")) { bad = !f; u->scale = f; }
        else if (!strcmp(k, "k")) { bad = parse_int(v, &u->k); given |= G_K; }
        else if (!strcmp(k, "l")) { bad = parse_int(v, &u->lmax); given |= G_L; }
        else if (!strcmp(k, "f")) { bad = parse_int(v, &u->f); given |= G_F; }
        else if (!strcmp(k, "f2")) { bad = parse_int(v, &u->f2); given |= G_F2; }
        else if (!strcmp(k, "g")) bad = parse_int(v, &u->g);
        else if (!strcmp(k, "interleave")) bad = parse_int(v, &u->interleave) || u->interleave < 0;
        else if (!strcmp(k, "block")) bad = parse_int(v, &u->block);
        else if (!strcmp(k, "p")) { bad = parse_int(v, &u->p); given |= G_P; }
        else if (!strcmp(k, "align")) { iv = lookup(v, rnd_names, 6); bad = iv != MMA_RZ && iv != MMA_RD && iv != MMA_RODD; if (!bad) u->align = (mma_rounding)iv; }
        else if (!strcmp(k, "ways")) bad = parse_int(v, &u->ways) || u->ways < 1;
        else if (!strcmp(k, "fuse")) bad = parse_int(v, &u->fuse) || u->fuse < 1;
        else if (!strcmp(k, "start")) { iv = lookup(v, start_names, 4); bad = iv < 1; if (!bad) u->start = iv; }
        else if (!strcmp(k, "order")) {
            u->flags &= ~MMA_F_ORDER_DOWN;
            if (!strcmp(v, "down")) u->flags |= MMA_F_ORDER_DOWN; else bad = strcmp(v, "up") != 0;
        }
        else if (!strcmp(k, "lscale")) bad = parse_int(v, &u->lscale) || u->lscale < 0 || u->lscale > 127;
        else if (!strcmp(k, "round")) { iv = lookup(v, rnd_names, 6); bad = iv < 0; if (!bad) u->rho = (mma_rounding)iv; given |= G_ROUND; }
        else if (!strcmp(k, "ovf")) {
            int satinf = !strcmp(v, "sat+inf");      /* (Arm FPMR.OSM: only a finite result saturates) */
            iv = satinf ? MMA_OVR_SAT : lookup(v, ovf_names, 4);
            bad = iv < 1;
            u->flags &= ~(MMA_F_OVF_MASK | MMA_F_SAT_INF);
            if (satinf) u->flags |= MMA_F_SAT_INF;
            if (!bad) u->flags |= (unsigned)iv << 10;
            given |= G_OVF;
        }
        else if (!strcmp(k, "tiny")) {
            given |= G_TINY;
            u->flags &= ~MMA_F_TINY_BEFORE;
            if (!strcmp(v, "before")) u->flags |= MMA_F_TINY_BEFORE; else bad = strcmp(v, "after") != 0;
        }
        else if (!strcmp(k, "cadd")) { iv = lookup(v, cadd_names, 4); bad = iv < 0; if (!bad) u->cadd = (mma_cadd)iv; }
        else if (!strcmp(k, "ezero")) {
            if (!strcmp(v, "none")) u->ezero = EZ_NONE;
            else bad = parse_int(v, &u->ezero);
        }
        else if (!strcmp(k, "ftz")) {
            u->flags &= ~(MMA_F_FTZ_IN | MMA_F_FTZ_SUM);
            if (!strcmp(v, "none")) {}
            else if (!strcmp(v, "in")) u->flags |= MMA_F_FTZ_IN;
            else if (!strcmp(v, "in+sum") || !strcmp(v, "in+out")) u->flags |= MMA_F_FTZ_IN | MMA_F_FTZ_SUM;
            else if (!strcmp(v, "out")) u->flags |= MMA_F_FTZ_SUM;
            else bad = 1;
        }
        else if (!strcmp(k, "via")) {
            u->flags &= ~(MMA_F_VIA_FP16 | MMA_F_VIA_TF32);
            if (!strcmp(v, "fp16")) u->flags |= MMA_F_VIA_FP16;
            else if (!strcmp(v, "tf32")) u->flags |= MMA_F_VIA_TF32;
            else bad = 1;
        }
        else if (!strcmp(k, "neg")) {
            bad = parse_int(v, &iv) || iv < 0 || iv > 1;
            u->flags &= ~MMA_F_NEG;
            if (!bad && iv) u->flags |= MMA_F_NEG;
        }
        else if (!strcmp(k, "povf")) {
            bad = parse_int(v, &iv) || iv < 0 || iv > 1;
            u->flags &= ~MMA_F_PROD_OVF;
            if (!bad && iv) u->flags |= MMA_F_PROD_OVF;
        }
        else if (!strcmp(k, "nan")) {
            /* the NaN written (canon, default, prop; "ieee" is the old name
             * of default), "+any" when checkers accept any NaN for it */
            char rule[16];
            size_t rl = strcspn(v, "+");
            int any = !strcmp(v + rl, "+any") || !strcmp(v, "any");
            given |= G_NAN;
            u->flags &= ~(MMA_F_NAN_CANON | MMA_F_NAN_PROP | MMA_F_NAN_ANY | MMA_F_NAN_X86 | MMA_F_NAN_INDEF);
            snprintf(rule, sizeof rule, "%.*s", rl < sizeof rule ? (int)rl : 0, v);
            if (any) u->flags |= MMA_F_NAN_ANY;
            if (!strcmp(v, "any")) {}
            else if (v[rl] && !any) bad = 1;
            else if (!strcmp(rule, "canon")) u->flags |= MMA_F_NAN_CANON;
            else if (!strcmp(rule, "prop")) u->flags |= MMA_F_NAN_PROP;
            else if (!strcmp(rule, "x86")) u->flags |= MMA_F_NAN_X86;
            else if (!strcmp(rule, "indef")) u->flags |= MMA_F_NAN_INDEF;
            else if (strcmp(rule, "default") && strcmp(rule, "ieee")) bad = 1;
            if (strcmp(v, "any")) given |= G_NAN_NOTANY;
        }
        else if (!strcmp(k, "zero")) {
            given |= G_ZERO;
            u->flags &= ~(MMA_F_ZERO_POS | MMA_F_ZERO_IEEE);
            if (!strcmp(v, "pos")) u->flags |= MMA_F_ZERO_POS;
            else if (!strcmp(v, "ieee")) u->flags |= MMA_F_ZERO_IEEE;
            else bad = strcmp(v, "fixed") != 0;
        }
        else return mma_errf(err, len, "configuration: unknown field '%s' (fields: a b c d k l f f2 g scale block align round p cadd ezero ftz via povf nan zero ovf tiny neg ways fuse start order lscale)", k);
        if (bad) return mma_errf(err, len, "configuration: field '%s' has a bad value '%s'", k, v);
    }
    if (u->ezero == EZ_NONE) u->flags |= MMA_F_NO_EZERO;
    /* far beyond every product exponent it means nothing, and it broke the
     * fast path's exponent arithmetic (found by fuzzing: ezero=-133231 gave
     * a negative shift) */
    else if (u->ezero < -1000 || u->ezero > 1000)
        return mma_errf(err, len, "configuration: field 'ezero' must be -1000..1000 or none (got %d)", u->ezero);
    if ((u->flags & MMA_F_FTZ_IN) && u->tree != MMA_TREE_CHAINS &&
        !(u->tree == MMA_TREE_FUSED && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER)))
        return mma_errf(err, len, "configuration: field 'ftz' is supported by trees 'fused' and 'chains' (pairwise always flushes)");
    if ((u->flags & MMA_F_FTZ_SUM) && u->tree != MMA_TREE_PAIRWISE && u->tree != MMA_TREE_CHAINS)
        return mma_errf(err, len, "configuration: ftz=in+sum belongs to tree 'pairwise', and flushing results (ftz=out, in+out) to tree 'chains'");
    if (u->tree == MMA_TREE_PAIRWISE) u->flags |= MMA_F_FTZ_IN | MMA_F_FTZ_SUM;
    if ((u->flags & MMA_F_NEG) && !(u->tree == MMA_TREE_EXACT || u->tree == MMA_TREE_IEEE ||
                                     (u->tree == MMA_TREE_FUSED && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER))))
        return mma_errf(err, len, "configuration: field 'neg': trees fused (cadd=fused or after), exact and ieee negate their products");
    int rc = mma_unit_finish(u, given, err, len);
    if (rc) return rc;
    /* a field the unit does not use is a mistake, not an option: the
     * canonical form (mma_unit_config) writes every field that matters */
    static const char *const situational[] = {"l", "f2", "g", "block", "interleave"};
    char canon[600];
    mma_unit_config(u, canon, sizeof canon);
    for (int i = 0; i < nseen; i++)
        for (size_t j = 0; j < sizeof situational / sizeof situational[0]; j++) {
            char key[24];
            snprintf(key, sizeof key, ",%s=", situational[j]);
            if (!strcmp(seen_k[i], situational[j]) && !strstr(canon, key))
                return mma_errf(err, len, "configuration: field '%s' does not apply to this unit (tree '%s'%s)", seen_k[i],
                                tree_names[u->tree], u->cadd != MMA_CADD_FUSED ? "" : ", cadd=fused");
        }
    u->impl = mma_unit_impl(u);
    return 0;
}

#define APPEND(...) do { int w_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__); if (w_ > 0) n += (size_t)w_; } while (0)

static const char *nan_name(unsigned fl)
{
    int any = (fl & MMA_F_NAN_ANY) != 0;
    if (fl & MMA_F_NAN_CANON) return any ? "canon+any" : "canon";
    if (fl & MMA_F_NAN_PROP) return any ? "prop+any" : "prop";
    return any ? "any" : "default";
}

static const char *zero_name(unsigned fl)
{
    return (fl & MMA_F_ZERO_POS) ? "pos" : (fl & MMA_F_ZERO_IEEE) ? "ieee" : "fixed";
}


int mma_unit_config(const mma_unit *u, char *buf, size_t len)
{
    size_t n = 0;
    if (u->tree == MMA_TREE_CHAINS) return mma_chains_config(u, buf, len);
    APPEND("%s,a=%s,b=%s,c=%s,d=%s,k=%d", tree_names[u->tree], mma_format(u->a)->name,
           mma_format(u->b)->name, mma_format(u->c)->name, mma_format(u->d)->name, u->k);
    if (u->tree == MMA_TREE_FMA || u->tree == MMA_TREE_PAIRWISE) {
        /* IEEE trees: NaN payloads and zero signs are IEEE unless the
         * unit leaves the payload open (AMD) */
        if (u->tree == MMA_TREE_PAIRWISE) APPEND(",g=%d", u->g);
        if (u->flags & MMA_F_NAN_ANY) APPEND(",nan=any");
        return (int)n;
    }
    APPEND(",l=%d", u->lmax);
    int exactish = u->tree == MMA_TREE_EXACT || u->tree == MMA_TREE_IEEE;
    if (!exactish) APPEND(",f=%d", u->f);
    if (u->cadd == MMA_CADD_AFTER) APPEND(",cadd=after");
    else if (u->cadd != MMA_CADD_FUSED) APPEND(",f2=%d,cadd=%s", u->f2, cadd_names[u->cadd]);
    if (u->interleave) APPEND(",interleave=%d", u->interleave);
    if (u->tree == MMA_TREE_GROUPS) APPEND(",g=%d", u->g);
    if (u->scale != MMA_FMT_NONE) APPEND(",scale=%s,block=%d", mma_format(u->scale)->name, u->block);
    if (!exactish) APPEND(",align=%s", rnd_names[u->align]);
    APPEND(",round=%s", rnd_names[u->rho]);
    if (u->tree != MMA_TREE_IEEE) APPEND(",p=%d", u->p);
    /* overflow: always on the ieee tree, elsewhere where not the default */
    if (u->tree == MMA_TREE_IEEE || mma_unit_ovf(u) != mma_default_ovf(u->tree, u->rho))
        APPEND(",ovf=%s%s", ovf_names[mma_unit_ovf(u)], (u->flags & MMA_F_SAT_INF) ? "+inf" : "");
    if (u->lscale) APPEND(",lscale=%d", u->lscale);
    if (!exactish && (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER)) {
        if (u->flags & MMA_F_NO_EZERO) APPEND(",ezero=none");
        else APPEND(",ezero=%d", u->ezero);
    }
    if ((u->flags & MMA_F_FTZ_IN) && u->tree != MMA_TREE_PAIRWISE) APPEND(",ftz=in");
    if (u->flags & MMA_F_VIA_FP16) APPEND(",via=fp16");
    if (u->flags & MMA_F_PROD_OVF) APPEND(",povf=1");
    APPEND(",nan=%s,zero=%s", nan_name(u->flags), zero_name(u->flags));
    if (u->tree == MMA_TREE_IEEE) APPEND(",tiny=%s", (u->flags & MMA_F_TINY_BEFORE) ? "before" : "after");
    if (u->flags & MMA_F_NEG) APPEND(",neg=1");
    return (int)n;
}

static const char *rounding_words(mma_rounding r)
{
    static const char *w[] = {"toward zero", "to nearest, ties to even", "down (toward -Inf)",
                              "up (toward +Inf)", "to nearest, ties away from zero",
                              "to odd (cut, then the last bit set if anything was cut)"};
    return w[r];
}

/* What a result too large, a NaN and an exact zero become, in words. */
static size_t explain_results(const mma_unit *u, char *buf, size_t len, size_t n)
{
    const char *dn = mma_format(u->d)->name;
    const mma_format_info *di = mma_format(u->d);
    int nan_only = u->d == MMA_FMT_E4M3 || u->d == MMA_FMT_E4M3FNUZ || u->d == MMA_FMT_E5M2FNUZ;
    const char *inf = di->has_inf ? "Inf" : nan_only ? "NaN" : "the largest finite";
    switch (mma_unit_ovf(u)) {
    case MMA_OVR_INF: APPEND(" Overflow gives %s, whatever the rounding (ovf=inf).", inf); break;
    case MMA_OVR_SAT:
        if (u->flags & MMA_F_SAT_INF) APPEND(" Overflow gives the largest finite %s; an Inf operand still gives Inf (ovf=sat+inf).", dn);
        else APPEND(" Overflow, and an infinite result, give the largest finite %s (ovf=sat).", dn);
        break;
    default:
        switch (u->rho) {
        case MMA_RNE: case MMA_RMM: APPEND(" Overflow gives %s (IEEE 754, ovf=ieee).", inf); break;
        case MMA_RD: APPEND(" Overflow gives the largest finite %s when positive and %s when negative (IEEE 754, ovf=ieee).", dn, inf); break;
        case MMA_RU: APPEND(" Overflow gives %s when positive and the largest finite %s when negative (IEEE 754, ovf=ieee).", inf, dn); break;
        default: APPEND(" Overflow gives the largest finite %s (IEEE 754, ovf=ieee).", dn); break;
        }
    }
    if (!di->has_inf)
        APPEND(" %s has no Inf: an infinite result is %s.", dn, nan_only ? "its NaN" : "the largest finite of its sign");
    if (!di->has_inf && !nan_only) APPEND(" It has no NaN either: a NaN result is its largest finite, positive.");
    else if (u->flags & MMA_F_NAN_CANON) APPEND(" A NaN result is the canonical NaN (all ones but the sign; nan=canon).");
    else if (u->flags & MMA_F_NAN_PROP)
        APPEND(" A NaN result is the first NaN operand in the order c, a[0], b[0], a[1], b[1], ... (a step's c, then its products' operands), quieted, its payload aligned to the top of the fraction; without a NaN operand (0*Inf, Inf-Inf) the default NaN (nan=prop).");
    else APPEND(" A NaN result is the IEEE default quiet NaN (positive, quiet bit only; nan=default).");
    if (u->flags & MMA_F_NAN_ANY) APPEND(" Its payload is not specified: checkers match any NaN against any NaN.");
    if (u->flags & MMA_F_ZERO_POS) APPEND(" A zero result is +0 (zero=pos).");
    else if (u->flags & MMA_F_ZERO_IEEE)
        APPEND(" An exactly zero sum of zeros of one sign has that sign; any other exactly zero sum (zeros of both signs, terms that cancel) is +0, or -0 rounding down; a nonzero sum rounded to zero keeps its sign (IEEE 754 section 6.3, zero=ieee).");
    else APPEND(" An exactly zero sum is +0; a nonzero sum rounded to zero keeps its sign (zero=fixed).");
    if (u->tree == MMA_TREE_IEEE)
        APPEND(" Exception flags (TestFloat's flag byte): invalid for a signaling NaN operand, a product 0*Inf, or +Inf with -Inf when no operand is NaN; overflow, underflow (tininess %s rounding) and inexact as IEEE 754 defines them for the whole operation%s.",
               (u->flags & MMA_F_TINY_BEFORE) ? "before" : "after", u->k > u->lmax ? ", or-ed over the chained steps" : "");
    return n;
}

static int explain_body(const mma_unit *u, char *buf, size_t len);

int mma_unit_explain(const mma_unit *u, char *buf, size_t len)
{
    size_t n = (size_t)(u->tree == MMA_TREE_CHAINS ? mma_chains_explain(u, buf, len) : explain_body(u, buf, len));
    const char *src = u->name[0] ? mma_catalogue_source(u->name) : NULL;   /* (the documents: catalogue.c) */
    if (src) APPEND(" Source: %s", src);
    return (int)n;
}

static int explain_body(const mma_unit *u, char *buf, size_t len)
{
    size_t n = 0;
    const char *an = mma_format(u->a)->name, *bn = mma_format(u->b)->name;
    const char *cn = mma_format(u->c)->name, *dn = mma_format(u->d)->name;
    int steps = u->k / (u->lmax ? u->lmax : u->k);
    APPEND("%s: d = c %c sum of %d products a[k]*b[k], a in %s, b in %s, c in %s, d in %s%s. ",
           mma_unit_algorithm(u), (u->flags & MMA_F_NEG) ? '-' : '+', u->k, an, bn, cn, dn,
           (u->flags & MMA_F_NEG) ? " (each product negated, then summed as below: neg=1)" : "");
    switch (u->tree) {
    case MMA_TREE_FMA:
        APPEND("Sequential IEEE fused multiply-adds in k order starting from c, each rounded to nearest even; NaN payloads pass through quieted.");
        break;
    case MMA_TREE_PAIRWISE:
        APPEND("Subnormal inputs flush to +0; products are exact FP32 multiplications; each group of %d products is summed pairwise (recursive halves) with FP32 adds; c then adds each group sum in turn; every product and sum below 2^-126 flushes to zero keeping its sign.", u->g);
        break;
    case MMA_TREE_EXACT:
    case MMA_TREE_IEEE:
        APPEND("Each step sums c and %d products exactly%s and rounds once %s into %s%s.", u->lmax,
               u->scale != MMA_FMT_NONE ? " (each product times its block's two scales)" : "", rounding_words(u->rho), dn,
               steps > 1 ? "; the steps are chained, each result being the next step's c" : "");
        if (u->tree == MMA_TREE_EXACT && u->p != mma_format(u->d)->mbits) APPEND(" It keeps %d fraction bits.", u->p);
        if (u->lscale) APPEND(" The products' sum is scaled by 2^-%d before c is added (lscale, Arm FPMR.LSCALE).", u->lscale);
        break;
    case MMA_TREE_GROUPS:
        APPEND("Products are summed exactly in groups of %d; each group sum is multiplied by its block's two %s scales (block of %d) and aligned by the scale exponent alone; the group terms and c are aligned to the largest exponent keeping %d fraction bits (cut %s), summed exactly, and rounded %s to %d fraction bits.",
               u->g, mma_format(u->scale)->name, u->block, u->f, u->align == MMA_RZ ? "toward zero" : "down",
               rounding_words(u->rho), u->p);
        break;
    default:
        break;
    }
    if (u->tree == MMA_TREE_FMA || u->tree == MMA_TREE_PAIRWISE) {
        if (u->flags & MMA_F_NAN_ANY) APPEND(" The payload of a NaN result is not specified: any NaN matches any NaN.");
        return (int)n;
    }
    if (u->tree != MMA_TREE_GROUPS && !(u->tree == MMA_TREE_EXACT || u->tree == MMA_TREE_IEEE)) {
        if (u->cadd == MMA_CADD_FUSED || u->cadd == MMA_CADD_AFTER) {
            if (u->cadd == MMA_CADD_AFTER)
                APPEND("The fused steps start from +0 and c is added at the end by one IEEE round-to-nearest-even addition in %s. ", dn);
            if (u->interleave)
                APPEND("Step s takes the runs of %d consecutive products whose run index is s modulo %d. ", u->interleave, steps);
            if (u->flags & MMA_F_VIA_FP16)
                APPEND("a and b are first converted to fp16 (exactly: a subnormal %s becomes a normal fp16). ",
                       u->a == MMA_FMT_E4M3 || u->b == MMA_FMT_E4M3 ? "e4m3" : "input");
            APPEND("Products are exact (no rounding, no overflow)%s; c and %d products are aligned to the largest exponent %s, each keeping %d fraction bits (cut %s), summed exactly in fixed point and rounded %s to %d fraction bits",
                   u->scale != MMA_FMT_NONE ? ", their exponents raised by their block's two scale exponents" : "",
                   u->lmax, (u->flags & MMA_F_NO_EZERO) ? "among the nonzero terms" : "(a zero term counts with the exponent given by ezero)",
                   u->f, u->align == MMA_RZ ? "toward zero" : "toward -inf", rounding_words(u->rho), u->p);
            APPEND("%s.", steps > 1 ? "; longer K chains the steps, each step's rounded result being the next step's accumulator" : "");
        } else {
            APPEND("%s products are fused among themselves with %d fraction bits (cut toward zero)%s; then the dot part and c are aligned to the larger exponent with round-down, the dot part at %d and c at %d fraction bits%s; the sum is rounded down to %d fraction bits and then %s to %s.",
                   u->tree == MMA_TREE_EVENODD ? "Even-index and odd-index" : "The",
                   u->f, u->tree == MMA_TREE_EVENODD ? ", the two group sums joined with round-down" : "",
                   u->f2 + 1, u->f, u->cadd == MMA_CADD_RDZ ? " (c is dropped, i.e. cut toward zero, when its exponent is below emax-F-1)" : "",
                   u->f2, rounding_words(u->rho), dn);
            if (steps > 1) APPEND(" %d such steps of %d products are chained.", steps, u->lmax);
        }
    }
    APPEND(" Specials: any NaN, 0*Inf, or +Inf with -Inf gives NaN; otherwise an Inf gives that Inf%s.",
           (u->flags & MMA_F_PROD_OVF) ? "; products reaching 2^128 overflow to Inf" : "");
    n = explain_results(u, buf, len, n);
    return (int)n;
}
