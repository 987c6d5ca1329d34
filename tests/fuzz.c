/* A bounded mutation fuzzer for the two parsers that take outside input:
 * configuration strings / instruction names, and vector files.  Inputs are
 * mutated from a corpus of valid ones (byte flips, deletions, insertions of
 * interesting tokens, splices); every parse must either succeed with a unit
 * that computes without fault, or fail with a message.  Run under
 * AddressSanitizer and UBSan by `make test-fuzz`; deterministic per seed.
 * usage: fuzz <iterations> [seed] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_vec.h"

static unsigned long long st = 88172645463325252ull;
static unsigned rnd(void) { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return (unsigned)(st >> 11); }

static const char *configs[] = {
    "fused,a=e4m3,b=e4m3,k=32,f=13,d=e8m13,ezero=-133",
    "fused,a=bf16,k=16,l=8,f=24,round=rne,c=fp32,d=fp16",
    "evenodd,a=e4m3fnuz,b=e5m2fnuz,k=32,l=16,f=24,f2=31,cadd=rdz,round=rne",
    "groups,a=e2m1,k=64,g=16,f=35,scale=ue4m3,block=16,ezero=-139",
    "pairwise,a=fp16,k=8,g=4", "fma,a=fp64,c=fp64,k=4", "exact,a=bf16,k=4,l=2,round=rne",
    "fused,a=e4m3,k=32,l=16,interleave=2,cadd=after,f=25,ezero=-133",
    "hopper:wgmma.m64n8k32.f32.e4m3.e4m3", "cdna3:v_mfma_f32_16x16x32_fp8_fp8",
    "rtx-blackwell:mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3",
    "blackwell:tcgen05.mma.m64n256k32.kind::f8f6f4.f16.e2m3.e5m2",
    "ieee,a=e5m2,c=fp16,d=e4m3,k=4,l=2,round=rmm,nan=prop,ovf=sat,tiny=before",
    "hopper:wgmma.m64n8k16.f32.bf16.bf16,round=rz,zero=pos",
};
static const char *tokens[] = {",", "=", ":", "k=0", "k=999999", "f=-1", "f=60", "l=3", "g=0", "block=7",
                               "a=", "tree", "fused", "e9m9", "ue8m0", "p=0", "p=99", "ezero=none",
                               "m64n0k32", "n264", "\xff", "%s%n", "0x", "-", ",,,", "interleave=5",
                               "round=rodd", "ovf=sat", "nan=prop+any", "zero=fixed", "tiny=before", "d=e2m1", "ieee"};

static void mutate(char *buf, size_t cap)
{
    size_t n = strlen(buf);
    int ops = (int)(rnd() % 3);   /* 0 to 2 mutations: most inputs stay near valid */
    while (ops--) {
        switch (rnd() % 5) {
        case 0: if (n) buf[rnd() % n] ^= (char)(1 << (rnd() % 8)); break;
        case 1: if (n) { size_t i = rnd() % n, l = 1 + rnd() % 6; if (i + l > n) l = n - i; memmove(buf + i, buf + i + l, n - i - l + 1); n -= l; } break;
        case 2: { const char *t = tokens[rnd() % (sizeof tokens / sizeof *tokens)]; size_t tl = strlen(t), i = n ? rnd() % (n + 1) : 0;
                  if (n + tl + 1 < cap) { memmove(buf + i + tl, buf + i, n - i + 1); memcpy(buf + i, t, tl); n += tl; } } break;
        case 3: if (n) buf[rnd() % n] = (char)(rnd() % 256); break;
        case 4: { const char *o = configs[rnd() % (sizeof configs / sizeof *configs)]; size_t i = n ? rnd() % n : 0, j = rnd() % strlen(o);
                  size_t ol = strlen(o + j); if (i + ol + 1 < cap) { memcpy(buf + i, o + j, ol + 1); n = i + ol; } } break;
        }
        buf[n] = 0;
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2) st ^= strtoull(argv[2], NULL, 0) * 0x9e3779b97f4a7c15ull;
    long ok = 0, rejected = 0, vok = 0, vrej = 0;
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K], s[64];
    for (long it = 0; it < iters; it++) {
        char buf[600], err[1024];
        snprintf(buf, sizeof buf, "%s", configs[rnd() % (sizeof configs / sizeof *configs)]);
        mutate(buf, sizeof buf);
        mma_unit u;
        if (mma_unit_parse(buf, &u, err, sizeof err) == 0) {
            ok++;
            for (int k = 0; k < u.k; k++) {
                int wa = mma_format(u.a)->width, wb = mma_format(u.b)->width;
                a[k] = ((uint64_t)rnd() << 32 | rnd()) & (wa == 64 ? ~0ull : (1ull << wa) - 1);
                b[k] = ((uint64_t)rnd() << 32 | rnd()) & (wb == 64 ? ~0ull : (1ull << wb) - 1);
            }
            for (int i = 0; i < 64; i++) s[i] = rnd() & 0xff;
            char cfg[512];
            mma_unit_config(&u, cfg, sizeof cfg);
            mma_unit v;
            if (mma_unit_parse(cfg, &v, err, sizeof err)) { fprintf(stderr, "fuzz: canonical form does not parse: %s: %s\n", cfg, err); return 1; }
            (void)mma_dot(&u, rnd(), a, b, s, s);
        } else {
            rejected++;
            if (!err[0]) { fprintf(stderr, "fuzz: rejected without a message: %s\n", buf); return 1; }
        }
        /* a vector file: header + a mutated line */
        if (it % 8 == 0) {
            char file[4096];
            const char *name = configs[8 + rnd() % 4];
            mma_unit w;
            mma_unit_parse(name, &w, err, sizeof err);
            char fields[128];
            mma_vec_fields(&w, fields, sizeof fields);
            int n = snprintf(file, sizeof file, "# mmavec 1\n# instr: %s\n# k: %d\n# fields: %s\n", name, w.k, fields);
            char line[2048];
            mma_vec vec;
            memset(&vec, 0, sizeof vec);
            size_t ll = mma_vec_format(line, &w, &vec);
            line[ll - 1] = 0;
            mutate(line, sizeof line);
            if (rnd() % 4 == 0) mutate(file + 2, sizeof file - 2 - (size_t)n);  /* header damage too */
            snprintf(file + strlen(file), sizeof file - strlen(file), "%s\n", line);
            FILE *f = fmemopen(file, strlen(file), "r");
            mma_vec_reader *r = mma_vec_open_stream(f, "fuzz.vec", NULL, err, sizeof err);
            if (r) {
                int rc;
                while ((rc = mma_vec_next(r, &vec, err, sizeof err)) == 1) {
                    const mma_unit *ru = mma_vec_unit(r);
                    (void)mma_dot(ru, vec.c, vec.a, vec.b, vec.sa, vec.sb);
                }
                if (rc < 0) vrej++; else vok++;
                mma_vec_close(r);
            } else vrej++;
            fclose(f);
        }
    }
    printf("fuzz: %ld iterations: %ld units parsed, %ld rejected with a message; vector files: %ld read, %ld rejected\n",
           iters, ok, rejected, vok, vrej);
    return 0;
}
