#!/bin/sh
# make area-test: the short sweep with a real library, then bad input.
#   sh scripts/area/test_area.sh <out dir> <liberty> <build dir>
# 1. points.test() mapped to the library: each costed point verified first,
#    area and delay growing with F (check.py), points the RTL cannot realize
#    reported by name;
# 2. a missing liberty file and one without an inverter: a message naming
#    the file, exit status 2, no CSV;
# 3. an OpenSTA that fails: the point reported by name with the log, exit
#    status 1, its verify and synthesis results kept (cached);
# 4. nothing of it touches docs/;
# 5. the committed library cut is what liberty_subset.py makes of the full
#    library, where that is on this machine (it is not in the checkout).
set -u
OUT=$1 LIB=$2 B=$3 FULL=${4:-}
PY="python3 scripts/area/area.py"
COMMON="--mmaparams $B/rtl/mmaparams --mmaref $B/mmaref --jobs 2 --targets 1.3"
fail=0
ck() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
docs_before=$(cat docs/data/area.csv docs/tradeoff.md 2>/dev/null | cksum)

mkdir -p "$OUT"
$PY sweep --set test --out "$OUT" --liberty "$LIB" $COMMON 2>&1 | tee "$OUT/sweep.log"
$PY check "$OUT/area.csv" || fail=1

mkdir -p "$OUT/bad"
$PY sweep --set test --out "$OUT/bad/missing" --liberty "$OUT/bad/no_such.lib" $COMMON > "$OUT/bad/missing.log" 2>&1
rc=$?
ck "a missing liberty file: exit 2 ($rc)" "[ $rc = 2 ]"
ck "a missing liberty file: named" "grep -q 'no_such.lib: no such liberty file' '$OUT/bad/missing.log'"
ck "a missing liberty file: no CSV" "[ ! -e '$OUT/bad/missing/area.csv' ]"

cat > "$OUT/bad/noinv.lib" <<'EOF'
library (noinv) {
    time_unit : "1ns";
    capacitive_load_unit(1.0, "pf");
    cell ("nand2") {
        area : 3.75;
        pin ("A") { direction : "input"; capacitance : 0.002; }
        pin ("B") { direction : "input"; capacitance : 0.002; }
        pin ("Y") { direction : "output"; function : "!(A&B)"; }
    }
}
EOF
$PY sweep --set test --out "$OUT/bad/noinv" --liberty "$OUT/bad/noinv.lib" $COMMON > "$OUT/bad/noinv.log" 2>&1
rc=$?
ck "a liberty without an inverter: exit 2 ($rc)" "[ $rc = 2 ]"
ck "a liberty without an inverter: named" "grep -q 'noinv.lib: no inverter' '$OUT/bad/noinv.log'"

cat > "$OUT/bad/sta" <<'EOF'
#!/bin/sh
[ "${1:-}" = -version ] && { echo 2.0.17-broken; exit 0; }
echo "Error: this OpenSTA fails on purpose"; exit 1
EOF
chmod +x "$OUT/bad/sta"
fronts_before=$(ls -l --time-style=+%s "$OUT"/pts/e4m3_k8_cpa_f*_p0/front.il 2>&1 | cksum)
AREA_STA="$OUT/bad/sta" $PY sweep --set test --out "$OUT" --liberty "$LIB" $COMMON \
    --only e4m3_k8_cpa_f13_p0,e4m3_k8_cpa_f25_p0 > "$OUT/bad/sta.log" 2>&1
rc=$?
ck "a failing OpenSTA: exit 1 ($rc)" "[ $rc = 1 ]"
ck "a failing OpenSTA: the points named with the log" \
   "grep -q 'e4m3_k8_cpa_f13_p0 .*ERROR: OpenSTA (.*sta.log): Error: this OpenSTA fails on purpose' '$OUT/bad/sta.log'"
ck "a failing OpenSTA: verify and synthesis kept (cached), not redone" \
   "[ \"\$(ls -l --time-style=+%s '$OUT'/pts/e4m3_k8_cpa_f*_p0/front.il 2>&1 | cksum)\" = '$fronts_before' ]"
ck "the sweeps left docs/ alone" "[ \"\$(cat docs/data/area.csv docs/tradeoff.md 2>/dev/null | cksum)\" = '$docs_before' ]"
# the good run's CSV is whole after the failing one (the failing run wrote its own, then ours is rewritten)
$PY sweep --set test --out "$OUT" --liberty "$LIB" $COMMON > "$OUT/rerun.log" 2>&1
secs=$(sed -n 's/.* in \([0-9]*\)m\([0-9]*\)s wall.*/\1 \2/p' "$OUT/rerun.log" | awk '{ print $1 * 60 + $2 }')
ck "a rerun takes every stage from the cache (${secs:-?} s, under 60)" "[ -n '$secs' ] && [ '$secs' -lt 60 ]"
$PY check "$OUT/area.csv" > /dev/null || { echo "FAIL: the rerun's CSV"; fail=1; }
# 5. the import's mode (make area-import): --from-cache costs a point whose
#    synthesis and cost are cached, marks one without them skipped, exit 0
rm -rf "$OUT/fc" && mkdir -p "$OUT/fc" && cp -r "$OUT/cache" "$OUT/fc/cache"
k=$(cat "$OUT/pts/e4m3_k8_cpa_f25_p0/t_min/key" 2>/dev/null)
ck "--from-cache: the F=25 point's synthesis key found" "[ -n '$k' ] && [ -f '$OUT/fc/cache/$k.json' ]"
rm -f "$OUT/fc/cache/$k.json"
$PY sweep --set test --out "$OUT/fc" --liberty "$LIB" $COMMON --from-cache \
    --only e4m3_k8_cpa_f13_p0,e4m3_k8_cpa_f25_p0 > "$OUT/fc.log" 2>&1
rc=$?
ck "--from-cache: exit 0 ($rc)" "[ $rc = 0 ]"
ck "--from-cache: a cached point costed" "grep -q '\] e4m3_k8_cpa_f13_p0 .* um2, .* ns, .* mW at .*, verified 4000' '$OUT/fc.log'"
ck "--from-cache: a point without its synthesis skipped, not computed" \
   "grep -q '\] e4m3_k8_cpa_f25_p0 .*SKIPPED: not costed' '$OUT/fc.log' && [ ! -e '$OUT/fc/pts/e4m3_k8_cpa_f25_p0/front.ys' ]"
# 6. the cut: regenerated from the full library where it is here, byte for byte
if [ -n "$FULL" ] && [ -f "$FULL" ]; then
    python3 scripts/area/liberty_subset.py "$FULL" scripts/area/subset_cells.txt "$OUT/cut.lib.gz"
    ck "the library cut ($LIB) is liberty_subset.py's of $FULL" "cmp -s '$OUT/cut.lib.gz' '$LIB'"
else
    echo "area-test: the full library (${FULL:-none named}) is not here: the cut not regenerated"
fi
printf 'cell ("x") {\n' > "$OUT/bad/open.lib"
python3 scripts/area/liberty_subset.py "$OUT/bad/open.lib" scripts/area/subset_cells.txt "$OUT/bad/open.lib.gz" 2> "$OUT/bad/open.log"
rc=$?
ck "the cut of a broken library: exit 2 ($rc), named, nothing written" \
   "[ $rc = 2 ] && grep -q 'open.lib: unbalanced' '$OUT/bad/open.log' && [ ! -e '$OUT/bad/open.lib.gz' ]"
[ $fail = 0 ] && echo "area-test: bad input passed" || echo "area-test: FAILED"
exit $fail
