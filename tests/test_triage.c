/* Unit tests of the mismatch triage and the probe (Check framework).  The
 * "unit" under test is always another configuration of the model, so the
 * right answer is known: each test fails if the triage or the probe names
 * the wrong class, field or element. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmaref.h"
#include "mmaref_triage.h"
#include "mmaref_vec.h"

static mma_unit U(const char *name)
{
    mma_unit u;
    char err[512];
    int rc = mma_unit_parse(name, &u, err, sizeof err);
    ck_assert_msg(rc == 0, "%s: %s", name, err);
    return u;
}

#define QG "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"

/* a random finite encoding of an IEEE-like format with exponents near 1 */
static uint64_t rnd_enc(mma_fmt f, unsigned *seed)
{
    const mma_format_info *fi = mma_format(f);
    int e = fi->bias - 6 + (int)(rand_r(seed) % 12);
    uint64_t m = ((uint64_t)rand_r(seed) << 16 ^ (uint64_t)rand_r(seed)) & (((uint64_t)1 << fi->mbits) - 1);
    uint64_t x = (uint64_t)e << fi->mbits | m;
    if (rand_r(seed) & 1) x |= (uint64_t)1 << (fi->width - 1);
    if (f == MMA_FMT_E4M3 && (x & 0x7f) == 0x7f) x &= ~(uint64_t)1;
    return x;
}

/* n observations of `unit` on random inputs, in the shape of shape */
static void observe(mma_obs *o, const mma_unit *shape, const mma_unit *unit, int n, unsigned seed, long tag_mod)
{
    uint64_t a[MMA_MAX_K], b[MMA_MAX_K];
    mma_obs_init(o, shape);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < shape->k; k++) {
            a[k] = rnd_enc(shape->a, &seed);
            b[k] = rnd_enc(shape->b, &seed);
        }
        uint64_t c = rnd_enc(shape->c, &seed);
        uint64_t d = mma_dot(unit, c, a, b, NULL, NULL);
        ck_assert_int_eq(mma_obs_add(o, c, a, b, NULL, NULL, d, -1, tag_mod ? i % tag_mod : i), 0);
    }
}

/* what mma_triage_write prints (to be freed) */
static char *written(const mma_unit *u, const mma_obs *o, const mma_triage_report *r, long cols)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    mma_triage_write(f, u, o, r, cols);
    fclose(f);
    return text;
}

/* Each class from a case built for it (QGMMA: fp32 out with 13 fraction
 * bits, so one ulp is 0x400 in the encoding). */
START_TEST(classes)
{
    mma_unit u = U(QG);
    uint64_t a[32] = {0}, b[32] = {0};
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x7fffffff, 0x7fc00000), MMA_MM_NAN_PAYLOAD);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x00000000, 0x80000000), MMA_MM_ZERO_SIGN);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x7f800000, 0x7f7ffc00), MMA_MM_OVERFLOW);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0xff7ffc00, 0xff800000), MMA_MM_OVERFLOW);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x3f800400, 0x3f800000), MMA_MM_ULP_TOWARD_ZERO);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0xbf800000, 0xbf800400), MMA_MM_ULP_AWAY);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x3f800000, 0x3f800800), MMA_MM_LARGER);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x3f800000, 0xbf800000), MMA_MM_LARGER);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x00000400, 0x00000000), MMA_MM_SUBNORMAL_OUT);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, 0x3f800000, 0x3f800000), MMA_MM_FLAGS_ONLY);
    /* a subnormal e4m3 input: 2^-9 * 1 + 0 = 2^-9; flushed, +0 */
    a[0] = 0x01;
    b[0] = 0x38;
    uint64_t want = mma_dot(&u, 0, a, b, NULL, NULL);
    ck_assert_uint_eq(want, 0x3b000000);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, want, 0), MMA_MM_SUBNORMAL_IN);
    /* the same with a normal input is a larger error */
    a[0] = 0x08;
    want = mma_dot(&u, 0, a, b, NULL, NULL);
    ck_assert_int_eq(mma_mismatch_classify(&u, 0, a, b, NULL, NULL, want, 0), MMA_MM_LARGER);
    ck_assert_str_eq(mma_mismatch_class_name(MMA_MM_ULP_TOWARD_ZERO), "1 ulp toward zero");
}
END_TEST

