"""IEEE exception flags from Python (unit.dot(..., flags=True)) against the
command-line tool: `mmaref eval --flags` on single vectors, and the flags
field that `mmaref gen` writes for the IEEE suites, both computed by the
CLI here; vector files with flags written, read and checked."""
import os

import numpy as np
import pytest

import mmaref

# every rounding mode, and outputs narrower and wider than the inputs
UNITS = ["ieee,a=fp16,c=fp32,k=2,round=rne", "ieee,a=fp16,c=fp32,k=2,round=rz",
         "ieee,a=bf16,c=fp32,k=4,round=rd", "ieee,a=e5m2,c=fp16,d=fp16,k=2,round=ru",
         "ieee,a=e4m3ieee,c=fp32,d=e4m3ieee,k=2,round=rmm", "ieee,a=fp32,c=fp32,k=1,round=rne"]
SUITES = ["ieee-zero", "ieee-overflow", "ieee-tiny", "ieee-sticky", "ieee-nan", "random"]


def eval_flags(cli, unit, c, a, b):
    """d and the flag byte as `mmaref eval --flags` prints them"""
    hx = lambda v: ",".join(f"{int(x):x}" for x in v)
    out = cli("eval", "--flags", unit, f"{int(c):x}", hx(a), hx(b)).stdout.split()
    return int(out[0], 16), int(out[1], 16)


@pytest.mark.parametrize("unit", UNITS)
def test_flags_match_gen(cli, tmp_path, unit):
    """each IEEE suite's vectors: Python's d and flags are the file's, which
    mmaref gen computed"""
    u = mmaref.Unit(unit)
    assert u.has_flags
    seen = 0
    for suite in SUITES:
        path = tmp_path / f"{suite}.vec"
        cli("gen", unit, "--suite", suite, "--count", 400, "--seed", 5, "-o", path)
        vf = mmaref.read_vectors(path)
        assert vf.flags is not None and vf.flags.dtype == np.uint8
        d, fl = u.dot(vf.c, vf.a, vf.b, flags=True)
        assert fl.shape == d.shape == (len(vf),)
        assert np.array_equal(d, vf.d.astype(d.dtype)), f"{suite}: d differs"
        bad = np.flatnonzero(fl != vf.flags)
        assert not bad.size, f"{suite}: line {vf.line[bad[0]]}: flags {fl[bad[0]]:02x}, file {vf.flags[bad[0]]:02x}"
        seen |= int(np.bitwise_or.reduce(fl))
    # the suites raise every flag a dot product can, except where the unit
    # cannot: fp16 products into fp32 neither overflow (below 2^32 each) nor
    # underflow (multiples of 2^-48: a subnormal fp32 sum is exact)
    every = mmaref.Flag.INEXACT | mmaref.Flag.UNDERFLOW | mmaref.Flag.OVERFLOW | mmaref.Flag.INVALID
    if unit.startswith("ieee,a=fp16,c=fp32"):
        every &= ~(mmaref.Flag.UNDERFLOW | mmaref.Flag.OVERFLOW)
    assert seen == every


def test_flags_match_eval(cli):
    """single vectors against mmaref eval --flags, the two of the IEEE
    semantics issue among them, leading shapes kept"""
    cases = [("ieee,a=e5m2,c=fp16,d=fp16,k=2,round=rz", 0x7b00, [0x59, 0x66], [0xe6, 0x65]),
             ("ieee,a=bf16,c=fp32,k=2,round=rd", 0x80000000, [0x8ab5, 0x0ab5], [0x0add, 0x0add])]
    rng = np.random.default_rng(2)
    for unit in UNITS[:4]:
        u = mmaref.Unit(unit)
        fa, fc = u.formats["a"], u.formats["c"]
        for _ in range(6):
            a = rng.integers(0, 1 << fa.width, u.K)
            b = rng.integers(0, 1 << fa.width, u.K)
            cases.append((unit, int(rng.integers(0, 1 << fc.width)), list(a), list(b)))
    for unit, c, a, b in cases:
        u = mmaref.Unit(unit)
        want = eval_flags(cli, unit, c, a, b)
        fa, fc = u.formats["a"], u.formats["c"]
        d, fl = u.dot(np.array([[c]], dtype=fc.dtype), np.array([[a]], dtype=fa.dtype),
                      np.array([[b]], dtype=fa.dtype), flags=True)
        assert d.shape == fl.shape == (1, 1)
        assert (int(d[0, 0]), int(fl[0, 0])) == want, f"{unit} c={c:x} a={a} b={b}"
        assert int(u.dot(c, a, b)) == want[0]       # the same d without flags
    # the two of the issue: the largest finite, overflow and inexact; -0, no flags
    assert eval_flags(cli, *cases[0]) == (0x7bff, mmaref.FLAG_OVERFLOW | mmaref.FLAG_INEXACT)
    assert eval_flags(cli, *cases[1]) == (0x80000000, 0)


