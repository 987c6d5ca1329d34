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
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

import mmaref


def stimulus(u: mmaref.Unit, n: int, rng: np.random.Generator):
    """a quarter each: N(0,1) values, values over the whole exponent range,
    exactly cancelling pairs, and random bit patterns (NaN, Inf, subnormals)"""
    f = u.formats
    K = u.K
    q = n // 4
    x = rng.standard_normal((n, K))
    y = rng.standard_normal((n, K))
    wide = np.ldexp(rng.uniform(1, 2, (q, K)), rng.integers(-20, 12, (q, K))) * rng.choice([-1, 1], (q, K))
    x[q:2 * q], y[q:2 * q] = wide, wide[::-1]
    x[2 * q:3 * q, K // 2:] = -x[2 * q:3 * q, :K // 2]
    y[2 * q:3 * q, K // 2:] = y[2 * q:3 * q, :K // 2]
    a = mmaref.encode(x, f["a"], saturate=True)
    b = mmaref.encode(y, f["b"], saturate=True)
    c = mmaref.encode(rng.standard_normal(n) * 4, f["c"])
    bits = lambda fm, shape: rng.integers(0, 1 << fm.width, shape, dtype=np.uint64).astype(fm.dtype)
    a[3 * q:], b[3 * q:], c[3 * q:] = bits(f["a"], (n - 3 * q, K)), bits(f["b"], (n - 3 * q, K)), bits(f["c"], n - 3 * q)
    return c, a, b


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
    rng = np.random.default_rng(int(os.environ.get("MMAREF_TB_SEED", "1")))
    c, a, b = stimulus(u, n, rng)
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
