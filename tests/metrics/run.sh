#!/bin/sh
# Command-level checks of `mmaref metrics` and `mmaref gemm` (make test-metrics).
# Every check compares numbers the tool computes and could fail.
# usage: tests/metrics/run.sh [path/to/mmaref]
M=${1:-build/mmaref}
T=${TMPDIR:-/tmp}/mmaref-test-metrics.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# The helpers use sed and awk only (no python on a fresh Debian).
# unq FILE: the CSV with every quoted field (configuration strings) made "Q"
unq() { sed 's/"[^"]*"/Q/g' "$1"; }
# col FILE ROW COLUMN: a field of a CSV file by header name (ROW 1 = first data row)
col() { unq "$1" | awk -F, -v r="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == r + 1 { print $k }'; }
# same_stats A ROWA B ROWB: the two CSV rows agree in every column but unit, config, mode
same_stats() {
    a=$(unq "$1" | awk -F, -v r="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i } NR == r + 1 { for (i = 1; i <= NF; i++) if (h[i] != "unit" && h[i] != "config" && h[i] != "mode") printf "%s=%s ", h[i], $i }')
    b=$(unq "$3" | awk -F, -v r="$4" 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i } NR == r + 1 { for (i = 1; i <= NF; i++) if (h[i] != "unit" && h[i] != "config" && h[i] != "mode") printf "%s=%s ", h[i], $i }')
    [ -n "$a" ] && [ "$a" = "$b" ]
}
# lt A B: A < B as numbers
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# jfirst FILE: first_change of the first unit of a --ntrun --json output
jfirst() { sed -n 's/.*"first_change":\(-*[0-9]*\).*/\1/p' "$1" | head -1; }
# jfield FILE KEY: the first numeric value of "KEY": in a JSON output
jfield() { tr ',{' '\n\n' < "$1" | sed -n "s/^\"$2\":\(.*\)/\1/p" | head -1; }

HOP=hopper:wgmma.m64n8k32.f32.e4m3.e4m3
BW=blackwell:tcgen05.mma.m128n8k32.kind::f8f6f4.f32.e4m3.e4m3
EX=exact,a=e4m3,b=e4m3,k=32

# 1. the correctly rounded unit: never more than half an ulp, always RNE(exact)
$M metrics $EX --dist normal --count 20000 --seed 3 --csv > "$T/ex.csv" || fail "metrics runs"
$M metrics $EX --dist bits --count 20000 --seed 3 --csv > "$T/exb.csv" || fail "metrics runs (bits)"
if [ "$(col "$T/ex.csv" 1 not_cr)" = 0 ] && [ "$(col "$T/exb.csv" 1 not_cr)" = 0 ] &&
   ! lt 0.5 "$(col "$T/ex.csv" 1 max_ulp)" && ! lt 0.5 "$(col "$T/exb.csv" 1 max_ulp)"; then
    pass "exact-rounded unit: not_cr = 0 and max error <= 0.5 ulp (normal, bits)"
else fail "exact-rounded unit: not_cr $(col "$T/ex.csv" 1 not_cr), max_ulp $(col "$T/ex.csv" 1 max_ulp)"; fi

# 2. bits: specials are counted, not in the statistics; n + special = count
n=$(col "$T/exb.csv" 1 n); s=$(col "$T/exb.csv" 1 special); d=$(col "$T/exb.csv" 1 sp_diff)
if [ $((n + s)) -eq 20000 ] && [ "$s" -gt 0 ] && [ "$d" -eq 0 ]; then pass "bits: $s specials counted apart, none mismatching"
else fail "bits: n=$n special=$s sp_diff=$d"; fi

# 3. accumulator width: more fraction bits, less error, strictly, F = 13 16 20 25
F="fused,a=e4m3,b=e4m3,k=32"
$M metrics $F,f=13 $F,f=16 $F,f=20 $F,f=25 --dist normal --count 20000 --seed 5 --csv > "$T/f.csv"
e13=$(col "$T/f.csv" 1 mean_ulp); e16=$(col "$T/f.csv" 2 mean_ulp); e20=$(col "$T/f.csv" 3 mean_ulp); e25=$(col "$T/f.csv" 4 mean_ulp)
if lt "$e25" "$e20" && lt "$e20" "$e16" && lt "$e16" "$e13"; then pass "mean error falls with F: $e13 > $e16 > $e20 > $e25 ulp"
else fail "mean error vs F: $e13 $e16 $e20 $e25"; fi

# 4. Blackwell (F=25, fp32 out) is more accurate than Hopper QGMMA (F=13, e8m13 out)
$M metrics $HOP $BW --dist llm --count 20000 --seed 7 --csv > "$T/hb.csv"
if lt "$(col "$T/hb.csv" 2 p99_ulp)" "$(col "$T/hb.csv" 1 p99_ulp)" && lt "$(col "$T/hb.csv" 2 not_cr)" "$(col "$T/hb.csv" 1 not_cr)"; then
    pass "llm: blackwell p99 $(col "$T/hb.csv" 2 p99_ulp) < hopper p99 $(col "$T/hb.csv" 1 p99_ulp) ulp"
else fail "llm: hopper vs blackwell"; fi

# 5. the same results for any thread count, and the same inputs for every unit
for th in 1 2 3; do $M metrics $HOP $BW $HOP --dist cancel --count 5000 --seed 11 --threads $th --csv > "$T/t$th.csv"; done
if cmp -s "$T/t1.csv" "$T/t2.csv" && cmp -s "$T/t1.csv" "$T/t3.csv"; then pass "metrics: --threads 1, 2, 3 give identical bytes"
else fail "metrics: thread count changes the output"; fi
if same_stats "$T/t1.csv" 1 "$T/t1.csv" 3; then pass "metrics: a unit listed twice gets identical statistics"
else fail "metrics: repeated unit differs"; fi
for th in 1 2; do $M gemm $HOP --k 1024 --mode tc,promote,twostage --count 40 --seed 2 --threads $th --csv > "$T/g$th.csv"; done
if cmp -s "$T/g1.csv" "$T/g2.csv"; then pass "gemm: --threads 1, 2 give identical bytes"; else fail "gemm: thread count changes the output"; fi

# 6. DeepSeek-V3 promotion beats tensor-core-only accumulation at K=4096
$M gemm $HOP --k 4096 --mode tc,promote --nc 128 --dist normal --scale 0.5 --count 100 --seed 1 --csv > "$T/p.csv"
tc=$(col "$T/p.csv" 1 agg_rel); pr=$(col "$T/p.csv" 2 agg_rel)
if lt "$pr" "$tc"; then pass "K=4096: promotion every 128 ($pr) below TC-only ($tc), normwise relative error"
else fail "K=4096: promote $pr vs tc $tc"; fi

# 7. twostage is promotion every instruction (the same numbers)
$M gemm $HOP --k 1024 --mode promote --nc 32 --count 40 --seed 2 --csv > "$T/p32.csv"
if same_stats "$T/p32.csv" 1 "$T/g1.csv" 3; then pass "gemm: twostage = promote with Nc = the instruction's K"
else fail "gemm: twostage vs promote nc=32"; fi

# 8. the accumulator post: zeroing the low bits of QGMMA outputs changes nothing up to 10 bits
$M gemm $HOP --k 512 --ntrun --nc 32 --count 200 --seed 4 --json > "$T/nt.json"
first=$(jfirst "$T/nt.json")
if [ "$first" = 11 ]; then pass "ntrun: QGMMA results first change at Ntrun=11 (10 low bits always zero)"
else fail "ntrun: QGMMA first change at $first"; fi
$M gemm hopper:mma.m16n8k16.f32.f16.f16.f32 --k 512 --ntrun --nc 32 --count 200 --seed 4 --json > "$T/nt16.json"
first=$(jfirst "$T/nt16.json")
if [ "$first" = 1 ]; then pass "ntrun: HMMA F=25 with fp16 inputs: every output bit is live (first change at 1)"
else fail "ntrun: HMMA (fp16 inputs) first change at $first"; fi
$M gemm hopper:mma.m16n8k16.f32.f16.f16.f32 --quant e4m3 --k 512 --ntrun --nc 32 --count 200 --seed 4 --json > "$T/nt8.json"
first=$(jfirst "$T/nt8.json")
if [ "$first" -ge 2 ] && [ "$first" -le 4 ]; then pass "ntrun: HMMA with e4m3-valued inputs (the accumulator post's FP16 path): first change at $first"
else fail "ntrun: HMMA (e4m3 values) first change at $first"; fi

# 9. JSON parses and agrees with the CSV; the table has one line per unit
$M metrics $EX --dist normal --count 20000 --seed 3 --json > "$T/ex.json"
j=$(jfield "$T/ex.json" mean_ulp)
if [ -n "$j" ] && [ "$j" = "$(col "$T/ex.csv" 1 mean_ulp)" ]; then pass "json mean_ulp = csv mean_ulp ($j)"; else fail "json '$j' vs csv"; fi
if command -v python3 > /dev/null; then
    for f in ex.json nt.json; do python3 -m json.tool "$T/$f" > /dev/null || fail "$f is not valid JSON"; done
fi
lines=$($M metrics $HOP $BW $EX --count 2000 | grep -c -e "^hopper:" -e "^blackwell:" -e "^exact,")
[ "$lines" = 3 ] && pass "table: one row per unit" || fail "table rows: $lines"

# 10. histogram: one block per unit, counts add up to the finite results
$M metrics $HOP $EX --count 3000 --hist "$T/h.dat" --hist-bins 31 > /dev/null
tot=$(awk '/signed error/ { lin = 1 } /log2/ { lin = 0 } lin && !/^#/ && NF == 3 { s += $2 } /beyond it/ { s += $(NF - 4) } END { print s }' "$T/h.dat")
tlog=$(awk '/log2/ { lg = 1 } /signed error/ { lg = 0 } lg && !/^#/ && NF == 3 { s += $2 } /exact \(error 0\)/ { s += $(NF - 3) } END { print s }' "$T/h.dat")
[ "$tot" = 6000 ] && [ "$tlog" = 6000 ] && pass "histogram: 2 x 3000 results binned (linear and log2), none lost" || fail "histogram totals $tot $tlog"

# 11. metrics --gemm is gemm
$M metrics --gemm promote $HOP --k 1024 --nc 32 --count 40 --seed 2 --csv > "$T/alias.csv"
cmp -s "$T/alias.csv" "$T/p32.csv" && pass "metrics --gemm promote = gemm --mode promote" || fail "metrics --gemm alias"

# 12. bad input: clear message, exit 2
bad() {
    want=$1; shift
    "$@" > "$T/out" 2> "$T/err"; rc=$?
    if [ $rc -eq 2 ] && grep -qF -e "$want" "$T/err" && [ ! -s "$T/out" ]; then pass "exit 2: $want"
    else fail "expected exit 2 with '$want', got $rc: $(cat "$T/err")"; fi
}
bad "unknown distribution 'gauss'" $M metrics $HOP --dist gauss
bad "unknown distribution 'gauss'" $M gemm $HOP --k 64 --dist gauss
bad "is not a multiple of $HOP's K=32" $M metrics $HOP --k 48
bad "is not a multiple of $HOP's K=32" $M gemm $HOP --k 100
bad "--nc 100 is not a multiple of $HOP's K=32" $M gemm $HOP --k 4096 --mode promote --nc 100
bad "unknown instruction" $M metrics hopper:wgmma.nonsense
bad "unknown mode 'fast'" $M gemm $HOP --k 64 --mode fast
bad "needs an integer" $M metrics $HOP --count -5

if [ $fails -ne 0 ]; then echo "metrics tests: $fails failed"; exit 1; fi
echo "metrics tests: all passed"
