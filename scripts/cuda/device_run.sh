#!/bin/bash
# The CUDA backend on a GPU machine (the device tool's nvidia-h200), in one
# call.  The work folder W holds what this machine built (make
# MMAREF_CUDA=1: the command mmaref, tests/test_cuda and the object
# cuda/batch_cuda.o, stripped, in bins.tar.xz: one archive, so that xz
# finds what the two programs share; the checkout itself is 61 of the
# 64 MiB a call carries), src.tar.xz (the sources, for the
# Python package: setup.py links batch_cuda.o through MMAREF_CUDA_OBJ
# instead of compiling it again) and the peer's wheel (mmasim-2.1.1, for
# the GPU rows of bench-peer); the vector files are the checkout's own
# (vectors/hw, vectors/peer).  Logs go to $OUT.  Steps (all by default):
#   test     make test-cuda's run: every suite of every unit and every
#            vector file through the GPU, the specialized kernels and the
#            reference path's (test_cuda.log)
#   bench    mmaref bench --device cuda on scripts/bench_instructions.txt,
#            random-bit vectors (bench_random.txt); the reference kernels
#            on four of them (MMAREF_CUDA_KERNELS=reference), the same run
#   copies   the 8-bit tables: 1 copy against 32 in shared memory (QGMMA)
#   ncu      Nsight Compute on the QGMMA kernel: speed of light, the
#            pipes, the instructions executed (ncu.txt)
#   python   the Python package built there, python/tests with PyTorch
#            (CPU and CUDA tensors; py_test.log)
#   peer     bench_peer.py --gpu-only: mmaref's CUDA backend against
#            mmasim on the same GPU, same vectors, same run (bench_peer_gpu.tsv)
# usage: scripts/cuda/device_run.sh W [step ...]   (from the checkout's root)
W=${1:-.cudawork}
shift
STEPS=${*:-test bench peer python ncu copies}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/cw/src
set -o pipefail
log() { echo "== $* ($(date +%T))" | tee -a "$OUT/summary.txt"; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
tar -xJf "$W/bins.tar.xz" -C /tmp/cw || exit 1
chmod +x /tmp/cw/mmaref /tmp/cw/test_cuda
tar -xJf "$W/src.tar.xz" -C /tmp/cw/src || exit 1
M=/tmp/cw/mmaref
log "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv; nproc; } 2>&1 | tee -a "$OUT/summary.txt"

if want test; then
    log "test_cuda: every suite, every file, both kernels"
    timeout 150 /tmp/cw/test_cuda vectors/hw vectors/peer > "$OUT/test_cuda.log" 2>&1; echo "rc=$?" >> "$OUT/test_cuda.log"
    tail -23 "$OUT/test_cuda.log" | tee -a "$OUT/summary.txt"
fi

if want bench; then
    log "bench: the instructions of the speed table, random bits (the peer's vectors)"
    timeout 100 $M bench --device cuda --count 4194304 --seconds 0.4 --suite random $(grep -v '^#' scripts/bench_instructions.txt) \
        > "$OUT/bench_random.txt" 2>&1; echo "rc=$?" >> "$OUT/bench_random.txt"
    echo "# the reference path's kernels (MMAREF_CUDA_KERNELS=reference), the same run" >> "$OUT/bench_random.txt"
    MMAREF_CUDA_KERNELS=reference timeout 60 $M bench --device cuda --count 4194304 --seconds 0.3 --suite random \
        hopper:wgmma.m64n8k32.f32.e4m3.e4m3 hopper:wgmma.m64n8k16.f32.bf16.bf16 \
        cdna3:v_mfma_f32_16x16x32_fp8_fp8 blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0 \
        2>&1 | grep -v '^#\|^instruction' >> "$OUT/bench_random.txt"
    cat "$OUT/bench_random.txt" >> "$OUT/summary.txt"
fi

if want copies; then
    log "the 8-bit tables: copies in shared memory, QGMMA, normal and random suites"
    for c in 1 32; do for s in normal random; do
        echo "copies $c, suite $s: $(MMAREF_CUDA_TABLE_COPIES=$c timeout 30 $M bench --device cuda --count 4194304 --seconds 0.3 \
            --suite $s hopper:wgmma.m64n8k32.f32.e4m3.e4m3 2>&1 | tail -1)"
    done; done 2>&1 | tee "$OUT/copies.txt" >> "$OUT/summary.txt"
fi

if want ncu; then
    log "ncu: the QGMMA kernel"
    timeout 75 ncu --clock-control none --section SpeedOfLight --section Occupancy --section ComputeWorkloadAnalysis \
        --section InstructionStats --section WarpStateStats --section MemoryWorkloadAnalysis \
        --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_lsu.sum,sm__cycles_elapsed.max,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active \
        -k regex:fx_kernel -c 1 \
        $M bench --device cuda --count 4194304 --seconds 0.01 --suite random hopper:wgmma.m64n8k32.f32.e4m3.e4m3 > "$OUT/ncu.txt" 2>&1
    echo "ncu rc=$?" >> "$OUT/ncu.txt"
    grep -E "Throughput|Occupancy|Registers|Stall|Issued|Executed Ipc|inst_executed|cycles_elapsed|Pipe|Hit Rate|Duration" \
        "$OUT/ncu.txt" | head -50 >> "$OUT/summary.txt"
fi

if want python || want peer; then
    log "Python: build (setup.py, batch_cuda.o linked)"
    ( cd /tmp/cw/src && MMAREF_CUDA_OBJ=/tmp/cw/batch_cuda.o timeout 300 python3 setup.py -q build_ext --inplace -j 16 ) \
        > "$OUT/py.log" 2>&1; echo "build rc=$?" | tee -a "$OUT/summary.txt"
fi

if want peer; then
    log "bench-peer, the GPU rows: mmaref's CUDA backend against mmasim 2.1.1, same GPU, same vectors"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$W"/mmasim-*.whl \
        >> "$OUT/py.log" 2>&1
    ( cd /tmp/cw/src && PYTHONPATH=/tmp/site:/tmp/cw/src/python timeout 200 python3 scripts/peer/bench_peer.py \
        --mmaref $M --gpu-only --list scripts/bench_instructions.txt --gpu-tsv "$OUT/bench_peer_gpu.tsv" 2>&1 ) \
        | tee "$OUT/bench_peer_gpu.log" >> "$OUT/summary.txt"
fi
if want python; then
    log "Python: python/tests with PyTorch (CPU and CUDA tensors)"
    ( cd /tmp/cw/src && PYTHONPATH=/tmp/cw/src/python MMAREF_CLI=$M timeout 150 python3 -m pytest -q -p no:cacheprovider \
        -n 16 python/tests 2>&1 | tail -40 ) | tee -a "$OUT/py.log" >> "$OUT/summary.txt"
fi

log "done"
