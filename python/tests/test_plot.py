"""mmaref.plot_metrics and plot_gemm: a PNG or SVG written whole (the file
exists, of its format, nonzero), a bad name refused before any work with
nothing written, a failed drawing leaving nothing behind, and a clear
ImportError where matplotlib is missing."""
import os
import sys

import pytest

import mmaref

Q = "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"
B = "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"


def test_bad_name_refused(tmp_path):
    for bad in ("m.pdf", "m", "m.png.txt"):
        with pytest.raises(ValueError, match="must end in .png or .svg"):
            mmaref.plot_metrics(Q, path=tmp_path / bad, count=100)
    with pytest.raises(ValueError, match="must end in .png or .svg"):
        mmaref.plot_gemm(Q, path=tmp_path / "g.jpg", ks=[64])
    with pytest.raises(FileNotFoundError, match="no folder"):
        mmaref.plot_gemm(Q, path=tmp_path / "no" / "g.png", ks=[64])
    assert os.listdir(tmp_path) == []


def test_no_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="needs matplotlib"):
        mmaref.plot_metrics(Q, path=tmp_path / "m.png", count=100)
    with pytest.raises(ImportError, match="needs matplotlib"):
        mmaref.plot_gemm(Q, path=tmp_path / "g.svg", ks=[64])
    assert os.listdir(tmp_path) == []


def test_draws(tmp_path):
    pytest.importorskip("matplotlib")
    rows = mmaref.plot_metrics(Q, B, path=tmp_path / "m.png", count=2000)
    assert [r["unit"] for r in rows] == [Q, B]
    data = (tmp_path / "m.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    rows = mmaref.plot_gemm(Q, path=tmp_path / "g.svg", ks=[64, 256], modes=("tc", "promote"), count=200)
    assert sorted({(r["k"], r["mode"]) for r in rows}) == [(64, "promote"), (64, "tc"), (256, "promote"), (256, "tc")]
    svg = (tmp_path / "g.svg").read_text()
    assert "<svg" in svg and len(svg) > 1000
    assert sorted(os.listdir(tmp_path)) == ["g.svg", "m.png"]      # no temporary file left


def test_failed_drawing_leaves_nothing(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    def broken(self, *a, **k):
        raise RuntimeError("drawing failed")
    (tmp_path / "keep.png").write_bytes(b"old")
    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="drawing failed"):
        mmaref.plot_metrics(Q, path=tmp_path / "keep.png", count=100)
    assert os.listdir(tmp_path) == ["keep.png"] and (tmp_path / "keep.png").read_bytes() == b"old"
