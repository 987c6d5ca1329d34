#!/bin/sh
# The bad-input contract, one table row a case (tests/bad_inputs.tsv): each
# command of mmaref run on a bad argument, option or file must exit with the
# status the row names, print a message holding the row's text (which names
# the argument, or the file, line and field), and leave the folder it runs
# in exactly as it was: no file created, none changed.
#
# Row: <exit status> TAB <text the message must hold> TAB <argument> TAB ...
# In the arguments, @NAME stands for the fixture file NAME (made below in
# the scratch folder), @EMPTY for an empty argument; in the text, @T for
# the scratch folder.  Lines starting with # and empty lines are skipped.
#
# usage: tests/bad_input_test.sh path/to/mmaref [tests/bad_inputs.tsv]
set -u
M=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TABLE=${2:-$(dirname "$0")/bad_inputs.tsv}
TABLE=$(cd "$(dirname "$TABLE")" && pwd)/$(basename "$TABLE")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
TAB=$(printf '\t')
Q=hopper:wgmma.m64n8k32.f32.e4m3.e4m3

# ---- fixtures ---------------------------------------------------------------
cd "$T" || exit 2
"$M" gen $Q --suite compliance --count 40 --seed 1 -o good.vec || exit 2
"$M" gen $Q --suite compliance --count 40 --seed 1 -o good.vec.xz || exit 2
"$M" gen "ieee,a=fp16,c=fp32,d=fp32,k=2,l=1" --suite ieee-nan --count 20 --seed 1 -o flags.vec || exit 2
hdr() { sed -n '1,5p' good.vec; }
body() { grep -v '^#' good.vec; }
sed 's/^# mmavec 1$/# mmavec 7/' good.vec > v7.vec
sed 's/^# k: 32$/# k: abc/' good.vec > kabc.vec
sed 's/^# k: 32$/# k: 16/' good.vec > k16.vec
sed 's/^# k: 32$/# k: -3/' good.vec > kneg.vec
sed 's/^# instr: .*/# instr: hopper:wgmma.m64n8k32.f32.e4m3.e4m2/' good.vec > badinstr.vec
sed 's/^# instr: .*/# instr: fused,a=e4m3,k=32/' good.vec > nof.vec
sed 's/^# arch: hopper/# arch: ampere/' good.vec > arch.vec
sed '/^# instr:/d' good.vec | sed '/^# arch:/d' > noinstr.vec
sed 's/^# fields: .*/# fields: c a[0..31] b[0..31] x/' good.vec > fields.vec
grep -v '^# mmavec' good.vec | grep -v '^# instr' > nomagic.vec
hdr > hdronly.vec
: > empty.vec
printf 'hello world\n' > text.vec
# line 12 (the 3rd vector after 9 header lines): one field changed
awk 'NR == 12 { $2 = "zz" } { print }' good.vec > hexbad.vec
awk 'NR == 12 { $2 = "123" } { print }' good.vec > wide.vec
awk 'NR == 12 { $2 = "1" } { print }' good.vec > narrow.vec
awk 'NR == 12 { NF = NF - 1 } { print }' good.vec > short.vec
awk 'NR == 12 { $0 = $0 " 00" } { print }' good.vec > long.vec
awk 'NR == 12 { $1 = "-0000001" } { print }' good.vec > neg.vec
awk '!/^#/ { NF = NF - 1 } { print }' good.vec | sed 's/ d$//' > nod.vec
awk 'NR == 12 { $0 = $0 "\001" } { print }' good.vec > ctrl.vec
head -c 300 good.vec.xz > cut.vec.xz
printf 'not xz at all\n' > fake.vec.xz
printf 'not gzip\n' > fake.vec.gz
printf 'not zstd\n' > fake.vec.zst
mkdir adir
mkfile() { printf '%s\n' "$2" > "$1"; }
# .dut fixtures (option errors come before any build)
printf '[files]\nnone.sv\n[unit]\ntop x\nmatch %s\n[ports]\nclock clk\n' $Q > unit.dut
LONG=$(awk 'BEGIN { s = "fused,a=e4m3,k=32,f=13"; while (length(s) < 600) s = s ",zero=pos"; print s }')
printf '%s\n' "$LONG" > longcfg.txt

# ---- the cases --------------------------------------------------------------
snapshot() { find . -type f -o -type d -o -type l -o -type p | LC_ALL=C sort | while read -r f; do
    if [ -f "$f" ]; then printf '%s %s\n' "$f" "$(cksum < "$f")"; else printf '%s\n' "$f"; fi; done; }
BEFORE=$(snapshot)
pass=0; fail=0; n=0
while IFS= read -r row || [ -n "$row" ]; do
    case $row in ''|'#'*) continue ;; esac
    n=$((n + 1))
    want=${row%%"$TAB"*}; rest=${row#*"$TAB"}
    text=${rest%%"$TAB"*}; args=${rest#*"$TAB"}
    [ "$args" = "$rest" ] && args=""
    text=$(printf '%s' "$text" | sed "s|@T|$T|g")
    # the arguments: split at tabs only, no globbing
    set -f
    oldifs=$IFS; IFS=$TAB
    # shellcheck disable=SC2086
    set -- $args
    IFS=$oldifs
    set +f
    i=0; for a in "$@"; do
        i=$((i + 1))
        case $a in
            @EMPTY) a="" ;;
            @LONGCFG) a=$LONG ;;
            @*) a=$T/${a#@} ;;
        esac
        set -- "$@" "$a"
    done
    shift $i
    "$M" "$@" > "$T/.out" 2> "$T/.err" < /dev/null; rc=$?
    msg=$(cat "$T/.err" "$T/.out")
    rm -f "$T/.out" "$T/.err"
    AFTER=$(snapshot)
    what="mmaref $* "
    if [ "$rc" != "$want" ]; then
        fail=$((fail + 1)); echo "FAIL [$n]: ${what}-> exit $rc, wanted $want: $(printf '%s' "$msg" | head -c 300)"
    elif [ -n "$text" ] && ! printf '%s' "$msg" | grep -qF -- "$text"; then
        fail=$((fail + 1)); echo "FAIL [$n]: ${what}-> message lacks '$text': $(printf '%s' "$msg" | head -c 300)"
    elif [ "$rc" -ge 128 ] || printf '%s' "$msg" | grep -q 'Sanitizer\|runtime error'; then
        fail=$((fail + 1)); echo "FAIL [$n]: ${what}-> crashed: $(printf '%s' "$msg" | head -c 300)"
    elif [ "$AFTER" != "$BEFORE" ]; then
        fail=$((fail + 1)); echo "FAIL [$n]: ${what}-> the folder changed:"
        printf '%s\n' "$BEFORE" > "$T/.b"; printf '%s\n' "$AFTER" > "$T/.a"; diff "$T/.b" "$T/.a" | head -5
        rm -f "$T/.a" "$T/.b"
        BEFORE=$(snapshot)             # the next case starts from what is there now
    else
        pass=$((pass + 1))
        continue
    fi
    BEFORE=$(snapshot)                 # (a failed case may have left files)
done < "$TABLE"
echo "bad-input table: $n cases, $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$n" -ge 300 ]
