#!/bin/sh
# Tests of mmaref verify beyond the examples: descriptions that are wrong
# (exit 2, a message naming file, line and key), units that never answer,
# several modes of different K on one set of ports with NaN-boxed c and d,
# matrix units (the systolic example's broken processing element, its probe),
# results out of order matched by tag, shards that add up to the whole
# campaign, replays of mismatch files, the time limit, determinism.
# usage: tests/verify_test.sh path/to/mmaref work-directory
set -u
M=$1
W=$2
R=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$W"
W=$(cd "$W" && pwd)
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect <rc> <text the output must contain> <args...>
expect() {
    want=$1; sub=$2; shift 2
    "$M" verify "$@" > "$W/out" 2>&1; rc=$?
    if [ "$rc" != "$want" ]; then bad "verify $* -> exit $rc, wanted $want: $(tail -5 "$W/out")"; return; fi
    if [ -n "$sub" ] && ! grep -qF -- "$sub" "$W/out"; then bad "verify $* -> output lacks '$sub': $(tail -5 "$W/out")"; return; fi
    ok
}
RTL="$R/rtl/mma_pkg.sv $R/rtl/mma_dpa.sv $R/rtl/mma_dpa_checks.sv $R/rtl/mma_unpack.sv $R/rtl/mma_mul.sv $R/rtl/mma_special.sv $R/rtl/mma_emax.sv $R/rtl/mma_align.sv $R/rtl/mma_add.sv $R/rtl/mma_fda.sv $R/rtl/mma_fdrda.sv $R/rtl/mma_round.sv $R/rtl/mma_pack.sv $R/rtl/mma_dpa_io.sv $R/rtl/mma_prod.sv $R/rtl/mma_emax_tree.sv $R/rtl/mma_sum_tree.sv"
PIPE=$R/examples/dot4_pipe

# ---- bad descriptions: exit 2, file:line: key '...' ------------------------
# variant <name> <sed expression>: the dot4_pipe description, changed
variant() { sed -e "s|^dot4_pipe.sv|$PIPE/dot4_pipe.sv|" -e "$2" "$PIPE/dot4_pipe.dut" > "$W/$1.dut"; }
variant misspelled 's/^in_valid  in_valid/in_valid  in_vlid/'
expect 2 "misspelled.dut:14: key 'in_valid': the top module dot4_pipe has no port 'in_vlid'; did you mean 'in_valid'?" "$W/misspelled.dut" --workdir "$W/bad"
variant opname 's/^a   a order msb.*/a   a_bus order msb/'
expect 2 "key 'a': the top module dot4_pipe has no port 'a_bus'" "$W/opname.dut" --workdir "$W/bad"
variant section 's/^\[ports\]/[port]/'
expect 2 "opname" "$W/opname.dut" --workdir "$W/bad"   # (the previous file: a sanity check of expect)
expect 2 "section.dut:11: unknown section '[port]'" "$W/section.dut" --workdir "$W/bad"
variant key 's/^out_ready out_ready/out_rdy out_ready/'
expect 2 "key 'out_rdy': unknown key in [ports]" "$W/key.dut" --workdir "$W/bad"
variant unit 's/^match volta.*/match volta:mma.m8n8k4.f32.f16.f16.f31/'
expect 2 "key 'match': unknown instruction" "$W/unit.dut" --workdir "$W/bad"
variant source "s|^$PIPE/dot4_pipe.sv|nothere.sv|"
expect 2 "key 'files': file 'nothere.sv' not found" "$W/source.dut" --workdir "$W/bad"
variant noa '/^a   a/d'
expect 2 "key 'a': missing" "$W/noa.dut" --workdir "$W/bad"
variant dir 's/^in_ready  in_ready/in_ready  in_valid/'
expect 2 "key 'in_ready': port in_valid is an input of dot4_pipe" "$W/dir.dut" --workdir "$W/bad"
variant unmapped '/^tag /d'
expect 2 "key 'set': input in_tag of dot4_pipe is not in the description" "$W/unmapped.dut" --workdir "$W/bad"
variant slot 's/^match volta.*/match hopper:wgmma.m64n8k32.f32.e4m3.e4m3/'
expect 2 "key 'a': elements of 2 bits cannot hold e4m3 (8 bits; mode unit)" "$W/slot.dut" --workdir "$W/bad"
variant width 's/^match volta.*/match fused,a=fp16,k=3,f=23/'
expect 2 "key 'a': port a has 64 bits, not a multiple of K=3 (mode unit); give the bits per element with 'slot'" "$W/width.dut" --workdir "$W/bad"
variant flags 's/^d   d/d   d\nflags out_tag order nv of uf nx/'
expect 2 "key 'flags': the unit to match defines no exception flags" "$W/flags.dut" --workdir "$W/bad"
variant reset 's/^reset     rst_n low/reset rst_n sideways/'
expect 2 "key 'reset': active level 'sideways'" "$W/reset.dut" --workdir "$W/bad"
printf 'module broken_syntax (input logic clk\nendmodule\n' > "$W/syntax.sv"
sed -e "s|^dot4_pipe.sv|$W/syntax.sv|" -e 's/^top   dot4_pipe/top   broken_syntax/' "$PIPE/dot4_pipe.dut" > "$W/syntax.dut"
expect 2 "%Error: $W/syntax.sv:2" "$W/syntax.dut" --workdir "$W/bad"
expect 2 "cannot open" "$W/none.dut"
expect 2 "unknown option '--frobnicate'" "$W/misspelled.dut" --frobnicate
expect 2 "--shard needs i/n" "$W/misspelled.dut" --shard 3/3

