"""One sweep point, stage by stage, each stage cached (cache.py):

  resolve   the RTL parameters of the point's configuration (mmaparams) and
            the point's own (SUM, STAGES, PIPE); a parameter the top module
            does not have, or a configuration mmaparams refuses, makes the
            point one the RTL cannot realize ('unsupported')
  verify    `mmaref verify` on a .dut written for exactly these parameters:
            a few thousand vectors with 0 mismatches, or the point is not
            costed
  synth     Yosys + ABC: the generic front once, one mapping per delay
            target (synth.py)
  cost      OpenSTA timing and per-instance power, the gate-level
            simulation on the stimulus (sta.py, gatesim.py)

A point without LIBERTY stops after the NAND2-equivalent figures of the
front (make area's figures before a library was given)."""
import gzip
import json
import os
import re
import shutil
import time

import cache
import stimulus
import sta
import synth
from proc import FlowError, run

HERE = os.path.dirname(os.path.abspath(__file__))


def tool_version(argv):
    r = run(argv)
    lines = [l for l in r.out.splitlines() if l.strip() and not l.startswith("abc ")]
    return lines[0].strip() if r.returncode == 0 and lines else ""


class Tools:
    def __init__(self, env, want_sta):
        self.yosys = env.get("AREA_YOSYS") or "yosys"
        self.abc = env.get("AREA_ABC") or shutil.which("yosys-abc") or shutil.which("berkeley-abc") or "yosys-abc"
        self.sta = env.get("AREA_STA") or "sta"
        self.versions = {"yosys": tool_version([self.yosys, "-V"]),
                         "abc": tool_version([self.abc, "-q", "version"])}
        if not self.versions["yosys"]:
            raise FlowError("yosys (%s) does not run: install yosys (scripts/deps.txt) or set AREA_YOSYS" % self.yosys)
        if not self.versions["abc"]:
            raise FlowError("ABC (%s) does not run: install yosys (it brings yosys-abc) or set AREA_ABC" % self.abc)
        if want_sta:
            self.versions["sta"] = tool_version([self.sta, "-version"])
            if not self.versions["sta"]:
                raise FlowError("OpenSTA (%s) does not run: install opensta (scripts/deps.txt) or set AREA_STA" % self.sta)


# ---- the RTL ------------------------------------------------------------------
def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)



def _close_paren(text, j):
    """the index just after the parenthesis that closes the one at text[j]"""
    depth, i = 0, j
    while True:
        depth += text[i] == "("
        depth -= text[i] == ")"
        i += 1
        if depth == 0:
            return i

def module_header(src, top):
    """(parameter names, port names) of module top in the sources."""
    for path in src:
        text = strip_comments(open(path).read())
        m = re.search(r"\bmodule\s+%s\b" % re.escape(top), text)
        if not m:
            continue
        rest = text[m.end():]
        params = []
        i = 0
        if rest.lstrip().startswith("#"):
            j = rest.index("(")
            i = _close_paren(rest, j)
            params = re.findall(r"\bparameter\b[^=,;]*?\b(\w+)\s*=", rest[j:i])
        body = rest[i:]
        k = body.index("(")
        e = _close_paren(body, k)
        ports = re.findall(r"\b(\w+)\s*(?=,|$)", body[k + 1:e - 1].replace("\n", " ").strip() + ",")
        return params, [p for p in ports if p not in ("logic", "wire", "reg", "input", "output", "signed")]
    raise FlowError("no module %s in %s" % (top, " ".join(os.path.basename(s) for s in src)))


def resolve(p, ctx):
    """The point's RTL parameter set, or FlowError('unsupported: ...')."""
    mp = ctx.mmaparams
    r = run([mp, "--verilator", p["spec"]])
    if r.returncode != 0:
        raise FlowError("unsupported: %s" % (r.out.strip().replace("\n", " ")))
    vals = {}
    for tok in r.out.split():
        m = re.match(r"-G(\w+)=(-?\d+)$", tok)
        if m:
            vals[m.group(1)] = int(m.group(2))
    y = run([mp, "--yosys", p["spec"]])
    top = y.out.split()[-1] if y.returncode == 0 and y.out.split() else "mma_dpa"
    cfg = run([mp, "--config", p["spec"]]).out.strip()
    params, ports = module_header(ctx.src, top)
    for name in p["params"]:
        if name not in params:
            raise FlowError("unsupported: %s needs parameter %s=%s, which module %s (%s) does not have" % (
                p["id"], name, p["params"][name], top, ctx.rtl))
    vals.update(p["params"])
    res = {"params": vals, "top": top, "config": cfg, "ports": ports}
    if p.get("targets"):
        res["targets"] = list(p["targets"])
    return res


