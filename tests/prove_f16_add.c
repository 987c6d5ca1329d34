/* make prove-f16-add: the fused family's closing fp16 addition
 * (model/src/fast/fast_f16add.h) on every pair of finite fp16 encodings,
 * 63488^2 = 4,030,726,144 pairs, against an independent integer
 * computation: the exact sum in units of 2^-24 (every finite fp16 is a
 * whole number of them, below 2^40), rounded once to nearest even in
 * fp16, an overflow to Inf, an exact zero +0 unless both are -0 (IEEE
 * 754's rule under round to nearest, which alg_fused.c's ieee_add follows).
 *   - add_f16 (binary64) in the default rounding mode, the mode it is
 *     written for;
 *   - add_f16_f16c (binary32 through F16C) in each of the four rounding
 *     modes: its comment says the host's addition may run in any.
 * Any mismatch is printed (the first few of each kind) and makes the exit
 * status 1.  Two threads, one half of x each.
 *
 * usage: prove_f16_add [step]  (step > 1 checks every step-th x only) */
#include "fast/fast_f16add.h"

#include <fenv.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* (GCC ignores FENV_ACCESS: the target is built with -frounding-math) */

enum { NFIN = 63488 };
static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
static const char *const mode_names[4] = {"to nearest", "downward", "upward", "toward zero"};

static uint16_t fin[NFIN];       /* the finite encodings */
static int64_t units[NFIN];      /* their values in units of 2^-24 */

/* the exact sum of x and y rounded once to nearest even in fp16 */
static uint16_t ref_add(int i, int j)
{
    int64_t s = units[i] + units[j];
    if (s == 0) return (fin[i] & fin[j] & 0x8000) ? 0x8000 : 0;
    uint16_t sign = s < 0 ? 0x8000 : 0;
    uint64_t mag = (uint64_t)(s < 0 ? -s : s);
    int k = 63 - __builtin_clzll(mag) - 10;      /* the last kept bit: 2^k units */
    if (k < 0) k = 0;                              /* subnormals and the first binade */
    uint64_t q = mag >> k, rem = k ? mag & (((uint64_t)1 << k) - 1) : 0, half = k ? (uint64_t)1 << (k - 1) : 1;
    if (k && (rem > half || (rem == half && (q & 1)))) q++;
    uint64_t e = k ? ((uint64_t)k << 10) + q : q;  /* q holds the hidden bit: the exponent field is k + 1 */
    return sign | (uint16_t)(e >= 0x7c00 ? 0x7c00 : e);
}

typedef struct {
    int lo, hi, step;
    unsigned long long pairs, bad[5];
} job;

static void report(const char *what, const char *mode, uint16_t x, uint16_t y, uint64_t got, uint16_t want)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    fprintf(stderr, "MISMATCH %s (%s): 0x%04x + 0x%04x = 0x%04llx, exact sum rounded 0x%04x\n", what, mode, x, y,
            (unsigned long long)got, want);
    pthread_mutex_unlock(&mu);
}

static void *run(void *arg)
{
    job *J = arg;
    for (int i = J->lo; i < J->hi; i += J->step) {
        for (int j = 0; j < NFIN; j++) {
            uint16_t want = ref_add(i, j);
            uint64_t a = add_f16(fin[i], fin[j]);
            if (a != want && J->bad[0]++ < 5) report("add_f16", mode_names[0], fin[i], fin[j], a, want);
        }
        for (int m = 0; m < 4; m++) {
            fesetround(modes[m]);
            for (int j = 0; j < NFIN; j++) {
                uint64_t f = add_f16_f16c(fin[i], fin[j]);
                uint16_t want = ref_add(i, j);
                if (f != want && J->bad[1 + m]++ < 5) report("add_f16_f16c", mode_names[m], fin[i], fin[j], f, want);
            }
            fesetround(FE_TONEAREST);
        }
        J->pairs += NFIN;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int step = argc > 1 ? atoi(argv[1]) : 1;
    if (step < 1) {
        fprintf(stderr, "prove_f16_add: argument 1 (step): a whole number >= 1, got '%s'\n", argv[1]);
        return 2;
    }
    if (!__builtin_cpu_supports("f16c") || !__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "prove_f16_add: this CPU lacks F16C or AVX2: nothing to check\n");
        return 2;
    }
    int n = 0;
    for (uint32_t w = 0; w < 0x10000; w++) {
        uint32_t ef = (w >> 10) & 0x1f;
        if (ef == 0x1f) continue;
        int64_t sig = (w & 0x3ff) | (ef ? 0x400 : 0);
        int64_t v = sig << (ef ? ef - 1 : 0);
        fin[n] = (uint16_t)w;
        units[n++] = (w >> 15) ? -v : v;
    }
    if (n != NFIN) return 2;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    job jobs[2] = {{0, NFIN / 2, step, 0, {0}}, {NFIN / 2, NFIN, step, 0, {0}}};
    pthread_t th;
    if (pthread_create(&th, NULL, run, &jobs[1])) return 2;
    run(&jobs[0]);
    pthread_join(th, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsigned long long pairs = jobs[0].pairs + jobs[1].pairs, bad[5];
    int fail = 0;
    for (int k = 0; k < 5; k++) {
        bad[k] = jobs[0].bad[k] + jobs[1].bad[k];
        fail |= bad[k] != 0;
    }
    printf("prove_f16_add: %llu pairs of finite fp16 encodings%s against the exact sum rounded once\n", pairs,
           step > 1 ? " (a sample)" : "");
    printf("  add_f16 (binary64, to nearest): %llu mismatches\n", bad[0]);
    for (int m = 0; m < 4; m++) printf("  add_f16_f16c (F16C, %s): %llu mismatches\n", mode_names[m], bad[1 + m]);
    printf("prove_f16_add: %llu checks, %llu failed\n", 5 * pairs, bad[0] + bad[1] + bad[2] + bad[3] + bad[4]);
    fprintf(stderr, "prove_f16_add: %.1f s on 2 threads\n",      /* (stderr: the docs keep stdout) */
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    return fail;
}