def test_flag_names():
    assert [int(f) for f in (mmaref.FLAG_INEXACT, mmaref.FLAG_UNDERFLOW, mmaref.FLAG_OVERFLOW,
                             mmaref.FLAG_INFINITE, mmaref.FLAG_INVALID)] == [1, 2, 4, 8, 16]
    assert mmaref.Flag(5) == mmaref.Flag.OVERFLOW | mmaref.Flag.INEXACT
    f = mmaref.Unit("ieee,a=fp16,c=fp32,k=2,round=rmm").fields
    assert (f["tree"], f["round"], f["has_flags"]) == ("ieee", "rmm", 1)


def test_flags_refused_without_them():
    u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    assert not u.has_flags
    with pytest.raises(ValueError, match="flags: .* defines no exception flags"):
        u.dot(0, np.zeros(32, np.uint8), np.zeros(32, np.uint8), flags=True)
    with pytest.raises(ValueError, match="flags: .* defines no exception flags"):
        mmaref.write_vectors("never.vec", u, 0, np.zeros(32, np.uint8), np.zeros(32, np.uint8),
                             d=0, flags=0)
    assert not os.path.exists("never.vec")


def test_flags_threads_and_shapes():
    """the flags do not depend on the thread count; any leading shape"""
    u = mmaref.Unit("ieee,a=fp16,c=fp32,k=2,round=rne")
    rng = np.random.default_rng(4)
    a = rng.integers(0, 1 << 16, (3, 5000, 2)).astype(np.uint16)
    b = rng.integers(0, 1 << 16, (3, 5000, 2)).astype(np.uint16)
    c = rng.integers(0, 1 << 32, (3, 5000)).astype(np.uint32)
    d1, f1 = u.dot(c, a, b, flags=True, threads=1)
    d3, f3 = u.dot(c, a, b, flags=True, threads=3)
    assert f1.shape == (3, 5000) and np.array_equal(d1, d3) and np.array_equal(f1, f3)
    assert np.array_equal(d1, u.dot(c, a, b))


def test_vector_files_with_flags(cli, tmp_path):
    """write_vectors carries the flags; mmaref check accepts the file and
    refuses it with one flag changed, as check_vectors does"""
    u = mmaref.Unit("ieee,a=fp16,c=fp32,k=2,round=rd")
    rng = np.random.default_rng(6)
    a = rng.integers(0, 1 << 16, (300, 2)).astype(np.uint16)
    b = rng.integers(0, 1 << 16, (300, 2)).astype(np.uint16)
    c = rng.integers(0, 1 << 32, 300).astype(np.uint32)
    good = tmp_path / "good.vec"
    assert mmaref.write_vectors(good, u, c, a, b) == 300
    assert cli("check", good).stdout.strip().endswith("300 vectors, 0 mismatches")
    vf = mmaref.read_vectors(good)
    d, fl = u.dot(c, a, b, flags=True)
    assert np.array_equal(vf.flags, fl) and mmaref.check_vectors(good).ok
    i = int(np.flatnonzero(fl & mmaref.FLAG_INEXACT)[0])
    fl2 = fl.copy()
    fl2[i] ^= mmaref.FLAG_INEXACT
    bad = tmp_path / "bad.vec"
    mmaref.write_vectors(bad, u, c, a, b, d=d, flags=fl2)
    r = cli("check", bad, check=False)
    assert r.returncode == 1 and "300 vectors, 1 mismatches" in r.stdout
    res = mmaref.check_vectors(bad, raise_on_mismatch=False)
    assert str(res) == "300 vectors, 1 mismatches"
    assert res.flag_mismatches == [(int(vf.line[i]), int(fl2[i]), int(fl[i]))]
    assert res.mismatches == [(int(vf.line[i]), int(d[i]), int(d[i]))]
    with pytest.raises(mmaref.MismatchError, match="file flags=.. model flags=.."):
        mmaref.check_vectors(bad)
    with pytest.raises(ValueError, match="give each vector's flags with d"):
        mmaref.write_vectors(tmp_path / "x.vec", u, c, a, b, d=d)
