#!/bin/sh
# make test-verify-strength: mmaref verify --coverage and --mutants on
# tests/verify/dual.dut (two of rtl/'s fused units behind a mode input,
# Verilog that Debian's Yosys 0.23 reads), small campaigns.
#   coverage: the per-suite and total lines, the LCOV file of the unit's
#   sources only (not the generated testbench), the least covered lines;
#   mutants: 20 mutants of seed 1 (Yosys 0.23's mutate -list sampling), the
#   score and one known kill and one known survivor.
# usage: verify_strength_test.sh <mmaref> <scratch dir>
M=$1
W=$2
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
mkdir -p "$W"
DUT=tests/verify/dual.dut
ARGS="--count 100 --random 2000 --no-fst"

"$M" verify $DUT --coverage $ARGS --workdir "$W/cov" > "$W/cov.log" 2>&1
rc=$?
[ $rc = 0 ] && ok || bad "--coverage exit $rc ($W/cov.log)"
grep -q '^coverage of dual: line [0-9]* of [0-9]* ([0-9.]*%), toggle [0-9]* of [0-9]*' "$W/cov.log" && ok || bad "no total coverage line"
[ "$(grep -c '^e4m3 \|^bf16 ' "$W/cov.log")" -ge 4 ] && ok || bad "no per-suite coverage lines"
grep -q '^least covered lines\|^every point' "$W/cov.log" && ok || bad "no least covered lines"
info="$W/cov/coverage/coverage.info"
grep -q '^SF:.*dual.sv$' "$info" && ok || bad "the LCOV file names no dual.sv"
grep -q '^SF:.*mma_round.sv$' "$info" && ok || bad "the LCOV file names no mma_round.sv"
grep -q 'mmaref_verify_tb' "$info" && bad "the LCOV file covers the generated testbench" || ok
[ -s "$W/cov/coverage/annotated/mma_round.sv" ] && ok || bad "no annotated listing"

"$M" verify $DUT --mutants 20 --equiv-seconds 0 $ARGS --workdir "$W/mut" > "$W/mut.log" 2>&1
rc=$?
# survivors remain: exit 1 (0 only when every non-equivalent mutant dies)
[ $rc = 1 ] && ok || bad "--mutants exit $rc, not 1 ($W/mut.log)"
last=$(tail -1 "$W/mut.log")
[ "$last" = "20 mutants, 10 killed, 10 survived, 0 equivalent" ] && ok || bad "last line '$last'"
# mutant 6 (a bit of an alignment's or-reduction held at 1) survives the
# campaign; mutant 1 is killed by a mismatch
grep -q '^mutant 6 survived (unchecked): dual.sv:' "$W/mut.log" && ok || bad "mutant 6 did not survive"
grep -q '^1 killed ' "$W/mut/mutants/outcomes" && ok || bad "mutant 1 was not killed"
echo "test-verify-strength: $pass passed, $fail failed"
[ $fail = 0 ]
