/* Deterministic random draws for the metrics: uniform, normal (a 256-layer
 * ziggurat, Marsaglia and Tsang's construction with Doornik's constants),
 * Student t.  exp and log are written here from IEEE + - * / and sqrt only
 * (no libm transcendental), so a seed gives the same inputs on any machine
 * and with any C library. */
#include "metrics_internal.h"

#include <math.h>
#include <pthread.h>

static const double LN2_HI = 6.93147180369123816490e-01;  /* low bits zero */
static const double LN2_LO = 1.90821492927058770002e-10;

double mx_exp(double x)
{
    if (x != x) return x;
    if (x > 709.7) return INFINITY;
    if (x < -745.2) return 0.0;
    double kf = floor(x * 1.4426950408889634 + 0.5);
    double r = (x - kf * LN2_HI) - kf * LN2_LO;          /* |r| <= 0.35 */
    static const double inv[18] = {0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8,
                                   1.0 / 9, 1.0 / 10, 1.0 / 11, 1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15,
                                   1.0 / 16, 1.0 / 17};
    double p = 1.0;                                      /* Horner, Taylor */
    for (int i = 17; i >= 1; i--) p = 1.0 + p * r * inv[i];
    return ldexp(p, (int)kf);
}

double mx_log(double x)
{
    if (x != x || x < 0) return NAN;
    if (x == 0) return -INFINITY;
    if (isinf(x)) return x;
    int e;
    double m = frexp(x, &e);                             /* [0.5, 1) exact */
    if (m < 0.70710678118654752) { m *= 2; e--; }
    double f = (m - 1) / (m + 1), s = f * f;             /* |f| <= 0.1716 */
    double p = 1.0 / 23;
    for (int i = 21; i >= 1; i -= 2) p = p * s + 1.0 / i;
    return e * LN2_HI + (e * LN2_LO + 2 * f * p);
}

double mx_uniform(mma_rng *r)
{
    return (double)(mma_rng_next(r) >> 11) * 0x1p-53;
}

static double open01(mma_rng *r)
{
    return ((double)(mma_rng_next(r) >> 12) + 0.5) * 0x1p-52;
}

#define ZIG_R 3.6541528853610088
#define ZIG_V 0.00492867323399
double mx_zx[257], mx_zf[257];
#define zx mx_zx
#define zf mx_zf
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static double pdf(double x) { return mx_exp(-0.5 * x * x); }

static void zig_init(void)
{
    zx[0] = ZIG_V / pdf(ZIG_R);
    zx[1] = ZIG_R;
    for (int i = 2; i < 256; i++) zx[i] = sqrt(-2.0 * mx_log(ZIG_V / zx[i - 1] + pdf(zx[i - 1])));
    zx[256] = 0;
    for (int i = 0; i <= 256; i++) zf[i] = pdf(zx[i]);
}

void mx_rng_init(void) { pthread_once(&zig_once, zig_init); }

/* the rejection part of the ziggurat (about 1 draw in 100); the common
 * case is mx_normal() in metrics.h */
double mx_normal_slow(mma_rng *r, uint64_t bits)
{
    for (;;) {
        int i = (int)(bits & 0xff);
        double u = (double)(bits >> 11) * 0x1p-52 - 1.0;  /* [-1, 1) */
        double x = u * zx[i];
        if (fabs(x) < zx[i + 1]) return x;
        if (i == 0) {                                    /* the tail */
            double t, y;
            do {
                t = mx_log(open01(r)) / ZIG_R;
                y = mx_log(open01(r));
            } while (-2.0 * y < t * t);
            return u < 0 ? t - ZIG_R : ZIG_R - t;
        }
        if (zf[i + 1] + (zf[i] - zf[i + 1]) * mx_uniform(r) < pdf(x)) return x;
        bits = mma_rng_next(r);
    }
}

double mx_student3(mma_rng *r)
{
    double z = mx_normal(r);
    double a = mx_normal(r), b = mx_normal(r), c = mx_normal(r);
    return z / sqrt((a * a + b * b + c * c) / 3.0);
}