# ---- the new keys, wrong (exit 2, file:line: key, one message) --------------
G4=$R/examples/gemm_row4
g4() { sed -e "s|^gemm_row4.sv|$G4/gemm_row4.sv|" -e "$2" "$G4/gemm_row4.dut" > "$W/$1.dut"; }
g4 delay 's/^a       a{k} skew 1 .*/a       a{k} delay 0 1 2/'
expect 2 "delay.dut:15: key 'a': delay names 3 elements but the unit has K=4" "$W/delay.dut" --workdir "$W/bad"
[ "$(grep -c 'delay names' "$W/out")" = 1 ] && ok || bad "the message of a wrong delay is printed $(grep -c 'delay names' "$W/out") times"
g4 early 's/^flags .*/flags   fflags{k} early 1 2/'
expect 2 "key 'flags': early names 2 ports but there are 4 flag ports" "$W/early.dut" --workdir "$W/bad"
g4 lat 's/^latency 4 .*/latency soon/'
expect 2 "key 'latency': takes the cycles from input to result, 0 to 4096, or auto" "$W/lat.dut" --workdir "$W/bad"
g4 vargs 's/^d       acc_out/d       acc_out\n[build]\nverilator-args --top-module x/'
expect 2 "key 'verilator-args': '--top-module' is the testbench's own option" "$W/vargs.dut" --workdir "$W/bad"
g4 alts 's/^match .*/mode x\nmatch 0:|1:b ieee,a=fp16,c=fp16,k=4,l=1/'
expect 2 "key 'match': alternative '0:' of mode port x: give value:word" "$W/alts.dut" --workdir "$W/bad"
g4 lanes 's/^match .*/match ieee,a=fp16,c=fp16,k=4,l=1\nlanes 2\nshape m 2 n 2/'
expect 2 "key 'lanes': a unit of lanes has no shape" "$W/lanes.dut" --workdir "$W/bad"

