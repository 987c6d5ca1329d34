/* The ceiling any batch kernel has on one core: read n vectors' a, b and c
 * (ES-byte elements, K each) and write their d, the same bytes a batch of
 * mma_batch_dot moves, with a sum as the only work.
 *   stream_floor ES K N  -> vectors per second (best of 20 passes) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
__attribute__((target("avx2"), noinline)) static void pass(const char *a, const char *b, const char *c, char *d, size_t n, int es, int k)
{
    size_t ab = n * (size_t)k * es, cb = n * (size_t)es, step = 32 * 4;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i + step <= ab; i += step) {
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256((const __m256i *)(a + i)));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256((const __m256i *)(a + i + 32)));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256((const __m256i *)(a + i + 64)));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256((const __m256i *)(a + i + 96)));
        s0 = _mm256_add_epi64(s0, _mm256_loadu_si256((const __m256i *)(b + i)));
        s1 = _mm256_add_epi64(s1, _mm256_loadu_si256((const __m256i *)(b + i + 32)));
        s2 = _mm256_add_epi64(s2, _mm256_loadu_si256((const __m256i *)(b + i + 64)));
        s3 = _mm256_add_epi64(s3, _mm256_loadu_si256((const __m256i *)(b + i + 96)));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    for (size_t i = 0; i + 32 <= cb; i += 32)
        _mm256_storeu_si256((__m256i *)(d + i), _mm256_add_epi64(s, _mm256_loadu_si256((const __m256i *)(c + i))));
}
int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: stream_floor ES K N\n"); return 2; }
    int es = atoi(argv[1]), k = atoi(argv[2]);
    size_t n = strtoul(argv[3], 0, 10);
    char *a = aligned_alloc(64, n * k * es + 256), *b = aligned_alloc(64, n * k * es + 256);
    char *c = aligned_alloc(64, n * es + 64), *d = aligned_alloc(64, n * es + 64);
    memset(a, 1, n * k * es); memset(b, 2, n * k * es); memset(c, 3, n * es); memset(d, 0, n * es);
    double best = 1e9;
    for (int r = 0; r < 20; r++) { double t = now(); pass(a, b, c, d, n, es, k); t = now() - t; if (t < best) best = t; }
    printf("stream_floor es %d k %d n %zu bytes/vector %d: %.0f vectors/s (%.1f GB/s)\n", es, k, n, es * (2 * k + 2),
           n / best, n * (double)es * (2 * k + 2) / best / 1e9);
    return d[5] == 7;
}
