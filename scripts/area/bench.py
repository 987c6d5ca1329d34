"""make area-bench: what one full-K point costs (e4m3 K=32, F=13, fused
CPA, with the library given), from nothing (its cache emptied first), stage
by stage in CPU seconds, and so points per hour per core; then the same
figure from the last full sweep (build/area/sweep.json), if there is one."""
import json
import os
import shutil
import time

import cache
import flow
import points
import sweep

BENCH_POINT = "e4m3_k32_cpa_f13_p0"


def run(a, env):
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    ctx = sweep.make_context(a, env)
    p = next(q for q in points.full() if q["id"] == BENCH_POINT)
    t0 = time.time()
    status, msg, rows = flow.run_point(p, ctx)
    wall = time.time() - t0
    if status != "ok":
        print("area-bench: %s: %s %s" % (p["id"], status, msg))
        return 1
    c = cache.Cache(os.path.join(ctx.out, "cache"))
    stages = {}
    for f in os.listdir(c.root):
        d = json.load(open(os.path.join(c.root, f)))
        stages[f.split("-")[0]] = d.get("cpu", 0.0)
    cpu = sum(stages.values())
    print("area-bench: %s with %s, %d delay targets: %.0f s wall, %.0f CPU s (verify %.0f, synthesis %.0f, "
          "timing and power %.0f): %.1f points per hour per core" % (
              p["id"], ctx.lib["name"] if ctx.lib else "no library", len(rows), wall, cpu, stages.get("verify", 0),
              stages.get("synth", 0), stages.get("cost", 0), 3600.0 / cpu if cpu else 0))
    fast = min(rows, key=lambda r: r["delay_ns"])
    print("area-bench: its fastest netlist: %.0f um2, %.2f ns, %.2f mW" % (fast["area_um2"], fast["delay_ns"],
                                                                          fast["power_mw"]))
    full = [q for q in points.full() if q["format"] != "preset"]
    est = sum(points.estimate(q, len(q.get("targets") or ctx.targets) + 1, 1)[0] for q in full)
    print("area-bench: the full set (points.estimate, this machine's figures): %d points, %.0f CPU s without "
          "verify: %.1f points per hour per core, %.1f min on the device host's 16 cores" % (
              len(full), est, 3600.0 * len(full) / est, est / 16 / 60))
    last = os.path.join(os.path.dirname(a.out), "sweep.json")
    if os.path.exists(last):
        m = json.load(open(last))
        if m.get("costed"):
            print("area-bench: the last sweep (%s): %d points costed, %.0f CPU s, %.1f points per hour per core "
                  "(%s wall with %d jobs)" % (last, m["costed"], m["cpu_s"], 3600.0 * m["costed"] / max(m["cpu_s"], 1),
                                              sweep.fmt_s(m["wall_s"]), m["jobs"]))
    return 0