# ---- timing found: a wrong latency named, a latency measured; '1 fill literals --
B8=$R/examples/bf16_dot8
sed -e "s|^bf16_dot8.sv|$B8/bf16_dot8.sv|" -e "s/^set     en 1/set     en '1/" -e 's/^latency 2/latency 3/' "$B8/bf16_dot8.dut" > "$W/lat3.dut"
expect 1 "latency 3 is wrong: the unit answers after 2 cycles (3,600 of 3,600 vectors match at 2)" "$W/lat3.dut" --workdir "$W/lat3" --count 200 --random 2000
grep -q "^no triage: the timing below explains the mismatches" "$W/out" && ok || bad "a wrong latency was triaged"
expect 0 "latency measured: the unit answers after 2 cycles" "$W/lat3.dut" --workdir "$W/lat3" --count 200 --random 2000 --latency auto
expect 0 "3600 vectors, 0 mismatches" "$W/lat3.dut" --workdir "$W/lat3" --count 200 --random 2000 --latency 2
grep -q "^timing -1 " "$W/s4/run/plan" 2>/dev/null && bad "a matrix unit's plan has a timing watch" || ok
# a handshake unit one transaction late
expect 1 "the results are one transaction late: result i is vector i-1's (3,599 of 3,599 results match so)" "$R/tests/verify/late.dut" --workdir "$W/late" --no-fst

# ---- a unit whose own flow needs --timing: [build] verilator-args ------------
expect 0 "vectors, 0 mismatches" "$R/tests/verify/timing.dut" --workdir "$W/timing"
grep -v 'verilator-args' "$R/tests/verify/timing.dut" | sed -e "s|^\.\./\.\./examples/gemm_row4/gemm_row4.sv timing.sv|$G4/gemm_row4.sv $R/tests/verify/timing.sv|" > "$W/notiming.dut"
expect 2 "timing" "$W/notiming.dut" --workdir "$W/notiming"

# ---- matrix units: bad descriptions, the broken processing element, the probe ---
S4=$R/examples/systolic4
s4() { sed -e "s|^systolic4.sv|$S4/systolic4.sv|" -e "$2" "$S4/systolic4.dut" > "$W/$1.dut"; }
s4 shape 's/^shape m 4 n 4.*/shape m 4 n four/'
expect 2 "shape.dut:11: key 'shape': n 'four': give 1 to 64" "$W/shape.dut" --workdir "$W/bad"
s4 shapek 's/^shape m 4 n 4.*/shape m 4 n 4 k 8/'
expect 2 "key 'match': the unit has K=4 but the shape (line 11) k=8" "$W/shapek.dut" --workdir "$W/bad"
s4 beats 's/^b  b_row row beats 4.*/b  b_row row beats 2/'
expect 2 "key 'b': a, b and c come in together: give them the same beats (a 4, b 2, c 4)" "$W/beats.dut" --workdir "$W/bad"
s4 noshape '/^shape /d'
expect 2 "noshape.dut:19: key 'a': row, col and beats are for matrix units" "$W/noshape.dut" --workdir "$W/bad"
s4 dbeats 's/^d  d_row row beats 4.*/d  d_row row beats 3/'
expect 2 "key 'd': 3 beats do not divide the 4 x 4 elements (mode unit)" "$W/dbeats.dut" --workdir "$W/bad"
s4 aslot 's/^a  a_col col beats 4.*/a  a_col col beats 2/; s/^b  b_row row beats 4.*/b  b_row row beats 2/; s/^c  c_row row beats 4.*/c  c_row row beats 2/'
expect 2 "key 'a': elements of 4 bits cannot hold e4m3 (8 bits; mode unit)" "$W/aslot.dut" --workdir "$W/bad"
# one narrow processing element: only element (1,2) mismatches, the triage names it and its F
expect 1 "1 output element (1,2) behaves as f=16 instead of 24" "$S4/broken.dut" --workdir "$W/s4b" --count 300 --random 4000 --no-fst
[ "$(sort -u "$W/s4b/run/mismatches.unit.elems")" = 6 ] && ok || bad "systolic4 broken: mismatching elements $(sort -u "$W/s4b/run/mismatches.unit.elems" | tr '\n' ' '), wanted 6 only"
# its mismatching vectors pass through the right array (each one the diagonal of a tile)
expect 0 "vectors, 0 mismatches" "$S4/systolic4.dut" --workdir "$W/s4" --vec "$W/s4b/run/mismatches.unit.vec"
# the probe through the unit: the configuration the array was written to
"$M" probe "$S4/systolic4.dut" --workdir "$W/s4p" --count 300 > "$W/probe.out" 2>&1; rc=$?
[ $rc = 0 ] && grep -qx "config: fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=4,l=1,f=24,align=rz,round=rz,p=23,ezero=none,nan=canon,zero=pos" "$W/probe.out" \
    && ok || bad "probe systolic4.dut: exit $rc, $(grep '^config' "$W/probe.out")"
