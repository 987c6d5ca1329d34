// tb_main: clock driver of the Verilator testbench tb_top (SV top with the
// DPI scoreboard).  Prints the wall time and vectors per second at the end.
#include <chrono>
#include <cstdio>
#include <memory>

#include "Vtb_top.h"
#include "verilated.h"

static int exit_status = 3;     // set by the testbench; 3: it never finished
static long long vectors = -1;  // set by the testbench at the end

extern "C" void tb_exit_status(int code) { exit_status = code; }
extern "C" void tb_vectors(long long n) { vectors = n; }

int main(int argc, char **argv)
{
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    ctx->fatalOnError(false);
    auto top = std::make_unique<Vtb_top>(ctx.get());
    auto t0 = std::chrono::steady_clock::now();
    unsigned long long cycles = 0;
    top->clk = 0;
    top->eval();
    while (!ctx->gotFinish()) {
        top->clk = 1;
        ctx->timeInc(5);
        top->eval();
        top->clk = 0;
        ctx->timeInc(5);
        top->eval();
        cycles++;
    }
    top->final();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (vectors >= 0)
        std::printf("tb_main: %lld vectors in %.3f s: %.0f vectors/s (%llu cycles)\n", vectors, s,
                    vectors / s, cycles);
    return exit_status;
}