# ---- verify ---------------------------------------------------------------------
DUT_PORTS = [("clk", "clock     clk"), ("rst_n", "reset     rst_n low"), ("in_valid", "in_valid  in_valid"),
             ("out_valid", "out_valid out_valid"), ("a", "a a"), ("b", "b b"), ("sa", "sa sa"), ("sb", "sb sb"),
             ("c", "c c"), ("d", "d d")]


def write_dut(path, ctx, res):
    lines = ["# %s: written by scripts/area/flow.py for one sweep point" % os.path.basename(path), "[files]"]
    lines += [os.path.abspath(s) for s in ctx.src]
    lines += ["param %s=%d" % (k, v) for k, v in sorted(res["params"].items())]
    lines += ["", "[unit]", "top %s" % res["top"], "match %s" % res["config"], "", "[ports]"]
    lines += [line for port, line in DUT_PORTS if port in res["ports"]]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def verify(p, ctx, res, d):
    if not ctx.verify_count:
        return {"vectors": 0}
    k = cache.key("verify", ctx.rtl_sha, res, ctx.mmaref_sha, ctx.verilator, ctx.verify_count, ctx.verify_random)
    got = ctx.cache.get(k)
    if got:
        return got
    dut = os.path.join(d, "unit.dut")
    write_dut(dut, ctx, res)
    wd = os.path.join(d, "verify")
    log = os.path.join(d, "verify.log")
    r = run([ctx.mmaref, "verify", dut, "--count", str(ctx.verify_count), "--random", str(ctx.verify_random),
             "--seed", "1", "--no-fst", "--jobs", "1", "--workdir", wd], log=log)
    text = open(log, errors="replace").read()
    m = re.findall(r"^(\d+) vectors, (\d+) mismatches$", text, re.M)
    if r.returncode != 0 or not m or m[-1][1] != "0":
        last = [l for l in text.splitlines() if l.strip()][-3:]
        raise FlowError("verify (%s, %s): %s" % (dut, log, " | ".join(last) or "exit %d" % r.returncode))
    shutil.rmtree(wd, ignore_errors=True)
    return ctx.cache.put(k, {"vectors": int(m[-1][0]), "cpu": r.cpu})


# ---- synthesis and cost ---------------------------------------------------------
def point_targets(ctx, res):
    """The delay targets after the fastest mapping: the point's own (the
    full sweep's F scans take fewer), else the sweep's (--targets)."""
    return res.get("targets") or ctx.targets if ctx.lib else []


def synth_key(ctx, res):
    lib = [ctx.lib[k] for k in ("sha256", "dont_use", "picks", "default_wire_load")] if ctx.lib else []
    return cache.key("synth", ctx.rtl_sha, res["params"], res["top"], lib, ctx.tools.versions["yosys"],
                     ctx.tools.versions["abc"],
                     cache.flow_sha("front.ys", "opt.ys", "front.abc", "abc.scr", "map.ys", "map.abc", "synth.py"),
                     point_targets(ctx, res))


def netlists_there(d, k, syn):
    for t in syn.get("targets", []):
        td = os.path.join(d, "t_" + t["target"])
        kp = os.path.join(td, "key")
        if not (os.path.exists(kp) and open(kp).read() == k and
                all(os.path.exists(os.path.join(td, f)) or os.path.exists(os.path.join(td, f + ".gz"))
                    for f in ("net.v", "net.json"))):
            return False
    return True


