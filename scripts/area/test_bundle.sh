#!/bin/sh
# The device bundle tried here as the device host would run it: in a private
# mount namespace (root: unshare -m) where this machine's yosys, ABC,
# OpenSTA, Verilator, their share folders and the shared libraries only they
# load are hidden, with an empty environment; scripts/area/device_sweep.sh
# on one point (AREA_ONLY, default the smallest of the full sweep) must
# synthesize, time and power it, and return its cache.
#   sh scripts/area/test_bundle.sh [point id]
set -u
ID=${1:-bf16_k16_cpa_f10_p0}
OUT=build/area-bundle-test
rm -rf "$OUT" build/area-bundle-test-work
L=/usr/lib/x86_64-linux-gnu
hide=""
for f in /usr/bin/yosys /usr/bin/berkeley-abc /usr/bin/yosys-abc /usr/bin/sta /usr/bin/verilator /usr/bin/tclsh8.6 \
         $L/libtcl8.6.so $L/libreadline.so.8 $L/libffi.so.8 $L/libstdc++.so.6 $L/libbz2.so.1.0 $L/libzstd.so.1 \
         $L/libtinfo.so.6; do
    f=$(readlink -f "$f")
    [ -e "$f" ] && hide="$hide mount --bind /dev/null $f;"
done
E=$(mktemp -d)
for d in /usr/share/yosys /usr/share/tcltk; do hide="$hide mount --bind $E $d;"; done
py=$(python3 -c "import sys; print(sys.executable)")
unshare -m sh -c "$hide
    for t in yosys sta yosys-abc; do command -v \$t > /dev/null && \$t -V > /dev/null 2>&1 && { echo \"test_bundle: \$t still runs from the host\"; exit 3; }; done
    env -i PATH=$(dirname "$py"):/usr/bin:/bin HOME=/tmp OUT=$PWD/$OUT AREA_ONLY=$ID AREA_WORK=build/area-bundle-test-work \
        sh scripts/area/device_sweep.sh 900"
rc=$?
rmdir "$E"
fail=0
[ $rc = 0 ] || { echo "FAIL: device_sweep.sh exit $rc"; fail=1; }
grep -q "\[1/1\] $ID .* um2, .* ns, .* mW" "$OUT/sweep.log" || { echo "FAIL: $ID not costed with the bundle"; fail=1; }
n=$(tar -tJf "$OUT/area_cache.tar.xz" 2>/dev/null | grep -c 'cache/.*json$')
[ "$n" -ge 2 ] || { echo "FAIL: the returned cache holds $n stage results"; fail=1; }
[ $fail = 0 ] && echo "test_bundle: passed ($ID costed with the bundled tools only; cache of $n stage results)"
exit $fail
