#!/bin/bash
# The CUDA backend on a GPU machine (the device tool's nvidia-h200), in one
# call: the work folder W holds what this machine built (the command and
# test_cuda, built with MMAREF_CUDA=1 and stripped, xz'd) and src.tar.xz
# (the sources the Python package builds from); the vector files are the
# checkout's own (vectors/hw, vectors/peer).  Logs go to $OUT.  Steps (all
# by default):
#   test     make test-cuda's run: every suite of every unit and every
#            vector file through the GPU (test_cuda.log)
#   launch   mmaref bench --device cuda over launch shapes, two units
#   bench    mmaref bench --device cuda on scripts/bench_instructions.txt,
#            random-bit vectors (bench_random.txt)
#   gencheck gen, run and check --device cuda against the CPU's bytes
#   python   the Python package built there (setup.py with nvcc), its CUDA
#            tests and speed
#   ncu      Nsight Compute's summary of the QGMMA kernel (ncu.txt)
# usage: scripts/cuda/device_run.sh W [step ...]   (from the checkout's root)
W=${1:-.cudawork}
shift
STEPS=${*:-test launch bench gencheck python ncu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/cw
set -o pipefail
log() { echo "== $* ($(date +%T))" | tee -a "$OUT/summary.txt"; }
el() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
xz -dc "$W/mmaref.xz" > /tmp/cw/mmaref && xz -dc "$W/test_cuda.xz" > /tmp/cw/test_cuda && chmod +x /tmp/cw/mmaref /tmp/cw/test_cuda
M=/tmp/cw/mmaref
log "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv; nproc; } 2>&1 | tee -a "$OUT/summary.txt"

if want test; then
    log "test_cuda: every suite, every file"
    timeout 200 /tmp/cw/test_cuda vectors/hw vectors/peer > "$OUT/test_cuda.log" 2>&1; echo "rc=$?" >> "$OUT/test_cuda.log"
    tail -22 "$OUT/test_cuda.log" | tee -a "$OUT/summary.txt"
fi

if want launch; then
    log "bench launch shapes"
    timeout 90 $M bench --device cuda --count 2097152 --seconds 0.3 --launch "64,0 128,0 256,0 128,10 128,12" \
        hopper:wgmma.m64n8k32.f32.e4m3.e4m3 hopper:wgmma.m64n8k16.f32.bf16.bf16 > "$OUT/bench_launch.txt" 2>&1
    tail -3 "$OUT/bench_launch.txt" >> "$OUT/summary.txt"
fi

if want bench; then
    log "bench: the instructions of the speed table, random bits (the peer's vectors)"
    timeout 150 $M bench --device cuda --count 4194304 --seconds 0.5 --suite random $(grep -v '^#' scripts/bench_instructions.txt) \
        > "$OUT/bench_random.txt" 2>&1; echo "rc=$?" >> "$OUT/bench_random.txt"
    cat "$OUT/bench_random.txt" >> "$OUT/summary.txt"
fi

if want gencheck; then
    log "gen / run / check --device cuda against the CPU"
    for u in cdna2:v_mfma_f32_16x16x16f16 hopper:wgmma.m64n8k32.f32.e4m3.e4m3; do
        t0=$(date +%s.%N); $M gen "$u" --suite compliance --count 2000000 --seed 5 -o /tmp/cw/g_cpu.vec; t1=$(date +%s.%N)
        $M gen "$u" --suite compliance --count 2000000 --seed 5 -o /tmp/cw/g_gpu.vec --device cuda; t2=$(date +%s.%N)
        cmp /tmp/cw/g_cpu.vec /tmp/cw/g_gpu.vec && echo "$u gen: same bytes (cpu $(el $t0 $t1) s, cuda $(el $t1 $t2) s)"
        $M run /tmp/cw/g_cpu.vec -o /tmp/cw/r_gpu.vec --device cuda 2>/dev/null && cmp /tmp/cw/g_cpu.vec /tmp/cw/r_gpu.vec && echo "$u run: same bytes"
        t0=$(date +%s.%N); $M check /tmp/cw/g_cpu.vec --device cuda | tail -1; t1=$(date +%s.%N); $M check /tmp/cw/g_cpu.vec | tail -1; t2=$(date +%s.%N)
        echo "$u check: cuda $(el $t0 $t1) s, cpu $(el $t1 $t2) s"
    done 2>&1 | tee -a "$OUT/summary.txt"
fi

if want python; then
    log "Python: build (setup.py with nvcc) and the CUDA tests"
    mkdir -p /tmp/cw/src && tar -xJf "$W/src.tar.xz" -C /tmp/cw/src
    ( cd /tmp/cw/src && timeout 150 python3 setup.py -q build_ext --inplace -j 16 ) > "$OUT/py_build.log" 2>&1; echo "build rc=$?" | tee -a "$OUT/summary.txt"
    ( cd /tmp/cw/src && PYTHONPATH=/tmp/cw/src/python MMAREF_CLI=$M timeout 120 python3 -m pytest -q -p no:cacheprovider \
        python/tests/test_cuda.py python/tests/test_unit.py 2>&1 | tail -15 ) | tee "$OUT/py_test.log" >> "$OUT/summary.txt"
    ( cd /tmp/cw/src && PYTHONPATH=/tmp/cw/src/python timeout 60 python3 python/benchmarks/bench_cuda.py 4194304 2>&1 ) | tee -a "$OUT/summary.txt"
fi

if want ncu; then
    log "ncu: the QGMMA kernel"
    timeout 60 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
        --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis -k regex:dot_kernel -c 1 \
        $M bench --device cuda --count 2097152 --seconds 0.01 hopper:wgmma.m64n8k32.f32.e4m3.e4m3 > "$OUT/ncu.txt" 2>&1
    echo "ncu rc=$?" >> "$OUT/ncu.txt"
    grep -E "Throughput|Occupancy|Registers|Stall|Warp Cycles|Issued|Executed Ipc|L1/TEX Hit|L2 Hit|Local" "$OUT/ncu.txt" | head -40 >> "$OUT/summary.txt"
fi
log "done"
