#!/bin/sh
# make test-verify-strength: mmaref verify --coverage and --mutants on
# tests/verify/dual.dut (two of rtl/'s fused units behind a mode input,
# Verilog that Debian's Yosys 0.23 reads), small campaigns.
#   coverage: the per-suite and total lines, the LCOV file of the unit's
#   sources only (not the generated testbench), the least covered lines;
#   mutants: 20 mutants of seed 1 (Yosys 0.23's mutate -list sampling), the
#   score and one known kill and one known survivor; the survivors' checks
#   (ABC, then Yosys) sound and, where ABC runs, complete, and the vectors
#   of ABC's runs killing what it labels live;
#   augment: a survivor of the compliance suite killed by a searched
#   vector, the minimized suite re-run as plain vector files killing what
#   it claims, bad --augment arguments.
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
[ "$last" = "20 mutants, 9 killed, 11 survived, 0 equivalent" ] && ok || bad "last line '$last'"
# mutant 15 (the alignment's or-reduction of the bits shifted out, held at
# 1) survives the campaign, named by the line of the mutated cell, not by
# dual.sv's instance line; mutant 4 is killed by a mismatch
grep -q '^mutant 15 survived (unchecked): mma_align.sv:45: assign lost = ' "$W/mut.log" && ok || bad "mutant 15 did not survive"
grep -q '^4 killed ' "$W/mut/mutants/outcomes" && ok || bad "mutant 4 was not killed"

# the survivors' checks are sound: a campaign of one compliance vector a
# mode leaves most mutants alive for Yosys to label; not one that the
# campaign above kills may be labelled equivalent (or equivalent with the
# ready input held high), and the labels add up
"$M" verify $DUT --mutants 20 --equiv-seconds 300 --jobs 2 --suites compliance --count 1 --random 0 --no-fst \
    --workdir "$W/eq" --augment "$W/eq.vec" --augment-budget 1 > "$W/eq.log" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q '^20 mutants, [0-9]* killed, [1-9][0-9]* survived' "$W/eq.log" && ok \
    || bad "--mutants with the checks: exit $rc, or no survivor ($W/eq.log)"
unsound=
for i in $(sed -n 's/^\([0-9]*\) killed .*/\1/p' "$W/mut/mutants/outcomes"); do
    grep -q "^$i survived equivalent" "$W/eq/mutants/outcomes" && unsound="$unsound $i"
done
[ -z "$unsound" ] && ok || bad "mutants killed by the campaign yet labelled equivalent:$unsound ($W/eq.log)"
# and complete where ABC runs (yosys-abc, in Debian's yosys package): each
# of them that survives the one-vector campaign is refuted, labelled live
if command -v yosys-abc > /dev/null; then
    missed=
    for i in $(sed -n 's/^\([0-9]*\) killed .*/\1/p' "$W/mut/mutants/outcomes"); do
        grep -q "^$i survived" "$W/eq/mutants/outcomes" && ! grep -q "^$i survived live" "$W/eq/mutants/outcomes" && missed="$missed $i"
    done
    [ -z "$missed" ] && grep -q '^checking the [0-9]* survivors for equivalence (yosys-abc then ' "$W/eq.log" && ok \
        || bad "mutants killed by the campaign not refuted by ABC:$missed ($W/eq.log)"
    # --augment (a search budget of one vector) tries ABC's runs first:
    # they kill every survivor labelled live
    unkilled=
    for i in $(sed -n 's/^\([0-9]*\) survived live .*/\1/p' "$W/eq/mutants/outcomes"); do
        grep -q "^augment: mutant $i killed by a new vector (.*, from ABC's run)" "$W/eq.log" || unkilled="$unkilled $i"
    done
    grep -q "^augment: [1-9][0-9]* vectors from ABC's runs that refute [1-9][0-9]* survivors, tried first" "$W/eq.log" && [ -z "$unkilled" ] && ok \
        || bad "survivors labelled live not killed by the vectors of ABC's runs:$unkilled ($W/eq.log)"
fi
# the checks compare the outputs the description names alone: dual's cov
# is left out of every pair they prove or refute (a mutation seen only
# there no campaign can kill), and mutant 9 (dual.sv's cov held at 1)
# is proven equivalent
grep -q '^mutant 9 survived (equivalent): dual.sv:[0-9]*: assign cov = ' "$W/eq.log" && ok \
    || bad "mutant 9, on cov alone, not proven equivalent ($W/eq.log)"
# (the pairs of this run's survivors: the scratch directory may hold an
# earlier run's)
pairs=$(sed -n 's|^\([0-9]*\) survived .*|'"$W"'/eq/mutants/m\1/pair.v|p' "$W/eq/mutants/outcomes")
[ -n "$pairs" ] && ! grep -l 'output \[31:0\] cov' $pairs && ok \
    || bad "a pair of the checks compares cov, an output dual.dut leaves out ($W/eq/mutants)"
