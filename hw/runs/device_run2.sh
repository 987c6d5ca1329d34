#!/bin/sh
# Second device run: the ezero capture, and the peer model's speed on the
# bench instructions (CPU, one thread and all threads) for `make bench`.
set -u
SUITES=ezero DIRECTED=4000 WORK=/tmp/hwcap2 sh scripts/hw_capture.sh hw/plans/hw_plan_h100_ezero.txt 2>&1 | tail -30
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
for t in 1 16; do
  OMP_NUM_THREADS=$t MKL_NUM_THREADS=$t timeout 200 python3 scripts/peer/mmasim_bench.py -n 100000 --repeat 1 --list scripts/bench_instructions.txt > "$OUT/mmasim_bench_t$t.tsv" 2> "$OUT/mmasim_bench_t$t.err"
  echo "threads=$t"; cat "$OUT/mmasim_bench_t$t.tsv"; tail -3 "$OUT/mmasim_bench_t$t.err"
done
lscpu | grep -E 'Model name|^CPU\(s\)' > "$OUT/cpu.txt"; cat "$OUT/cpu.txt"
