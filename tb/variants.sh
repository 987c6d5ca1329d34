#!/bin/sh
# variants.sh MMAREF WORKDIR COUNT RANDOM SEED [broken:]file.dut ...
# The structural variants of the RTL (docs/rtl.md: carry-save sums,
# register cuts, block-scaled units) through `mmaref verify`: COUNT vectors
# of each suite of `mmaref gen` and RANDOM constrained-random vectors each.
# A description must match the model on every vector; one marked with a
# leading 'broken:' (a deliberately broken variant) must show mismatches (exit
# status 1 and a nonzero count), or the run fails; it runs a tenth of the
# vectors (the triage of its mismatches takes longer than the simulation).
mmaref=$1; work=$2; count=$3; random=$4; seed=$5; shift 5
mkdir -p "$work"
fail=0
for arg in "$@"; do
    dut=${arg#broken:}
    name=$(basename "$dut" .dut)
    log=$work/$name.log
    t0=$(date +%s)
    c=$count r=$random
    [ "$dut" = "$arg" ] || { c=$((count / 10)); r=$((random / 10)); }
    "$mmaref" verify "$dut" --workdir "$work/$name" --count "$c" --random "$r" --seed "$seed" --no-fst \
        > "$log" 2>&1
    rc=$?
    last="$(tail -1 "$log") ($(($(date +%s) - t0)) s)"
    if [ "$dut" = "$arg" ]; then
        printf '== %-20s %s\n' "$name" "$last"
        if [ $rc -ne 0 ]; then tail -25 "$log"; echo "FAIL: $name ($log)"; fail=1; fi
    else
        n=$(tail -1 "$log" | sed -n 's/^[0-9]* vectors, \([0-9]*\) mismatches$/\1/p')
        printf '== %-20s %s (broken: mismatches expected)\n' "$name" "$last"
        grep -E '^mismatches by class:|^first mismatch:' "$log" | sed 's/^/   /'
        if [ $rc -ne 1 ] || [ -z "$n" ] || [ "$n" -eq 0 ]; then
            tail -25 "$log"; echo "FAIL: $name: the broken variant was not caught (exit $rc)"; fail=1
        fi
    fi
done
exit $fail