def unpack_netlists(td):
    """The netlists are kept gzipped between runs (a full-K point's are
    40 MB plain); OpenSTA reads them plain."""
    for f in ("net.v", "net.json"):
        p = os.path.join(td, f)
        if not os.path.exists(p) and os.path.exists(p + ".gz"):
            with gzip.open(p + ".gz", "rb") as src, open(p + ".tmp", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(p + ".tmp", p)


def pack_netlists(td):
    for f in ("net.v", "net.json"):
        p = os.path.join(td, f)
        if os.path.exists(p):
            with open(p, "rb") as src, gzip.open(p + ".gz.tmp", "wb", compresslevel=6) as dst:
                shutil.copyfileobj(src, dst)
            os.replace(p + ".gz.tmp", p + ".gz")
            os.unlink(p)


def do_synth(p, ctx, res, d, k):
    fr = synth.front(d, ctx.tools, ctx.src, res["params"], res["top"], res["ports"], bool(ctx.lib))
    out = {"front": fr, "targets": [], "cpu": fr["cpu"]}
    if ctx.lib:
        first, cpu1 = synth.map_targets(d, ctx.tools, ctx.lib, fr["dff"] > 0, [("min", None, None)], "min")
        d0, m0 = first[0]["abc_delay_ps"], first[0]["map_delay"]
        if not (d0 > 0 and m0 > 0):
            raise FlowError("ABC gave no delay for the fastest mapping (%s)" % os.path.join(d, "map_min.ylog"))
        rest = [("x%s" % f, int(round(m0 * float(f))), int(round(d0 * float(f)))) for f in point_targets(ctx, res)]
        more, cpu2 = synth.map_targets(d, ctx.tools, ctx.lib, fr["dff"] > 0, rest, "rest", ctx.map_jobs) \
            if rest else ([], 0.0)
        for t in first + more:
            with open(os.path.join(t["dir"], "key"), "w") as fh:
                fh.write(k)
            t.pop("dir")
        out["targets"] = first + more
        out["cpu"] += cpu1 + cpu2
        os.unlink(os.path.join(d, "front.il"))      # every mapping is done: 9 MB at full K
    return ctx.cache.put(k, out)


def cost_key(ctx, skey, stim_path):
    return cache.key("cost", skey, ctx.tools.versions.get("sta", ""), cache.file_sha(stim_path), ctx.stim,
                     cache.flow_sha("sta.tcl", "sta.py", "gatesim.py", "stimulus.py"))


def do_cost(p, ctx, res, d, syn, stim_path, k):
    t0 = time.process_time()
    nets = []
    for t in syn["targets"]:
        td = os.path.join(d, "t_" + t["target"])
        unpack_netlists(td)
        nets.append({"tag": t["target"], "verilog": os.path.join(td, "net.v"), "json": os.path.join(td, "net.json"),
                     "top": res["top"]})
    with open(nets[0]["json"]) as fh:        # the port widths (every target has the same ports)
        mod = next(iter(json.load(fh)["modules"].values()))
    widths = {n: len(mod["ports"][n]["bits"]) for n in ("a", "b", "c", "sa", "sb", "in_valid", "rst_n")
              if n in mod["ports"]}
    stim = stimulus.Stimulus(stim_path, widths)
    seq = syn["front"]["dff"] > 0
    cpu = sta.time_and_power(d, ctx.tools, ctx.lib, nets, seq, "clk" if "clk" in res["ports"] else "", stim)
    out = {"targets": [{k2: n[k2] for k2 in ("tag", "delay_ns", "energy_pj", "clk_energy_pj", "leak_mw",
                                              "mean_toggle")} for n in nets],
           "latency": stim.latency, "cpu": cpu + time.process_time() - t0}
    for n in nets:
        for a in (".pwr0", ".pwr1"):
            os.unlink(os.path.join(d, n["tag"] + a))
        pack_netlists(os.path.dirname(n["verilog"]))
    return ctx.cache.put(k, out)


def synth_and_cost(p, ctx, res, d):
    """The synthesis and cost results, from the cache where they are there;
    the netlists are made again only when the cost stage must run."""
    skey = synth_key(ctx, res)
    syn = ctx.cache.get(skey)
    if not ctx.lib:
        return syn or do_synth(p, ctx, res, d, skey), None
    stim_path = stimulus.make(ctx.mmaref, res["config"], d, ctx.stim["count"], ctx.stim["seed"], ctx.stim["dist"])
    ckey = cost_key(ctx, skey, stim_path)
    cost = ctx.cache.get(ckey)
    if syn and cost:
        return syn, cost
    if ctx.from_cache:
        raise NotCached("not costed: no cached synthesis and cost for it (%s; %s): the device sweep did not reach it, "
                        "run it again with the returned cache" % (skey, ckey))
    if not syn or not netlists_there(d, skey, syn):
        syn = do_synth(p, ctx, res, d, skey)
    return syn, do_cost(p, ctx, res, d, syn, stim_path, ckey)


class NotCached(FlowError):
    """--from-cache: the point's synthesis or cost is not in the cache."""


def cached(p, ctx, res, d):
    """--from-cache: whether synthesis and cost are both cached (checked
    before verify, so that a point the device did not reach costs nothing)."""
    skey = synth_key(ctx, res)
    if not ctx.cache.get(skey):
        return False
    stim_path = stimulus.make(ctx.mmaref, res["config"], d, ctx.stim["count"], ctx.stim["seed"], ctx.stim["dist"])
    return ctx.cache.get(cost_key(ctx, skey, stim_path)) is not None


def point_cached(p, ctx):
    """Whether the point's synthesis and cost are in the cache (a resumed
    sweep runs such a point whatever time is left)."""
    if not ctx.lib:
        return False
    try:
        res = resolve(p, ctx)
        d = os.path.join(ctx.out, "pts", p["id"])
        os.makedirs(d, exist_ok=True)
        return cached(p, ctx, res, d)
    except FlowError:
        return False


def run_point(p, ctx):
    """Returns (status, message, rows): status 'ok', 'unsupported' or
    'error'; one row per delay target (one row without LIBERTY)."""
    d = os.path.join(ctx.out, "pts", p["id"])
    os.makedirs(d, exist_ok=True)
    base = {"id": p["id"], "format": p["format"], "k": p["k"], "tree": p["tree"], "f": p["f"], "pipe": p["pipe"],
            "spec": p["spec"], "expect_fail": int(p["expect_fail"])}
    try:
        res = resolve(p, ctx)
    except FlowError as e:
        return "unsupported", str(e).replace("unsupported: ", ""), [base]
    base.update(config=res["config"], top=res["top"], f=res["params"].get("F", p["f"]),
                k=res["params"].get("K", p["k"]))
    try:
        if ctx.from_cache and ctx.lib and not cached(p, ctx, res, d):
            raise NotCached("not costed: the device sweep did not reach it (no cached synthesis and cost): run it "
                            "again with the returned cache")
        ver = verify(p, ctx, res, d)
        syn, cost = synth_and_cost(p, ctx, res, d)
    except NotCached as e:
        return "skipped", str(e), [base]
    except FlowError as e:
        return "error", str(e), [base]
    fr = syn["front"]
    base.update(verified=ver["vectors"], nand2eq=fr["nand2eq"], depth=fr["depth"], cells_generic=fr["cells"],
                cpu_s=round(ver.get("cpu", 0) + syn["cpu"] + (cost["cpu"] if cost else 0), 1))
    for t, n in fr["by_type"].items():
        base["g_" + t] = n
    if not ctx.lib:
        return "ok", "", [base]
    rows = []
    by = {c["tag"]: c for c in cost["targets"]}
    for t in syn["targets"]:
        c = by[t["target"]]
        clock = c["delay_ns"]
        row = dict(base)
        row.update(target=t["target"], target_ps=t["target_ps"], abc_delay_ps=round(t["abc_delay_ps"], 1),
                   area_um2=round(t["area_um2"], 1), cells=t["cells"], delay_ns=round(c["delay_ns"], 3),
                   clock_ns=round(clock, 3), energy_pj=round(c["energy_pj"], 3),
                   clk_energy_pj=round(c["clk_energy_pj"], 3), leak_mw=round(c["leak_mw"], 6),
                   power_mw=round(c["energy_pj"] / clock + c["leak_mw"], 4), toggle=round(c["mean_toggle"], 4),
                   latency=cost["latency"])
        rows.append(row)
    return "ok", "", rows
