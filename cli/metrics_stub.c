/* Placeholder until the metrics module lands: says so plainly. */
#include "cli.h"
int cmd_metrics(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mmaref metrics: not built yet\n"); return 2; }
int cmd_gemm(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mmaref gemm: not built yet\n"); return 2; }
