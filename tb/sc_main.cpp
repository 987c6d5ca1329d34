// sc_main: SystemC testbench of mma_dpa (verilator --sc).  Stimulus from
// mmaref_tbkit's constrained-random generator; the scoreboard calls the C
// model directly (mma_dot) and accounts coverage with mmaref_tbkit.
//
//   Vsc_<tag> <instr> [count] [seed] [mode]
// Prints "<N> vectors, <M> mismatches"; exit status 1 on mismatches.
// Built per preset with -DTB_AB=<a bits> -DTB_BB=<b bits> (K * width).
#include <systemc.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>

#include "Vmma_dpa.h"
#include "mmaref.h"
#include "mmaref_tbkit.h"

static_assert(TB_AB > 64 && TB_BB > 64, "operand vectors of more than 64 bits (sc_bv ports)");

struct pending {
    uint64_t c, expect;
    std::vector<uint64_t> a, b;
};

SC_MODULE(tb_sc) {
    sc_in<bool> clk;
    sc_out<bool> rst_n, in_valid;
    sc_out<sc_bv<TB_AB>> a;
    sc_out<sc_bv<TB_BB>> b;
    sc_out<uint32_t> c;
    sc_in<bool> out_valid;
    sc_in<uint32_t> d, cov;

    mma_unit u;
    long count = 0;
    mmaref_tbk_gen *gen = nullptr;
    mmaref_tbk_sb *sb = nullptr;
    int status = 3;

    void run()
    {
        int wa = mma_format(u.a)->width, wb = mma_format(u.b)->width;
        std::deque<pending> q;
        std::vector<uint64_t> va(u.k), vb(u.k);
        rst_n.write(false);
        in_valid.write(false);
        wait(); wait();
        rst_n.write(true);
        wait();
        long issued = 0;
        while (issued < count || !q.empty()) {
            // check the result of the oldest vector in flight
            if (out_valid.read()) {
                if (q.empty()) { std::printf("tb_sc: out_valid without a vector in flight\n"); status = 1; break; }
                pending &p = q.front();
                mmaref_tbk_sb_record(sb, p.c, p.a.data(), p.b.data(), p.expect, d.read(), 0, 0,
                                     (int64_t)cov.read());
                q.pop_front();
            }
            if (issued < count) {
                pending p;
                p.a.resize(u.k);
                p.b.resize(u.k);
                mmaref_tbk_gen_next(gen, &p.c, p.a.data(), p.b.data());
                p.expect = mma_dot(&u, p.c, p.a.data(), p.b.data(), NULL, NULL);   // the model
                sc_bv<TB_AB> av;
                sc_bv<TB_BB> bv;
                for (int k = 0; k < u.k; k++) {
                    av.range(k * wa + wa - 1, k * wa) = p.a[k];
                    bv.range(k * wb + wb - 1, k * wb) = p.b[k];
                }
                a.write(av);
                b.write(bv);
                c.write((uint32_t)p.c);
                in_valid.write(true);
                q.push_back(std::move(p));
                issued++;
            } else {
                in_valid.write(false);
            }
            wait();
        }
        mmaref_tbk_sb_report(sb, stdout, 0);
        if (status == 3) status = mmaref_tbk_sb_mismatches(sb) ? 1 : 0;
        sc_stop();
    }

    SC_CTOR(tb_sc) { SC_CTHREAD(run, clk.pos()); }
};

int sc_main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <instr|config> [count] [seed] [mode]\n", argv[0]);
        return 2;
    }
    Verilated::commandArgs(argc, argv);
    mma_unit u;
    char err[512];
    if (mma_unit_parse(argv[1], &u, err, sizeof err)) {
        std::fprintf(stderr, "tb_sc: %s\n", err);
        return 2;
    }
    long count = argc > 2 ? std::atol(argv[2]) : 100000;
    uint64_t seed = argc > 3 ? std::strtoull(argv[3], NULL, 10) : 1;
    const char *mode = argc > 4 ? argv[4] : "mix";
    if (u.k * mma_format(u.a)->width != TB_AB || u.k * mma_format(u.b)->width != TB_BB) {
        std::fprintf(stderr, "tb_sc: %s does not fit this build (TB_AB=%d TB_BB=%d)\n", argv[1], TB_AB, TB_BB);
        return 2;
    }

    sc_clock clk("clk", 10, SC_NS);
    sc_signal<bool> rst_n, in_valid, out_valid;
    sc_signal<sc_bv<TB_AB>> a;
    sc_signal<sc_bv<TB_BB>> b;
    sc_signal<uint32_t> c, d, cov;

    Vmma_dpa dut("dut");
    dut.clk(clk); dut.rst_n(rst_n); dut.in_valid(in_valid);
    dut.a(a); dut.b(b); dut.c(c);
    dut.out_valid(out_valid); dut.d(d); dut.cov(cov);

    tb_sc tb("tb");
    tb.clk(clk); tb.rst_n(rst_n); tb.in_valid(in_valid);
    tb.a(a); tb.b(b); tb.c(c);
    tb.out_valid(out_valid); tb.d(d); tb.cov(cov);
    tb.u = u;
    tb.count = count;
    tb.gen = mmaref_tbk_gen_create(&u, seed, mode, err, sizeof err);
    if (!tb.gen) { std::fprintf(stderr, "tb_sc: %s\n", err); return 2; }
    tb.sb = mmaref_tbk_sb_create(&u, u.name);

    std::printf("tb_sc: SystemC testbench, %s, %ld %s vectors, seed %llu, model called directly\n",
                u.name, count, mode, (unsigned long long)seed);
    sc_start();
    dut.final();
    return tb.status;
}
