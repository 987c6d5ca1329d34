"""Timing and power of a point's mapped netlists with OpenSTA (sta.tcl), the
switching activity from the gate-level simulation (gatesim.py) of the
point's stimulus (stimulus.py).

Power model: OpenSTA gives each instance's power at activity 0 (leakage,
and the clock pins of flip-flops, which toggle twice a period whatever the
data) and at activity 1 (one transition per period on every pin).  An
instance whose output toggles at rate r per cycle in the simulation is
counted as P0 + r (P1 - P0): its output's switching power and the internal
power of its arcs scale with r (an input pin's own internal energy is
counted at the output's rate: a small part of a cell's energy).  The sum
gives the dynamic energy per cycle (pJ) and the leakage (mW); the power at
clock period T ns is E / T + leakage."""
import os
import re

import gatesim
from proc import FlowError, first_error, run

HERE = os.path.dirname(os.path.abspath(__file__))
PERIOD_NS = 1000.0       # the analysis period: slack = PERIOD - delay


def tcl(d, lib, nets, seq, clock):
    p = lib["picks"]
    wlm = lib["default_wire_load"]
    calls = "\n".join("cost_one %s %s %s %d" % (n["verilog"], n["top"], n["tag"], int(seq)) for n in nets)
    s = open(os.path.join(HERE, "sta.tcl")).read()
    subs = {"LIB": lib["path"], "DRIVE": p["drive_cell"], "DRIVEPIN": p["drive_pin"],
            "LOAD": "%.6g" % p["load"], "LOADOF": p["load_of"], "WLM": wlm or "none",
            "WLMCMD": ("set_wire_load_model -name %s" % wlm) if wlm else "", "PERIOD": "%g" % PERIOD_NS,
            "CLOCK": clock or "clk", "DIR": d, "CALLS": calls}
    for k, v in subs.items():
        s = s.replace("@%s@" % k, v)
    path = os.path.join(d, "sta_run.tcl")
    with open(path, "w") as fh:
        fh.write(s)
    return path


def read_power(path):
    out = {}
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if len(f) == 5:
                out[f[0]] = (float(f[1]), float(f[2]), float(f[3]))    # internal, switching, leakage (W)
    return out


def time_and_power(d, tools, lib, nets, seq, clock, stim):
    """nets: [{tag, verilog, json, top}].  stim: stimulus.Stimulus.  Fills
    each net dict with delay_ns, energy_pj, leak_mw, clk_energy_pj and the
    gate-level check; returns the CPU seconds of OpenSTA."""
    script = tcl(d, lib, nets, seq, clock)
    log = os.path.join(d, "sta.log")
    r = run([tools.sta, "-no_splash", "-exit", script], log=log)
    text = open(log, errors="replace").read()
    slack = {m.group(1): float(m.group(2)) for m in re.finditer(r"^slack (\S+) (\S+)$", text, re.M)}
    done = set(re.findall(r"^done (\S+)$", text, re.M))
    if r.returncode != 0 or any(n["tag"] not in done for n in nets):
        err = [l for l in text.splitlines() if l.startswith("Error") or "rror:" in l]
        raise FlowError("OpenSTA (%s): %s" % (log, err[0] if err else (first_error(log) or "exit %d" % r.returncode)))
    for n in nets:
        s = slack[n["tag"]]
        if abs(s) > 1e20:
            raise FlowError("OpenSTA (%s): no constrained path in %s" % (log, n["verilog"]))
        n["delay_ns"] = PERIOD_NS - s * 1e9
        p0 = read_power(os.path.join(d, n["tag"] + ".pwr0"))
        p1 = read_power(os.path.join(d, n["tag"] + ".pwr1"))
        act, outs = gatesim.simulate(n["json"], lib["cells"], stim.ports, stim.ncycles, stim.latency)
        bad = stim.check(outs)
        if bad:
            raise FlowError("gate-level simulation of %s: %s" % (n["verilog"], bad))
        t = PERIOD_NS * 1e-9
        e_data = e_clk = leak = 0.0
        missing = [i for i in act if i not in p1]
        if missing:
            raise FlowError("OpenSTA (%s): no power for instance %s" % (log, missing[0]))
        for inst, (i1, s1, l1) in p1.items():
            i0, s0, l0 = p0[inst]
            e_clk += (i0 + s0) * t
            e_data += act.get(inst, 0.0) * ((i1 + s1) - (i0 + s0)) * t
            leak += l1
        n["energy_pj"] = (e_clk + e_data) * 1e12
        n["clk_energy_pj"] = e_clk * 1e12
        n["leak_mw"] = leak * 1e3
        n["mean_toggle"] = sum(act.values()) / len(act) if act else 0.0
    return r.cpu
