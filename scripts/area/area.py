#!/usr/bin/env python3
"""Area against accuracy: the Yosys sweep of the mma_dpa RTL unit, joined with
`mmaref metrics` / `mmaref gemm` (docs/tradeoff.md).

  area.py sweep  --set full|test --out DIR [--jobs N] [--mmaparams P] [--yosys Y]
        synthesize every point of the set (Yosys, generic gates through abc,
        flattened); DIR/area.csv, one row a point; DIR/pts/<id>/ keeps each
        point's script, log, stat.json and ltp.txt.  A point the RTL does not
        realize (mmaparams refuses it) or cannot elaborate (Yosys stops) is
        reported by name, marked in the CSV, and the sweep goes on.
  area.py check  DIR/area.csv
        the assertions of `make area-test`: every synthesized point has a
        positive area, area grows with F within each variant, and the points
        meant to fail are marked as failed.
  area.py report --area DIR/area.csv --mmaref MMAREF --out DIR [--publish DOCS]
        the error metrics of the same configurations (normal and llm, one
        instruction; GEMM depth 4096 accumulator-only and promoted every 128),
        the joined CSV, the tables and claims of tradeoff.md and the Pareto
        plot (gnuplot); --publish copies them into DOCS (docs/).

Only the Python 3 standard library; gnuplot draws the plot.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- NAND2-equivalent weights (typical of a standard-cell library's X1
# drive strengths, area relative to NAND2) --------------------------------
WEIGHTS = {
    "$_NAND_": 1.0, "$_NOR_": 1.0,
    "$_AND_": 1.33, "$_OR_": 1.33,
    "$_XOR_": 2.33, "$_XNOR_": 2.33, "$_MUX_": 2.33,
    "$_NOT_": 0.67, "$_BUF_": 0.67,
}
DFF_WEIGHT = 4.67          # any $_DFF*/$_SDFF*/$_DFFE* flip-flop
CELL_COLS = ["$_AND_", "$_NAND_", "$_OR_", "$_NOR_", "$_XOR_", "$_XNOR_", "$_MUX_", "$_NOT_"]

# ---- the sweep --------------------------------------------------------------
E4M3 = ("fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,l={l},f={f},align=rz,round=rz,p=23,"
        "ezero=-133,nan=canon,zero=pos")
BF16 = ("fused,a=bf16,b=bf16,c=fp32,d=fp32,k=16,l=16,f={f},align=rz,round=rz,p=23,"
        "ezero=-133,nan=canon,zero=pos")
# even/odd groups (CDNA3's GFDRDA tree, one step of 32 products): the c step
# keeps F2 = F+7 fraction bits as CDNA3 does (F=24, F2=31); the output is
# rounded toward zero to FP32 like the other variants, so that only the tree
# differs
EVENODD = ("evenodd,a=e4m3,b=e4m3,c=fp32,d=fp32,k=32,l=32,f={f},f2={f2},cadd=rd,"
           "align=rz,round=rz,p=23,nan=canon,zero=pos")
PRESETS = [
    ("hopper_qgmma_e4m3", "hopper:wgmma.m64n8k32.f32.e4m3.e4m3"),
    ("blackwell_f8_e4m3", "blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3"),
    ("hopper_hgmma_bf16", "hopper:wgmma.m64n8k16.f32.bf16.bf16"),
    ("ampere_bf16", "ampere:mma.m16n8k16.f32.bf16.bf16.f32"),
    ("cdna3_fp8", "cdna3:v_mfma_f32_16x16x32_fp8_fp8"),
]


def point(pid, group, tree, f, spec, override=None, expect_fail=False):
    return {"id": pid, "group": group, "tree": tree, "f": f, "spec": spec,
            "override": override or {}, "expect_fail": expect_fail}


def points(which):
    pts = []
    if which == "test":
        # two F values of the e4m3 K=32 fused unit, and two points that must be
        # reported as failed: one mmaparams refuses (F outside the RTL's 8..40)
        # and one Yosys cannot elaborate (F forced to 41 behind mmaparams' back)
        pts.append(point("e4m3_fused_f13", "e4m3_k32_fused", "fused", 13, E4M3.format(l=32, f=13)))
        pts.append(point("e4m3_fused_f25", "e4m3_k32_fused", "fused", 25, E4M3.format(l=32, f=25)))
        pts.append(point("e4m3_fused_f7", "bad", "fused", 7, E4M3.format(l=32, f=7), expect_fail=True))
        pts.append(point("e4m3_fused_f41", "bad", "fused", 41, E4M3.format(l=32, f=25),
                         override={"F": 41}, expect_fail=True))
        return pts
    for f in range(10, 31):
        pts.append(point("e4m3_fused_f%d" % f, "e4m3_k32_fused", "fused", f, E4M3.format(l=32, f=f)))
    for f in range(10, 31):
        pts.append(point("bf16_fused_f%d" % f, "bf16_k16_fused", "fused", f, BF16.format(f=f)))
    for f in (13, 25):
        pts.append(point("e4m3_chain2_f%d" % f, "e4m3_k32_tree", "chained-2", f, E4M3.format(l=16, f=f)))
        pts.append(point("e4m3_evenodd_f%d" % f, "e4m3_k32_tree", "even/odd", f,
                         EVENODD.format(f=f, f2=f + 7)))
    for pid, instr in PRESETS:
        pts.append(point(pid, "preset", "", None, instr))
    return pts


# ---- helpers -----------------------------------------------------------------
def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def rtl_sources(rtl_dir):
    # the package first: the modules refer to it
    return [os.path.join(rtl_dir, f) for f in sorted((f for f in os.listdir(rtl_dir) if f.endswith(".sv")),
                                                     key=lambda f: (f != "mma_pkg.sv", f))]


def params_of(mmaparams, spec):
    """(config, {name: value}, None) or (None, None, message)."""
    r = run([mmaparams, "--verilator", spec])
    if r.returncode != 0:
        return None, None, (r.stderr.strip() or r.stdout.strip()).replace("\n", " ")
    vals = {}
    for tok in r.stdout.split():
        m = re.match(r"-G(\w+)=(-?\d+)$", tok)
        if m:
            vals[m.group(1)] = int(m.group(2))
    c = run([mmaparams, "--config", spec])
    return c.stdout.strip(), vals, None


def chparam_line(vals):
    parts = []
    for k, v in vals.items():   # yosys's chparam takes no negative decimals
        parts.append("-set %s %s" % (k, ("32'sh%08x" % (v & 0xffffffff)) if v < 0 else str(v)))
    return "chparam " + " ".join(parts) + " mma_dpa"


def area_of(cells):
    a = 0.0
    unknown = []
    for t, n in cells.items():
        if t in WEIGHTS:
            a += WEIGHTS[t] * n
        elif re.match(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR)", t):
            a += DFF_WEIGHT * n
        else:
            unknown.append(t)
    return a, unknown


ACTIVE = set()   # process groups of the running Yosys jobs (each with its abc)


def stop(signum, frame):
    for pid in list(ACTIVE):
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    os._exit(128 + signum)


def synth_one(p, args, src):
    d = os.path.join(args.out, "pts", p["id"])
    os.makedirs(d, exist_ok=True)
    row = {"id": p["id"], "group": p["group"], "tree": p["tree"], "f": p["f"] if p["f"] is not None else "",
           "spec": p["spec"], "expect_fail": int(p["expect_fail"])}
    t0 = time.time()
    cfg, vals, err = params_of(args.mmaparams, p["spec"])
    if err:
        row.update(status="unsupported", message=err, config="")
        return row
    vals.update(p["override"])
    if p["f"] is None:
        row["f"] = vals.get("F", "")
    row["config"] = cfg
    row["k"] = vals.get("K", "")
    ys = open(os.path.join(HERE, "synth.ys")).read()
    ys = (ys.replace("@SRC@", " ".join(src)).replace("@CHPARAM@", chparam_line(vals))
            .replace("@ABC@", os.path.join(HERE, "abc.scr")).replace("@OUT@", d))
    with open(os.path.join(d, "synth.ys"), "w") as fh:
        fh.write(ys)
    for f in ("stat.json", "ltp.txt"):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))
    # wait4: the CPU time of Yosys and of the abc it runs, whatever else loads the machine
    with open(os.path.join(d, "yosys.out"), "w") as fo:
        pr = subprocess.Popen([args.yosys, "-q", "-l", os.path.join(d, "yosys.log"),
                               os.path.join(d, "synth.ys")], stdout=fo, stderr=subprocess.STDOUT,
                              start_new_session=True)
        ACTIVE.add(pr.pid)
        _, status, ru = os.wait4(pr.pid, 0)
        ACTIVE.discard(pr.pid)
        pr.returncode = os.waitstatus_to_exitcode(status)
    row["synth_s"] = "%.1f" % (time.time() - t0)
    row["cpu_s"] = "%.1f" % (ru.ru_utime + ru.ru_stime)
    if pr.returncode != 0 or not os.path.exists(os.path.join(d, "ltp.txt")):
        msg = ""
        for line in open(os.path.join(d, "yosys.out")).read().splitlines():
            if "ERROR" in line or "rror:" in line:
                msg = line.strip()
                break
        row.update(status="elab_error", message=msg or "yosys exit %d" % pr.returncode)
        return row
    st = json.load(open(os.path.join(d, "stat.json")))
    mod = st["modules"].get("\\mma_dpa") or next(iter(st["modules"].values()))
    cells = mod.get("num_cells_by_type", {})
    area, unknown = area_of(cells)
    m = re.search(r"length=(\d+)", open(os.path.join(d, "ltp.txt")).read())
    row.update(status="ok" if not unknown else "unknown_cells",
               message=("cell types without a weight: " + " ".join(unknown)) if unknown else "",
               cells=mod.get("num_cells", sum(cells.values())), nand2eq="%.1f" % area,
               depth=m.group(1) if m else "")
    for t in CELL_COLS:
        row[t.strip("$_")] = cells.get(t, 0)
    row["DFF"] = sum(n for t, n in cells.items() if "DFF" in t)
    return row


AREA_COLS = ["id", "group", "tree", "f", "k", "status", "message", "cells", "nand2eq", "depth",
             "AND", "NAND", "OR", "NOR", "XOR", "XNOR", "MUX", "NOT", "DFF", "synth_s", "cpu_s",
             "expect_fail", "spec", "config"]


def cmd_sweep(args):
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    src = rtl_sources(args.rtl)
    pts = points(args.set)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    load0 = os.getloadavg()[0]
    rows = {}
    # points with the same RTL parameter set (a preset equal to a sweep point)
    # are synthesized once; the largest units go first so that no core idles
    # at the end
    key, first, alias = {}, {}, {}
    for p in pts:
        cfg, vals, err = params_of(args.mmaparams, p["spec"])
        if vals is not None:
            vals.update(p["override"])
            key[p["id"]] = tuple(sorted(vals.items()))
            if key[p["id"]] in first:
                alias[p["id"]] = first[key[p["id"]]]
            else:
                first[key[p["id"]]] = p["id"]
    def cost(p):
        v = dict(key.get(p["id"], ()))
        return -v.get("K", 0) * (v.get("F", 0) + 20) * (1.5 if v.get("L") != v.get("K") else 1)
    todo = sorted((p for p in pts if p["id"] not in alias), key=cost)
    print("area: %d points, %d to synthesize, %d at a time, %s" % (len(pts), len(todo), args.jobs,
          run([args.yosys, "-V"]).stdout.strip()), flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(synth_one, p, args, src): p for p in todo}
        done = 0
        for fu in concurrent.futures.as_completed(futs):
            p = futs[fu]
            try:
                row = fu.result()
            except Exception as e:   # a broken point must not stop the sweep
                row = {"id": p["id"], "group": p["group"], "tree": p["tree"], "f": p["f"],
                       "spec": p["spec"], "status": "error", "message": repr(e),
                       "expect_fail": int(p["expect_fail"])}
            rows[p["id"]] = row
            done += 1
            if row["status"] == "ok":
                print("area: [%d/%d] %-22s %8s NAND2-eq  %6s cells  depth %4s  (%s s, %s s CPU)" % (
                      done, len(todo), row["id"], row["nand2eq"], row["cells"], row["depth"],
                      row.get("synth_s", "?"), row.get("cpu_s", "?")), flush=True)
            else:
                print("area: [%d/%d] %-22s FAILED (%s): %s" % (done, len(todo), row["id"],
                      row["status"], row["message"]), flush=True)
    for p in pts:
        if p["id"] in alias:
            row = dict(rows[alias[p["id"]]])
            row.update(id=p["id"], group=p["group"], tree=p["tree"], spec=p["spec"],
                       expect_fail=int(p["expect_fail"]), synth_s="", cpu_s="",
                       message="the parameter set of %s, synthesized once" % alias[p["id"]])
            rows[p["id"]] = row
            print("area: %-22s = %s (same RTL parameters)" % (p["id"], alias[p["id"]]), flush=True)
    wall = time.time() - t0
    tmp = os.path.join(args.out, "area.csv.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=AREA_COLS, extrasaction="ignore")
        w.writeheader()
        for p in pts:
            w.writerow(rows[p["id"]])
    os.replace(tmp, os.path.join(args.out, "area.csv"))
    cpu = sum(float(r.get("cpu_s") or 0) for r in rows.values())
    head = run(["git", "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = run(["git", "status", "--porcelain", "--", args.rtl]).stdout.strip()
    meta = {"wall_s": round(wall), "jobs": args.jobs, "cpus": os.cpu_count() or 0, "cpu_s": round(cpu),
            "load": round((load0 + os.getloadavg()[0]) / 2, 1), "points": len(pts), "synthesized": len(todo),
            "rtl": "%s%s" % (head or "?", " with uncommitted changes in rtl/" if dirty else ""),
            "yosys": run([args.yosys, "-V"]).stdout.strip()}
    with open(os.path.join(args.out, "sweep.json"), "w") as fh:
        json.dump(meta, fh, indent=1)
    bad = [r for r in rows.values() if r["status"] != "ok"]
    print("area: %d points in %.0f s wall (%d jobs), %.0f s of Yosys+abc CPU; %d synthesized, %d failed%s" % (
          len(pts), wall, args.jobs, cpu, len(pts) - len(bad), len(bad),
          (": " + ", ".join(r["id"] for r in bad)) if bad else ""), flush=True)
    print("area: %s" % os.path.join(args.out, "area.csv"))
    return 0


def read_csv(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def cmd_check(args):
    rows = read_csv(args.csv)
    fail = 0
    groups = {}
    for r in rows:
        if r["expect_fail"] == "1":
            if r["status"] == "ok":
                print("FAIL: %s should not synthesize but did" % r["id"]); fail = 1
            else:
                print("ok: %s marked %s (%s)" % (r["id"], r["status"], r["message"]))
            continue
        if r["status"] != "ok":
            print("FAIL: %s: %s %s" % (r["id"], r["status"], r["message"])); fail = 1
            continue
        if not float(r["nand2eq"]) > 0 or not int(r["depth"]) > 0:
            print("FAIL: %s has no area or depth" % r["id"]); fail = 1
        groups.setdefault((r["group"], r["tree"]), []).append(r)
    npair = 0
    for (g, t), rs in groups.items():
        rs = sorted(rs, key=lambda r: int(r["f"]))
        for lo, hi in zip(rs, rs[1:]):
            npair += 1
            a0, a1 = float(lo["nand2eq"]), float(hi["nand2eq"])
            if a1 > a0:
                print("ok: %s %s: F=%s %.0f < F=%s %.0f NAND2-eq (+%.1f%%)" % (
                      g, t, lo["f"], a0, hi["f"], a1, 100 * (a1 / a0 - 1)))
            else:
                print("FAIL: %s %s: area does not grow with F: F=%s %.0f, F=%s %.0f" % (
                      g, t, lo["f"], a0, hi["f"], a1)); fail = 1
    if npair == 0:
        print("FAIL: no pair of F values to compare"); fail = 1
    print("area-test: %s" % ("FAILED" if fail else "passed"))
    return fail


# ---- report --------------------------------------------------------------------
def mmaref_csv(cmd):
    r = run(cmd)
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


def cmd_report(args):
    area = read_csv(args.area)
    rows = [r for r in area if r["expect_fail"] != "1"]
    specs = [r["spec"] for r in rows]
    mm = [args.mmaref]
    met = {}
    for dist in ("normal", "llm"):
        out = mmaref_csv(mm + ["metrics"] + specs + ["--dist", dist, "--count", str(args.count),
                         "--seed", str(args.seed), "--csv"])
        for spec, r in zip(specs, out):
            met[(spec, dist)] = r
    gem = {}
    out = mmaref_csv(mm + ["gemm"] + specs + ["--k", str(args.gemm_k), "--mode", "tc,promote",
                     "--nc", str(args.nc), "--dist", "normal", "--count", str(args.gemm_count),
                     "--seed", str(args.seed), "--csv"])
    for r in out:
        gem[(r["unit"], r["mode"])] = r
    # joined CSV: one row a point
    cols = ["id", "group", "tree", "f", "k", "status", "cells", "nand2eq", "depth",
            "AND", "NAND", "OR", "NOR", "XOR", "XNOR", "MUX", "NOT", "DFF"]
    mcols = ["max_ulp", "mean_ulp", "p50_ulp", "p99_ulp", "bias_ulp", "mean_rel", "not_cr"]
    gcols = ["agg_rel", "mean_rel", "max_rel", "bias_rel", "mean_ulp", "max_ulp", "not_cr"]
    header = cols + ["%s_%s" % (d, c) for d in ("normal", "llm") for c in mcols] + \
        ["gemm%d_%s_%s" % (args.gemm_k, m, c) for m in ("tc", "promote") for c in gcols] + \
        ["message", "config"]
    joined = []
    for r in rows:
        j = {c: r.get(c, "") for c in cols}
        j["message"], j["config"] = r.get("message", ""), r.get("config", "")
        for d in ("normal", "llm"):
            m = met[(r["spec"], d)]
            if not j["config"]:
                j["config"] = m["config"]
            for c in mcols:
                j["%s_%s" % (d, c)] = m[c]
        for mode in ("tc", "promote"):
            g = gem.get((r["spec"], mode))
            for c in gcols:
                j["gemm%d_%s_%s" % (args.gemm_k, mode, c)] = g[c] if g else ""
        joined.append(j)
    os.makedirs(args.out, exist_ok=True)
    jpath = os.path.join(args.out, "area.csv")
    with open(jpath + ".tmp", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        w.writerows(joined)
    os.replace(jpath + ".tmp", jpath)

    byid = {j["id"]: j for j in joined}
    gk = "gemm%d" % args.gemm_k
    sweep_t = json.load(open(os.path.join(os.path.dirname(args.area), "sweep.json")))
    # ---- plot data and gnuplot ----
    def ok(j):
        return j["status"] == "ok"

    def dat(name, sel, ycol):
        with open(os.path.join(args.out, name), "w") as fh:
            for j in sel:
                if ok(j) and j[ycol] not in ("", None):
                    fh.write("%s %s %s\n" % (j["nand2eq"], j[ycol], j["f"]))
    groups = {"e4m3": [j for j in joined if j["group"] == "e4m3_k32_fused"],
              "bf16": [j for j in joined if j["group"] == "bf16_k16_fused"],
              "chain": [j for j in joined if j["tree"] == "chained-2"],
              "evenodd": [j for j in joined if j["tree"] == "even/odd"]}
    for g, sel in groups.items():
        dat("p_%s_k32.dat" % g, sel, "normal_mean_ulp")
        dat("p_%s_tc.dat" % g, sel, "%s_tc_agg_rel" % gk)
        dat("p_%s_pr.dat" % g, sel, "%s_promote_agg_rel" % gk)
    # Pareto front of the e4m3 K=32 units (every tree and the Hopper preset):
    # no other e4m3 unit is both smaller and more accurate
    e4all = [j for j in joined if ok(j) and j["k"] == "32" and "a=e4m3," in j["config"]]
    for name, ycol in (("p_front_k32.dat", "normal_mean_ulp"), ("p_front_tc.dat", "%s_tc_agg_rel" % gk)):
        pts = sorted((float(j["nand2eq"]), float(j[ycol])) for j in e4all if j[ycol] not in ("", None))
        front, best = [], float("inf")
        for x, y in pts:
            if y < best:
                front.append((x, y))
                best = y
        with open(os.path.join(args.out, name), "w") as fh:
            fh.write("".join("%s %s\n" % xy for xy in front))
    marks = [("hopper_qgmma_e4m3", "Hopper QGMMA e4m3 (F=13)"),
             ("blackwell_f8_e4m3", "Blackwell e4m3 (F=25)")]
    for name, ycol in (("p_marks_k32.dat", "normal_mean_ulp"), ("p_marks_tc.dat", "%s_tc_agg_rel" % gk),
                       ("p_marks_pr.dat", "%s_promote_agg_rel" % gk)):
        with open(os.path.join(args.out, name), "w") as fh:
            for pid, lab in marks:
                j = byid.get(pid)
                if j and ok(j):
                    fh.write('%s %s "%s"\n' % (j["nand2eq"], j[ycol], lab))
    png = os.path.join(args.out, "tradeoff.png")
    r = run(["gnuplot", "-e", "dir='%s'; out='%s'; gk='%d'" % (args.out, png, args.gemm_k),
             os.path.join(HERE, "tradeoff.gp")])
    if r.returncode != 0:
        sys.exit("area: gnuplot failed: %s" % r.stderr.strip())

    # ---- the document ----
    md = doc(joined, byid, args, sweep_t)
    with open(os.path.join(args.out, "tradeoff.md"), "w") as fh:
        fh.write(md)
    if args.publish:
        os.makedirs(os.path.join(args.publish, "data"), exist_ok=True)
        shutil.copy(jpath, os.path.join(args.publish, "data", "area.csv"))
        shutil.copy(png, os.path.join(args.publish, "tradeoff.png"))
        shutil.copy(os.path.join(args.out, "tradeoff.md"), os.path.join(args.publish, "tradeoff.md"))
        print("area: published %s/tradeoff.md, %s/tradeoff.png, %s/data/area.csv" % (
              args.publish, args.publish, args.publish))
    return 0


def table(sel, first, gk):
    h = ("| %s | NAND2-eq | cells | depth | normal max ulp | mean ulp | bias ulp | not CR "
         "| llm max ulp | mean ulp | bias ulp | not CR |\n" % first)
    h += "|" + "---|" * 12 + "\n"
    for j in sel:
        key = j["f"] if first == "F" else "%s (%s, F=%s)" % (j["id"], j["tree"] or "-", j["f"])
        if j["status"] != "ok":
            a = ["**%s**" % j["status"], "", ""]
        else:
            a = [j["nand2eq"].split(".")[0], j["cells"], j["depth"]]
        m = []
        for d in ("normal", "llm"):
            m += [fnum(j["%s_max_ulp" % d]), fnum(j["%s_mean_ulp" % d]), fnum(j["%s_bias_ulp" % d]),
                  fnum(j["%s_not_cr" % d], 4)]
        h += "| " + " | ".join([str(key)] + a + m) + " |\n"
    return h


def gtable(sel, first, gk):
    h = ("| %s | NAND2-eq | tc agg rel | tc mean ulp | tc max ulp | tc bias rel | tc not CR "
         "| promote agg rel | promote mean ulp | promote max ulp | promote bias rel | promote not CR |\n" % first)
    h += "|" + "---|" * 12 + "\n"
    for j in sel:
        key = j["f"] if first == "F" else "%s (%s, F=%s)" % (j["id"], j["tree"] or "-", j["f"])
        a = [j["nand2eq"].split(".")[0] if j["status"] == "ok" else "**%s**" % j["status"]]
        for mode in ("tc", "promote"):
            p = "%s_%s_" % (gk, mode)
            a += [fnum(j[p + "agg_rel"]), fnum(j[p + "mean_ulp"]), fnum(j[p + "max_ulp"]),
                  fnum(j[p + "bias_rel"]), fnum(j[p + "not_cr"], 4)]
        h += "| " + " | ".join([str(key)] + a) + " |\n"
    return h


def doc(joined, byid, args, sweep_t):
    gk = "gemm%d" % args.gemm_k
    e4 = [j for j in joined if j["group"] == "e4m3_k32_fused"]
    bf = [j for j in joined if j["group"] == "bf16_k16_fused"]
    tr = [j for j in joined if j["group"] in ("e4m3_k32_tree", "e4m3_k32_fused") and j["f"] in ("13", "25")]
    tr.sort(key=lambda j: (int(j["f"]), j["tree"]))
    pre = [j for j in joined if j["group"] == "preset"]
    failed = [j for j in joined if j["status"] != "ok"]
    A = lambda pid: float(byid[pid]["nand2eq"])
    D = lambda pid: int(byid[pid]["depth"])
    G = lambda pid, mode, c="agg_rel": float(byid[pid]["%s_%s_%s" % (gk, mode, c)])
    out = []
    w = out.append
    w("# Area against accuracy\n\n")
    w("What 12 more accumulator bits cost in gates and buy in accuracy. Everything on this page is "
      "generated by `make area` (scripts/area/area.py) from one run: the Yosys sweep of the RTL unit "
      "(rtl/, `mma_dpa`), the error metrics of `mmaref metrics` and `mmaref gemm` on the same "
      "configurations, the joined data in [data/area.csv](data/area.csv) and the plot. "
      "Do not edit it by hand; rerun `make area`.\n\n")
    w("## How the numbers are made\n\n")
    w("- **Synthesis**: Yosys 0.23, `read_verilog -sv rtl/*.sv`, the parameter set of each configuration "
      "from `mmaparams` (the same mapping the testbenches use), `hierarchy`, `synth -flatten -noshare -noabc`, "
      "then `abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX` with the script of scripts/area/abc.scr "
      "(`strash; &get -n; &dch -f; &nf; &put`), `stat`, `ltp -noff` (scripts/area/synth.ys). "
      "Combinational core (PIPE=0). The coverage observation port `cov` stops being a port before "
      "synthesis, so its logic is removed as it is in a design that leaves it unconnected.\n")
    w("- **NAND2-equivalent area** = sum of cells times weights: NAND2 = NOR2 = 1, AND2 = OR2 = 1.33, "
      "XOR2 = XNOR2 = MUX2 = 2.33, NOT = 0.67, DFF = 4.67 (none here: combinational).\n")
    w("- **Depth** = the longest topological path in gates of the mapped netlist (`ltp -noff`, "
      "inverters counted), a delay proxy. Yosys maps every adder to a Brent-Kung carry-lookahead adder "
      "(`$lcu` in its techmap.v); the multi-operand sum is the RTL's binary tree of two-input adders "
      "(`mma_add`), with no carry-save compression, so absolute depths are those of carry-propagate "
      "adders in series and would shrink with a compressor tree; comparisons between variants hold.\n")
    w("- **Error**: `mmaref metrics <configs> --dist normal|llm --count %d --seed %d` over one "
      "instruction (K products of the unit and c), ulps of the output format (FP32) against the exact "
      "(Kulisch/MPFR-checked) result; bias = signed mean error in ulps; not CR = fraction of results that "
      "are not the correctly rounded (RNE) value. GEMM: `mmaref gemm <configs> --k %d --mode tc,promote "
      "--nc %d --dist normal --count %d --seed %d`: a depth-%d dot product as a chain of instruction "
      "calls, the running sum kept in the accumulator (tc) or promoted into an FP32 register every %d "
      "products (promote); agg rel = sum |d - x| / sum |x| over the dot products (normwise, the DeepSeek-V3 write-up's measure), x the exact value; mean/max ulp and not CR as above.\n" % (
          args.count, args.seed, args.gemm_k, args.nc, args.gemm_count, args.seed, args.gemm_k, args.nc))
    w("- **Sweep** (%d points): F = 10..30 for the fused e4m3 K=32 unit with FP32 output (RZ, 23 "
      "fraction bits; F=25 is exactly Blackwell's FP8 unit) and the fused bf16 K=16 unit (F=25 is exactly "
      "Hopper's HGMMA bf16); tree variants at F=13 and F=25 on e4m3 K=32: one fused step of 32, "
      "chained-2 (two fused steps of 16, the first step's rounded FP32 result is the second's c, as Ampere's "
      "CoFDA), even/odd (CDNA3's GFDRDA tree: even- and odd-index products fused apart, joined with "
      "round-down, c added in a second step with F2 = F+7 bits, then RZ to FP32); and the presets of the "
      "catalogue: Hopper QGMMA e4m3 (F=13 and the e8m13 output: 13 fraction bits), Blackwell e4m3, "
      "Hopper HGMMA bf16, Ampere bf16 (CoFDA, F=24), CDNA3 fp8 (CoGFDRDA, F=24, RNE).\n" % len(joined))
    wall, cpu = sweep_t["wall_s"], sweep_t["cpu_s"]
    w("- **RTL and tools**: rtl/ at commit %s; %s; Python 3, gnuplot.\n" % (sweep_t["rtl"], sweep_t["yosys"]))
    w("- **Run time**: the sweep (%d points, %d synthesized: a preset with the same RTL parameters as a "
      "sweep point is synthesized once) took %.1f min wall with %d Yosys jobs at a time on a %d-core "
      "machine that other work was also loading (load average about %.1f); Yosys and abc used %.1f CPU "
      "minutes, %.1f min of wall time on 2 otherwise idle cores. The metrics and the report take seconds. "
      "The RTL is synthesized at its full K (32 for e4m3, 16 for bf16)%s.\n\n" % (sweep_t["points"], sweep_t["synthesized"], wall / 60,
                                                  sweep_t["jobs"], sweep_t["cpus"], sweep_t["load"],
                                                  cpu / 60, cpu / 120,
          ": no scaling from a smaller K was needed to stay under 30 minutes" if cpu / 120 < 30 * 60
          else "; this is over the 30-minute budget"))
    if failed:
        w("**Points that did not synthesize** (marked in the CSV's `status` column): " +
          "; ".join("`%s` (%s: %s)" % (j["id"], j["status"], j["message"]) for j in failed) + "\n\n")
    else:
        w("Every point of the sweep elaborated and synthesized (a point that cannot is reported by name, "
          "marked in the CSV's `status` column, and the sweep goes on; `make area-test` checks that).\n\n")

    # ---- claims ----
    w("## Checked claims\n\n")
    if all(p in byid and byid[p]["status"] == "ok" for p in ("hopper_qgmma_e4m3", "blackwell_f8_e4m3",
                                                             "e4m3_fused_f13", "e4m3_fused_f25")):
        h, b = A("hopper_qgmma_e4m3"), A("blackwell_f8_e4m3")
        s13, s25 = A("e4m3_fused_f13"), A("e4m3_fused_f25")
        w("1. **Area of F=25 over F=13 (e4m3, K=32).** Blackwell's FP8 unit (F=25, FP32 output) is "
          "%.0f NAND2-eq against %.0f for Hopper's QGMMA unit (F=13, e8m13 output): **%+.1f%%** (%.2fx), depth "
          "%d against %d gates. With the output format held at FP32 (the sweep's F=13 and F=25 points) the "
          "12 alignment bits alone cost %+.1f%% (%.0f against %.0f NAND2-eq), depth %d against %d.\n" % (
              b, h, 100 * (b / h - 1), b / h, D("blackwell_f8_e4m3"), D("hopper_qgmma_e4m3"),
              100 * (s25 / s13 - 1), s25, s13, D("e4m3_fused_f25"), D("e4m3_fused_f13")))
        if all(p in byid and byid[p]["status"] == "ok" for p in ("bf16_fused_f13", "bf16_fused_f25")):
            w("   For bf16 K=16 the same step costs %+.1f%% (%.0f against %.0f NAND2-eq).\n" % (
              100 * (A("bf16_fused_f25") / A("bf16_fused_f13") - 1), A("bf16_fused_f25"), A("bf16_fused_f13")))
        htc, hpr = G("hopper_qgmma_e4m3", "tc"), G("hopper_qgmma_e4m3", "promote")
        btc, bpr = G("blackwell_f8_e4m3", "tc"), G("blackwell_f8_e4m3", "promote")
        s13tc, s13pr = G("e4m3_fused_f13", "tc"), G("e4m3_fused_f13", "promote")
        w("2. **Promotion against widening F, K=%d** (normal inputs, %d dot products; normwise relative "
          "error sum|d - x| / sum|x|, the `agg_rel` of `mmaref gemm`). Hopper QGMMA keeping the running sum "
          "in the tensor core: %s. Promoted into an FP32 register every %d products (DeepSeek-V3): %s, "
          "**%.1fx less error**. Widening F to 25 instead (Blackwell's unit, accumulator only): %s, "
          "**%.0fx less error**. Both (F=25 and promotion): %s. " % (
              args.gemm_k, args.gemm_count, fnum(htc), args.nc, fnum(hpr), htc / hpr, fnum(btc), htc / btc,
              fnum(bpr)))
        if hpr < btc:
            w("On this workload promotion every %d removes more error than widening F from 13 to 25 "
              "(%.1fx lower), at no cost in the unit's area (an FP32 add every %d products outside the "
              "tensor core), where the wider F costs %+.1f%% area.\n" % (args.nc, btc / hpr, args.nc,
                                                                      100 * (b / h - 1)))
        else:
            w("On this workload widening F from 13 to 25 removes more error than promotion every %d: the "
              "promoted F=13 sum still has %.0fx the error of the F=25 accumulator alone. Promotion removes "
              "only the error of accumulating in 13 bits across calls; each call's own alignment cut at F=13 "
              "bits remains. Promotion costs no unit area (an FP32 add every %d products outside the tensor "
              "core); F=25 costs %+.1f%% area in the unit.\n" % (args.nc, hpr / btc, args.nc, 100 * (b / h - 1)))
        w("   With an FP32 output at F=13 (the sweep's F=13 point instead of the e8m13 output) the figures "
          "are %s (accumulator only) and %s (promoted).\n" % (fnum(s13tc), fnum(s13pr)))
    w("3. **Area per fraction bit.**\n")
    for name, sel in (("e4m3 K=32", e4), ("bf16 K=16", bf)):
        okp = [(int(j["f"]), float(j["nand2eq"]), int(j["depth"])) for j in sel if j["status"] == "ok"]
        if len(okp) < 3:
            continue
        n = len(okp)
        mx = sum(f for f, _, _ in okp) / n
        my = sum(a for _, a, _ in okp) / n
        slope = sum((f - mx) * (a - my) for f, a, _ in okp) / sum((f - mx) ** 2 for f, _, _ in okp)
        drops = ["F=%d to %d (%.2f%%)" % (f0, f1, 100 * (a1 / a0 - 1))
                 for (f0, a0, _), (f1, a1, _) in zip(okp, okp[1:]) if a1 <= a0]
        w("   - %s fused: area grows by %.0f NAND2-eq per fraction bit (least-squares slope over F=%d..%d, "
          "%.1f%% of the F=%d area per bit); depth from %d gates (F=%d) to %d (F=%d). %s\n" % (
              name, slope, okp[0][0], okp[-1][0], 100 * slope / okp[0][1], okp[0][0],
              okp[0][2], okp[0][0], okp[-1][2], okp[-1][0],
              ("Area does not grow at %d of %d steps, by abc's heuristics: %s." % (len(drops), n - 1,
               ", ".join(drops))) if drops else "Area grows at every step of F."))
    best, plateau = [], False
    for name, sel in (("e4m3 K=32", e4), ("bf16 K=16", bf)):
        okp = [j for j in sel if j["%s_tc_agg_rel" % gk] not in ("", None)]
        if okp:
            jb = min(okp, key=lambda j: float(j["%s_tc_agg_rel" % gk]))
            jl = max(okp, key=lambda j: int(j["f"]))
            plateau |= int(jb["f"]) < int(jl["f"])
            best.append("%s: smallest at F=%s (%s), %s at F=%s" % (
                name, jb["f"], fnum(jb["%s_tc_agg_rel" % gk]), fnum(jl["%s_tc_agg_rel" % gk]), jl["f"]))
    rne = []
    for name, sel in (("e4m3 K=32", e4), ("bf16 K=16", bf)):
        if not sel:
            continue
        jl = max(sel, key=lambda j: int(j["f"]))
        cfg = jl["config"].replace("round=rz", "round=rne")
        g = mmaref_csv([args.mmaref, "gemm", cfg, "--k", str(args.gemm_k), "--mode", "tc", "--dist", "normal",
                        "--count", str(args.gemm_count), "--seed", str(args.seed), "--csv"])
        rne.append("%s F=%s: %s with RZ, %s with RNE" % (name, jl["f"], fnum(jl["%s_tc_agg_rel" % gk]),
                                                       fnum(g[0]["agg_rel"])))
    if best:
        w("4. **Where more F stops helping a long chain.** The K=%d accumulator-only error of the "
          "FP32-output (RZ) units over F: %s. " % (args.gemm_k, "; ".join(best)))
        if plateau:
            w("Once F passes the output's 23 bits, each call's own RZ rounding is the error left; it "
              "shrinks every call's result toward zero, so it compounds over the %d to %d calls instead of "
              "averaging out as the per-term cuts at a smaller F do (their signs vary). " % (
                  args.gemm_k // 32, args.gemm_k // 16))
        w("Check: the widest units with RNE instead of RZ output rounding (`round=rne`, same command): "
          "%s.\n" % "; ".join(rne))
    tl = []
    for f in ("13", "25"):
        fu = byid.get("e4m3_fused_f" + f)
        if not fu or fu["status"] != "ok":
            continue
        for pid, name in (("e4m3_chain2_f" + f, "chained-2"), ("e4m3_evenodd_f" + f, "even/odd")):
            j = byid.get(pid)
            if j and j["status"] == "ok":
                tl.append("%s at F=%s: %+.1f%% area, %d against %d gates deep, mean ulp error %s against %s "
                          "(normal), K=%d accumulator-only error %s against %s" % (
                              name, f, 100 * (float(j["nand2eq"]) / float(fu["nand2eq"]) - 1), int(j["depth"]),
                              int(fu["depth"]), fnum(j["normal_mean_ulp"]), fnum(fu["normal_mean_ulp"]),
                              args.gemm_k, fnum(j["%s_tc_agg_rel" % gk]), fnum(fu["%s_tc_agg_rel" % gk])))
    if tl:
        w("5. **Trees against one fused step of 32 (e4m3, FP32 output).** " + "; ".join(tl) + ".\n")
    w("\n![area against error](tradeoff.png)\n\n")
    w("Left: mean ulp error of one instruction (normal inputs) against NAND2-eq area; right: normwise "
      "relative error of a depth-%d dot product (normal inputs), accumulator only (tc) and promoted every "
      "%d. Numbers next to the points are F (every fifth point labelled).\n\n" % (args.gemm_k, args.nc))
    w("## The fused e4m3 K=32 unit, FP32 output, F = 10..30\n\n")
    w(table(e4, "F", gk) + "\n")
    w("GEMM depth %d:\n\n" % args.gemm_k)
    w(gtable(e4, "F", gk) + "\n")
    w("## The fused bf16 K=16 unit, FP32 output, F = 10..30\n\n")
    w(table(bf, "F", gk) + "\n")
    w("GEMM depth %d:\n\n" % args.gemm_k)
    w(gtable(bf, "F", gk) + "\n")
    w("## Summation trees at F=13 and F=25 (e4m3, K=32, FP32 output RZ)\n\n")
    w(table(tr, "variant", gk) + "\n")
    w("GEMM depth %d:\n\n" % args.gemm_k)
    w(gtable(tr, "variant", gk) + "\n")
    w("## The presets of the catalogue\n\n")
    w("".join("- `%s`: `%s`\n" % (j["id"], j["config"]) for j in pre) + "\n")
    w(table(pre, "variant", gk) + "\n")
    w("GEMM depth %d:\n\n" % args.gemm_k)
    w(gtable(pre, "variant", gk) + "\n")
    w("## Cells by type\n\n| point | AND | NAND | OR | NOR | XOR | XNOR | MUX | NOT | cells | NAND2-eq |\n" +
      "|" + "---|" * 11 + "\n")
    for j in joined:
        if j["status"] == "ok":
            w("| %s | %s |\n" % (j["id"], " | ".join(j[c] for c in ("AND", "NAND", "OR", "NOR", "XOR", "XNOR",
                                                                     "MUX", "NOT", "cells", "nand2eq"))))
    w("\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sweep")
    s.add_argument("--set", choices=("full", "test"), default="full")
    s.add_argument("--out", required=True)
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--rtl", default="rtl")
    s.add_argument("--mmaparams", default="build/rtl/mmaparams")
    s.add_argument("--yosys", default="yosys")
    c = sub.add_parser("check")
    c.add_argument("csv")
    r = sub.add_parser("report")
    r.add_argument("--area", required=True)
    r.add_argument("--mmaref", default="build/mmaref")
    r.add_argument("--out", required=True)
    r.add_argument("--publish")
    r.add_argument("--count", type=int, default=100000)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--gemm-k", type=int, default=4096)
    r.add_argument("--nc", type=int, default=128)
    r.add_argument("--gemm-count", type=int, default=10000)
    a = ap.parse_args()
    return {"sweep": cmd_sweep, "check": cmd_check, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