"$M" probe "$S4/broken.dut" --workdir "$W/s4bp" --count 300 > "$W/probe.out" 2>&1; rc=$?
[ $rc = 1 ] && ok || bad "probe broken.dut (no one configuration for the whole tile): exit $rc"

# ---- units that never answer: exit 1, class "no result", not a hang ----------
expect 1 "the unit gave no result for 2000 cycles" "$R/tests/verify/silent.dut" --workdir "$W/silent"
expect 1 "the unit took no input for 2000 cycles" "$R/tests/verify/never_ready.dut" --workdir "$W/never_ready"

# ---- two modes of different K on one bus, c and d NaN-boxed ------------------
expect 0 "bf16 constrained-random:" "$R/tests/verify/dual.dut" --workdir "$W/dual" --count 300 --random 20000

# ---- results out of order: matched by tag; in order they mismatch ------------
expect 0 "22400 vectors, 0 mismatches" "$R/tests/verify/swap.dut" --workdir "$W/swap" --count 300 --random 20000
grep -v '^tag ' "$R/tests/verify/swap.dut" | sed -e "s|^swap.sv|$R/tests/verify/swap.sv|" -e "s|^\.\./\.\./rtl/|$R/rtl/|; s| \.\./\.\./rtl/| $R/rtl/|g" > "$W/swap_notag.dut"
echo "set tag_i 0" >> "$W/swap_notag.dut"
expect 1 "other" "$W/swap_notag.dut" --workdir "$W/swap_notag" --count 300 --random 20000 --no-fst

# ---- shards: deterministic, and together the whole campaign -------------------
BRK=$PIPE/broken.dut
expect 1 "" "$BRK" --workdir "$W/brk" --count 500 --random 30000 --seed 7 --no-fst
whole=$(tail -1 "$W/out")
grep -v '^#' "$W/brk/run/mismatches.unit.vec" | sort > "$W/whole.sorted"
cp "$W/brk/run/results" "$W/whole.results"
for i in 0 1 2; do
    expect 1 "" "$BRK" --workdir "$W/brk" --count 500 --random 30000 --seed 7 --shard $i/3 --no-fst
done
cat "$W"/brk/run-*-of-3/mismatches.unit.vec | grep -v '^#' | sort > "$W/shards.sorted"
cmp -s "$W/whole.sorted" "$W/shards.sorted" && ok || bad "the shards' mismatching vectors are not the whole run's"
"$M" verify --merge "$W"/brk/run-0-of-3/results "$W"/brk/run-1-of-3/results "$W"/brk/run-2-of-3/results > "$W/merge.out"
[ $? = 1 ] && [ "$(tail -1 "$W/merge.out")" = "$whole" ] && ok || bad "merge of 3 shards: '$(tail -1 "$W/merge.out")', the whole: '$whole'"
grep '^item' "$W/whole.results" > "$W/a"
"$M" verify "$BRK" --workdir "$W/brk" --count 500 --random 30000 --seed 7 --no-fst > /dev/null 2>&1
grep '^item' "$W/brk/run/results" > "$W/b"
cmp -s "$W/a" "$W/b" && ok || bad "the same campaign twice gave different results"
expect 2 "not a results file" --merge "$W/a"
expect 1 "$whole" --merge "$W/brk"
# the make -j fallback of docs/verify.md: the same shards through shards.mk
make --no-print-directory -s -f "$R/verify/shards.mk" DUT="$BRK" N=3 -j3 MMAREF="$M" WORKDIR="$W/brk-make" \
    ARGS="--count 500 --random 30000 --seed 7 --no-fst" > "$W/make.out" 2>&1
