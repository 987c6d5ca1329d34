// rtl_outputs: the outputs of one combinational mma_dpa parameter set
// (PIPE=0) on the vectors of a file, written as a vector file whose d is
// the RTL's, so that `mmaref check --explain` and `mmaref probe` can say
// what the RTL computes.  Built per parameter set by mk/triage.mk.
//
//   Vmma_dpa <in.vec> <out.vec> [<parameters, for the header>]
// The output keeps the input's header ('# instr:' is the unit the RTL was
// meant to realize) and adds '# source: rtl mma_dpa <parameters>'.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "Vmma_dpa.h"
#include "verilated.h"

#include "mmaref.h"
#include "mmaref_vec.h"

// a field of `width` bits at bit lsb of a port, whatever Verilator made of
// it: a wide port (VlWide, 32-bit words) or a plain integer
template <std::size_t N>
static void put(VlWide<N> &w, int lsb, int width, uint64_t v)
{
    for (int i = 0; i < width; i++) {
        int b = lsb + i;
        uint32_t m = 1u << (b % 32);
        w[b / 32] = ((v >> i) & 1) ? (w[b / 32] | m) : (w[b / 32] & ~m);
    }
}
template <typename T>
static void put(T &x, int lsb, int width, uint64_t v)
{
    uint64_t m = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lsb;
    x = (T)(((uint64_t)x & ~m) | ((v << lsb) & m));
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: %s <in.vec> <out.vec> [<parameters>]\n", argv[0]);
        return 2;
    }
    const char *params = argc == 4 ? argv[3] : "";
    char err[1024];
    mma_vec_reader *r = mma_vec_open(argv[1], NULL, err, sizeof err);
    if (!r) { std::fprintf(stderr, "rtl_outputs: %s\n", err); return 2; }
    const mma_unit *u = mma_vec_unit(r);
    std::string tmp = std::string(argv[2]) + ".tmp";
    FILE *out = std::fopen(tmp.c_str(), "w");
    if (!out) { std::fprintf(stderr, "rtl_outputs: %s: cannot write\n", argv[2]); return 2; }
    mma_vec_write_header(out, u);
    const char **extra;
    int ne = mma_vec_extra_headers(r, &extra);
    for (int i = 0; i < ne; i++) std::fprintf(out, "%s\n", extra[i]);
    std::fprintf(out, "# source: rtl mma_dpa %s\n", params);

    auto ctx = std::make_unique<VerilatedContext>();
    auto dut = std::make_unique<Vmma_dpa>(ctx.get());
    int wa = mma_format(u->a)->width, wb = mma_format(u->b)->width, wc = mma_format(u->c)->width;
    dut->clk = 0;
    dut->rst_n = 1;
    dut->in_valid = 1;
    auto v = std::make_unique<mma_vec>();
    long n = 0;
    int rc;
    while ((rc = mma_vec_next(r, v.get(), err, sizeof err)) == 1) {
        for (int k = 0; k < u->k; k++) {
            put(dut->a, k * wa, wa, v->a[k]);
            put(dut->b, k * wb, wb, v->b[k]);
        }
        put(dut->c, 0, wc, v->c);
        dut->eval();
        v->d = (uint64_t)dut->d;
        mma_vec_write(out, u, v.get());
        n++;
    }
    dut->final();
    mma_vec_close(r);
    if (rc < 0 || std::fclose(out) != 0) {
        std::fprintf(stderr, "rtl_outputs: %s\n", rc < 0 ? err : "write failed");
        std::remove(tmp.c_str());
        return 2;
    }
    if (std::rename(tmp.c_str(), argv[2])) { std::remove(tmp.c_str()); return 2; }
    std::fprintf(stderr, "rtl_outputs: %ld vectors through mma_dpa %s\n", n, params);
    return 0;
}
