#!/bin/sh
# The device bundle tried here as the device host would run it: in a private
# mount namespace (root: unshare -m) where this machine's yosys, ABC,
# OpenSTA, Verilator, their share folders and the shared libraries only they
# load are hidden (and xz, which the device host may lack), with an empty
# environment, from a folder outside the repository.
#   sh scripts/area/test_bundle.sh [bundle dir] [point id] [other point id]
# 1. run.sh on one point (default the smallest of the full sweep) must
#    synthesize, time and power it, and return its cache and the sources;
# 2. run.sh again with the returned cache beside it and a budget of 5 s on
#    both points: the first is taken from the cache (resumed), the other is
#    not started (time budget), exit 0.
set -u
BUN=${1:-build/area-bundle}
ID=${2:-e4m3_k8_cpa_f10_p0}
ID2=${3:-e4m3_k8_csa_f10_p0}
OUT=$PWD/build/area-bundle-test
rm -rf "$OUT" "$OUT.2" build/area-bundle-test-bun
mkdir -p "$OUT" "$OUT.2"
cp -r "$BUN" build/area-bundle-test-bun
L=/usr/lib/x86_64-linux-gnu
hide=""
for f in /usr/bin/xz /usr/bin/yosys /usr/bin/berkeley-abc /usr/bin/yosys-abc /usr/bin/sta /usr/bin/verilator /usr/bin/tclsh8.6 \
         $L/libtcl8.6.so $L/libreadline.so.8 $L/libffi.so.8 $L/libstdc++.so.6 $L/libbz2.so.1.0 $L/libzstd.so.1 \
         $L/libtinfo.so.6; do
    f=$(readlink -f "$f")
    [ -e "$f" ] && hide="$hide mount --bind /dev/null $f;"
done
E=$(mktemp -d)
for d in /usr/share/yosys /usr/share/tcltk; do hide="$hide mount --bind $E $d;"; done
py=$(python3 -c "import sys; print(sys.executable)")
run() {   # run <out> <secs> <ids>
    unshare -m sh -c "$hide
        for t in yosys sta yosys-abc; do command -v \$t > /dev/null && \$t -V > /dev/null 2>&1 && { echo \"test_bundle: \$t still runs from the host\"; exit 3; }; done
        cd /tmp && env -i PATH=$(dirname "$py"):/usr/bin:/bin HOME=/tmp OUT=$1 AREA_ONLY=$3 AREA_JOBS=2 \
            sh $PWD/build/area-bundle-test-bun/run.sh $2"
}
fail=0
run "$OUT" 900 "$ID"
rc=$?
[ $rc = 0 ] || { echo "FAIL: run.sh exit $rc"; fail=1; }
grep -q "\[1/1\] $ID .* um2, .* ns, .* mW" "$OUT/sweep.log" || { echo "FAIL: $ID not costed with the bundle"; fail=1; }
n=$(tar -tJf "$OUT/area_cache.tar.xz" 2>/dev/null | grep -c 'cache/.*json$')
[ "$n" -ge 2 ] || { echo "FAIL: the returned cache holds $n stage results"; fail=1; }
for f in area.csv sweep.json sweep.log logs.tar.xz src.tar.xz area_cache.tar.xz; do
    [ -s "$OUT/$f" ] || { echo "FAIL: $f not returned"; fail=1; }
done
cp "$OUT/area_cache.tar.xz" build/area-bundle-test-bun/
run "$OUT.2" 5 "$ID,$ID2"
rc=$?
[ $rc = 0 ] || { echo "FAIL: the resumed run.sh exit $rc"; fail=1; }
grep -q "resumed from" "$OUT.2/sweep.log" || { echo "FAIL: the second run did not unpack the returned cache"; fail=1; }
grep -q "\] $ID .* um2, .* ns, .* mW" "$OUT.2/sweep.log" || { echo "FAIL: $ID not taken from the cache"; fail=1; }
grep -q "\] $ID2 .*SKIPPED: not started" "$OUT.2/sweep.log" || { echo "FAIL: $ID2 started on a 5 s budget"; fail=1; }
rmdir "$E"
[ $fail = 0 ] && echo "test_bundle: passed ($ID costed with the bundled tools only, cache of $n stage results; resumed from it, $ID2 left for a later run)"
exit $fail
