// The clock of the testbench `mmaref verify` generated (mmaref_verify_tb);
// generated from a template, do not edit.  +timeout=<seconds> stops a run
// that takes longer (recorded as such); +fst=<file> traces the whole run
// into an FST waveform (the binary built for replays only); +cov=<file>
// writes the coverage counts there (the binary built with coverage).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "Vmmaref_verify_tb.h"
#include "verilated.h"
#include "mmaref_harness.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

// $finish ends the campaign quietly (built with -DVL_USER_FINISH): the
// harness has printed the report
void vl_finish(const char *, int, const char *) { Verilated::threadContextp()->gotFinish(true); }

int main(int argc, char **argv)
{
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    ctx->fatalOnError(false);
    double timeout = 0;
    const char *fst_path = nullptr, *cov_path = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!std::strncmp(argv[i], "+cov=", 5)) cov_path = argv[i] + 5;
        if (!std::strncmp(argv[i], "+timeout=", 9)) timeout = std::atof(argv[i] + 9);
        if (!std::strncmp(argv[i], "+fst=", 5)) fst_path = argv[i] + 5;
    }
#if VM_TRACE
    ctx->traceEverOn(fst_path != nullptr);
#endif
    auto top = std::make_unique<Vmmaref_verify_tb>(ctx.get());
#if VM_TRACE
    std::unique_ptr<VerilatedFstC> fst;
    if (fst_path) {
        fst = std::make_unique<VerilatedFstC>();
        top->trace(fst.get(), 99);
        fst->open(fst_path);
    }
#else
    if (fst_path) std::fprintf(stderr, "mmaref verify: this testbench was built without tracing\n");
#endif
    auto t0 = std::chrono::steady_clock::now();
    long long cycles = 0;
    top->clk = 0;
    top->eval();
    while (!ctx->gotFinish()) {
        top->clk = 1;
        ctx->timeInc(5);
        top->eval();
#if VM_TRACE
        if (fst) fst->dump(ctx->time());
#endif
        top->clk = 0;
        ctx->timeInc(5);
        top->eval();
#if VM_TRACE
        if (fst) fst->dump(ctx->time());
#endif
        if ((++cycles & 4095) == 0 && timeout > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout) {
            mmaref_vfy_timeout(timeout, cycles);
            break;
        }
    }
    top->final();
#if VM_TRACE
    if (fst) fst->close();
#endif
#if VM_COVERAGE
    if (cov_path) ctx->coveragep()->write(cov_path);
#else
    (void)cov_path;
#endif
    int status = mmaref_vfy_status();
    if (status == 3) std::fprintf(stderr, "mmaref verify: the simulation ended before the campaign did ($finish or $fatal in the design?)\n");
    return status;
}
