"""The report of a sweep: the error metrics of the costed configurations
(`mmaref metrics`, `mmaref gemm`), the joined CSV (docs/data/area.csv) and
its metadata (docs/data/area_sweep.json), the plots (gnuplot), and
docs/tradeoff.md, which `render` writes from the joined CSV alone so that
`make docs-check` can rerun it."""
import csv
import json
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MCOLS = ["max_ulp", "mean_ulp", "bias_ulp", "not_cr"]
GCOLS = ["agg_rel", "mean_ulp", "max_ulp"]
OUT_COLS = ["config", "tree", "pipe", "f", "format", "area_um2", "delay_ns", "power_mw", "clock_ns", "nand2eq",
            "mean_ulp_normal", "mean_ulp_llm", "gemm_rel_tc", "gemm_rel_promote", "verified",
            "id", "k", "target", "target_ps", "energy_pj", "clk_energy_pj", "leak_mw", "toggle", "latency", "cells",
            "depth", "max_ulp_normal", "bias_ulp_normal", "not_cr_normal", "max_ulp_llm", "bias_ulp_llm",
            "not_cr_llm", "gemm_ulp_tc", "gemm_ulp_promote", "cpu_s", "status", "message"]
def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def write_atomic(path, text):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)


def mmaref_csv(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("area: %s failed: %s" % (" ".join(cmd[:2]), r.stderr.strip()))
    return list(csv.DictReader(r.stdout.splitlines()))


def fnum(x, nd=3):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return ""
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return "%.*e" % (max(nd - 1, 1), v)
    if abs(v) >= 100:
        return "%.0f" % v
    return "%.*g" % (nd, v)


def pct(a, b):
    return "%+.1f%%" % (100.0 * (b / a - 1)) if a else ""


# ---- metrics and the joined CSV --------------------------------------------------
def run(a):
    rows = read_csv(a.area)
    meta = json.load(open(os.path.join(os.path.dirname(a.area), "sweep.json")))
    ok = [r for r in rows if r["status"] == "ok" and r.get("config")]
    cfgs = sorted({r["config"] for r in ok})
    met = {}
    if cfgs:
        for dist in ("normal", "llm"):
            out = mmaref_csv([a.mmaref, "metrics"] + cfgs + ["--dist", dist, "--count", str(a.count), "--seed",
                                                            str(a.seed), "--csv"])
            for cfg, r in zip(cfgs, out):
                met[(cfg, dist)] = r
        out = mmaref_csv([a.mmaref, "gemm"] + cfgs + ["--k", str(a.gemm_k), "--mode", "tc,promote", "--nc",
                                                       str(a.nc), "--dist", "normal", "--count", str(a.gemm_count),
                                                       "--seed", str(a.seed), "--csv"])
        for r in out:
            met[(r["unit"], r["mode"])] = r
    joined = []
    for r in rows:
        j = {c: r.get(c, "") for c in OUT_COLS}
        cfg = r.get("config", "")
        if (cfg, "normal") in met:
            for dist in ("normal", "llm"):
                for c in MCOLS:
                    j["%s_%s" % (c, dist)] = met[(cfg, dist)][c]
            for mode in ("tc", "promote"):
                g = met.get((cfg, mode))
                if g:
                    j["gemm_rel_" + mode] = g["agg_rel"]
                    j["gemm_ulp_" + mode] = g["mean_ulp"]
        joined.append(j)
    os.makedirs(a.out, exist_ok=True)
    if getattr(a, "device", None) and os.path.exists(a.device):
        dev = json.load(open(a.device))
        meta["device"] = {k: dev.get(k) for k in ("wall_s", "jobs", "cpus", "cpu_s", "costed", "computed", "points",
                                                  "skipped", "interrupted", "map_jobs", "est_cpu_s")}
        meta["device"]["skipped"] = len(dev.get("skipped") or [])
    meta["metrics"] = {"count": a.count, "seed": a.seed, "gemm_k": a.gemm_k, "nc": a.nc, "gemm_count": a.gemm_count}
    csv_path = os.path.join(a.out, "area.csv")
    write_atomic(csv_path, to_csv(joined))
    meta_path = os.path.join(a.out, "area_sweep.json")
    write_atomic(meta_path, json.dumps(meta, indent=1, sort_keys=True) + "\n")
    made = plots(joined, a.out) if any(j["area_um2"] for j in joined) else []
    md_path = os.path.join(a.out, "tradeoff.md")
    render(csv_path, md_path)
    if a.publish:
        os.makedirs(os.path.join(a.publish, "data"), exist_ok=True)
        # every file is complete before any is replaced
        pairs = [(csv_path, os.path.join(a.publish, "data", "area.csv")),
                 (meta_path, os.path.join(a.publish, "data", "area_sweep.json")),
                 (md_path, os.path.join(a.publish, "tradeoff.md"))]
        pairs += [(os.path.join(a.out, p), os.path.join(a.publish, p)) for p in made]
        for src, dst in pairs:
            tmp = "%s.tmp%d" % (dst, os.getpid())
            shutil.copyfile(src, tmp)
        for src, dst in pairs:
            os.replace("%s.tmp%d" % (dst, os.getpid()), dst)
        print("area: published %s" % ", ".join(d for _, d in pairs))
    return 0


def to_csv(joined):
    import io
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=OUT_COLS, lineterminator="\n")
    w.writeheader()
    w.writerows(joined)
    return buf.getvalue()


