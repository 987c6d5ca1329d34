/* mmaparams: the mma_dpa parameter set that realizes a model unit.
 *
 *   mmaparams [--verilator | --yosys | --sv | --config] [--f-delta N] <instr|config>
 *
 * --verilator (default): -GNAME=value flags for verilator
 * --yosys:               chparam -set NAME value ... mma_dpa
 * --sv:                  #(.NAME(value), ...)
 * --config:              the model's canonical configuration string
 * --f-delta N:           F + N (the deliberately broken variant uses -1)
 * Exit status 2, with a message naming the field, for units the RTL does
 * not realize (trees groups/pairwise/fma/exact, block scales, tf32/fp64
 * inputs, flush-to-zero of sums). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_tbkit.h"

int main(int argc, char **argv)
{
    int style = 0, fdelta = 0;
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--verilator")) style = 0;
        else if (!strcmp(argv[i], "--yosys")) style = 1;
        else if (!strcmp(argv[i], "--sv")) style = 2;
        else if (!strcmp(argv[i], "--config")) style = 3;
        else if (!strcmp(argv[i], "--f-delta") && i + 1 < argc) fdelta = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs("usage: mmaparams [--verilator|--yosys|--sv|--config] [--f-delta N] <instr|config>\n"
                  "  the parameters of mma_dpa (rtl/mma_dpa.sv, installed in $(pkg-config\n"
                  "  --variable=rtldir mmaref)) that make it compute the unit, an instruction\n"
                  "  name (mmaref list) or a configuration string (docs/algorithms.md):\n"
                  "  --verilator  -GNAME=value options for verilator (the default)\n"
                  "  --yosys      a chparam command for yosys\n"
                  "  --sv         #(.NAME(value), ...) for an instance\n"
                  "  --config     the model's canonical configuration string\n"
                  "  --f-delta N  F + N: a deliberately broken unit (-1: one bit short)\n"
                  "  exit status 2 with a message for units mma_dpa does not realize\n", stdout);
            return 0;
        }
        else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "mmaparams: unknown option %s\n", argv[i]);
            return 2;
        } else spec = argv[i];
    }
    if (!spec) {
        fprintf(stderr, "usage: mmaparams [--verilator|--yosys|--sv|--config] [--f-delta N] <instr|config>\n");
        return 2;
    }
    mma_unit u;
    char err[512];
    if (mma_unit_parse(spec, &u, err, sizeof err)) {
        fprintf(stderr, "mmaparams: %s\n", err);
        return 2;
    }
    if (style == 3) {
        char cfg[512];
        mma_unit_config(&u, cfg, sizeof cfg);
        puts(cfg);
        return 0;
    }
    const char *names[64];
    long values[64];
    int n = mmaref_tbk_rtl_params(&u, fdelta, names, values, 64, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mmaparams: %s: %s\n", spec, err);
        return 2;
    }
    if (style == 2) fputs("#(", stdout);
    if (style == 1) fputs("chparam", stdout);
    for (int i = 0; i < n; i++) {
        if (style == 0) printf("%s-G%s=%ld", i ? " " : "", names[i], values[i]);
        else if (style == 1) {   /* yosys's chparam takes no negative decimals */
            if (values[i] < 0) printf(" -set %s 32'sh%08lx", names[i], (unsigned long)(uint32_t)values[i]);
            else printf(" -set %s %ld", names[i], values[i]);
        }
        else printf("%s.%s(%ld)", i ? ", " : "", names[i], values[i]);
    }
    if (style == 1) fputs(" mma_dpa", stdout);
    if (style == 2) fputs(")", stdout);
    fputc('\n', stdout);
    return 0;
}
