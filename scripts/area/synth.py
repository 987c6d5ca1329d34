"""Synthesis of one point with Yosys and ABC: the generic front once
(front.ys: elaboration, generic synthesis, the NAND2-equivalent figures,
rewriting and SAT sweeping), then one mapping to the library per delay
target (map.ys, map.abc).  The first target is ABC's fastest mapping (no
delay target); the others ask for that delay times the factors of
AREA_TARGETS, so that each point gets an area-delay curve of its own."""
import json
import os
import re
import shutil

from proc import FlowError, first_error, run

HERE = os.path.dirname(os.path.abspath(__file__))

# NAND2-equivalent weights (typical of a standard-cell library's X1 drive
# strengths, area relative to NAND2): the figures of make area without LIBERTY
WEIGHTS = {
    "$_NAND_": 1.0, "$_NOR_": 1.0,
    "$_AND_": 1.33, "$_OR_": 1.33,
    "$_XOR_": 2.33, "$_XNOR_": 2.33, "$_MUX_": 2.33,
    "$_NOT_": 0.67, "$_BUF_": 0.67,
}
DFF_WEIGHT = 4.67          # any $_DFF*/$_SDFF*/$_DFFE* flip-flop
DFF_RE = re.compile(r"\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR)")


def nand2_area(cells):
    a, unknown = 0.0, []
    for t, n in cells.items():
        if t in WEIGHTS:
            a += WEIGHTS[t] * n
        elif DFF_RE.match(t):
            a += DFF_WEIGHT * n
        else:
            unknown.append(t)
    return a, unknown


def chparam_line(vals, top):
    parts = []
    for k, v in vals.items():   # yosys's chparam takes no negative decimals
        parts.append("-set %s %s" % (k, ("32'sh%08x" % (v & 0xffffffff)) if v < 0 else str(v)))
    return "chparam " + " ".join(parts) + " " + top


def fill(template, subs):
    s = open(os.path.join(HERE, template)).read()
    for k, v in subs.items():
        s = s.replace("@%s@" % k, v)
    left = re.findall(r"@[A-Z]+@", s)
    if left:
        raise FlowError("%s: unfilled %s" % (template, " ".join(left)))
    return s


def module_stat(path):
    st = json.load(open(path))
    mods = st["modules"]
    mod = next(iter(mods.values()))
    return mod.get("num_cells_by_type", {}), mod.get("num_cells", 0)


def front(d, tools, src, params, top, ports, optimize):
    """Runs front.ys in directory d (and opt.ys after it when optimize: a
    library follows).  Returns the generic figures."""
    os.makedirs(d, exist_ok=True)
    for f in ("front.il", "nand2.json", "ltp.txt", "front.json"):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))
    opt = fill("opt.ys", {"ABCEXE": tools.abc, "FRONTSCR": os.path.join(HERE, "front.abc"), "OUT": d}) \
        if optimize else ""
    ys = fill("front.ys", {
        "SRC": " ".join(src), "CHPARAM": chparam_line(params, top), "TOP": top,
        "DELCOV": ("delete -port %s/cov" % top) if "cov" in ports else "",
        "ABCEXE": tools.abc, "NANDSCR": os.path.join(HERE, "abc.scr"), "OUT": d, "OPT": opt})
    with open(os.path.join(d, "front.ys"), "w") as fh:
        fh.write(ys)
    log = os.path.join(d, "front.log")
    r = run([tools.yosys, "-q", "-l", os.path.join(d, "front.ylog"), os.path.join(d, "front.ys")], log=log)
    if r.returncode != 0 or not os.path.exists(os.path.join(d, "front.il" if optimize else "nand2.json")):
        raise FlowError("yosys (front): %s" % (first_error(os.path.join(d, "front.ylog")) or first_error(log)
                                               or "exit %d" % r.returncode))
    cells, ncells = module_stat(os.path.join(d, "nand2.json"))
    area, unknown = nand2_area(cells)
    if unknown:
        raise FlowError("yosys (front): cell types without a NAND2 weight: %s" % " ".join(unknown))
    m = re.search(r"length=(\d+)", open(os.path.join(d, "ltp.txt")).read())
    fcells = module_stat(os.path.join(d, "front.json"))[0] if optimize else {}
    return {"nand2eq": round(area, 1), "cells": ncells, "depth": int(m.group(1)) if m else 0,
            "by_type": {t.strip("$_"): n for t, n in cells.items()},
            "dff": sum(n for t, n in cells.items() if "DFF" in t),
            "aig_and": fcells.get("$_AND_", 0), "cpu": r.cpu}