# ---- selections --------------------------------------------------------------------
def costed(rows):
    return [r for r in rows if r["status"] == "ok" and r["area_um2"]]


def by_point(rows):
    out = {}
    for r in rows:
        out.setdefault(r["id"], []).append(r)
    return out


def fastest(rs):
    return min(rs, key=lambda r: float(r["delay_ns"]))


def at_delay(rs, t):
    """The smallest netlist of a point that meets delay t (ns), or None."""
    ok = [r for r in rs if float(r["delay_ns"]) <= t + 1e-9]
    return min(ok, key=lambda r: float(r["area_um2"])) if ok else None


def power_at(r, t):
    return float(r["energy_pj"]) / t + float(r["leak_mw"])


def pareto(rows, keys):
    """Rows no other row beats in every key (smaller is better)."""
    vals = [[float(r[k]) for k in keys] for r in rows]
    out = []
    for i, v in enumerate(vals):
        dom = False
        for j, w in enumerate(vals):
            if j != i and all(b <= a for a, b in zip(v, w)) and any(b < a for a, b in zip(v, w)):
                dom = True
                break
        if not dom:
            out.append(rows[i])
    return out


# the units of the page: the question's (full K) first, then the F scans
# (K=8: the Pareto fronts over F=10..30), then NVFP4
FORMATS = [("e4m3", "e4m3 K=32", "32"), ("bf16", "bf16 K=16", "16"), ("mxfp8", "MXFP8 K=32 (ue8m0 per 32)", "32"),
           ("e4m3", "e4m3 K=8", "8"), ("bf16", "bf16 K=8", "8"), ("mxfp8", "MXFP8 K=8 (ue8m0 per 8)", "8"),
           ("nvfp4", "NVFP4 K=64 (ue4m3 per 16, groups of 16)", "64")]
QUESTION = FORMATS[:3]
SCANS = FORMATS[3:6]
TREE_ORDER = ["fused CPA", "fused CSA", "fused CSA 4:2", "chained-2", "even/odd"]
PLOTS = ["tradeoff.png", "tradeoff_accuracy.png", "tradeoff_pareto.png"]


# ---- plots ---------------------------------------------------------------------------
def unit_rows(pts, fmt, k, tree=None, pipe="0"):
    return {pid: rs for pid, rs in pts.items() if rs[0]["format"] == fmt and rs[0]["k"] == k
            and (tree is None or rs[0]["tree"] == tree) and (pipe is None or rs[0]["pipe"] == pipe)}


