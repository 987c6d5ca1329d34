"""Units and dot products from Python, checked against the mmaref command
(mmaref eval, gen, check) and the H100 captures."""
import glob
import os

import numpy as np
import pytest

import mmaref

HOP = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
UNITS = [HOP, "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e2m1.e3m2",
         "ampere:mma.m16n8k16.f16.f16.f16.f16", "hopper:wgmma.m64n8k8.f32.tf32.tf32",
         "cdna3:v_mfma_f32_16x16x32_fp8_fp8", "cdna2:v_mfma_f32_16x16x4bf16_1k",
         "ampere:mma.m8n8k4.f64.f64.f64.f64", "fused,a=e4m3,b=e4m3,k=32,f=16",
         "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e2m1.ue8m0",
         "blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3"]


def random_operands(u, n, rng):
    """random encodings of every operand (all bit patterns, specials too)"""
    f = u.formats

    def enc(fmt, shape):
        return (rng.integers(0, 2 ** min(fmt.width, 63), size=shape, dtype=np.uint64)).astype(fmt.dtype)

    ops = [enc(f["c"], n), enc(f["a"], (n, u.K)), enc(f["b"], (n, u.K))]
    if u.nscales:
        ops += [enc(f["scale"], (n, u.nscales)), enc(f["scale"], (n, u.nscales))]
    return ops


def test_properties():
    u = mmaref.Unit(HOP)
    assert (u.name, u.K, u.algorithm, u.F) == (HOP, 32, "FDA", 13)
    assert u.formats["a"].name == "e4m3" and u.formats["d"].name == "fp32" and u.formats["scale"] is None
    assert "f=13" in u.configuration and mmaref.Unit(u.configuration) == u
    m = mmaref.Unit("blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e2m1.ue8m0")
    assert (m.block, m.nscales, m.formats["scale"].name) == (32, 1, "ue8m0")
    assert HOP in mmaref.units() and len(mmaref.units()) > 300


@pytest.mark.parametrize("name", UNITS)
def test_dot_equals_mmaref_eval(cli, name):
    """unit.dot on random encodings (specials included) gives what
    `mmaref eval` prints, vector by vector"""
    u = mmaref.Unit(name)
    rng = np.random.default_rng(len(name))
    ops = random_operands(u, 12, rng)
    d = u.dot(*ops)
    hx = lambda f, v: f"{int(v):0{f.hexdigits}x}"
    f = u.formats
    for i in range(12):
        args = [name, hx(f["c"], ops[0][i]), ",".join(hx(f["a"], x) for x in ops[1][i]),
                ",".join(hx(f["b"], x) for x in ops[2][i])]
        if u.nscales:
            args += [",".join(hx(f["scale"], x) for x in ops[3][i]), ",".join(hx(f["scale"], x) for x in ops[4][i])]
        assert cli("eval", *args).stdout.strip() == hx(f["d"], d[i]), f"vector {i}"


def test_dot_shapes_dtypes_threads():
    u = mmaref.Unit(HOP)
    rng = np.random.default_rng(5)
    c, a, b = random_operands(u, 6000, rng)
    d = u.dot(c, a, b)
    assert d.shape == (6000,) and d.dtype == np.uint32
    # wider dtypes, leading shapes, broadcast c, thread counts: the same bits
    assert np.array_equal(u.dot(c.astype(np.uint64), a.astype(np.uint64), b.astype(np.uint16), threads=1), d)
    assert np.array_equal(u.dot(c.reshape(2, 3000), a.reshape(2, 3000, 32), b.reshape(2, 3000, 32), threads=3),
                          d.reshape(2, 3000))
    d0 = u.dot(0, a[:5], b[:5])
    assert np.array_equal(d0, u.dot(np.zeros(5, np.uint32), a[:5], b[:5]))
    assert u.dot(0, a[0], b[0]).shape == ()
    assert u.dot(np.zeros(0, np.uint32), a[:0], b[:0]).shape == (0,)


def test_ml_dtypes_inputs_are_their_bits():
    ml = pytest.importorskip("ml_dtypes")
    u = mmaref.Unit(HOP)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((100, 32)), rng.standard_normal((100, 32))
    xa, ya = x.astype(ml.float8_e4m3fn), y.astype(ml.float8_e4m3fn)
    assert np.array_equal(u.dot(0, xa, ya), u.dot(0, xa.view(np.uint8), ya.view(np.uint8)))
    with pytest.raises(TypeError, match="a: expected encodings of e4m3"):
        u.dot(0, x.astype(ml.float8_e5m2), ya)


def test_exact_and_chains():
    """unit.exact is the exact sum (checked with Python fractions); a deeper
    last axis chains K at a time with c counted once"""
    from fractions import Fraction
    u = mmaref.Unit(HOP)
    rng = np.random.default_rng(9)
    a = mmaref.encode(rng.standard_normal((20, 96)), "e4m3")
    b = mmaref.encode(rng.standard_normal((20, 96)), "e4m3")
    c = mmaref.encode(rng.standard_normal(20), "fp32")
    x = u.exact(c, a, b)
    av, bv, cv = mmaref.decode(a, "e4m3"), mmaref.decode(b, "e4m3"), mmaref.decode(c, "fp32")
    for i in range(20):
        ex = Fraction(cv[i]) + sum(Fraction(p) * Fraction(q) for p, q in zip(av[i], bv[i]))
        assert x[i] == float(ex)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "vectors", "hw", "h100", "*.specials.vec.xz")))[:8]
                         + sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "vectors", "hw", "h100", "wgmma*.compliance.vec.xz")))[:3])
def test_h100_captures(path):
    """the H100's own outputs, through the Python API"""
    r = mmaref.check_vectors(path)
    assert r.ok and r.count > 0


def test_help_reads_well():
    import pydoc
    text = pydoc.render_doc(mmaref, renderer=pydoc.plaintext)
    for name in ("Unit", "dot", "encode", "decode", "matmul", "metrics", "gemm_metrics", "read_vectors",
                 "write_vectors", "check_vectors", "MismatchError", "Error"):
        assert name in text
    for name in mmaref.__all__:
        obj = getattr(mmaref, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 40, name
