#!/bin/sh
# run.sh: the testbench runs of mk/rtl.mk (docs/rtl.md).
#   run.sh random RTL_B N SEED tag=instr ...        constrained-random (mix)
#   run.sh suites RTL_B MMAREF COUNT SEED "S1 S2" tag=instr ...
#                                                    `mmaref gen` suites as vector files
#   run.sh sc     RTL_B N SEED tag=instr ...        the SystemC testbench
# Each run prints its "<N> vectors, <M> mismatches" line; exit status 1 when
# any run mismatches or fails.
what=$1; rtlb=$2; shift 2
fail=0
case $what in
random)
    n=$1; seed=$2; shift 2
    for pair in "$@"; do
        tag=${pair%%=*}; instr=${pair#*=}
        log=$rtlb/$tag/random.log
        printf '== %-12s %8s random vectors (mix, seed %s): ' "$tag" "$n" "$seed"
        "$rtlb/$tag/Vtb_top" +instr="$instr" +n="$n" +seed="$seed" +mode=mix > "$log" 2>&1
        rc=$?
        grep -E "vectors, .* mismatches" "$log" | head -1 | tr -d '\n'
        printf ' (%s)\n' "$(sed -n 's/^tb_main: .*CPU [0-9.]* s: \([0-9]*\) vectors\/s.*/\1 vectors\/s CPU/p' "$log")"
        grep -E "^coverage:" "$log"
        if [ $rc -ne 0 ]; then grep -E "^  vector|dut d=|tb_top:|Error" "$log" | head -8; echo "FAIL: $tag random ($log)"; fail=1; fi
    done ;;
suites)
    mmaref=$1; count=$2; seed=$3; suites=$4; shift 4
    mkdir -p "$rtlb/suites"
    for pair in "$@"; do
        tag=${pair%%=*}; instr=${pair#*=}
        for s in $suites; do
            f=$rtlb/suites/$tag-$s-$count-$seed.vec
            if [ ! -s "$f" ]; then
                "$mmaref" gen "$instr" --suite "$s" --count "$count" --seed "$seed" -o "$f" || { echo "FAIL: mmaref gen $instr --suite $s"; fail=1; continue; }
            fi
            log=$rtlb/$tag/suite-$s.log
            "$rtlb/$tag/Vtb_top" +vec="$f" +quiet > "$log" 2>&1
            rc=$?
            printf '== %-12s suite %-11s ' "$tag" "$s"
            grep -E "vectors, .* mismatches" "$log" | head -1
            if [ $rc -ne 0 ]; then grep -E "^  vector|dut d=|tb_top:|Error" "$log" | head -8; echo "FAIL: $tag suite $s ($log)"; fail=1; fi
        done
    done ;;
sc)
    export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
    n=$1; seed=$2; shift 2
    for pair in "$@"; do
        tag=${pair%%=*}; instr=${pair#*=}
        log=$rtlb/sc_$tag/run.log
        printf '== SystemC %-12s %8s random vectors (mix, seed %s): ' "$tag" "$n" "$seed"
        "$rtlb/sc_$tag/Vsc" "$instr" "$n" "$seed" mix > "$log" 2>&1
        rc=$?
        grep -E "vectors, .* mismatches" "$log" | head -1
        grep -E "^coverage:" "$log"
        if [ $rc -ne 0 ]; then grep -E "^  vector|dut d=|tb_sc:|Error" "$log" | head -8; echo "FAIL: SystemC $tag ($log)"; fail=1; fi
    done ;;
*)
    echo "usage: run.sh random|suites|sc ..." >&2; exit 2 ;;
esac
exit $fail
