/* libFuzzer target: configuration strings and instruction names, the
 * input's first line (mma_unit_parse).  A name that parses must have a
 * canonical configuration string that parses to a unit with the same string
 * and the same results, an explanation, and a dot product on operands drawn
 * from the rest of the input; a name that does not must give a message. */
#include "fuzz.h"

static uint64_t take(const uint8_t **p, const uint8_t *end, int width)
{
    uint64_t x = 0;
    for (int i = 0; i < 8 && *p < end; i++) x |= (uint64_t)*(*p)++ << (8 * i);
    return width < 64 ? x & ((1ull << width) - 1) : x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[1024], err[1024] = "", cfg[1024], cfg2[1024], ex[4096];
    size_t n = 0;
    while (n < size && n < sizeof name - 1 && data[n] != '\n') { name[n] = (char)data[n]; n++; }
    name[n] = 0;
    const uint8_t *p = data + (n < size ? n + 1 : n), *end = data + size;
    mma_unit u, u2;
    if (mma_unit_parse(name, &u, err, sizeof err)) {
        FUZZ_CHECK(err[0], "'%s' rejected without a message", name);
        return 0;
    }
    mma_unit_config(&u, cfg, sizeof cfg);
    FUZZ_CHECK(!mma_unit_parse(cfg, &u2, err, sizeof err), "the canonical form '%s' of '%s' does not parse: %s", cfg, name, err);
    mma_unit_config(&u2, cfg2, sizeof cfg2);
    FUZZ_CHECK(!strcmp(cfg, cfg2), "'%s' reads back as '%s'", cfg, cfg2);
    mma_unit_explain(&u, ex, sizeof ex);
    (void)mma_unit_algorithm(&u);

    static uint64_t a[MMA_MAX_K], b[MMA_MAX_K], sa[MMA_VEC_MAX_SCALES], sb[MMA_VEC_MAX_SCALES];
    int s = mma_unit_nscales(&u);
    FUZZ_CHECK(s <= MMA_VEC_MAX_SCALES, "'%s': %d scales a vector", cfg, s);
    uint64_t c = take(&p, end, mma_format(u.c)->width);
    for (int k = 0; k < u.k; k++) { a[k] = take(&p, end, mma_format(u.a)->width); b[k] = take(&p, end, mma_format(u.b)->width); }
    for (int i = 0; i < s; i++) { sa[i] = take(&p, end, mma_format(u.scale)->width); sb[i] = take(&p, end, mma_format(u.scale)->width); }
    uint64_t d = mma_dot(&u, c, a, b, s ? sa : NULL, s ? sb : NULL);
    uint64_t d2 = mma_dot(&u2, c, a, b, s ? sa : NULL, s ? sb : NULL);
    FUZZ_CHECK(d == d2, "'%s' and its canonical form '%s' give %llx and %llx", name, cfg, (unsigned long long)d, (unsigned long long)d2);
    return 0;
}
