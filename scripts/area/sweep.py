"""The sweep: every point of a set through flow.run_point, AREA_JOBS points
at a time (processes: the gate-level simulation is Python), the largest
units first so that no core idles at the end; progress a line per point
(done/left, elapsed, an estimate of what is left); a failing point reported
by name while the rest go on; the CSV written whole at the end."""
import csv
import json
import multiprocessing
import os
import signal
import sys
import time

import cache
import flow
import liberty
import points
import proc

ROW_COLS = ["config", "tree", "pipe", "f", "format", "area_um2", "delay_ns", "power_mw", "clock_ns", "nand2eq",
            "verified", "id", "k", "target", "target_ps", "abc_delay_ps", "energy_pj", "clk_energy_pj", "leak_mw",
            "toggle", "latency", "cells", "depth", "cells_generic", "status", "message", "cpu_s", "expect_fail",
            "top", "spec"]


class Context:
    """What every worker needs (plain attributes: it crosses processes)."""


def make_context(a, env):
    ctx = Context()
    ctx.out = os.path.abspath(a.out)
    ctx.rtl = a.rtl
    # the package first: the modules refer to it (rtl/mma_pkg.sv)
    ctx.src = sorted((os.path.abspath(os.path.join(a.rtl, f)) for f in os.listdir(a.rtl) if f.endswith(".sv")),
                     key=lambda f: (os.path.basename(f) != "mma_pkg.sv", f))
    ctx.rtl_sha = [cache.file_sha(s) for s in ctx.src]
    ctx.mmaparams = os.path.abspath(a.mmaparams)
    ctx.mmaref = os.path.abspath(a.mmaref)
    for prog, how in ((ctx.mmaparams, "make build/rtl/mmaparams"), (ctx.mmaref, "make")):
        if not os.access(prog, os.X_OK):
            raise proc.FlowError("%s: not there or not executable (%s builds it)" % (prog, how))
    ctx.mmaref_sha = cache.file_sha(ctx.mmaref) if os.path.exists(ctx.mmaref) else ""
    ctx.verify_count, ctx.verify_random = a.verify_count, a.verify_random
    ctx.verilator = flow.tool_version(["verilator", "--version"]) if a.verify_count else ""
    if a.verify_count and not ctx.verilator:
        raise proc.FlowError("verilator does not run: mmaref verify needs it (scripts/deps.txt), or --no-verify")
    ctx.targets = [t for t in a.targets.split(",") if t] if a.liberty else []
    ctx.stim = {"count": a.stim_count, "seed": 1, "dist": "normal"}
    # a sweep given a time budget starts no point later than the budget
    # less a point's guessed duration (the device host's one command)
    ctx.deadline = time.time() + a.stop_after if a.stop_after else 0
    ctx.map_jobs = max(1, a.map_jobs)
    ctx.from_cache = a.from_cache
    ctx.lib = None
    if a.liberty:
        ctx.lib = liberty.prepare(a.liberty, os.path.join(ctx.out, "lib"))
    ctx.tools = flow.Tools(env, bool(a.liberty))
    ctx.cache = cache.Cache(os.path.join(ctx.out, "cache"))
    return ctx


_CTX = None


def _init(ctx):
    global _CTX
    _CTX = ctx
    signal.signal(signal.SIGTERM, proc.stop_all)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(p):
    t0 = time.time()
    if _CTX.deadline and t0 + p["est_wall"] > _CTX.deadline and not flow.point_cached(p, _CTX):
        return p["id"], "skipped", "not started: it would end after the sweep's time budget (--stop-after; " \
            "estimated %.0f s)" % p["est_wall"], \
            [{"id": p["id"], "format": p["format"], "k": p["k"], "tree": p["tree"], "f": p["f"], "pipe": p["pipe"],
              "spec": p["spec"], "expect_fail": int(p["expect_fail"])}], 0.0
    try:
        status, msg, rows = flow.run_point(p, _CTX)
    except Exception as e:          # a broken point must not stop the sweep
        import traceback
        status, msg, rows = "error", "%s: %s" % (type(e).__name__, e), [{"id": p["id"]}]
        traceback.print_exc()
    for r in rows:
        r.setdefault("id", p["id"])
        r["status"], r["message"] = status, msg
    return p["id"], status, msg, rows, time.time() - t0