START_TEST(diff)
{
    mma_unit u = U(QG), v = U("fused,a=e4m3,k=32,f=12,p=13,ezero=-133,round=rne");
    char buf[256];
    mma_unit_diff(&v, &u, buf, sizeof buf);
    ck_assert_str_eq(buf, "f=12 instead of 13, round=rne instead of rz");
    mma_unit_diff(&u, &u, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
    mma_unit w = U("fused,a=e4m3,k=32,f=13,p=13,ezero=-133,ftz=in");
    mma_unit_diff(&w, &u, buf, sizeof buf);
    ck_assert_str_eq(buf, "ftz=in instead of none");
    mma_unit_diff(&u, &w, buf, sizeof buf);
    ck_assert_str_eq(buf, "no ftz instead of ftz=in");
    /* another family: its name and its fields off its defaults, not every
     * key either string has */
    mma_unit i1 = U("ieee,a=fp16,c=fp16,k=4,l=1,round=rne"), i2 = U("ieee,a=fp16,c=fp16,k=4,l=1,round=rne,tiny=before");
    mma_unit f1 = U("fused,a=fp16,c=fp16,k=4,l=1,f=24,round=rne");
    mma_unit_diff(&f1, &i1, buf, sizeof buf);
    ck_assert_str_eq(buf, "tree fused instead of ieee (with f=24, l=1)");
    mma_unit_diff(&i2, &i1, buf, sizeof buf);
    ck_assert_str_eq(buf, "tiny=before instead of after");
}
END_TEST

/* A label must fit the vectors: a result that flushing the subnormal
 * input reproduces is "subnormal inputs flushed" only while no other
 * vector shows that input used exactly (2^-24 * 1 = 0x33800000 given as 0,
 * beside 2^-23 * 1 = 0x34000000 given right). */
START_TEST(flushed_label_fits)
{
    mma_unit u = U("ieee,a=fp16,c=fp32,k=1,round=rne");
    mma_obs o;
    mma_obs_init(&o, &u);
    uint64_t a1 = 0x0001, a2 = 0x0002, one = 0x3c00;
    ck_assert_int_eq(mma_obs_add(&o, 0, &a1, &one, NULL, NULL, 0, -1, 1), 0);
    mma_triage_report r;
    mma_triage_opts opt = {1, 0, 0};
    char err[256];
    ck_assert_int_eq(mma_triage(&u, &o, &opt, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r.count[MMA_MM_SUBNORMAL_IN], 1);
    ck_assert_int_eq(mma_obs_add(&o, 0, &a2, &one, NULL, NULL, 0x34000000, -1, 2), 0);
    ck_assert_int_eq(mma_triage(&u, &o, &opt, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r.mismatches, 1);
    ck_assert_uint_eq(r.count[MMA_MM_SUBNORMAL_IN], 0);
    ck_assert_uint_eq(r.count[MMA_MM_LARGER], 1);
    mma_obs_free(&o);
}
END_TEST

/* IEEE units: a chain of four fp16 fused multiply-adds with tininess
 * before rounding, seen with its flags, is found as the ieee tree with
 * l=1 and tiny=before; without the flags, d alone cannot tell tiny. */
START_TEST(probe_ieee_chain)
{
    mma_unit x = U("ieee,a=fp16,c=fp16,k=4,l=1,round=rmm,tiny=before");
    mma_obs o;
    mma_obs_init(&o, &x);
    unsigned seed = 5;
    for (int i = 0; i < 6000; i++) {
        uint64_t a[4], b[4], c = rnd_enc(MMA_FMT_FP16, &seed);
        for (int k = 0; k < 4; k++) {
            /* small values: results near fp16's underflow */
            a[k] = rnd_enc(MMA_FMT_FP16, &seed) & (i % 2 ? 0x9fff : 0xffff);
            b[k] = rnd_enc(MMA_FMT_FP16, &seed) & (i % 2 ? 0x9fff : 0xffff);
        }
        if (i % 2) c &= 0x87ff;
        unsigned fl;
        uint64_t d = mma_dot_flags(&x, c, a, b, NULL, NULL, &fl);
        ck_assert_int_eq(mma_obs_add(&o, c, a, b, NULL, NULL, d, (int)fl, i), 0);
    }
    mma_probe_result r;
    mma_probe_opts p = {2, NULL, NULL, 0};
    char err[256], cfg[512];
    ck_assert_int_eq(mma_probe(&o, &p, &r, err, sizeof err), 0);
    mma_unit_config(&r.unit, cfg, sizeof cfg);
    ck_assert_msg(r.fit == 6000 && r.unit.tree == MMA_TREE_IEEE && r.unit.lmax == 1 && r.unit.rho == MMA_RMM &&
                  (r.unit.flags & MMA_F_TINY_BEFORE), "%zu of 6000: %s", r.fit, cfg);
    mma_obs_free(&o);
}
END_TEST

/* The probe finds an unusual unit (f=20, bf16 output rounded to nearest,
 * chained in 2 steps of 4) from 6000 random vectors, with the same answer
 * and the same counts for 1 and 3 threads. */
START_TEST(probe_finds)
{
    mma_unit x = U("fused,a=fp16,k=8,l=4,f=20,d=bf16,round=rne,ezero=none");
    mma_obs o;
    observe(&o, &x, &x, 6000, 7, 0);
    mma_probe_result r1, r3;
    mma_probe_opts p1 = {1, NULL, NULL, 0}, p3 = {3, NULL, NULL, 0};
    char err[256];
    ck_assert_int_eq(mma_probe(&o, &p1, &r1, err, sizeof err), 0);
    ck_assert_int_eq(mma_probe(&o, &p3, &r3, err, sizeof err), 0);
    ck_assert_uint_eq(r1.fit, 6000);
    ck_assert_int_eq(r1.unit.f, 20);
    ck_assert_int_eq(r1.unit.lmax, 4);
    ck_assert_int_eq(r1.unit.rho, MMA_RNE);
    char c1[512], c3[512];
    mma_unit_config(&r1.unit, c1, sizeof c1);
    mma_unit_config(&r3.unit, c3, sizeof c3);
    ck_assert_str_eq(c1, c3);
    ck_assert_int_eq(r1.candidates, r3.candidates);
    ck_assert_int_eq(r1.dots, r3.dots);
    ck_assert_int_eq(r1.nfindings, r3.nfindings);
    for (int i = 0; i < r1.nfindings; i++) ck_assert_str_eq(r1.finding[i].evidence, r3.finding[i].evidence);
    ck_assert_uint_eq(mma_probe_fit(&x, &o, NULL, 0, 2), 6000);
    mma_obs_free(&o);
    mma_obs empty;
    mma_obs_init(&empty, &x);
    ck_assert_int_eq(mma_probe(&empty, &p1, &r1, err, sizeof err), -1);
    ck_assert_str_eq(err, "no observations to probe");
}
END_TEST

/* The triage of a unit with F one short against the reference: the
 * classes add up, and the nearest configuration is exactly f=12, fitting
 * every mismatch and every match. */
START_TEST(triage_f12)
{
    mma_unit ref = U(QG), bad = ref;
    bad.f = 12;
    bad.impl = 0;
    mma_obs o;
    observe(&o, &ref, &bad, 20000, 3, 0);
    mma_triage_opts opt = {2, 1, 0};
    mma_triage_report r;
    char err[256];
    ck_assert_int_eq(mma_triage(&ref, &o, &opt, &r, err, sizeof err), 0);
    size_t sum = 0;
    for (int c = 0; c < MMA_MM_COUNT; c++) sum += r.count[c];
    ck_assert_uint_eq(sum, r.mismatches);
    ck_assert_uint_gt(r.mismatches, 1000);
    ck_assert_uint_gt(r.count[MMA_MM_ULP_TOWARD_ZERO] + r.count[MMA_MM_ULP_AWAY], 0);
    ck_assert_int_eq(r.have_nearest, 1);
    ck_assert_str_eq(r.diff, "f=12 instead of 13");
    ck_assert_uint_eq(r.nearest_fit_mismatching, r.mismatches);
    ck_assert_uint_eq(r.nearest_fit_matching, r.n - r.mismatches);
    /* printed: the classes and the verdict */
    char *text = written(&ref, &o, &r, 0);
    ck_assert_ptr_nonnull(strstr(text, "the unit behaves as f=12 instead of 13 on 100.0% of the mismatching vectors"));
    ck_assert_ptr_nonnull(strstr(text, "1 ulp toward zero"));
    free(text);
    /* observations of another shape */
    mma_unit other = U("hopper:wgmma.m64n8k16.f32.bf16.bf16");
    ck_assert_int_eq(mma_triage(&other, &o, &opt, &r, err, sizeof err), -1);
    mma_obs_free(&o);
}
END_TEST

/* A 4 x 4 tile whose element (1,2) comes from a narrower accumulator
 * (f=10 against HGMMA's 25): the triage puts exactly that element in one
 * group and names f=10. */
START_TEST(triage_tile)
{
    mma_unit ref = U("hopper:wgmma.m64n8k16.f32.f16.f16"), pe = ref;
    pe.f = 10;
    pe.impl = 0;
    mma_obs o;
    observe(&o, &ref, &ref, 3200, 9, 16);
    size_t k = (size_t)ref.k;
    for (size_t i = 0; i < o.n; i++)
        if (o.tag[i] == 1 * 4 + 2) o.d[i] = mma_dot(&pe, o.c[i], o.a + i * k, o.b + i * k, NULL, NULL);
    mma_triage_opts opt = {2, 1, 16};
    mma_triage_report r;
    ck_assert_int_eq(mma_triage(&ref, &o, &opt, &r, NULL, 0), 0);
    ck_assert_uint_gt(r.mismatches, 50);
    ck_assert_int_eq(r.ngroups, 1);
    ck_assert_int_eq(r.group[0].nelems, 1);
    ck_assert_int_eq(r.group[0].elems[0], 6);
    ck_assert_str_eq(r.group[0].diff, "f=10 instead of 25");
    ck_assert_uint_eq(r.group[0].fit, r.group[0].n);
    ck_assert_uint_eq(r.group[0].n, 200);
    char *text = written(&ref, &o, &r, 4);
    ck_assert_ptr_nonnull(strstr(text, "1 output element (1,2) behaves as f=10 instead of 25 (200 of its 200 vectors)"));
    free(text);
    mma_obs_free(&o);
}
END_TEST

/* Vector files: one without d, and two of different shapes, are refused
 * with the file named; nothing is kept of a refused file. */
START_TEST(obs_files)
{
    char dir[] = "/tmp/mmaref_triage_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char p1[256], p2[256], p3[256], err[512];
    snprintf(p1, sizeof p1, "%s/a.vec", dir);
    snprintf(p2, sizeof p2, "%s/b.vec", dir);
    snprintf(p3, sizeof p3, "%s/c.vec", dir);
    FILE *f = fopen(p1, "w");
    fprintf(f, "# mmavec 1\n# instr: fused,a=fp16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1] d\n"
               "3f800000 3c00 3c00 3c00 3c00 40400000\n");
    fclose(f);
    f = fopen(p2, "w");
    fprintf(f, "# mmavec 1\n# instr: fused,a=fp16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1]\n3f800000 3c00 3c00 3c00 3c00\n");
    fclose(f);
    f = fopen(p3, "w");
    fprintf(f, "# mmavec 1\n# instr: fused,a=bf16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1] d\n"
               "3f800000 3f80 3f80 3f80 3f80 40400000\n");
    fclose(f);
    mma_obs o;
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(mma_obs_read(&o, p1, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(o.n, 1);
    ck_assert_uint_eq(o.d[0], 0x40400000);
    ck_assert_int_eq(o.tag[0], 5);
    ck_assert_int_eq(mma_obs_read(&o, p2, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "b.vec: field d"));
    ck_assert_int_eq(mma_obs_read(&o, p3, NULL, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "c.vec: its vectors (a=bf16"));
    ck_assert_uint_eq(o.n, 1);
    ck_assert_int_eq(mma_obs_read(&o, p1, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(o.n, 2);
    mma_obs_free(&o);
    unlink(p1); unlink(p2); unlink(p3); rmdir(dir);
}
END_TEST

/* Exception flags: an IEEE unit that loses inexact on a third of the
 * inexact results, seen through a vector file with the flags field as
 * mmaref verify writes it.  Exactly those vectors are mismatches, all
 * "flags only", the nearest configuration judged on all of them;
 * reading mismatches keeps them all beside the keep_matching ones whose
 * flags match too. */
START_TEST(triage_flags)
{
    mma_unit u = U("ieee,a=fp16,c=fp32,k=2,round=rz");
    char dir[] = "/tmp/mmaref_triage_XXXXXX", path[256], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/flags.vec", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    mma_vec_write_header(f, &u);
    unsigned seed = 11;
    size_t lost = 0, n = 3000;
    mma_vec v;
    memset(&v, 0, sizeof v);
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 2; k++) {
            v.a[k] = rnd_enc(MMA_FMT_FP16, &seed);
            v.b[k] = rnd_enc(MMA_FMT_FP16, &seed);
        }
        v.c = rnd_enc(MMA_FMT_FP32, &seed);
        unsigned fl = 0;
        v.d = mma_dot_flags(&u, v.c, v.a, v.b, NULL, NULL, &fl);
        if ((fl & MMA_FLAG_INEXACT) && i % 3 == 0) { fl &= ~MMA_FLAG_INEXACT; lost++; }
        v.flags = fl;
        mma_vec_write(f, &u, &v);
    }
    fclose(f);
    mma_obs o;
    memset(&o, 0, sizeof o);
    ck_assert_int_eq(mma_obs_read_mismatches(&o, path, NULL, 5, NULL, err, sizeof err), 0);
    ck_assert_int_eq(o.has_flags, 1);
    ck_assert_uint_eq(o.n, lost + 5);
    mma_triage_report r;
    ck_assert_int_eq(mma_triage(&u, &o, NULL, &r, err, sizeof err), 0);
    ck_assert_uint_gt(lost, 500);
    ck_assert_uint_eq(r.count[MMA_MM_FLAGS_ONLY], lost);
    ck_assert_uint_eq(r.mismatches, lost);
    /* the flags are evidence: the nearest configuration is judged on
     * every mismatch (no configuration loses inexact on a third) */
    ck_assert_int_eq(r.have_nearest, 1);
    ck_assert_uint_eq(r.nearest_of, lost);
    ck_assert_uint_lt(r.nearest_fit_mismatching + r.nearest_fit_matching, lost + 5);
    char *text = written(&u, &o, &r, 0);
    char want[128];
    snprintf(want, sizeof want, "  flags only %*s %8zu   e.g. line ", 31, "", lost);
    ck_assert_msg(strstr(text, want) != NULL, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "unit flags 00 (none), model flags 01 (inexact)"));
    free(text);
    mma_obs_free(&o);
    unlink(path);
    rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("triage");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, classes);
    tcase_add_test(t, diff);
    tcase_add_test(t, flushed_label_fits);
    tcase_add_test(t, probe_ieee_chain);
    tcase_add_test(t, probe_finds);
    tcase_add_test(t, triage_f12);
    tcase_add_test(t, triage_tile);
    tcase_add_test(t, obs_files);
    tcase_add_test(t, triage_flags);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
