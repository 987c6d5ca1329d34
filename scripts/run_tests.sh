#!/bin/sh
# make test: every test target, in two lanes that run side by side (a
# 2-core machine: most tests use one core, and the lanes share nothing they
# build), each target timed; a table of the times at the end, slowest first;
# exit status 0 only when every target passed.  A failing target does not
# stop the others (one run reports every failure).
#
# usage: scripts/run_tests.sh "<lane 1 targets>" "<lane 2 targets>"
#        MMAREF_TEST_LANES=1: one lane (the targets in order, one at a time)
# The targets each lane builds must not write what the other builds: the
# Makefile builds what they share first (make test-prereqs).
set -u
MAKE=${MAKE:-make}
L1=$1
L2=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'kill 0' INT TERM
if [ "${MMAREF_TEST_LANES:-2}" = 1 ]; then L1="$L1 $L2"; L2=""; fi

hms() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

# lane <name> <targets...>: each target's output to the lane's log, prefixed
lane() {
    name=$1; shift
    for t in "$@"; do
        s=$(date +%s)
        echo "==== make $t (lane $name)"
        if $MAKE --no-print-directory "$t" > "$T/$t.log" 2>&1; then r=ok; else r=FAILED; fi
        e=$(($(date +%s) - s))
        # the target's own output, whole for a failure, its last lines otherwise
        if [ $r = ok ]; then tail -3 "$T/$t.log"; else cat "$T/$t.log"; fi | sed "s/^/[$t] /"
        echo "==== make $t: $r, $(hms $e)"
        printf '%s %s %s\n' "$e" "$t" "$r" >> "$T/times"
    done
}

start=$(date +%s)
lane 1 $L1 > "$T/lane1.out" 2>&1 &
p1=$!
p2=
if [ -n "$L2" ]; then lane 2 $L2 > "$T/lane2.out" 2>&1 & p2=$!; fi
# the lanes' progress as it comes (whole lines)
tail -q -n +1 -f "$T/lane1.out" ${p2:+"$T/lane2.out"} 2> /dev/null &
tp=$!
wait $p1
[ -n "$p2" ] && wait $p2
sleep 1
kill $tp 2> /dev/null
wait $tp 2> /dev/null
total=$(($(date +%s) - start))
echo
echo "==== make test: the targets' wall times (two lanes side by side), slowest first"
sort -rn "$T/times" | while read -r e t r; do printf '  %-26s %12s  %s\n' "$t" "$(hms "$e")" "$r"; done
nfail=$(grep -c ' FAILED$' "$T/times")
echo "==== make test: $(hms $total) in all; $(wc -l < "$T/times") targets, $nfail failed"
[ "$nfail" = 0 ]
