#!/bin/sh
# docs/triage.md's block on probing RTL: `mmaref probe <unit.dut>` on the
# example units whose arithmetic is known (examples/dot4_pipe: Volta's fp16
# HMMA; examples/systolic4: e4m3 products added one at a time with F=24,
# cut toward zero; examples/gemm_row4: a chain of four IEEE fp16 FMAs).  Prints each command and the configuration lines of its
# answer.  The testbenches are built in build/probe-examples (kept).
# With --triage: the triage lines `mmaref verify` prints for
# examples/systolic4/broken.dut (one narrow processing element) instead.
# usage: sh scripts/probe_examples.sh MMAREF [--triage]
set -u
M=$1
W=build/probe-examples
mkdir -p "$W"
if [ "${2:-}" = --triage ]; then
    "$M" verify examples/systolic4/broken.dut --no-fst --workdir "$W/broken" > "$W/broken.log" 2>&1
    sed -n '/^triage:/,/^coverage/p' "$W/broken.log" | grep -v '^coverage'
    tail -1 "$W/broken.log"
    exit 0
fi
for ex in dot4_pipe systolic4 gemm_row4; do
    echo "\$ mmaref probe examples/$ex/$ex.dut --count 300"
    "$M" probe "examples/$ex/$ex.dut" --count 300 --workdir "$W/$ex" > "$W/$ex.log" 2>&1
    rc=$?
    grep -E '^(probe of|family:|  differs|config:|the same as|no catalogue|reproduces)' "$W/$ex.log"
    echo "(exit $rc)"
done
