#include "fast.h"
static int amd_ok(const mma_unit *u) { (void)u; return 0; }
static fast_hdr *amd_build(const mma_unit *u, int mode) { (void)u; (void)mode; return NULL; }
const fast_family fast_amd_family = {amd_ok, amd_build};
