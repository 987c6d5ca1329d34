#include "fast.h"
static int groups_ok(const mma_unit *u) { (void)u; return 0; }
static fast_hdr *groups_build(const mma_unit *u, int mode) { (void)u; (void)mode; return NULL; }
const fast_family fast_groups_family = {groups_ok, groups_build};
