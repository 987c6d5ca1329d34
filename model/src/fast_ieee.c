#include "fast.h"
static int ieee_ok(const mma_unit *u) { (void)u; return 0; }
static fast_hdr *ieee_build(const mma_unit *u, int mode) { (void)u; (void)mode; return NULL; }
const fast_family fast_ieee_family = {ieee_ok, ieee_build};