def constr_file(d, lib):
    p = lib["picks"]
    path = os.path.join(d, "constr.txt")
    with open(path, "w") as fh:     # ABC: the load in femtofarads
        fh.write("set_driving_cell %s\nset_load %.4f\n" % (p["drive_cell"], p["load"] * lib["units"]["cap_ff"]))
    return path


def map_targets(d, tools, lib, has_ff, targets, tag, jobs=1):
    """Maps front.il once per target in targets: a list of (name, map_ps,
    size_ps), both None for the fastest mapping.  ABC's mapper (map -D)
    counts delay in the library's load-independent gate delays, its sizing
    (upsize/dnsize -D) and stime with the loads: the two targets are each
    scale's own, the fastest mapping's delay times the same factor.
    jobs > 1 splits the targets over that many Yosys processes run at once
    (the device host: a full-K carry-save point's mappings would otherwise
    outlast the one command's time).  Returns one dict per target, in order,
    and the CPU seconds."""
    constr = constr_file(d, lib)
    jobs = max(1, min(jobs, len(targets)))
    groups = [targets[i::jobs] for i in range(jobs)]
    tags = [tag] if jobs == 1 else ["%s%d" % (tag, i) for i in range(jobs)]
    for group, gt in zip(groups, tags):
        write_map_script(d, tools, lib, has_ff, constr, group, gt)
    if jobs == 1:
        results = [run_map(d, tools, lib, tags[0])]
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(jobs) as ex:
            results = list(ex.map(lambda gt: run_map(d, tools, lib, gt), tags))
    by = {}
    cpu = 0.0
    for group, (text, c) in zip(groups, results):
        cpu += c
        delays = [float(x) for x in re.findall(r"ABC: WireLoad = .*Delay =\s*([\d.]+) ps", text)]
        mapped = [float(x) for x in re.findall(r"ABC: .* i/o = .* delay =\s*([\d.]+)\s+lev", text)]
        for i, t in enumerate(group):
            by[t[0]] = (delays[i] if i < len(delays) else 0.0, mapped[i] if i < len(mapped) else 0.0)
    out = []
    for name, map_ps, ps in targets:
        td = os.path.join(d, "t_" + name)
        st = open(os.path.join(td, "stat.txt")).read()
        m = re.search(r"Chip area for module .*?:\s*([\d.]+)", st)
        n = re.search(r"Number of cells:\s*(\d+)", st)
        if not m or not os.path.exists(os.path.join(td, "net.v")):
            raise FlowError("yosys (mapping, target %s): no area in %s" % (name, os.path.join(td, "stat.txt")))
        miss = re.findall(r"^\s+(\S+)\s+\d+\s*$", st, re.M)
        unk = [c for c in miss if c not in lib["cells"]]
        if unk:
            raise FlowError("yosys (mapping, target %s): cells not in the library: %s" % (name, " ".join(unk[:5])))
        out.append({"target": name, "target_ps": ps or 0, "abc_delay_ps": by[name][0], "map_delay": by[name][1],
                    "area_um2": float(m.group(1)), "cells": int(n.group(1)) if n else 0, "dir": td})
    return out, cpu


def write_map_script(d, tools, lib, has_ff, constr, targets, tag):
    head = "read_rtlil %s\ndesign -save front\n" % os.path.join(d, "front.il")
    body = []
    for name, map_ps, size_ps in targets:
        td = os.path.join(d, "t_" + name)
        if os.path.isdir(td):
            shutil.rmtree(td)
        os.makedirs(td)
        with open(os.path.join(td, "map.abc"), "w") as fh:
            fh.write(open(os.path.join(HERE, "map.abc")).read().replace("@MAPD@", "-D %d" % map_ps if map_ps else "")
                     .replace("@D@", "-D %d" % size_ps if size_ps else ""))
        body.append(fill("map.ys", {
            "DFFLIBMAP": ("dfflibmap -liberty %s" % lib["abc_lib"]) if has_ff else "",
            "ABCEXE": tools.abc, "ABCLIB": lib["abc_lib"], "CONSTR": constr,
            "SCRIPT": os.path.join(td, "map.abc"), "LIB": lib["path"], "OUT": td}))
    with open(os.path.join(d, "map_%s.ys" % tag), "w") as fh:
        fh.write(head + "\n".join(body))


def run_map(d, tools, lib, tag):
    """One Yosys process of map_targets: (its log, its CPU seconds)."""
    ylog = os.path.join(d, "map_%s.ylog" % tag)
    r = run([tools.yosys, "-q", "-l", ylog, os.path.join(d, "map_%s.ys" % tag)], log=os.path.join(d, "map_%s.log" % tag))
    if r.returncode != 0:
        raise FlowError("yosys (mapping to %s): %s" % (os.path.basename(lib["path"]),
                                                     first_error(ylog) or "exit %d" % r.returncode))
    return open(ylog).read(), r.cpu
