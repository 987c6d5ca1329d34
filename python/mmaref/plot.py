"""Pictures of one's own results with matplotlib (where installed):
``plot_metrics`` draws the error distribution of units as ``metrics``
measures it (the ulp error's quantiles), ``plot_gemm`` the GEMM-depth
curves of ``gemm_metrics`` (the normwise relative error against the depth
K, a line per unit and mode).  Both write a PNG or an SVG, whole or not at
all (a temporary file beside it, renamed into place), and return the
figures they drew.  The numbers are the library's; this module draws."""
from __future__ import annotations

import os
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

QUANTILES = ("p50_ulp", "p90_ulp", "p99_ulp", "p99.9_ulp", "max_ulp")


def _figure(what: str) -> Any:
    """a matplotlib Figure (no pyplot: no global state, no display)"""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(f"mmaref.{what} needs matplotlib (pip install matplotlib); mmaref's numbers themselves "
                          f"need no plotting library (mmaref.metrics, mmaref.gemm_metrics)") from None
    return Figure(figsize=(9.6, 6.0), dpi=100)


def _target(path: Union[str, os.PathLike]) -> str:
    p = os.fspath(path)
    ext = os.path.splitext(p)[1].lower()
    if ext not in (".png", ".svg"):
        raise ValueError(f"path: {p!r}: the file name must end in .png or .svg")
    d = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(d):
        raise FileNotFoundError(f"path: {p!r}: no folder {d!r}")
    return p


def _save(fig: Any, path: str) -> None:
    """fig to path through a temporary file in the same folder"""
    d = os.path.dirname(os.path.abspath(path))
    ext = os.path.splitext(path)[1].lower()
    fd, tmp = tempfile.mkstemp(prefix=".mmaref-plot-", suffix=ext, dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=ext[1:])
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def plot_metrics(*units: Any, path: Union[str, os.PathLike], title: Optional[str] = None,
                 **kw: Any) -> List[Dict[str, Any]]:
    """The error distribution of each unit against the exact result: the
    50th, 90th, 99th, 99.9th percentile and the largest ulp error of the
    output (``mmaref.metrics(*units, **kw)``, same arguments: dist, count,
    seed, k, scale, zero_c, quant, threads), a line per unit on a log
    axis, written to ``path`` (.png or .svg).  Returns metrics' rows."""
    from . import metrics
    p = _target(path)
    fig = _figure("plot_metrics")
    rows = metrics(*units, **kw)
    ax = fig.add_subplot(1, 1, 1)
    xs = list(range(len(QUANTILES)))
    for r in rows:
        ys = [r[q] if r[q] is not None and r[q] > 0 else float("nan") for q in QUANTILES]
        ax.plot(xs, ys, marker="o", label=f"{r['unit']} ({r['out']})")
    ax.set_xticks(xs)
    ax.set_xticklabels(["50th", "90th", "99th", "99.9th", "largest"])
    ax.set_yscale("log", base=2)
    ax.set_xlabel("percentile of the results")
    ax.set_ylabel("|error| (ulp of the output)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    dist, k, count = kw.get("dist", "normal"), kw.get("k"), kw.get("count", 100000)
    ax.set_title(title or f"error against the exact result: dist={dist}, k={k or 'unit K'}, {count} dot products")
    _save(fig, p)
    return rows


def plot_gemm(*units: Any, path: Union[str, os.PathLike], ks: Sequence[int], modes: Sequence[str] = ("tc",),
              title: Optional[str] = None, **kw: Any) -> List[Dict[str, Any]]:
    """GEMM-depth curves: the normwise relative error (agg_rel) of one
    output element of depth K, for each K of ``ks``, a line per unit and
    mode (``mmaref.gemm_metrics(*units, k=K, modes=modes, **kw)``: nc,
    dist, count, seed, scale, quant, threads), log-log, written to ``path``
    (.png or .svg).  Returns gemm_metrics' rows with their ``k``."""
    from . import gemm_metrics
    p = _target(path)
    ks = [int(k) for k in ks]
    if not ks:
        raise ValueError("ks: give at least one depth")
    fig = _figure("plot_gemm")
    rows = []
    for k in ks:
        for r in gemm_metrics(*units, k=k, modes=modes, **kw):
            rows.append(dict(r, k=k))
    ax = fig.add_subplot(1, 1, 1)
    for key in dict.fromkeys((r["unit"], r["mode"]) for r in rows):
        pts = [(r["k"], r["agg_rel"]) for r in rows if (r["unit"], r["mode"]) == key and r["agg_rel"]]
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", linestyle="-" if key[1] == "tc" else "--",
                    label=f"{key[0]}, {key[1]}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("GEMM depth K")
    ax.set_ylabel("normwise relative error (agg_rel)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(title or f"error against the exact result over the depth: dist={kw.get('dist', 'normal')}")
    _save(fig, p)
    return rows
