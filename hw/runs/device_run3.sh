#!/bin/sh
# Third device run: the 50,000-vector compliance captures of
# hw/plans/hw_plan_h100_fp8mma50k.txt, and the speed of gen and of the
# Verilator testbench (QGMMA preset, DPI scoreboard; a static x86-64-v3
# build carried in hwbuild/tb) on one core of the device host's CPU.
set -u
SUITES=" " WORK=/tmp/hwcap3 sh scripts/hw_capture.sh hw/plans/hw_plan_h100_fp8mma50k.txt 2>&1 | tail -20
lscpu | grep -E 'Model name|^CPU\(s\)' | tee "$OUT/cpu.txt"
{
  for r in 1 2 3; do
    bash -c 'TIMEFORMAT="gen 1M vectors: %R s wall, %U s user, %S s sys"; time hwbuild/mmaref gen hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --suite compliance --count 1000000 --seed 1 -o /tmp/g.vec'
  done
  for r in 1 2 3; do
    hwbuild/tb/Vtb_top_qgmma +instr=hopper:wgmma.m64n8k32.f32.e4m3.e4m3 +n=3000000 +seed=$r +mode=mix +quiet | grep -E "mismatches|tb_main"
  done
} > "$OUT/speed.txt" 2>&1
cat "$OUT/speed.txt"
