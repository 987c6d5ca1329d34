"""cocotb testbench of the project's RTL dot-product unit (rtl/mma_dpa.sv)
with the mmaref Python package as its scoreboard.

The unit is configured (by python/cocotb_tb/run.py) to realize the
instruction in MMAREF_TB_UNIT; this test drives MMAREF_TB_COUNT vectors
through it, one a clock, and compares every output with unit.dot's, bit for
bit (two NaNs match where the unit leaves the payload free).  Any mismatch
fails the test, after the first few are logged."""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
import numpy as np

import mmaref


def pack(row: np.ndarray, width: int) -> int:
    """a[0..K-1] as the unit's packed port: a_k at bits [k*width +: width]"""
    v = 0
    for k, e in enumerate(row.tolist()):
        v |= e << (k * width)
    return v


@cocotb.test()
async def random_vectors(dut):
    u = mmaref.Unit(os.environ["MMAREF_TB_UNIT"])
    n = int(os.environ.get("MMAREF_TB_COUNT", "3000"))
    # the library's compliance suite (docs/suites.md): the vectors `mmaref gen`
    # writes for this unit and seed
    v = mmaref.gen(u, "compliance", n, int(os.environ.get("MMAREF_TB_SEED", "1")))
    c, a, b = v.c, v.a, v.b
    expected = u.dot(c, a, b)                      # the scoreboard: the model, all at once
    wa, wb = u.formats["a"].width, u.formats["b"].width
    pa = [pack(r, wa) for r in a]
    pb = [pack(r, wb) for r in b]

    cocotb.start_soon(Clock(dut.clk, 10, units="ns").start())
    dut.rst_n.value = 0
    dut.in_valid.value = 0
    dut.a.value, dut.b.value, dut.c.value = 0, 0, 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    dut.rst_n.value = 1

    # one vector a clock: driven after a falling edge, taken at the rising
    # edge; outputs are collected in order wherever out_valid says (any
    # pipeline depth)
    got = []
    for cycle in range(n + 16):
        await FallingEdge(dut.clk)
        if cycle < n:
            dut.a.value, dut.b.value, dut.c.value = pa[cycle], pb[cycle], int(c[cycle])
        dut.in_valid.value = int(cycle < n)
        await RisingEdge(dut.clk)
        await ReadOnly()
        if dut.out_valid.value == 1:
            got.append(int(dut.d.value))
        if len(got) == n:
            break
    assert len(got) == n, f"the unit gave {len(got)} outputs for {n} vectors"
    got = np.array(got[:n], dtype=np.uint64).astype(expected.dtype)
    ok = u.result_equal(got, expected)
    bad = np.flatnonzero(~ok)
    hd = u.formats["d"].hexdigits
    for j in bad[:5]:
        dut._log.error(f"vector {j}: rtl d={int(got[j]):0{hd}x} model d={int(expected[j]):0{hd}x} "
                       f"c={int(c[j]):x} a={a[j].tolist()} b={b[j].tolist()}")
    dut._log.info(f"{n} vectors, {bad.size} mismatches")
    with open("summary.json", "w") as f:                 # for run.py (in the test directory)
        json.dump({"unit": str(u), "vectors": n, "mismatches": int(bad.size)}, f)
    assert bad.size == 0, f"{n} vectors, {bad.size} mismatches (RTL against mmaref {u})"
