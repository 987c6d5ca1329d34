#!/usr/bin/env python3
"""Area, delay and power against accuracy: the sweep of the RTL units
(synthesis with Yosys and ABC, mapped to a standard-cell library, timed and
powered with OpenSTA), joined with `mmaref metrics` / `mmaref gemm`
(docs/tradeoff.md).

  area.py sweep  --set full|test --out DIR [--liberty LIB] [--jobs N] ...
        every point of the set (points.py), each verified, synthesized,
        timed and powered (flow.py), cached per stage under DIR/cache:
        a rerun redoes only what changed and resumes an interrupted sweep.
        DIR/area.csv has a row per point and delay target; a point the RTL
        cannot realize or that fails is reported by name, marked in the CSV,
        and the sweep goes on.  Without --liberty: NAND2-equivalent figures.
  area.py check  DIR/area.csv
        the assertions of `make area-test`.
  area.py report --area DIR/area.csv --mmaref MMAREF --out DIR [--publish DOCS]
        the error metrics of the same configurations, the joined CSV, the
        plots and docs/tradeoff.md.
  area.py render --csv docs/data/area.csv --out FILE
        docs/tradeoff.md from the joined CSV alone (make docs-check).
  area.py plots --csv docs/data/area.csv --out DIR
        the plots from the joined CSV alone (gnuplot), written whole into DIR.
  area.py bench  --liberty LIB --out DIR
        the cost of one full-K point (e4m3 K=32, F=13) from nothing:
        points per hour per core.

Only the Python 3 standard library; gnuplot draws the plots.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def sweep_args(s):
    s.add_argument("--set", choices=sorted(__import__("points").SETS), default="full")
    s.add_argument("--out", required=True)
    s.add_argument("--liberty", default="")
    s.add_argument("--jobs", type=int, default=0, help="parallel points (default: all cores)")
    s.add_argument("--rtl", default="rtl")
    s.add_argument("--mmaparams", default="build/rtl/mmaparams")
    s.add_argument("--mmaref", default="build/mmaref")
    s.add_argument("--targets", default=os.environ.get("AREA_TARGETS", "1.05,1.1,1.2,1.4,1.8"),
                   help="delay targets after the fastest mapping, as factors of its delay")
    s.add_argument("--verify-count", type=int, default=250, help="vectors per suite of mmaref verify")
    s.add_argument("--verify-random", type=int, default=2000, help="constrained-random vectors of mmaref verify")
    s.add_argument("--no-verify", action="store_true", help="cost without verifying (points marked verified=0)")
    s.add_argument("--stim-count", type=int, default=4096, help="vectors of the power stimulus")
    s.add_argument("--only", default="", help="only these point ids (comma-separated)")
    s.add_argument("--stop-after", type=float, default=0,
                   help="seconds: start no point after this less --point-guess (a time-limited host)")
    s.add_argument("--map-jobs", type=int, default=int(os.environ.get("AREA_MAP_JOBS") or 1),
                   help="Yosys processes a point maps its delay targets in at once (default 1; the device: 3)")
    s.add_argument("--speed", type=float, default=1.0,
                   help="this host's speed against the machine points.estimate was measured on (--stop-after)")
    s.add_argument("--from-cache", action="store_true",
                   help="cost only points whose synthesis and cost are cached (a device sweep's returned cache): "
                        "verify them here, mark the others skipped")
    s.add_argument("--plan", action="store_true", help="print the points and their estimated CPU seconds, run nothing")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sweep_args(sub.add_parser("sweep"))
    c = sub.add_parser("check")
    c.add_argument("csv")
    r = sub.add_parser("report")
    r.add_argument("--area", required=True)
    r.add_argument("--mmaref", default="build/mmaref")
    r.add_argument("--out", required=True)
    r.add_argument("--publish")
    r.add_argument("--device", help="the device sweep's sweep.json (its wall time, jobs, CPU), for the page")
    r.add_argument("--count", type=int, default=100000)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--gemm-k", type=int, default=4096)
    r.add_argument("--nc", type=int, default=128)
    r.add_argument("--gemm-count", type=int, default=10000)
    pl = sub.add_parser("plots")
    pl.add_argument("--csv", required=True)
    pl.add_argument("--out", required=True)
    d = sub.add_parser("render")
    d.add_argument("--csv", required=True)
    d.add_argument("--out", required=True)
    b = sub.add_parser("bench")
    sweep_args(b)
    a = ap.parse_args()
    if a.cmd in ("sweep", "bench"):
        if a.no_verify:
            a.verify_count = 0
        if a.jobs <= 0:
            a.jobs = os.cpu_count() or 1
    if a.cmd == "sweep":
        import sweep
        return sweep.run(a, os.environ)
    if a.cmd == "check":
        import check
        return check.run(a.csv)
    if a.cmd == "bench":
        import bench
        return bench.run(a, os.environ)
    import report
    if a.cmd == "render":
        return report.render(a.csv, a.out)
    if a.cmd == "plots":
        return report.replot(a.csv, a.out)
    return report.run(a)


if __name__ == "__main__":
    sys.exit(main())
