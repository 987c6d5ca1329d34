#!/bin/sh
# The tools of the area sweep for a host where nothing can be installed (the
# device host of scripts/area/device_sweep.sh): yosys, its ABC, OpenSTA,
# mmaref and mmaparams, each with every shared library it loads (ldd) and
# the dynamic loader, started through that loader so that no library of the
# host is used; yosys's share folder and Tcl's library; the liberty file.
# Beside it the sources the sweep runs (rtl/*.sv and scripts/area/ as they
# are now, src.tar.xz, with SOURCE naming the commit) and the entry script
# run.sh (scripts/area/device_sweep.sh), so that the bundle does not depend
# on the tree it travels in.
#   sh scripts/area/bundle.sh [liberty] [out dir]
#   (defaults: ../shared/pdk/sky130hd_tt.lib.gz, build/area-bundle)
# Writes <out dir>/area-tools.tar.xz (about 15 MB), src.tar.xz, run.sh.
set -eu
LIB=${1:-../shared/pdk/sky130hd_tt.lib.gz}
OUT=${2:-build/area-bundle}
B=build
for f in "$B/mmaref" "$B/rtl/mmaparams" "$LIB"; do
    [ -f "$f" ] || { echo "bundle: $f missing (make all $B/rtl/mmaparams first)" >&2; exit 2; }
done
abc=$(command -v yosys-abc || command -v berkeley-abc)
abc=$(readlink -f "$abc")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
R=$T/area-tools
mkdir -p "$R/bin" "$R/lib" "$R/share"
add() {   # add <program> <name>: the binary as <name>.bin, a wrapper <name>
    cp "$1" "$R/bin/$2.bin"
    ldd "$1" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' | while read -r l; do
        cp -L "$l" "$R/lib/"
    done
    cat > "$R/bin/$2" <<'EOF'
#!/bin/sh
# through the bundled loader and libraries only (no library of the host)
d=$(cd "$(dirname "$0")" && pwd)
exec "$d/ld.so" --library-path "$d/../lib" "$d/NAME.bin" "$@"
EOF
    sed -i "s/NAME/$2/" "$R/bin/$2"
    chmod +x "$R/bin/$2"
}
add "$(readlink -f "$(command -v yosys)")" yosys
add "$abc" yosys-abc
add "$(readlink -f "$(command -v sta)")" sta
add "$B/mmaref" mmaref
add "$B/rtl/mmaparams" mmaparams
strip "$R/bin/mmaref.bin" "$R/bin/mmaparams.bin" 2>/dev/null || true
# the loader beside the binaries: yosys finds its share folder next to
# /proc/self/exe's folder (the loader's), as bin/../share/yosys
mv "$R/lib/ld-linux-x86-64.so.2" "$R/bin/ld.so"
cp -r /usr/share/yosys "$R/share/yosys"
rm -rf "$R/share/yosys/__pycache__" "$R/share/yosys/python3"
tcl=$(echo 'puts [info library]' | tclsh 2>/dev/null || echo /usr/share/tcltk/tcl8.6)
cp -rL "$tcl" "$R/share/tcl"
cp "$LIB" "$R/"
mkdir -p "$OUT"
tar -C "$T" -cf - area-tools | xz -T0 -6 > "$OUT/area-tools.tar.xz.tmp"
mv "$OUT/area-tools.tar.xz.tmp" "$OUT/area-tools.tar.xz"
S=$T/src
mkdir -p "$S/scripts" "$S/rtl"
cp rtl/*.sv "$S/rtl/"
cp -r scripts/area "$S/scripts/area"
rm -rf "$S/scripts/area/__pycache__"
echo "sources: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- rtl scripts/area 2>/dev/null || echo ' with uncommitted changes to rtl/ or scripts/area/'), bundled $(date -u +%Y-%m-%dT%H:%MZ)" > "$S/SOURCE"
tar -C "$T" -cf - src | xz -6 > "$OUT/src.tar.xz.tmp"
mv "$OUT/src.tar.xz.tmp" "$OUT/src.tar.xz"
cp scripts/area/device_sweep.sh "$OUT/run.sh.tmp"
mv "$OUT/run.sh.tmp" "$OUT/run.sh"
echo "bundle: $(cat "$S/SOURCE")"
echo "bundle: $OUT/area-tools.tar.xz, $(du -k "$OUT/area-tools.tar.xz" | cut -f1) kB ($(du -sk "$R" | cut -f1) kB unpacked)"
echo "bundle: $OUT: $(du -sk "$OUT" | cut -f1) kB in all; on the device, from anywhere: sh $OUT/run.sh [seconds]"
