/* mmaparams: the parameter set of rtl/mma_dpa.sv (rtl/mma_dpa_bs.sv for a
 * block-scaled unit) that realizes a model unit.
 *
 *   mmaparams [--verilator | --yosys | --sv | --config | --top | --dut [--rtl DIR]]
 *             [--f-delta N] [--sum N] [--stages N] [--pipe N] <instr|config>
 *
 * --verilator (default): -GNAME=value flags for verilator
 * --yosys:               chparam -set NAME value ... <top module>
 * --sv:                  #(.NAME(value), ...)
 * --config:              the model's canonical configuration string
 * --top:                 the top module: mma_dpa, or mma_dpa_bs
 * --dut:                 a description for `mmaref verify` (docs/verify.md) of
 *                        the unit with these parameters: the .sv files of DIR
 *                        (--rtl, default rtl; relative to where the .dut is
 *                        written), the parameters, the ports
 * --f-delta N:           F + N (the deliberately broken variant uses -1)
 * --sum N, --stages N, --pipe N: add SUM, STAGES, PIPE (structure, not
 *                        arithmetic: the model does not decide them)
 * Exit status 2, with a message naming the field, for units the RTL does
 * not realize (trees pairwise/fma/ieee, tf32/fp64 inputs, flush-to-zero of
 * sums, ...), or a structure value out of range. */
#define _POSIX_C_SOURCE 200809L   /* strdup, opendir */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaref.h"
#include "mmaref_tbkit.h"

/* file names in order, the package (mma_pkg.sv) first: the modules refer to it */
static int by_name(const void *x, const void *y)
{
    const char *a = *(char *const *)x, *b = *(char *const *)y;
    int pa = !strcmp(a, "mma_pkg.sv"), pb = !strcmp(b, "mma_pkg.sv");
    return pa != pb ? pb - pa : strcmp(a, b);
}

/* the .dut of the unit: DIR's .sv files, the parameters, the ports */
static int print_dut(const char *dir, const char *top, const char *spec, int n,
                     const char **names, const long *values)
{
    DIR *d = opendir(dir);
    if (!d) { fprintf(stderr, "mmaparams: --rtl %s: cannot open the directory\n", dir); return 2; }
    char *files[256];
    int nf = 0;
    struct dirent *e;
    while ((e = readdir(d)) && nf < 256) {
        size_t l = strlen(e->d_name);
        if (l > 3 && !strcmp(e->d_name + l - 3, ".sv")) files[nf++] = strdup(e->d_name);
    }
    closedir(d);
    if (!nf) { fprintf(stderr, "mmaparams: --rtl %s: no .sv files\n", dir); return 2; }
    qsort(files, (size_t)nf, sizeof files[0], by_name);
    printf("# %s as %s (mmaparams --dut)\n[files]\n", spec, top);
    for (int i = 0; i < nf; i++) { printf("%s/%s\n", dir, files[i]); free(files[i]); }
    for (int i = 0; i < n; i++) printf("param %s=%ld\n", names[i], values[i]);
    printf("\n[unit]\ntop %s\nmatch %s\n\n[ports]\nclock     clk\nreset     rst_n low\n"
           "in_valid  in_valid\nout_valid out_valid\na a\nb b\nc c\nd d\n", top, spec);
    if (!strcmp(top, "mma_dpa_bs")) printf("sa sa\nsb sb\n");
    return 0;
}

int main(int argc, char **argv)
{
    int style = 0, fdelta = 0;
    /* SUM, STAGES, PIPE: -1 not given; their ranges */
    const char *xname[3] = {"SUM", "STAGES", "PIPE"}, *xopt[3] = {"--sum", "--stages", "--pipe"};
    long xval[3] = {-1, -1, -1}, xmax[3] = {2, 4, 2};
    const char *spec = NULL, *rtl = "rtl";
    for (int i = 1; i < argc; i++) {
        int x = -1;
        for (int j = 0; j < 3; j++) if (!strcmp(argv[i], xopt[j])) x = j;
        if (!strcmp(argv[i], "--verilator")) style = 0;
        else if (!strcmp(argv[i], "--yosys")) style = 1;
        else if (!strcmp(argv[i], "--sv")) style = 2;
        else if (!strcmp(argv[i], "--config")) style = 3;
        else if (!strcmp(argv[i], "--top")) style = 4;
        else if (!strcmp(argv[i], "--dut")) style = 5;
        else if (!strcmp(argv[i], "--rtl") && i + 1 < argc) rtl = argv[++i];
        else if (!strcmp(argv[i], "--f-delta") && i + 1 < argc) fdelta = atoi(argv[++i]);
        else if (x >= 0) {
            char *end = NULL;
            if (i + 1 < argc) xval[x] = strtol(argv[++i], &end, 10);
            if (!end || *end || end == argv[i] || xval[x] < 0 || xval[x] > xmax[x]) {
                fprintf(stderr, "mmaparams: %s takes 0..%ld\n", xopt[x], xmax[x]);
                return 2;
            }
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs("usage: mmaparams [--verilator|--yosys|--sv|--config|--top|--dut [--rtl DIR]]\n"
                  "                 [--f-delta N] [--sum N] [--stages N] [--pipe N] <instr|config>\n"
                  "  the parameters of mma_dpa (rtl/mma_dpa.sv; rtl/mma_dpa_bs.sv for a\n"
                  "  block-scaled unit; installed in $(pkg-config --variable=rtldir mmaref))\n"
                  "  that make it compute the unit, an instruction name (mmaref list) or a\n"
                  "  configuration string (docs/algorithms.md):\n"
                  "  --verilator  -GNAME=value options for verilator (the default)\n"
                  "  --yosys      a chparam command for yosys\n"
                  "  --sv         #(.NAME(value), ...) for an instance\n"
                  "  --config     the model's canonical configuration string\n"
                  "  --top        the top module: mma_dpa or mma_dpa_bs\n"
                  "  --dut        a description for mmaref verify of the unit with these\n"
                  "               parameters (the .sv files of DIR, --rtl, default rtl)\n"
                  "  --f-delta N  F + N: a deliberately broken unit (-1: one bit short)\n"
                  "  --sum N      the multi-operand sum: 0 carry-propagate adder tree,\n"
                  "               1 3:2 carry-save tree, 2 4:2 carry-save tree\n"
                  "  --stages N   pipeline cuts in the sum (0..4); --pipe N registers (0..2)\n"
                  "  exit status 2 with a message for units the RTL does not realize\n", stdout);
            return 0;
        }
        else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "mmaparams: unknown option %s\n", argv[i]);
            return 2;
        } else spec = argv[i];
    }
    if (!spec) {
        fprintf(stderr, "usage: mmaparams [--verilator|--yosys|--sv|--config|--top|--dut [--rtl DIR]] [--f-delta N] [--sum N] [--stages N] [--pipe N] <instr|config>\n");
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
    int n = mmaref_tbk_rtl_params(&u, fdelta, names, values, 60, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mmaparams: %s: %s\n", spec, err);
        return 2;
    }
    const char *top = u.scale != MMA_FMT_NONE ? "mma_dpa_bs" : "mma_dpa";
    if (style == 4) {
        puts(top);
        return 0;
    }
    for (int j = 0; j < 3; j++)
        if (xval[j] >= 0) { names[n] = xname[j]; values[n++] = xval[j]; }
    if (style == 5) return print_dut(rtl, top, spec, n, names, values);
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
    if (style == 1) printf(" %s", top);
    if (style == 2) fputs(")", stdout);
    fputc('\n', stdout);
    return 0;
}
