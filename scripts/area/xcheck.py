#!/usr/bin/env python3
"""make area-xcheck: the toggle counts of the gate-level simulation
(gatesim.py) against Verilator's toggle coverage of the same mapped netlist
on the same vectors, net for net.  Slow (Verilator compiles the flattened
netlist: minutes), so not part of make test.

  xcheck.py <point dir of a costed sweep point> <liberty summary JSON> <out dir> [vectors]

The netlist (t_min) is flattened by Yosys with the library's cell functions
(read_liberty), its nets renamed from _123_ to n123_ (Verilator leaves
names that begin with an underscore out of coverage), and simulated by
Verilator with --coverage-toggle, one vector a clock cycle; Verilator also
counts each net's rise from 0 before the first cycle, which is added to the
gate simulation's count.  Every net but the clock (not simulated by
gatesim) must agree."""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gatesim      # noqa: E402
import stimulus     # noqa: E402


def main():
    pdir, libjson, out = sys.argv[1:4]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    os.makedirs(out, exist_ok=True)
    lib = json.load(open(libjson))
    td = os.path.join(pdir, "t_min")
    for f in ("net.v", "net.json"):
        p = os.path.join(td, f)
        dst = os.path.join(out, f)
        if os.path.exists(p):
            shutil.copyfile(p, dst)
        else:
            with gzip.open(p + ".gz", "rb") as a, open(dst, "wb") as b:
                shutil.copyfileobj(a, b)
    cfg = None
    for v in glob.glob(os.path.join(pdir, "stim_*.vec")):
        for line in open(v):
            if line.startswith("# instr: "):
                cfg = line[9:].strip()
                break
    vec = stimulus.make(os.environ.get("MMAREF", "build/mmaref"), cfg, out, count, 1)
    top, mod = gatesim.load_netlist(os.path.join(out, "net.json"))
    widths = {n: len(p["bits"]) for n, p in mod["ports"].items() if p["direction"] == "input"}
    st = stimulus.Stimulus(vec, {n: w for n, w in widths.items() if n in ("a", "b", "c", "sa", "sb", "in_valid", "rst_n")})
    vals = {}
    act, outs = gatesim.simulate(os.path.join(out, "net.json"), lib["cells"], st.ports, st.ncycles, 0, vals)
    bad = st.check(outs)
    if bad:
        sys.exit("xcheck: the gate simulation: %s" % bad)
    # the stimulus as one hex word a cycle, the input ports concatenated
    order = [n for n in ("a", "b", "c", "sa", "sb") if n in st.ports]
    total = sum(widths[n] for n in order)
    with open(os.path.join(out, "stim.hex"), "w") as fh:
        for i in range(st.ncycles):
            w, at = 0, 0
            for n in order:
                for j, col in enumerate(st.ports[n]):
                    w |= ((col >> i) & 1) << (at + j)
                at += widths[n]
            fh.write("%0*x\n" % ((total + 3) // 4, w))
    ys = os.path.join(out, "flat.ys")
    with open(ys, "w") as fh:
        fh.write("read_liberty -ignore_miss_func %s\nread_verilog %s\nhierarchy -top %s\nflatten\n"
                 "write_verilog -noattr %s\n" % (lib["path"], os.path.join(out, "net.v"), top,
                                                 os.path.join(out, "flat_raw.v")))
    subprocess.run([os.environ.get("AREA_YOSYS", "yosys"), "-q", ys], check=True)
    text = open(os.path.join(out, "flat_raw.v")).read()
    text = re.sub(r"(^|[^A-Za-z0-9_.\\])_([0-9]+)_", r"\1n\2_", text)
    open(os.path.join(out, "flat.v"), "w").write(text)
    conn, at = [], 0
    for n in order:
        conn.append(".%s(v[%d:%d])" % (n, at + widths[n] - 1, at))
        at += widths[n]
    for n, p in mod["ports"].items():
        if p["direction"] == "input" and n not in order:
            conn.append(".%s(%s)" % (n, "clk" if n == "clk" else "1'b1"))
    with open(os.path.join(out, "top.sv"), "w") as fh:
        fh.write("/* verilator coverage_off */\nmodule xtop(input clk);\n  logic [%d:0] mem [0:%d];\n"
                 "  initial $readmemh(\"stim.hex\", mem);\n  int i = 0;\n  always @(posedge clk) if (i < %d) i <= i + 1;\n"
                 "  logic [%d:0] v;\n  assign v = mem[i];\n  %s dut(%s);\nendmodule\n" % (
                     total - 1, st.ncycles - 1, st.ncycles - 1, total - 1, top, ", ".join(conn)))
    with open(os.path.join(out, "main.cpp"), "w") as fh:
        fh.write('#include "Vxtop.h"\n#include "verilated.h"\n#include "verilated_cov.h"\n'
                 "int main(int argc, char **argv) {\n  VerilatedContext ctx; ctx.commandArgs(argc, argv);\n"
                 "  Vxtop top(&ctx);\n  top.clk = 0; top.eval();\n"
                 "  for (int c = 0; c < %d; c++) { top.clk = 1; top.eval(); top.clk = 0; top.eval(); }\n"
                 '  ctx.coveragep()->write("cov.dat");\n  return 0;\n}\n' % (st.ncycles - 1))
    r = subprocess.run(["verilator", "--cc", "--exe", "--build", "-O0", "--coverage-toggle", "-Wno-fatal", "-Wno-lint",
                        "-Wno-style", "--top-module", "xtop", "top.sv", "flat.v", "main.cpp", "-Mdir", "obj",
                        "-CFLAGS", "-O0", "-MAKEFLAGS", "CXX=clang++ OPT_SLOW=-O0 OPT_FAST=-O0", "-j", "2"],
                       cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        sys.exit("xcheck: verilator failed:\n" + r.stdout[-2000:])
    subprocess.run([os.path.abspath(os.path.join(out, "obj", "Vxtop"))], cwd=out, check=True)
    vt = {}
    for line in open(os.path.join(out, "cov.dat"), errors="replace"):
        m = re.search(r"v_toggle.*\x01o\x02([^\x01]+)\x01h\x02TOP\.xtop\.dut'\s+(\d+)", line)
        if m:
            vt[m.group(1)] = int(m.group(2))
    n = 0
    diff = []
    N = st.ncycles
    for name, v in mod["netnames"].items():
        for i, b in enumerate(v["bits"]):
            if not isinstance(b, int) or b not in vals or name == "clk":
                continue
            key = re.sub(r"^_(\d+)_$", r"n\1_", name) + ("[%d]" % i if len(v["bits"]) > 1 else "")
            if key not in vt:
                continue
            x = vals[b]
            py = bin((x ^ (x >> 1)) & ((1 << (N - 1)) - 1)).count("1") + (x & 1)
            n += 1
            if py != vt[key]:
                diff.append("%s: gatesim %d, Verilator %d" % (key, py, vt[key]))
    print("xcheck: %d nets of %s, %d vectors: %d with the same toggle count as Verilator's coverage%s" % (
        n, os.path.basename(pdir.rstrip("/")), N, n - len(diff), (": differ: " + "; ".join(diff[:8])) if diff else ""))
    # a net or two may differ where Verilator evaluates an output twice in a
    # cycle; more means the simulations disagree
    sys.exit(0 if n > 100 and len(diff) <= max(2, n // 1000) else 1)


if __name__ == "__main__":
    main()
