"""Build and run the cocotb testbench of rtl/mma_dpa.sv (test_mma_dpa.py)
with cocotb's Verilator runner.

    python run.py --unit hopper:wgmma.m64n8k32.f32.e4m3.e4m3 [--count 3000]
                  [--f-delta -1 --expect-mismatch] [--pipe 1]
                  [--mmaparams build/rtl/mmaparams] [--build-dir DIR]

The RTL parameters that realize the unit come from mmaparams (the tool the
SystemVerilog testbench uses too); --f-delta -1 builds the deliberately
broken variant (one fraction bit short in alignment), which must fail:
with --expect-mismatch the run succeeds only if the test failed on
mismatches.  Exit status 0 on the expected outcome, 1 otherwise."""
import argparse
import glob
import os
import subprocess
import sys
import json

from cocotb.runner import get_results, get_runner

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def rtl_parameters(mmaparams: str, unit: str, f_delta: int) -> dict:
    out = subprocess.run([mmaparams, "--f-delta", str(f_delta), unit], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"run.py: {out.stderr.strip()}")
    params = {}
    for flag in out.stdout.split():
        name, value = flag[2:].split("=", 1)
        params[name] = int(value)
    return params


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unit", default="hopper:wgmma.m64n8k32.f32.e4m3.e4m3")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--f-delta", type=int, default=0)
    ap.add_argument("--pipe", type=int, default=1)
    ap.add_argument("--expect-mismatch", action="store_true")
    ap.add_argument("--mmaparams", default=os.path.join(ROOT, "build", "rtl", "mmaparams"))
    ap.add_argument("--build-dir", default=None)
    args = ap.parse_args()
    params = rtl_parameters(args.mmaparams, args.unit, args.f_delta)
    params["PIPE"] = args.pipe
    tag = f"{args.unit.replace(':', '_').replace('.', '_')}_f{params['F']}_p{args.pipe}"
    build_dir = args.build_dir or os.path.join(ROOT, "build", "cocotb", tag)
    runner = get_runner("verilator")
    runner.build(verilog_sources=sorted(glob.glob(os.path.join(ROOT, "rtl", "*.sv")), key=lambda f: (not f.endswith("mma_pkg.sv"), f)), hdl_toplevel="mma_dpa",
                 parameters=params, build_dir=build_dir,
                 build_args=["-O3", "--x-assign", "fast", "--x-initial", "fast", "-Wno-fatal", "-CFLAGS", "-O2"])
    summary = os.path.join(build_dir, "summary.json")
    if os.path.exists(summary):
        os.unlink(summary)
    xml = runner.test(test_module="test_mma_dpa", hdl_toplevel="mma_dpa", build_dir=build_dir, test_dir=build_dir,
                      extra_env={"MMAREF_TB_UNIT": args.unit, "MMAREF_TB_COUNT": str(args.count),
                                 "MMAREF_TB_SEED": str(args.seed), "PYTHONPATH": HERE + os.pathsep +
                                 os.environ.get("PYTHONPATH", "")})
    ran, failed = get_results(xml)
    what = f"cocotb, {args.unit}, RTL F={params['F']}"
    if ran != 1 or not os.path.exists(summary):
        print(f"{what}: FAIL: the test did not run to its end ({ran} test cases, {failed} failed)")
        return 1
    with open(summary) as f:
        s = json.load(f)
    result = f"{s['vectors']} vectors, {s['mismatches']} mismatches"
    if args.expect_mismatch:
        if failed == 1 and s["mismatches"] > 0:
            print(f"{what}: the broken variant is caught: {result}")
            return 0
        print(f"{what}: FAIL: the broken variant was not caught: {result}")
        return 1
    if failed or s["mismatches"]:
        print(f"{what}: FAIL: {result}")
        return 1
    print(f"{what}: {result}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
