"""progress= of the long calls: the callable sees counts that grow to the
total, the results do not depend on it, and a bad value is refused."""
import numpy as np
import pytest

import mmaref
from mmaref import _progress


def _calls():
    seen = []
    return seen, lambda done, total, seconds: seen.append((done, total, seconds))


def test_dot_progress_slices(monkeypatch):
    u = mmaref.Unit("hopper:wgmma.m64n8k16.f32.bf16.bf16")
    rng = np.random.default_rng(5)
    n = 5000
    a = rng.integers(0, 1 << 16, size=(n, u.K), dtype=np.uint16)
    b = rng.integers(0, 1 << 16, size=(n, u.K), dtype=np.uint16)
    c = rng.integers(0, 1 << 32, size=n, dtype=np.uint32)
    plain = u.dot(c, a, b, progress=False)
    monkeypatch.setattr(mmaref, "_SLICE", 1024)          # five slices
    seen, cb = _calls()
    sliced = u.dot(c, a, b, progress=cb)
    assert np.array_equal(plain, sliced)
    assert [d for d, _, _ in seen] == [1024, 2048, 3072, 4096, 5000]
    assert all(t == n for _, t, _ in seen)


def test_check_vectors_progress(tmp_path, monkeypatch):
    u = mmaref.Unit("hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    rng = np.random.default_rng(1)
    n = 3000
    a = rng.integers(0, 256, size=(n, u.K), dtype=np.uint8)
    b = rng.integers(0, 256, size=(n, u.K), dtype=np.uint8)
    c = np.zeros(n, dtype=np.uint32)
    p = tmp_path / "x.vec"
    mmaref.write_vectors(p, u, c, a, b, d=u.dot(c, a, b))
    monkeypatch.setattr(mmaref, "_SLICE", 1000)
    seen, cb = _calls()
    r = mmaref.check_vectors(p, progress=cb)
    assert r.ok and r.count == n
    assert [d for d, _, _ in seen] == [1000, 2000, 3000]


def test_metrics_progress_from_c():
    seen, cb = _calls()
    with_cb = mmaref.metrics("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", count=400000, progress=cb)
    without = mmaref.metrics("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", count=400000, progress=False)
    assert with_cb == without
    # called from the C loops (four times a second, and at each loop's end)
    assert seen and all(0 <= d <= t for d, t, _ in seen)
    assert seen[-1][0] == seen[-1][1]


def test_progress_exception_raised_after_the_run():
    def boom(done, total, seconds):
        raise KeyError("stop")
    # the run ends, then the callable's exception is raised
    with pytest.raises(KeyError):
        mmaref.gemm_metrics("hopper:wgmma.m64n8k32.f32.e4m3.e4m3", k=4096, count=20000, progress=boom)


def test_progress_line_without_tqdm(capsys):
    rep = _progress.Reporter(True, "dot", "dot products")
    if isinstance(rep.bar, _progress._Line):
        rep(5, 10)
        rep.close()
        err = capsys.readouterr().err
        assert "dot: 5 of 10 dot products (50%)" in err


def test_progress_bad_value():
    u = mmaref.Unit("hopper:wgmma.m64n8k16.f32.bf16.bf16")
    with pytest.raises(TypeError, match="progress"):
        u.dot(0, np.zeros((1, u.K), np.uint16), np.zeros((1, u.K), np.uint16), progress="yes")
