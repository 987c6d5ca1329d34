"""matmul, metrics and vector files, checked against the mmaref command
(eval chained by hand, metrics --json, gemm --json, check) and against
compositions of unit.dot in NumPy."""
import json

import numpy as np
import pytest

import mmaref

HOP = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
MX = "blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e2m1.ue8m0"


def hexs(f, xs):
    return ",".join(f"{int(x):0{f.hexdigits}x}" for x in np.atleast_1d(xs))


def test_matmul_tc_equals_chained_eval(cli):
    """an output element in tc mode is the chain of `mmaref eval` calls,
    each call's d the next call's c"""
    u = mmaref.Unit(HOP)
    rng = np.random.default_rng(1)
    A = mmaref.encode(rng.standard_normal((3, 128)), "e4m3")
    B = mmaref.encode(rng.standard_normal((128, 2)), "e4m3")
    C = mmaref.encode(rng.standard_normal((3, 2)), "fp32")
    D = mmaref.matmul(A, B, C, unit=u)
    assert D.dtype == np.uint32 and D.shape == (3, 2)
    f = u.formats
    for i in range(3):
        for j in range(2):
            d = C[i, j]
            for s in range(0, 128, 32):
                d = int(cli("eval", HOP, hexs(f["c"], d), hexs(f["a"], A[i, s:s + 32]), hexs(f["b"], B[s:s + 32, j])).stdout, 16)
            assert d == D[i, j]


