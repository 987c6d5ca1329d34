/* Seeding of the generator of mmaref_rng.h. */
#include "mmaref_rng.h"

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void mma_rng_seed(mma_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed * 0x2545f4914f6cdd1dull ^ (stream + 0x632be59bd9b4e019ull);
    for (int i = 0; i < 4; i++) r->s[i] = splitmix(&x);
}
