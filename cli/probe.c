/* mmaref probe: which configuration reproduces the outputs in these vector
 * files (from a GPU, an RTL simulation, any unit)? */
#include "cli.h"
#include "mmaref_triage.h"

#include <stdlib.h>
#include <string.h>

const char cli_probe_help[] =
        "usage: mmaref probe <file.vec>... [--instr X] [--threads N]\n"
        "       mmaref probe <unit.dut> [--suites S1,S2] [--count N] [--random N] [--workdir DIR] [--threads N]\n"
        "  Infers, from the outputs d of the vectors alone, the configuration of the\n"
        "  unit that computed them: the fraction bits F kept in alignment, the output\n"
        "  rounding and precision, the order of summation (one fused step, chained\n"
        "  steps of l, even/odd), where zero terms sit in the maximum exponent\n"
        "  (ezero), subnormal inputs, the NaN and zero rules.  Only the formats and k\n"
        "  of the files' '# instr:' are used (--instr gives other ones); several files\n"
        "  of one shape are probed together.  Prints each finding with what the\n"
        "  neighbouring values would get wrong, the configuration string, and the\n"
        "  catalogue instructions that reproduce the vectors too.\n"
        "  With a description (docs/verify.md), the unit's RTL is run through the\n"
        "  testbench of mmaref verify on the directed suites (the description's, or\n"
        "  --suites; no constrained-random stimulus unless --random) and probed on\n"
        "  every result it gives (built in <name>.probe, or --workdir).\n"
        "  Exit status 0 when the configuration reproduces every vector, 1 when none\n"
        "  does (the best fit is printed), 2 on bad input.\n";

static int usage(FILE *f)
{
    fputs(cli_probe_help, f);
    return f == stderr ? 2 : 0;
}

int cmd_probe(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(argv[i]);
        if (l > 4 && !strcmp(argv[i] + l - 4, ".dut")) return cmd_probe_dut(argc, argv);
    }
    const char *instr = NULL;
    int threads = 0, nfiles = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) return 2;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { free(files); return usage(stdout); }
        else if (!strcmp(argv[i], "--instr") && i + 1 < argc) instr = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if ((threads = cli_threads(argv[++i])) < 0) { free(files); return 2; }
        }
        else if (argv[i][0] == '-' && argv[i][1]) {
            cli_bad_option("probe", argv[i], "--instr --threads");
            free(files);
            return 2;
        }
        else files[nfiles++] = argv[i];
    }
    if (!nfiles) { free(files); return usage(stderr); }
    if (instr) {                      /* the argument's mistake, named as such */
        mma_unit iu;
        char ierr[1024];
        if (mma_unit_parse(instr, &iu, ierr, sizeof ierr)) {
            fprintf(stderr, "mmaref probe: --instr: %s\n", ierr);
            free(files);
            return 2;
        }
    }
    mma_obs o;
    memset(&o, 0, sizeof o);
    char err[1024];
    for (int i = 0; i < nfiles; i++)
        if (mma_obs_read(&o, files[i], instr, err, sizeof err)) {
            fprintf(stderr, "mmaref: %s\n", err);
            mma_obs_free(&o);
            free(files);
            return 2;
        }
    if (!o.n) {
        fprintf(stderr, "mmaref probe: %s%s: no vectors to probe\n", files[0], nfiles > 1 ? " (and the other files)" : "");
        mma_obs_free(&o);
        free(files);
        return 2;
    }
    free(files);
    const mma_unit *sh = &o.shape;
    printf("probe: %zu vectors from %d file%s, a=%s b=%s c=%s d=%s k=%d", o.n, nfiles, nfiles > 1 ? "s" : "",
           mma_format(sh->a)->name, mma_format(sh->b)->name, mma_format(sh->c)->name, mma_format(sh->d)->name, sh->k);
    if (sh->scale != MMA_FMT_NONE) printf(" scale=%s block=%d", mma_format(sh->scale)->name, sh->block);
    printf("\n");
    mma_probe_opts opt = {threads, NULL, NULL, 0};
    mma_probe_result r;
    if (mma_probe(&o, &opt, &r, err, sizeof err)) {
        fprintf(stderr, "mmaref probe: %s\n", err);
        mma_obs_free(&o);
        return 2;
    }
    mma_probe_write(stdout, &o, &r, threads);
    fprintf(stderr, "probe: %ld configurations, %ld dot products in %.1f s\n", r.candidates, r.dots, r.seconds);
    mma_obs_free(&o);
    return r.fit == r.n ? 0 : 1;
}