[ "$(grep -E '^[0-9]+ vectors, [0-9]+ mismatches$' "$W/make.out" | tail -1)" = "$whole" ] && ok || bad "shards.mk: $(tail -3 "$W/make.out")"

# ---- replays: the mismatch file fails the broken unit, passes the fixed one ---
F=$W/brk/run/first_mismatch.vec
"$M" check "$F" > "$W/check.out"; [ $? = 1 ] && grep -q "1 vectors, 1 mismatches" "$W/check.out" && ok || bad "mmaref check of the first mismatch"
expect 1 "1 vectors, 1 mismatches" "$BRK" --workdir "$W/brk" --vec "$F" --no-fst
expect 0 "vectors, 0 mismatches" "$PIPE/dot4_pipe.dut" --workdir "$W/pipe" --vec "$W/brk/run/mismatches.unit.vec"
expect 2 "is none of the units" "$PIPE/dot4_pipe.dut" --workdir "$W/pipe" --vec "$R/vectors/hw/h100/wgmma.m64n8k32.f32.e4m3.e4m3.specials.vec.xz"

# ---- the time limit ---------------------------------------------------------------
expect 1 "stopped by the time limit (1 s)" "$PIPE/dot4_pipe.dut" --workdir "$W/pipe" --count 0 --random 1000000000 --timeout 1

# ---- docs/verify.md: its sample output is what the examples print --------------
"$M" verify "$PIPE/dot4_pipe.dut" --workdir "$W/pipe" > "$W/doc.out" 2>&1
awk '/^`mmaref verify` elaborates/ { f = 1 } f && /^```$/ { g = !g; if (!g) exit; next } g && !/^\.\.\.$/' "$R/docs/verify.md" > "$W/doc.sample"
[ -s "$W/doc.sample" ] && grep -vxFf "$W/doc.out" "$W/doc.sample" > "$W/doc.missing"
[ -s "$W/doc.sample" ] && [ ! -s "$W/doc.missing" ] && ok || bad "docs/verify.md's sample output is not what dot4_pipe.dut prints: $(cat "$W/doc.missing")"
"$M" verify "$BRK" --workdir "$W/brk" --no-fst > "$W/doc.out" 2>&1
line=$(grep '^mismatches by class:' "$R/docs/verify.md")
grep -qxF "$line" "$W/doc.out" && ok || bad "docs/verify.md: '$line', broken.dut prints '$(grep '^mismatches by class:' "$W/doc.out")'"
n=$(grep -cv '^[[:space:]]*\(#.*\)\{0,1\}$' "$R/tb/mma_dpa_qgmma.dut")
grep -qF "(\`tb/mma_dpa_qgmma.dut\`, $n lines)" "$R/docs/verify.md" && ok || bad "docs/verify.md: tb/mma_dpa_qgmma.dut has $n lines"

# ---- the build's status line: on a terminal (script(1) gives one), not in a pipe --
if command -v script > /dev/null; then
    rm -rf "$W/status"
    MMAREF_CACHE=off script -qec "'$M' verify '$PIPE/dot4_pipe.dut' --workdir '$W/status' --count 10" "$W/status.tty" > /dev/null 2>&1
    tr '\r' '\n' < "$W/status.tty" | grep -aq "^mmaref verify: building the testbench of dot4_pipe.dut (Verilator [0-9.]*, -j [0-9]*): [0-9]*s" \
        && ok || bad "no build status line on a terminal: $(tail -3 "$W/status.tty")"
    rm -rf "$W/status"
    MMAREF_CACHE=off "$M" verify "$PIPE/dot4_pipe.dut" --workdir "$W/status" --count 10 > "$W/status.pipe" 2>&1
    ! grep -aq "building the testbench" "$W/status.pipe" && ok || bad "a build status line in a pipe"
else
    echo "verify tests: script(1) not here: the status line not checked"
fi

echo "verify tests: $pass passed, $fail failed"
[ $fail = 0 ]