# and hold the inputs it sets where the testbench holds them (en at 1)
[ -n "$pairs" ] && [ "$(grep -l "\.en(1'h1)" $pairs | wc -l)" = "$(echo $pairs | wc -w)" ] && ok \
    || bad "a pair of the checks leaves en free, which dual.dut sets to 1 ($W/eq/mutants)"
# the checks announce themselves; their count of finished checks is for a terminal only
grep -q '^checking the [0-9]* survivors for equivalence (' "$W/eq.log" && ! grep -q 'checked [0-9]* of' "$W/eq.log" && ok \
    || bad "no announcement of the checks, or a terminal's count in a pipe ($W/eq.log)"
labels=$(sed -n 's/^survivors: \([0-9]*\) equivalent, \([0-9]*\) equivalent while .*, \([0-9]*\) live, \([0-9]*\) undecided, \([0-9]*\) unchecked$/\1 \2 \3 \4 \5/p' "$W/eq.log")
surv=$(sed -n 's/^20 mutants, [0-9]* killed, \([0-9]*\) survived, \([0-9]*\) equivalent$/\1 \2/p' "$W/eq.log")
set -- $labels $surv
[ $# = 7 ] && [ "$1" = "$7" ] && [ $(($2 + $3 + $4 + $5)) = "$6" ] && [ "$1" -ge 1 ] && ok \
    || bad "survivor labels '$labels' against the score '$surv' (at least one proven equivalent expected)"

# --augment: the compliance suite (1 vector a mode) leaves survivors; the
# search kills mutant 6 (a bit of the exponent of c's unpacking in the
# e4m3 unit) with a vector of its own; the minimized suite, re-run by mmaref verify as a plain
# vector file, kills what the run said it would
"$M" verify $DUT --mutants 20 --equiv-seconds 0 --suites compliance --count 1 --random 0 --no-fst --workdir "$W/aug" \
    --augment "$W/min.vec.gz" --augment-budget 5000 > "$W/aug.log" 2>&1
rc=$?
[ $rc = 1 ] && ok || bad "--augment exit $rc, not 1 ($W/aug.log)"
grep -q '^mutant 6 survived' "$W/aug.log" && grep -q '^augment: mutant 6 killed by a new vector' "$W/aug.log" && ok \
    || bad "mutant 6 did not survive the compliance suite and die by a searched vector ($W/aug.log)"
last=$(tail -1 "$W/aug.log")
echo "$last" | grep -q '^augment: [0-9]* survivors searched, [1-9][0-9]* killed by new vectors, minimized suite [1-9][0-9]* vectors (full suite 2)$' \
    && ok || bad "augment's last line '$last'"
# the campaign's kills plus the search's, the cover's claim, the re-run's
kc=$(sed -n 's/^20 mutants, \([0-9]*\) killed, .*/\1/p' "$W/aug.log")
ks=$(echo "$last" | sed -n 's/.*searched, \([0-9]*\) killed by new.*/\1/p')
claim=$(sed -n 's/^augment: the minimized suite kills \([0-9]*\) of the 20 mutants (the cover claims \([0-9]*\)).*/\1 \2/p' "$W/aug.log")
[ -n "$kc" ] && [ "$claim" = "$((kc + ks)) $((kc + ks))" ] && ok || bad "the minimized suite kills '$claim', the campaign $kc and the search $ks"
[ -s "$W/min.e4m3.vec.gz" ] && [ -s "$W/min.bf16.vec.gz" ] && gzip -t "$W/min.e4m3.vec.gz" && ok || bad "no minimized suite per mode"
"$M" verify $DUT --mutants 20 --equiv-seconds 0 --vec "$W/min.e4m3.vec.gz" --vec "$W/min.bf16.vec.gz" --no-fst \
    --workdir "$W/re" > "$W/re.log" 2>&1
[ "$(tail -1 "$W/re.log")" = "20 mutants, $((kc + ks)) killed, $((20 - kc - ks)) survived, 0 equivalent" ] && ok \
    || bad "the minimized suite re-run: '$(tail -1 "$W/re.log")', not $((kc + ks)) killed"
grep -q '^6 killed ' "$W/re/mutants/outcomes" && ok || bad "the minimized suite does not kill mutant 6"
# bad input: named, exit 2, no file
"$M" verify $DUT --mutants 20 --augment "$W/nodir/x.vec" --no-fst --workdir "$W/aug" > "$W/bad1.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "cannot write $W/nodir/x.e4m3.vec" "$W/bad1.log" && ok || bad "an unwritable --augment: exit $rc ($W/bad1.log)"
"$M" verify $DUT --mutants 20 --augment "$W/x.vec.bz2" --no-fst --workdir "$W/aug" > "$W/bad2.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'x.e4m3.vec.bz2: unknown compression' "$W/bad2.log" && ! ls "$W" | grep -q bz2 && ok || bad "--augment x.vec.bz2: exit $rc ($W/bad2.log)"
"$M" verify $DUT --augment "$W/y.vec" --no-fst --workdir "$W/aug" > "$W/bad3.log" 2>&1
rc=$?
[ $rc = 2 ] && grep -q -- '--augment needs --mutants' "$W/bad3.log" && ! ls "$W" | grep -q '^y\.' && ok || bad "--augment without --mutants: exit $rc ($W/bad3.log)"
echo "test-verify-strength: $pass passed, $fail failed"
[ $fail = 0 ]
