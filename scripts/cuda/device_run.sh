#!/bin/bash
# The CUDA backend on a GPU machine (the device tool's nvidia-h200), in one
# call: the work folder W holds what this machine built (the command and
# test_cuda, built with MMAREF_CUDA=1 and stripped, xz'd) and src.tar.xz
# (the sources the Python package builds from); the vector files are the
# checkout's own (vectors/hw, vectors/peer).  Logs go to $OUT.
#   make test-cuda's run: every suite of every unit and every vector file
#   through the GPU; mmaref bench --device cuda (the instructions of
#   scripts/bench_instructions.txt, and the launch shapes of two); gen, run
#   and check --device cuda against the CPU's bytes; the Python package
#   built there (setup.py, nvcc) and its CUDA tests and speed.
# usage: scripts/cuda/device_run.sh W   (from the checkout's root)
W=${1:-.cudawork}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/cw
set -o pipefail
log() { echo "== $* ($(date +%T))" | tee -a "$OUT/summary.txt"; }
el() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
xz -dc "$W/mmaref.xz" > /tmp/cw/mmaref && xz -dc "$W/test_cuda.xz" > /tmp/cw/test_cuda && chmod +x /tmp/cw/mmaref /tmp/cw/test_cuda
M=/tmp/cw/mmaref
log "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv; nproc; nvcc --version | tail -2; } 2>&1 | tee -a "$OUT/summary.txt"

log "test_cuda: every suite, every file"
timeout 200 /tmp/cw/test_cuda vectors/hw vectors/peer > "$OUT/test_cuda.log" 2>&1; echo "rc=$?" >> "$OUT/test_cuda.log"
tail -22 "$OUT/test_cuda.log" | tee -a "$OUT/summary.txt"

log "bench launch shapes"
timeout 90 $M bench --device cuda --count 2097152 --seconds 0.3 \
    --launch "32,0 64,0 128,0 256,0 128,1 128,2 128,4 128,8 64,4 64,8" \
    hopper:wgmma.m64n8k32.f32.e4m3.e4m3 hopper:wgmma.m64n8k16.f32.bf16.bf16 2>&1 | tee "$OUT/bench_launch.txt" | tail -4 >> "$OUT/summary.txt"

log "bench: the instructions of the speed table, random bits (the peer's vectors) and normal"
timeout 150 $M bench --device cuda --count 4194304 --seconds 0.5 --suite random $(grep -v '^#' scripts/bench_instructions.txt) \
    > "$OUT/bench_random.txt" 2>&1; echo "rc=$?" >> "$OUT/bench_random.txt"
cat "$OUT/bench_random.txt" >> "$OUT/summary.txt"

log "gen / run / check --device cuda against the CPU"
for u in hopper:wgmma.m64n8k32.f32.e4m3.e4m3 "ieee,a=fp16,c=fp32,k=8" cdna2:v_mfma_f32_16x16x16f16; do
    t0=$(date +%s.%N); $M gen "$u" --suite compliance --count 2000000 --seed 5 -o /tmp/cw/g_cpu.vec; t1=$(date +%s.%N)
    $M gen "$u" --suite compliance --count 2000000 --seed 5 -o /tmp/cw/g_gpu.vec --device cuda; t2=$(date +%s.%N)
    cmp /tmp/cw/g_cpu.vec /tmp/cw/g_gpu.vec && echo "$u gen: same bytes (cpu $(el $t0 $t1) s, cuda $(el $t1 $t2) s)"
    $M run /tmp/cw/g_cpu.vec -o /tmp/cw/r_gpu.vec --device cuda 2>/dev/null && cmp /tmp/cw/g_cpu.vec /tmp/cw/r_gpu.vec && echo "$u run: same bytes"
    t0=$(date +%s.%N); $M check /tmp/cw/g_cpu.vec --device cuda | tail -1; t1=$(date +%s.%N); $M check /tmp/cw/g_cpu.vec | tail -1; t2=$(date +%s.%N)
    echo "$u check: cuda $(el $t0 $t1) s, cpu $(el $t1 $t2) s"
done 2>&1 | tee -a "$OUT/summary.txt"

log "Python: build (setup.py with nvcc) and the CUDA tests"
mkdir -p /tmp/cw/src && tar -xJf "$W/src.tar.xz" -C /tmp/cw/src
( cd /tmp/cw/src && timeout 150 python3 setup.py -q build_ext --inplace -j 16 ) > "$OUT/py_build.log" 2>&1; echo "build rc=$?" | tee -a "$OUT/summary.txt"
tail -5 "$OUT/py_build.log" >> "$OUT/summary.txt"
( cd /tmp/cw/src && PYTHONPATH=/tmp/cw/src/python MMAREF_CLI=$M timeout 120 python3 -m pytest -q -p no:cacheprovider \
    python/tests/test_cuda.py python/tests/test_unit.py 2>&1 | tail -15 ) | tee "$OUT/py_test.log" >> "$OUT/summary.txt"
( cd /tmp/cw/src && PYTHONPATH=/tmp/cw/src/python timeout 60 python3 python/benchmarks/bench_cuda.py 4194304 2>&1 ) | tee -a "$OUT/summary.txt"
log "done"