def plan_text(first, later, jobs, ctx):
    """The points with their estimated CPU (points.estimate: measured on
    this project's 2-core build machine), and the sweep's total."""
    lines = ["%-28s %-14s K=%-3s F=%-4s pipe %d  est %4.0f CPU s, %4.0f s wall" % (
        p["id"], p["tree"] or "-", p["k"], p["f"], p["pipe"], p["est_cpu"], p["est_wall"]) for p in first]
    lines += ["%-28s (the same unit as another point: from the cache)" % p["id"] for p in later]
    cpu = sum(p["est_cpu"] for p in first)
    longest = max((p["est_wall"] for p in first), default=0)
    lines.append("area: plan: %d points (%d distinct units), estimated %.0f CPU s: %s wall on %d jobs "
                 "(the longest point %.0f s)" % (len(first) + len(later), len(first), cpu,
                                                   fmt_s(max(cpu / jobs, longest)), jobs, longest))
    return "\n".join(lines)


def fmt_s(s):
    s = int(s)
    return "%dh%02dm" % (s // 3600, s // 60 % 60) if s >= 3600 else "%dm%02ds" % (s // 60, s % 60)


def run(a, env):
    try:
        ctx = make_context(a, env)
    except (proc.FlowError, liberty.LibertyError) as e:
        print("area: %s" % e, file=sys.stderr)
        return 2
    pts = points.SETS[a.set]()
    if a.only:
        want = set(a.only.split(","))
        pts = [p for p in pts if p["id"] in want]
    os.makedirs(ctx.out, exist_ok=True)
    for p in pts:
        p["est_cpu"], p["est_wall"] = points.estimate(p, len(p.get("targets") or ctx.targets) + 1,
                                                      ctx.map_jobs)
        p["est_wall"] /= a.speed
    order = sorted(pts, key=lambda p: (p["format"] == "preset", -p["est_wall"]))
    # points with the same RTL parameters and unit (a preset equal to a
    # sweep point) are done once: the second takes every stage from the cache
    seen, first, later = set(), [], []
    for p in order:
        try:
            r = flow.resolve(p, ctx)
            k = (r["top"], r["config"], tuple(sorted(r["params"].items())))
        except proc.FlowError:
            k = None
        if k is not None and k in seen:
            later.append(p)
        else:
            seen.add(k)
            first.append(p)
    lib = ctx.lib
    plan = plan_text(first, later, a.jobs, ctx)
    if a.plan:
        print(plan)
        return 0
    print(plan.splitlines()[-1], flush=True)
    print("area: %d points, %d jobs; %s; %s%s" % (
        len(pts), a.jobs, ctx.tools.versions["yosys"],
        ("library %s (%s), delay targets: fastest and x%s%s" % (
            lib["name"], a.liberty, ", x".join(ctx.targets),
            "".join(sorted({" (%s: x%s)" % ("the F scans" if a.set == "full" else "some points", ", x".join(p["targets"]))
                            for p in pts if p.get("targets")}))))
        if lib else "no library: NAND2-equivalent figures",
        "" if ctx.verify_count else "; not verified (--no-verify)"), flush=True)
    t0 = time.time()
    results = {}
    walls = []
    pool = multiprocessing.get_context("fork").Pool(a.jobs, _init, (ctx,))

    def stop(signum, frame):
        # the time-limited device command: what is done is written before exit
        pool.terminate()
        finish(a, ctx, pts, first, results, t0, interrupted=True)
        os._exit(128 + signum)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    def both():
        yield from pool.imap_unordered(_work, first)
        yield from pool.imap_unordered(_work, later)
    try:
        for n, (pid, status, msg, rows, wall) in enumerate(both(), 1):
            results[pid] = (status, msg, rows)
            walls.append(wall)
            el = time.time() - t0
            left = len(order) - n
            est = el / n * left if n else 0
            r0 = rows[0]
            if status == "ok" and lib:
                fast = min(rows, key=lambda r: r.get("delay_ns", 1e9))
                small = min(rows, key=lambda r: r.get("area_um2", 1e18))
                what = "%.0f-%.0f um2, %.2f-%.2f ns, %.2f mW at %.2f ns, verified %s" % (
                    small["area_um2"], fast["area_um2"], fast["delay_ns"], small["delay_ns"], fast["power_mw"],
                    fast["clock_ns"], r0.get("verified", ""))
            elif status == "ok":
                what = "%s NAND2-eq, depth %s" % (r0.get("nand2eq"), r0.get("depth"))
            else:
                what = "%s: %s" % (status.upper(), msg)
            print("area: [%d/%d] %-26s %s (%s CPU s, %.0f s wall) | %s elapsed, %d left, ~%s" % (
                n, len(order), pid, what, r0.get("cpu_s", "-"), wall, fmt_s(el), left, fmt_s(est)), flush=True)
    finally:
        pool.close()
        pool.join()
    return finish(a, ctx, pts, first, results, t0)


def finish(a, ctx, pts, first, results, t0, interrupted=False):
    """area.csv and sweep.json, each whole (temporary file and rename), from
    the points done; a point not done (an interrupted sweep) is marked
    skipped, so that the next run, from the cache, finishes it."""
    wall = time.time() - t0
    lib = ctx.lib
    for p in pts:
        if p["id"] not in results:
            results[p["id"]] = ("skipped", "not done: the sweep was interrupted", [
                {"id": p["id"], "format": p["format"], "k": p["k"], "tree": p["tree"], "f": p["f"], "pipe": p["pipe"],
                 "spec": p["spec"], "expect_fail": int(p["expect_fail"]), "status": "skipped",
                 "message": "not done: the sweep was interrupted"}])
    rows = []
    for p in pts:
        rows += results[p["id"]][2]
    tmp = os.path.join(ctx.out, "area.csv.tmp")
    with open(tmp, "w", newline="") as fh:
        cols = ROW_COLS + sorted({k for r in rows for k in r if k not in ROW_COLS})
        w = csv.DictWriter(fh, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(ctx.out, "area.csv"))
    # a point done once for two ids (its twin took it from the cache) counts once
    cpu = sum(float(results[p["id"]][2][0].get("cpu_s") or 0) for p in first)
    computed = sum(1 for p in first if results[p["id"]][0] == "ok")
    bad = [p["id"] for p in pts if results[p["id"]][0] == "error" and not p["expect_fail"]]
    unsup = [p["id"] for p in pts if results[p["id"]][0] == "unsupported"]
    pend = [p["id"] for p in pts if results[p["id"]][0] == "skipped"]
    meta = {"wall_s": round(wall), "jobs": a.jobs, "cpus": os.cpu_count() or 0, "cpu_s": round(cpu),
            "points": len(pts), "costed": sum(1 for p in pts if results[p["id"]][0] == "ok"), "computed": computed,
            "unsupported": unsup, "failed": bad, "skipped": pend, "tools": ctx.tools.versions,
            "library": {k: lib[k] for k in ("name", "source", "sha256", "default_wire_load", "picks", "units")}
            if lib else None, "dont_use": lib["dont_use"] if lib else [], "targets": ctx.targets,
            "verify": {"count": ctx.verify_count, "random": ctx.verify_random}, "stimulus": ctx.stim,
            "rtl_sha": ctx.rtl_sha, "set": a.set, "interrupted": interrupted, "map_jobs": ctx.map_jobs,
            "est_cpu_s": round(sum(p["est_cpu"] for p in first))}
    tmp = os.path.join(ctx.out, "sweep.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(meta, fh, indent=1)
    os.replace(tmp, os.path.join(ctx.out, "sweep.json"))
    print("area: %d points in %s wall (%d jobs), %.0f CPU s: %d costed, %d the RTL cannot realize, %d failed%s%s" % (
        len(pts), fmt_s(wall), a.jobs, cpu, meta["costed"], len(unsup), len(bad),
        (": " + ", ".join(bad)) if bad else "", " (interrupted)" if interrupted else ""), flush=True)
    if pend:
        print("area: %d points not done (time budget or interruption): rerun with the cache to finish them" % len(pend))
    print("area: %s" % os.path.join(ctx.out, "area.csv"), flush=True)
    return 1 if bad else 0