def plots(joined, out):
    """Three figures, each panel a unit (gnuplot; scripts/area/*.gp):
    tradeoff.png area against delay of every netlist; tradeoff_accuracy.png
    area against error over F; tradeoff_pareto.png the netlists on the
    area x delay x error front, coloured by error."""
    rows = costed(joined)
    pts = by_point(rows)
    units = [u for u in FORMATS if unit_rows(pts, u[0], u[2])]
    nt = len(TREE_ORDER)
    for ui, (fmt, _, k) in enumerate(units):
        for ti, tree in enumerate(TREE_ORDER):
            sel = unit_rows(pts, fmt, k, tree)
            with open(os.path.join(out, "ad_%d_%d.dat" % (ui, ti)), "w") as fh:
                # a block per point (its delay targets), a blank line between
                for pid, rs in sorted(sel.items(), key=lambda kv: int(kv[1][0]["f"] or 0)):
                    for r in sorted(rs, key=lambda r: float(r["delay_ns"])):
                        fh.write("%s %s %s\n" % (r["delay_ns"], r["area_um2"],
                                                 r["f"] if r["target"] == "min" else '""'))
                    fh.write("\n")
            with open(os.path.join(out, "acc_%d_%d.dat" % (ui, ti)), "w") as fh:
                for pid, rs in sorted(sel.items(), key=lambda kv: int(kv[1][0]["f"] or 0)):
                    r0 = rs[0]
                    if not r0["mean_ulp_normal"]:
                        continue
                    fr = fastest(rs)
                    fh.write("%s %s %s %s\n" % (fr["area_um2"], r0["mean_ulp_normal"], r0["gemm_rel_tc"] or "NaN",
                                                r0["f"]))
        allr = [r for rs in unit_rows(pts, fmt, k, pipe=None).values() for r in rs if r["mean_ulp_normal"]]
        front = pareto(allr, ["area_um2", "delay_ns", "mean_ulp_normal"]) if allr else []
        with open(os.path.join(out, "par_%d.dat" % ui), "w") as fh:
            # delay, area, log10 mean ulp, on the front (1/0), label
            for r in sorted(allr, key=lambda r: float(r["delay_ns"])):
                on = r in front
                fh.write("%s %s %.4f %d %s\n" % (r["delay_ns"], r["area_um2"], math.log10(float(r["mean_ulp_normal"])),
                                                 on, ("F%s%s" % (r["f"], "p" + r["pipe"] if r["pipe"] != "0" else ""))
                                                 if on and r["target"] == "min" else '""'))
    made = []
    if not units:
        return made
    names = " ".join("'%s'" % n.split(" (")[0] for _, n, _ in units)
    key = " ".join("1" if os.path.getsize(os.path.join(out, "acc_%d_%d.dat" % (u, t))) else "0"
                   for u in range(len(units)) for t in range(nt))
    keyad = " ".join("1" if os.path.getsize(os.path.join(out, "ad_%d_%d.dat" % (u, t))) else "0"
                     for u in range(len(units)) for t in range(nt))
    trees = " ".join("'%s'" % t for t in TREE_ORDER)
    for gp, png in (("tradeoff.gp", PLOTS[0]), ("accuracy.gp", PLOTS[1]), ("pareto.gp", PLOTS[2])):
        r = subprocess.run(["gnuplot", "-e", "dir='%s'; out='%s'; nu=%d; nt=%d; names=\"%s\"; trees=\"%s\"; "
                            "key='%s'; keyad='%s'" % (out, os.path.join(out, png), len(units), nt, names, trees,
                                                      key, keyad),
                            os.path.join(HERE, gp)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("area: gnuplot %s failed: %s" % (gp, r.stderr.strip()))
        made.append(png)
    return made


def replot(csv_path, out):
    """The plots from a joined CSV alone: drawn in a scratch folder, then
    moved into out (each file whole)."""
    import tempfile
    rows = read_csv(csv_path)
    with tempfile.TemporaryDirectory() as tmp:
        made = plots(rows, tmp)
        for p in made:
            shutil.copyfile(os.path.join(tmp, p), os.path.join(out, p + ".tmp"))
            os.replace(os.path.join(out, p + ".tmp"), os.path.join(out, p))
    print("area: %s" % ", ".join(os.path.join(out, p) for p in made))
    return 0


# ---- the document ----------------------------------------------------------------------
def render(csv_path, md_path):
    rows = read_csv(csv_path)
    meta = json.load(open(os.path.join(os.path.dirname(csv_path), "area_sweep.json")))
    write_atomic(md_path, document(rows, meta))
    return 0


def unit_name(fmt, k):
    for f, name, kk in FORMATS:
        if f == fmt and kk == k:
            return name
    return "%s K=%s" % (fmt, k)


def document(rows, meta):
    out = []
    w = out.append
    lib = meta.get("library")
    ok = costed(rows)
    pts = by_point(ok)
    allpts = by_point(rows)
    m = meta["metrics"]
    w("# Area, delay and power against accuracy\n\n")
    w("<!-- generated by: python3 scripts/area/area.py render --csv docs/data/area.csv --out {} -->\n")
    w("What more accumulator bits (F), another summation tree or a pipeline cost in a real standard-cell "
      "library, and what they buy in accuracy. Everything on this page comes from one run of `make area%s` "
      "(scripts/area/): every point verified bit-exact against the model by `mmaref verify`, synthesized by "
      "Yosys and ABC into the library's cells, timed and powered by OpenSTA; the accuracy is the model's "
      "(`mmaref metrics`, `mmaref gemm`). The data are in [data/area.csv](data/area.csv) (a row per point "
      "and delay target) and [data/area_sweep.json](data/area_sweep.json); `make docs-check` rewrites this "
      "page from them and compares. Do not edit it by hand.\n\n" % (
          (" LIBERTY=%s" % rel_lib(lib["source"])) if lib else ""))
    if not lib:
        w("This run had no library (`LIBERTY` unset): the areas are NAND2 equivalents of generic gates "
          "(NAND2 = NOR2 = 1, AND2 = OR2 = 1.33, XOR2 = XNOR2 = MUX2 = 2.33, NOT = 0.67, DFF = 4.67) and the "
          "depth is in gates (`ltp -noff`).\n\n")
        w(nand2_table(rows))
    w(question(pts, rows, meta))
    w(fronts(pts, meta))
    w(trees(pts, meta))
    w(pipelines(pts, allpts, meta))
    w(promotion(pts, meta))
    w(method(rows, meta) if lib else "")
    w(every_point(pts, meta))
    w(not_costed(allpts))
    return "".join(out)


def rel_lib(src):
    i = src.find("/shared/pdk/")
    return "../shared/pdk/" + src[i + len("/shared/pdk/"):] if i >= 0 else os.path.basename(src)


def find(pts, fmt, k, tree, f, pipe="0"):
    for pid, rs in pts.items():
        r = rs[0]
        if r["format"] == fmt and r["k"] == k and r["tree"] == tree and r["f"] == str(f) and r["pipe"] == pipe:
            return rs
    return None


def question(pts, rows, meta):
    out = ["## F=13 against F=25\n\n"]
    w = out.append
    w("Each unit at F=13 (Hopper's FP8 alignment width) and at F=25 (Blackwell's), FP32 output rounded toward "
      "zero. **At minimum delay**: each unit's fastest netlist, its power at the clock it meets. **At iso-delay**: "
      "the clock T the slower unit's fastest netlist meets; for each unit its smallest netlist that meets T "
      "(among its delay targets: its own delay is given), and its power at T. Error: mean ulp of one instruction (normal and llm inputs), and the normwise error of a "
      "depth-%d dot product kept in the accumulator (tc) or promoted to FP32 every %d products.\n\n" % (
          meta["metrics"]["gemm_k"], meta["metrics"]["nc"]))
    w("| unit | tree | F | fastest: delay ns | area um2 | power mW | iso-delay T ns | netlist delay ns | area um2 | "
      "power mW at T | energy pJ/op | mean ulp normal | mean ulp llm | GEMM tc | GEMM promote |\n")
    w("|" + "---|" * 15 + "\n")
    claims, missing = [], []
    for fmt, name, k in QUESTION:
        for tree in TREE_ORDER[:3]:
            if not any(r["format"] == fmt and r["k"] == k and r["tree"] == tree for r in rows):
                continue        # not asked for in this run
            a, b = find(pts, fmt, k, tree, 13), find(pts, fmt, k, tree, 25)
            if not a or not b:
                missing.append("%s %s" % (name, tree))
                continue
            fa, fb = fastest(a), fastest(b)
            t = max(float(fa["delay_ns"]), float(fb["delay_ns"]))
            ia, ib = at_delay(a, t), at_delay(b, t)
            for f, fr, ir in ((13, fa, ia), (25, fb, ib)):
                w("| %s | %s | %d | %.2f | %.0f | %.2f | %.2f | %.2f | %.0f | %.2f | %.1f | %s | %s | %s | %s |\n" % (
                    name, tree, f, float(fr["delay_ns"]), float(fr["area_um2"]), float(fr["power_mw"]), t,
                    float(ir["delay_ns"]), float(ir["area_um2"]), power_at(ir, t), float(ir["energy_pj"]),
                    fnum(fr["mean_ulp_normal"]),
                    fnum(fr["mean_ulp_llm"]), fnum(fr["gemm_rel_tc"]), fnum(fr["gemm_rel_promote"])))
            claims.append("- **%s, %s**: F=25 against F=13 at iso-delay (%.2f ns): %s area, %s power; at minimum "
                          "delay: %s delay (%.2f against %.2f ns), %s area, %s power; in exchange the mean error "
                          "of one instruction drops from %s to %s ulp (normal inputs) and the depth-%d error from "
                          "%s to %s.\n" % (
                              name, tree, t, pct(float(ia["area_um2"]), float(ib["area_um2"])),
                              pct(power_at(ia, t), power_at(ib, t)), pct(float(fa["delay_ns"]), float(fb["delay_ns"])),
                              float(fb["delay_ns"]), float(fa["delay_ns"]),
                              pct(float(fa["area_um2"]), float(fb["area_um2"])),
                              pct(float(fa["power_mw"]), float(fb["power_mw"])), fnum(fa["mean_ulp_normal"]),
                              fnum(fb["mean_ulp_normal"]), meta["metrics"]["gemm_k"], fnum(fa["gemm_rel_tc"]),
                              fnum(fb["gemm_rel_tc"])))
    w("\n" + "".join(claims))
    if missing:
        w("\nNot in this run (the RTL does not realize them, they failed, or the sweep did not reach them; see the last section): %s.\n" %
          ", ".join(missing))
    w("\n")
    return "".join(out)


def fronts(pts, meta):
    out = ["## Pareto fronts\n\n"]
    w = out.append
    w("![area against delay](tradeoff.png)\n\n")
    w("Area against delay of every combinational netlist, a panel per unit: a line joins the netlists of one "
      "point (its delay targets), the number at its fastest netlist is F. The F scans (F=10..30) are at K=8, "
      "where a point costs about a fourth of a full-K one; the full-K units have F=13 and F=25.\n\n")
    w("![area, delay and error](tradeoff_pareto.png)\n\n")
    w("Every netlist of a unit (every tree, F, pipeline depth and delay target), coloured by its mean error of "
      "one instruction; circled: the netlists no other netlist of the unit beats in area, delay and error at "
      "once (the front of the table below), labelled with F (p: pipeline cuts) at a point's fastest netlist.\n\n")
    w("![area against error](tradeoff_accuracy.png)\n\n")
    w("Area of each point's fastest netlist against the mean ulp error of one instruction (normal inputs) and "
      "the depth-%d error (accumulator only); numbers are F.\n\n" % meta["metrics"]["gemm_k"])
    w("Per format, the netlists that no other netlist of the same format beats in area, delay and error at "
      "once (mean ulp, normal inputs), smallest area first:\n\n")
    for fmt, name, k in FORMATS:
        sel = [r for rs in pts.values() for r in rs if r["format"] == fmt and r["k"] == k and r["mean_ulp_normal"]]
        if not sel:
            continue
        front = sorted(pareto(sel, ["area_um2", "delay_ns", "mean_ulp_normal"]), key=lambda r: float(r["area_um2"]))
        w("**%s**: %d of %d netlists.\n\n" % (name, len(front), len(sel)))
        w("| tree | F | pipe | target | area um2 | delay ns | power mW | mean ulp normal | mean ulp llm | GEMM tc |\n")
        w("|" + "---|" * 10 + "\n")
        for r in front:
            w("| %s | %s | %s | %s | %.0f | %.2f | %.2f | %s | %s | %s |\n" % (
                r["tree"], r["f"], r["pipe"], r["target"], float(r["area_um2"]), float(r["delay_ns"]),
                float(r["power_mw"]), fnum(r["mean_ulp_normal"]), fnum(r["mean_ulp_llm"]), fnum(r["gemm_rel_tc"])))
        w("\n")
    return "".join(out)


def trees(pts, meta):
    """Each tree against the fused CPA unit of the same format, K and F."""
    lines = []
    fs = sorted({int(rs[0]["f"]) for rs in pts.values() if rs[0]["f"]})
    for fmt, name, k in QUESTION + SCANS:
        for f in fs:
            base = find(pts, fmt, k, "fused CPA", f)
            if not base:
                continue
            fb = fastest(base)
            for tree in TREE_ORDER[1:]:
                rs = find(pts, fmt, k, tree, f)
                if not rs:
                    continue
                fr = fastest(rs)
                t = max(float(fb["delay_ns"]), float(fr["delay_ns"]))
                ib, ir = at_delay(base, t), at_delay(rs, t)
                lines.append("| %s | %d | %s | %.2f (%s) | %.0f (%s) | %.0f (%s) | %.2f (%s) | %s | %s |\n" % (
                    name.split(" (")[0], f, tree, float(fr["delay_ns"]), pct(float(fb["delay_ns"]), float(fr["delay_ns"])),
                    float(fr["area_um2"]), pct(float(fb["area_um2"]), float(fr["area_um2"])), float(ir["area_um2"]),
                    pct(float(ib["area_um2"]), float(ir["area_um2"])), power_at(ir, t),
                    pct(power_at(ib, t), power_at(ir, t)), fnum(fr["mean_ulp_normal"]), fnum(fr["gemm_rel_tc"])))
    if not lines:
        return ""
    return ("## Summation trees\n\nEach tree against the fused CPA unit of the same format, K and F: its fastest "
            "netlist's delay and area, and at iso-delay (the slower one's fastest delay) its smallest netlist's area "
            "and power, with the change against fused CPA; the error of one instruction and of the depth-%d chain "
            "(chained-2 and even/odd round in between, so their error differs; the carry-save trees compute the "
            "same bits as the adder tree).\n\n"
            "| unit | F | tree | fastest delay ns | area um2 | area at iso-delay um2 | power at iso-delay mW | "
            "mean ulp normal | GEMM tc |\n"
            "|---|---|---|---|---|---|---|---|---|\n" % meta["metrics"]["gemm_k"] + "".join(lines) + "\n")


def pipelines(pts, allpts, meta):
    rs = [rs for rs in pts.values() if rs[0]["pipe"] != "0"]
    if not rs:
        asked = [p for p, r in allpts.items() if r[0]["pipe"] != "0"]
        return ("## Pipelines\n\nNo pipelined point was costed: %s.\n\n" % (
            "the RTL does not realize the %d asked for (no STAGES parameter)" % len(asked) if asked else "none asked for"))
    out = ["## Pipelines\n\n", "Registered inputs and outputs (`PIPE=2`) and `pipe` register cuts inside the step "
           "(`STAGES`, docs/rtl.md), beside the combinational unit (pipe 0, its delay the input-to-output path); "
           "the delay of a pipelined unit is its shortest clock period, the power at that clock, and the area at "
           "each clock its delay targets give is in data/area.csv (the curves of tradeoff.png).\n\n",
           "| unit | tree | F | pipe | latency | period ns | area um2 | power mW | energy pJ/op |\n"
           "|---|---|---|---|---|---|---|---|---|\n"]
    keys = {(r[0]["format"], r[0]["k"], r[0]["tree"], r[0]["f"]) for r in rs}
    sel = [x for x in pts.values() if (x[0]["format"], x[0]["k"], x[0]["tree"], x[0]["f"]) in keys]
    for r in sorted((fastest(x) for x in sel), key=lambda r: (r["format"], int(r["k"]), r["tree"], int(r["f"]),
                                                             int(r["pipe"]))):
        out.append("| %s | %s | %s | %s | %s | %.2f | %.0f | %.2f | %.1f |\n" % (
            unit_name(r["format"], r["k"]).split(" (")[0], r["tree"], r["f"], r["pipe"], r["latency"] or "0",
            float(r["delay_ns"]), float(r["area_um2"]), float(r["power_mw"]), float(r["energy_pj"])))
    return "".join(out) + "\n"


def promotion(pts, meta):
    a, b = find(pts, "e4m3", "32", "fused CPA", 13), find(pts, "e4m3", "32", "fused CPA", 25)
    if not a or not b:
        return ""
    fa, fb = fastest(a), fastest(b)
    tc13, pr13, tc25 = float(fa["gemm_rel_tc"]), float(fa["gemm_rel_promote"]), float(fb["gemm_rel_tc"])
    mm = meta["metrics"]
    s = ("## Promotion against widening F\n\nDepth-%d dot products of e4m3 (normal inputs, %d of them, normwise "
         "error sum|d - x| / sum|x|): the F=13 unit keeping the running sum in the accumulator: %s; promoted into "
         "an FP32 register every %d products (DeepSeek-V3's recipe): %s (%.1fx less); the F=25 unit, accumulator "
         "only: %s (%.0fx less than F=13). " % (mm["gemm_k"], mm["gemm_count"], fnum(tc13), mm["nc"], fnum(pr13),
                                                 tc13 / pr13, fnum(tc25), tc13 / tc25))
    if pr13 < tc25:
        s += "Promotion removes more error than the wider F on this workload, at no area in the unit.\n\n"
    else:
        s += ("The wider F removes more: the promoted F=13 sum still has %.0fx its error, because promotion removes "
              "only the error of accumulating across calls in 13 bits, not each call's own alignment cut. "
              "Promotion costs an FP32 addition every %d products outside the unit; F=25 costs the area and power "
              "above.\n\n" % (pr13 / tc25, mm["nc"]))
    return s


def method(rows, meta):
    lib = meta.get("library")
    t = meta["tools"]
    w = []
    w.append("## How the numbers are made\n\n")
    v = meta["verify"]
    w.append("- **Verified first**: each point's RTL, with exactly the parameters it is costed with, is described in a "
             "`.dut` file and run through `mmaref verify` (%d vectors per suite of `mmaref gen`, %d constrained-random "
             "vectors): the `verified` column is the number of vectors checked, all with 0 mismatches; a point that "
             "fails is not costed.\n" % (v["count"], v["random"]))
    if lib:
        p = lib["picks"]
        w.append("- **Library**: `%s` (%s, SHA-256 %s...), used as a user's foundry library is: unpacked, read by "
                 "Yosys, ABC and OpenSTA. Cells left out of synthesis (scripts/area/dont_use.txt, as the OpenROAD "
                 "flow scripts leave them out): %d (low-power-flow, probe, delay and clock-tree cells).\n" % (
                     lib["name"], rel_lib(lib["source"]), lib["sha256"][:12], len(meta.get("dont_use", []))))
        w.append("- **Synthesis**: %s: `read_verilog -sv rtl/*.sv`, the point's parameters, `synth -flatten "
                 "-noshare -noabc`, then ABC (%s) once per point for technology-independent optimization "
                 "(scripts/area/front.abc: `dc2`, SAT sweeping `&fraig -x` with at most 1000 conflicts a node, `dc2`), "
                 "then once per delay target "
                 "(scripts/area/map.abc): `dch -f; map -D; buffer -p; upsize -D; dnsize -D` against the "
                 "library's timing with its wire-load model; `dfflibmap` maps the registers. Targets: the fastest "
                 "mapping (no -D), then its delays times %s (the mapper's and the sizing's, each in its own "
                 "scale): an area-delay curve per point. Area: `stat -liberty`.\n"
                 % (t["yosys"], t["abc"], ", ".join(meta["targets"]) or "nothing"))
        w.append("- **Timing**: OpenSTA %s on each mapped netlist: every input driven by `%s` (pin %s) with no "
                 "input delay, every output loaded with %.2f fF (%s) with no output delay, wire-load model `%s`, "
                 "ideal clock; the delay is the longest input-to-output path (the shortest clock period for a "
                 "pipelined unit). Library corner: %s.\n" % (
                     t.get("sta", ""), p["drive_cell"], p["drive_pin"], p["load"] * lib["units"]["cap_ff"], p["load_of"],
                     lib["default_wire_load"] or "none", lib["name"]))
        st = meta["stimulus"]
        w.append("- **Power**: the point's unit fed one vector a clock cycle with %d vectors of `mmaref gen --dist "
                 "%s --seed %d` (the inputs `mmaref metrics --dist %s` draws: normal values quantized into the "
                 "unit's formats); the mapped netlist is simulated gate by gate (scripts/area/gatesim.py, zero "
                 "delay: functional toggles, no glitches; `make area-xcheck` compares its counts with Verilator's toggle "
                 "coverage of the same netlist, net for net), its outputs checked against the model's d on every "
                 "vector; each instance's power is OpenSTA's at activity 0 plus its output's toggle rate times "
                 "the difference to activity 1 (Debian's OpenSTA 2019 has no read_vcd/read_saif and overwrites "
                 "pin activities by propagation, so the weighting is done outside it). `power_mw` is at the "
                 "clock `clock_ns`, the netlist's own delay (running flat out); `energy_pj` is the dynamic "
                 "energy per operation and `leak_mw` the leakage, so the power at another clock T is "
                 "energy/T + leakage (used for iso-delay).\n" % (st["count"], st["dist"], st["seed"], st["dist"]))
    m = meta["metrics"]
    w.append("- **Error**: `mmaref metrics <configs> --dist normal|llm --count %d --seed %d`: ulps of FP32 against "
             "the exact result, one instruction. GEMM: `mmaref gemm <configs> --k %d --mode tc,promote --nc %d "
             "--dist normal --count %d --seed %d`: normwise relative error sum|d - x| / sum|x|.\n" % (
                 m["count"], m["seed"], m["gemm_k"], m["nc"], m["gemm_count"], m["seed"]))
    n = meta.get("computed", meta["costed"])
    dev = meta.get("device")
    if dev:
        run = ("synthesis, timing and power on the device host (scripts/area/device_sweep.sh: %d jobs on %d cores, "
               "%d mapping processes a point, one command of %.1f min wall, %.1f CPU minutes, %.0f CPU s a point, "
               "%.1f points per hour per core; %d points left for a later run%s), verification and accuracy on "
               "the build machine (`make area-import`, %.1f min wall)" % (
                   dev["jobs"], dev["cpus"], dev.get("map_jobs") or 1, dev["wall_s"] / 60.0, dev["cpu_s"] / 60.0,
                   dev["cpu_s"] / max(dev.get("computed") or 1, 1),
                   3600.0 * max(dev.get("computed") or 1, 1) / max(dev["cpu_s"], 1), dev.get("skipped") or 0,
                   ", stopped at its time limit" if dev.get("interrupted") else "", meta["wall_s"] / 60.0))
    else:
        run = "%d jobs on %d cores, %.1f min wall" % (meta["jobs"], meta["cpus"], meta["wall_s"] / 60.0)
    w.append("- **Run**: the `%s` set of scripts/area/points.py (`make area AREA_SET=%s`): %d points, %d costed (%d "
             "computed: the others have the parameters of one of them), %d the RTL cannot realize; %s; %.1f CPU "
             "minutes for the computed points (%.0f CPU s each, %.1f points per hour per core, stages taken from "
             "the cache counted at what they cost when made); stages are cached by the hash of the RTL, the "
             "parameters, the library, the tools' versions and the flow's scripts.\n\n" % (
                 meta.get("set", "full"), meta.get("set", "full"), meta["points"], meta["costed"], n,
                 len(meta.get("unsupported", [])), run, meta["cpu_s"] / 60.0, meta["cpu_s"] / max(n, 1),
                 3600.0 * max(n, 1) / max(meta["cpu_s"], 1)))
    w.append("- **Rerun**: on one machine `make area LIBERTY=<file.lib[.gz]>` (`AREA_JOBS` points at a time, "
             "resuming from its cache). On a host where nothing is installed (the 16-core device host, one command "
             "of at most 10 minutes): `make area-bundle AREA_BUNDLE=.areawork` (the tools with their libraries, "
             "the liberty file, rtl/ and scripts/area/: about 15 MB), `sh .areawork/run.sh` there (a time budget "
             "of 500 s; it returns the per-stage cache, the CSV and the logs in `$OUT`; run again with the "
             "returned area_cache.tar.xz beside run.sh, it resumes), then here `make area-import "
             "AREA_RESULTS=<returned folder>`, which verifies every point, computes the accuracy and writes this "
             "page.\n\n")
    return "".join(w)


def every_point(pts, meta):
    out = ["## Every costed point\n\n", "Fastest netlist and smallest netlist of each point.\n\n",
           "| point | verified | fastest: delay ns | area um2 | power mW | smallest: area um2 | delay ns | "
           "NAND2-eq | mean ulp normal | mean ulp llm | GEMM tc | GEMM promote |\n", "|" + "---|" * 12 + "\n"]
    for pid in sorted(pts, key=lambda p: (pts[p][0]["format"], pts[p][0]["tree"], int(pts[p][0]["pipe"] or 0),
                                          int(pts[p][0]["f"] or 0), p)):
        rs = pts[pid]
        fr, sm = fastest(rs), min(rs, key=lambda r: float(r["area_um2"]))
        out.append("| %s | %s | %.2f | %.0f | %.2f | %.0f | %.2f | %s | %s | %s | %s | %s |\n" % (
            pid, fr["verified"], float(fr["delay_ns"]), float(fr["area_um2"]), float(fr["power_mw"]),
            float(sm["area_um2"]), float(sm["delay_ns"]), fr["nand2eq"].split(".")[0], fnum(fr["mean_ulp_normal"]),
            fnum(fr["mean_ulp_llm"]), fnum(fr["gemm_rel_tc"]), fnum(fr["gemm_rel_promote"])))
    return "".join(out) + "\n"


def nand2_table(rows):
    out = ["| point | tree | F | pipe | verified | NAND2-eq | depth | mean ulp normal | mean ulp llm | GEMM tc | "
           "GEMM promote |\n", "|" + "---|" * 11 + "\n"]
    for r in sorted((r for r in rows if r["status"] == "ok"), key=lambda r: (r["format"], r["tree"], int(r["f"] or 0))):
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["id"], r["tree"], r["f"], r["pipe"], r["verified"], r["nand2eq"].split(".")[0], r["depth"],
            fnum(r["mean_ulp_normal"]), fnum(r["mean_ulp_llm"]), fnum(r["gemm_rel_tc"]), fnum(r["gemm_rel_promote"])))
    return "".join(out) + "\n"


def not_costed(allpts):
    rs = [r[0] for r in allpts.values() if r[0]["status"] != "ok"]
    if not rs:
        return "Every point of the sweep was costed.\n"
    out = ["## Points not costed\n\n", "| point | status | why |\n|---|---|---|\n"]
    for r in sorted(rs, key=lambda r: r["id"]):
        out.append("| %s | %s | %s |\n" % (r["id"], r["status"], r["message"].replace("|", "/")))
    return "".join(out) + "\n"
