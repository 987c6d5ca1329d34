#!/bin/sh
# Runs every example description (*/*.dut) through mmaref verify and checks
# the answer its '# expect:' line gives: the exit status and, for a broken
# variant, the one class its mismatches must all fall in, and after
# '; triage:' a line the triage must print; an '# args:' line gives
# options of mmaref verify (--no-fst: no waveform of the first mismatch is
# asked for).
# usage: sh check.sh [mmaref] [work directory]     (from any directory)
M=${1:-mmaref}
here=$(cd "$(dirname "$0")" && pwd)
W=${2:-$(mktemp -d)}
mkdir -p "$W"
fail=0
for dut in "$here"/*/*.dut; do
    name=$(basename "$(dirname "$dut")")/$(basename "$dut" .dut)
    expect=$(sed -n 's/^# expect: *//p' "$dut" | head -1)
    [ -n "$expect" ] || { echo "FAIL: $name has no '# expect:' line"; fail=1; continue; }
    want=$(echo "$expect" | sed -n 's/^exit \([0-9]\).*/\1/p')
    cls=$(echo "$expect" | sed -n 's/^exit [0-9], *//p' | sed 's/;.*//')
    diag=$(echo "$expect" | sed -n 's/^[^;]*; *triage: *//p')
    log=$W/$(echo "$name" | tr / -).log
    args=$(sed -n 's/^# args: *//p' "$dut" | head -1)
    "$M" verify "$dut" --workdir "$W/$(echo "$name" | tr / -)" $args > "$log" 2>&1
    rc=$?
    lines=$(grep -cv '^[[:space:]]*\(#.*\)\{0,1\}$' "$dut")
    printf '== %-22s (%2d lines) %s  [exit %s]\n' "$name" "$lines" "$(tail -1 "$log")" "$rc"
    if [ "$rc" != "$want" ]; then
        tail -15 "$log"; echo "FAIL: $name exited $rc, expected $want"; fail=1; continue
    fi
    if [ -n "$cls" ]; then
        by=$(grep '^mismatches by class:' "$log")
        echo "   $by"
        # the named class has mismatches and every other class none
        echo "$by" | sed 's/^mismatches by class: *//' | tr ',' '\n' | awk -v want="$cls" '
            { sub(/^ +/, ""); n = $NF; $NF = ""; sub(/ +$/, ""); if ($0 == want) hit = n; else other += n }
            END { exit !(hit > 0 && other == 0) }' || { echo "FAIL: $name: mismatches not all '$cls'"; fail=1; }
        case " $args " in *" --no-fst "*) ;; *)
        grep -q '^waveform of the first mismatch' "$log" || { echo "FAIL: $name: no waveform of the first mismatch"; fail=1; } ;;
        esac
        if [ -n "$diag" ]; then
            # the triage names what the unit does instead
            grep -F -- "$diag" "$log" | sed 's/^ */   /' | grep . || { echo "FAIL: $name: the triage does not say '$diag'"; fail=1; }
        fi
    fi
done
[ $fail = 0 ] && echo "examples: every description gave its expected answer"
exit $fail