@pytest.mark.parametrize("name", [HOP, "ada:mma.m16n8k16.f16.f16.f16.f16", MX, "ampere:mma.m8n8k4.f64.f64.f64.f64"])
def test_matmul_modes_compose_from_dot(name):
    """tc, promote and twostage equal the same chains built from unit.dot and
    NumPy float32 (float64) adds, bit for bit; exact equals unit.exact"""
    u = mmaref.Unit(name)
    rng = np.random.default_rng(7)
    M, N, K = 5, 4, u.K * 8
    A, B = rng.standard_normal((M, K)), rng.standard_normal((K, N))
    kw = {}
    f = u.formats
    if u.nscales:
        Ae, sa = np.empty((M, K), np.uint64), np.empty((M, K // u.block), np.uint64)
        Be, sb = np.empty((N, K), np.uint64), np.empty((N, K // u.block), np.uint64)
        # the OCP MX shared exponent, computed here: floor(log2 amax) - emax(elem)
        emax = {"e4m3": 8, "e2m1": 2}
        for X, Xe, s, fmt in ((A, Ae, sa, f["a"]), (B.T, Be, sb, f["b"])):
            for r in range(X.shape[0]):
                for bl in range(K // u.block):
                    blk = X[r, bl * u.block:(bl + 1) * u.block]
                    e = int(np.floor(np.log2(np.abs(blk).max()))) - emax[fmt.name]
                    s[r, bl] = e + 127
                    Xe[r, bl * u.block:(bl + 1) * u.block] = mmaref.encode(blk / 2.0 ** e, fmt, saturate=True)
        kw = dict(sa=sa, sb=sb.T)
        Aenc, Benc = Ae, Be.T
    else:
        Aenc, Benc = mmaref.encode(A, f["a"], saturate=True), mmaref.encode(B, f["b"], saturate=True)
    rf = np.float64 if f["d"].name == "fp64" else np.float32
    for mode, nc in (("tc", 0), ("promote", u.K * 2), ("twostage", u.K)):
        D = mmaref.matmul(Aenc, Benc, unit=u, mode=mode, nc=nc or 128, **kw)
        Df = mmaref.matmul(A, B, unit=u, mode=mode, nc=nc or 128)       # from floats: the same encodings inside
        assert np.array_equal(mmaref.decode(D, "fp64" if rf is np.float64 else (f["d"] if mode == "tc" else "fp32")), Df)
        for i in range(M):
            for j in range(N):
                a, b = Aenc[i].reshape(-1, u.K), Benc[:, j].reshape(-1, u.K)
                s_a = kw["sa"][i].reshape(-1, u.nscales) if u.nscales else [None] * len(a)
                s_b = kw["sb"][:, j].reshape(-1, u.nscales) if u.nscales else [None] * len(a)
                if mode == "tc":
                    d = 0
                    for q in range(len(a)):
                        d = u.dot(d, a[q], b[q], s_a[q], s_b[q])
                        if f["c"] != f["d"]:
                            d = mmaref.encode(mmaref.decode(d, f["d"]), f["c"], saturate="inf")
                    want = int(d)
                else:
                    r, per = rf(0), nc // u.K
                    for w in range(0, len(a), per):
                        d = 0
                        for q in range(w, w + per):
                            d = u.dot(d, a[q], b[q], s_a[q], s_b[q])
                        r = rf(r + rf(mmaref.decode(d, f["d"])))
                    want = int(np.array(r).view(np.uint64 if rf is np.float64 else np.uint32))
                assert int(D[i, j]) == want, (mode, i, j)
    X = mmaref.matmul(Aenc, Benc, unit=u, mode="exact", **kw)
    if not u.nscales:
        aa = np.repeat(Aenc[:, None, :], N, axis=1)
        bb = np.repeat(Benc.T[None, :, :], M, axis=0)
        assert np.array_equal(X, u.exact(0, aa, bb))


def test_matmul_1024_cube_through_qgmma_runs():
    """the size the speed figure is measured on (make bench): the result is
    finite and its error against the exact GEMM is that of 32 QGMMA calls"""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((256, 1024)) * 0.5, rng.standard_normal((1024, 256)) * 0.5
    D = mmaref.matmul(A, B, unit=HOP, mode="tc")
    X = mmaref.matmul(A, B, unit=HOP, mode="exact")
    rel = np.abs(D - X).sum() / np.abs(X).sum()
    assert np.isfinite(D).all() and 1e-5 < rel < 1e-2


def fmt9(v):
    return "null" if v is None else (str(v) if isinstance(v, int) else "%.9g" % v)


def test_metrics_equal_cli_json(cli):
    units = [HOP, "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3", "exact,a=e4m3,b=e4m3,k=32", MX]
    for dist in ("normal", "llm", "bits"):
        ref = json.loads(cli("metrics", *units, "--dist", dist, "--count", 3000, "--seed", 4, "--json").stdout)["units"]
        got = mmaref.metrics(*units, dist=dist, count=3000, seed=4)
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert set(g) == set(r)
            for key in r:
                rv = r[key]
                assert (fmt9(g[key]) if not isinstance(rv, str) else g[key]) == (fmt9(rv) if not isinstance(rv, str) else rv), (dist, key)


def test_gemm_metrics_equal_cli_json(cli):
    ref = json.loads(cli("gemm", HOP, "--k", 512, "--mode", "tc,promote,twostage", "--nc", 128, "--count", 40,
                         "--seed", 2, "--json").stdout)["rows"]
    got = mmaref.gemm_metrics(HOP, k=512, modes=("tc", "promote", "twostage"), nc=128, count=40, seed=2)
    for g, r in zip(got, ref):
        for key in r:
            assert (g[key] if isinstance(r[key], str) else fmt9(g[key])) == (r[key] if isinstance(r[key], str) else fmt9(r[key])), key
    ref = json.loads(cli("gemm", HOP, "--k", 256, "--ntrun", "--nc", 32, "--count", 30, "--json").stdout)["units"][0]
    got = mmaref.gemm_metrics(HOP, k=256, ntrun=True, nc=32, count=30)[0]
    assert got["first_change"] == ref["first_change"] == 11
    assert [fmt9(s["changed"]) for s in got["sweep"]] == [fmt9(s["changed"]) for s in ref["sweep"]]


def test_vector_files_roundtrip(cli, tmp_path):
    u = mmaref.Unit(MX)
    rng = np.random.default_rng(3)
    n = 500
    c = mmaref.encode(rng.standard_normal(n), "fp32")
    a = rng.integers(0, 256, (n, 32), dtype=np.uint8)
    b = rng.integers(0, 16, (n, 32), dtype=np.uint8)
    sa, sb = rng.integers(110, 140, (n, 1), dtype=np.uint8), rng.integers(110, 140, (n, 1), dtype=np.uint8)
    for name in ("v.vec", "v.vec.xz", "v.vec.gz"):
        p = tmp_path / name
        assert mmaref.write_vectors(p, u, c, a, b, sa, sb) == n
        assert cli("check", p).stdout.strip().endswith(f"{n} vectors, 0 mismatches")
        vf = mmaref.read_vectors(p)
        assert vf.unit == u and len(vf) == n and np.array_equal(vf.a, a) and np.array_equal(vf.sb, sb)
        assert mmaref.check_vectors(p).ok
    # a file the command wrote, read and checked from Python
    g = tmp_path / "g.vec"
    cli("gen", HOP, "--suite", "compliance", "--count", 300, "--seed", 1, "-o", g)
    assert mmaref.check_vectors(g).count == 300
    # one wrong d: loud
    vf = mmaref.read_vectors(p)
    d = vf.d.copy()
    d[7] ^= 1
    bad = tmp_path / "bad.vec"
    mmaref.write_vectors(bad, u, vf.c, vf.a, vf.b, vf.sa, vf.sb, d=d)
    with pytest.raises(mmaref.MismatchError, match=r"500 vectors, 1 mismatches") as e:
        mmaref.check_vectors(bad)
    assert e.value.result.mismatches[0][0] == vf.line[7]
    assert not mmaref.check_vectors(bad, raise_on_mismatch=False).ok
