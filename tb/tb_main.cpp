// tb_main: clock driver of the Verilator testbench tb_top (SV top with the
// DPI scoreboard).  Prints the wall time, the process's CPU time and vectors
// per second by each at the end (on a shared machine the CPU time is the
// steadier measure of the testbench itself).
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "Vtb_top.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

static int exit_status = 3;     // set by the testbench; 3: it never finished
static long long vectors = -1;  // set by the testbench at the end

extern "C" void tb_exit_status(int code) { exit_status = code; }
extern "C" void tb_vectors(long long n) { vectors = n; }

// FST tracing on request of the testbench (the replay of the first
// mismatch); only in binaries built with --trace-fst
static Vtb_top *top_p;
#if VM_TRACE
static VerilatedFstC *fst;
#endif
extern "C" int tb_trace_open(const char *path)
{
#if VM_TRACE
    if (fst) return 1;
    fst = new VerilatedFstC;
    top_p->trace(fst, 99);
    fst->open(path);
    return fst->isOpen();
#else
    (void)path;
    return 0;
#endif
}

int main(int argc, char **argv)
{
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    ctx->fatalOnError(false);
#if VM_TRACE
    ctx->traceEverOn(true);
#endif
    auto top = std::make_unique<Vtb_top>(ctx.get());
    top_p = top.get();
    auto t0 = std::chrono::steady_clock::now();
    timespec c0{}, c1{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    unsigned long long cycles = 0;
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
        cycles++;
    }
    top->final();
#if VM_TRACE
    if (fst) fst->close();
#endif
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
    if (vectors >= 0)
        std::printf("tb_main: %lld vectors in %.3f s: %.0f vectors/s (CPU %.3f s: %.0f vectors/s; %llu cycles)\n",
                    vectors, s, vectors / s, cpu, vectors / cpu, cycles);
    return exit_status;
}
