"""Bad input: every case raises an exception that names the argument and
what was expected; nothing crashes and nothing is silently wrong."""
import numpy as np
import pytest

import mmaref

HOP = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
MX = "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e2m1.ue8m0"
u = mmaref.Unit(HOP)
a8 = np.zeros((4, 32), np.uint8)

CASES = [
    # unknown names and bad configurations: the library's message
    (lambda: mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m4"), mmaref.Error, "nearest"),
    (lambda: mmaref.Unit("fused,a=e4m3,b=e4m3,k=32,f=99999"), mmaref.Error, "f"),
    (lambda: mmaref.Unit("nonsense"), mmaref.Error, "unknown instruction"),
    (lambda: mmaref.Unit(32), TypeError, "unit: expected an instruction name"),
    (lambda: mmaref.matmul(np.ones((2, 32)), np.ones((32, 2)), unit="volta:nope"), mmaref.Error, "unknown instruction"),
    (lambda: mmaref.matmul(np.ones((2, 32)), np.ones((32, 2)), unit=3.5), TypeError, "unit: expected a Unit"),
    (lambda: mmaref.encode([1.0], "e4m4"), ValueError, "format: unknown format 'e4m4'"),
    (lambda: mmaref.metrics(HOP, dist="gauss"), ValueError, "dist: unknown distribution 'gauss'"),
    # dtypes
    (lambda: u.dot(0, np.zeros((4, 32), np.float32), a8), TypeError, "a: expected encodings of e4m3"),
    (lambda: u.dot(0, a8, np.zeros((4, 32), bool)), TypeError, "b: expected encodings of e4m3"),
    (lambda: u.dot(0.5, a8, a8), TypeError, "c: expected encodings of fp32"),
    (lambda: u.dot(0, a8.astype(np.int64) - 1, a8), ValueError, "a: encodings cannot be negative"),
    (lambda: u.dot(0, a8.astype(np.uint16) + 256, a8), ValueError, "a: 128 values do not fit e4m3's 8 bits"),
    (lambda: u.dot(np.uint64(1) << 40, a8, a8), ValueError, "c: 4 values do not fit fp32's 32 bits"),
    (lambda: mmaref.decode(np.array([300]), "e4m3"), ValueError, "e: 1 values do not fit e4m3's 8 bits"),
    (lambda: mmaref.encode(np.array(["x"]), "e4m3"), TypeError, "x: expected real numbers"),
    (lambda: mmaref.matmul(np.array([["a"]]), np.ones((32, 2)), unit=HOP), TypeError, "A: expected real numbers"),
    # shapes and K
    (lambda: u.dot(0, np.zeros((4, 16), np.uint8), np.zeros((4, 16), np.uint8)), ValueError, "a: the last axis must hold"),
    (lambda: u.dot(0, a8, np.zeros((3, 32), np.uint8)), ValueError, "b: shape (3, 32) differs from a's (4, 32)"),
    (lambda: u.dot(np.zeros(3, np.uint32), a8, a8), ValueError, "c: shape (3,) does not broadcast"),
    (lambda: u.dot(0, np.uint8(0), np.uint8(0)), ValueError, "a: expected an array"),
    (lambda: u.exact(0, np.zeros((4, 48), np.uint8), np.zeros((4, 48), np.uint8)), ValueError, "multiple of"),
    (lambda: u.dot(0, a8, a8, a8[:, :1], a8[:, :1]), ValueError, "sa, sb: hopper:wgmma.m64n8k32.f32.e4m3.e4m3 takes no block scales"),
    (lambda: mmaref.Unit(MX).dot(0, a8, a8), ValueError, "sa, sb: blackwell"),
    (lambda: mmaref.Unit(MX).dot(0, a8, a8, a8[:, :2], a8[:, :2]), ValueError, "sa: expected shape (4, 1)"),
    (lambda: mmaref.matmul(np.ones((2, 48)), np.ones((48, 2)), unit=HOP), ValueError, "the depth K=48 must be a positive multiple"),
    (lambda: mmaref.matmul(np.ones((2, 64)), np.ones((32, 2)), unit=HOP), ValueError, "B: expected 64 rows"),
    (lambda: mmaref.matmul(np.ones(64), np.ones((64, 2)), unit=HOP), ValueError, "A: expected a 2-D array"),
    (lambda: mmaref.matmul(np.ones((2, 64)), np.ones((64, 2)), np.ones((3, 3)), unit=HOP), ValueError, "C: shape (3, 3)"),
    (lambda: mmaref.matmul(np.ones((2, 64)), np.ones((64, 2)), unit=HOP, mode="promote", nc=48), ValueError, "nc: 48"),
    (lambda: mmaref.matmul(np.ones((2, 64)), np.ones((64, 2)), unit=HOP, mode="fast"), ValueError, "mode: expected"),
    (lambda: mmaref.matmul(np.zeros((2, 32), np.uint8), np.zeros((32, 2), np.uint8), unit=MX), ValueError, "sa, sb: blackwell"),
    (lambda: mmaref.metrics(HOP, k=48), ValueError, "k=48 is not a positive multiple"),
    (lambda: mmaref.metrics(HOP, count=0), ValueError, "count: expected a positive integer"),
    (lambda: mmaref.metrics(HOP, quant="e5m2"), ValueError, "quant=e5m2"),
    (lambda: mmaref.metrics(), ValueError, "units: give at least one unit"),
    (lambda: mmaref.gemm_metrics(HOP, k=64, modes=["tc", "slow"]), ValueError, "modes: unknown mode 'slow'"),
    (lambda: mmaref.gemm_metrics(HOP, k=100), ValueError, "k=100 is not a positive multiple"),
    (lambda: mmaref.gemm_metrics("ampere:mma.m8n8k4.f64.f64.f64.f64", k=64, ntrun=True), ValueError, "fp64"),
    (lambda: u.dot(0, a8, a8, threads=0), ValueError, "threads: expected a positive integer"),
    (lambda: mmaref.encode([1.0], "e4m3", saturate="yes"), ValueError, "saturate: expected"),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_bad_input_raises_naming_the_argument(case):
    fn, exc, text = CASES[case]
    with pytest.raises(exc) as e:
        fn()
    assert text in str(e.value)


def test_bad_vector_files(tmp_path):
    p = tmp_path / "x.vec"
    p.write_text("# mmavec 1\n# instr: " + HOP + "\n# k: 32\n# fields: c a[0..31] b[0..31] d\n" + "00 " * 10 + "\n")
    with pytest.raises(mmaref.Error, match=r"x\.vec:5"):
        mmaref.read_vectors(p)
    with pytest.raises(mmaref.Error, match="cannot|No such|open"):
        mmaref.read_vectors(tmp_path / "missing.vec")
    q = tmp_path / "nod.vec"
    mmaref.write_vectors(q, HOP, 0, a8, a8)
    text = q.read_text().replace("# fields: c a[0..31] b[0..31] d", "# fields: c a[0..31] b[0..31]")
    q.write_text("\n".join(line.rsplit(" ", 1)[0] if line and not line.startswith("#") else line for line in text.split("\n")))
    with pytest.raises(mmaref.Error, match="no d column"):
        mmaref.check_vectors(q)
    # a failed write leaves nothing behind
    with pytest.raises(TypeError):
        mmaref.write_vectors(tmp_path / "w.vec", HOP, 0, np.zeros((2, 32)), a8[:2])
    assert not list(tmp_path.glob("w.vec*")) and not list(tmp_path.glob(".w.vec*"))
    # a file with no vectors checks nothing: an error unless asked for
    e = tmp_path / "empty.vec"
    mmaref.write_vectors(e, HOP, 0, a8[:0], a8[:0])
    with pytest.raises(mmaref.Error, match=r"empty\.vec: 0 vectors: nothing was checked"):
        mmaref.check_vectors(e)
    assert mmaref.check_vectors(e, allow_empty=True).count == 0
    # a folder that does not exist, a compression it does not write: named
    with pytest.raises(OSError, match=r"nodir/w\.vec"):
        mmaref.write_vectors(tmp_path / "nodir" / "w.vec", HOP, 0, a8, a8)
    with pytest.raises(ValueError, match=r"w\.vec\.bz2: unknown compression"):
        mmaref.write_vectors(tmp_path / "w.vec.bz2", HOP, 0, a8, a8)
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted(["x.vec", "nod.vec", "empty.vec"])


def test_garbage_never_crashes():
    """random junk in every argument position: an exception, never a crash"""
    rng = np.random.default_rng(0)
    junk = [None, 0, -1, 2 ** 70, 1.5, "x", [], [[1, 2]], np.zeros((0,)), np.zeros((2, 3, 32), np.uint8),
            np.full((4, 32), 255, np.uint8), np.array([np.nan]), object(), np.zeros((4, 32), np.complex64)]
    for _ in range(300):
        args = [junk[rng.integers(len(junk))] for _ in range(3)]
        try:
            u.dot(*args)
        except (TypeError, ValueError, mmaref.Error):
            pass
        try:
            mmaref.matmul(args[0], args[1], unit=HOP)
        except (TypeError, ValueError, mmaref.Error):
            pass
