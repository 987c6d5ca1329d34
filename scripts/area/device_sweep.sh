#!/bin/sh
# The area sweep on the device host (16 cores, one command of at most 10
# minutes, nothing installed there): synthesis, timing and power of as many
# points of the full sweep as fit, the largest first, with the tools of
# build/area-bundle/area-tools.tar.xz (scripts/area/bundle.sh makes it here).
# mmaref verify needs Verilator and a compiler, so verification is left to
# this machine: `make area LIBERTY=...` here afterwards verifies every point
# and takes synthesis, timing and power from the returned cache.
#
# Carry build/area-bundle; run from the repository root there:
#   sh scripts/area/device_sweep.sh [seconds, default 530]
# A previous run's cache (its area_cache.tar.xz, copied into
# build/area-bundle/) is unpacked first: the sweep resumes.
# Writes to $OUT (5 files): area_cache.tar.xz (the per-stage results: unpack
# into build/area/cache here), area.csv, sweep.json, sweep.log, logs.tar.xz.
set -u
SECS=${1:-530}
B=build/area-bundle
OUT=${OUT:-build/area-device}
mkdir -p "$OUT"
T=${TMPDIR:-/tmp}/area-tools-$$
mkdir -p "$T" && tar -xJf "$B/area-tools.tar.xz" -C "$T" || { echo "device_sweep: cannot unpack $B/area-tools.tar.xz"; exit 2; }
R=$T/area-tools
export AREA_YOSYS=$R/bin/yosys AREA_ABC=$R/bin/yosys-abc AREA_STA=$R/bin/sta TCL_LIBRARY=$R/share/tcl
unset LD_LIBRARY_PATH
W=${AREA_WORK:-build/area}
mkdir -p "$W"
if [ -f "$B/area_cache.tar.xz" ]; then
    tar -xJf "$B/area_cache.tar.xz" -C "$W" && echo "device_sweep: resumed from $(ls "$W/cache" | wc -l) cached stage results"
fi
# the host has 16 cores (a machine under gVisor may report more): AREA_JOBS overrides
J=${AREA_JOBS:-$(nproc)}
[ -z "${AREA_JOBS:-}" ] && [ "$J" -gt 16 ] && J=16
echo "device_sweep: $(nproc) cores reported, $J jobs, $("$AREA_YOSYS" -V), $("$AREA_STA" -version), python $(python3 -V 2>&1)"
PYTHONUNBUFFERED=1 python3 scripts/area/area.py sweep --set full --out "$W" --liberty "$R/sky130hd_tt.lib.gz" \
    --no-verify --jobs "$J" --mmaparams "$R/bin/mmaparams" --mmaref "$R/bin/mmaref" \
    --stop-after "$SECS" --point-guess "${AREA_POINT_GUESS:-200}" ${AREA_ONLY:+--only "$AREA_ONLY"} 2>&1 | tee "$OUT/sweep.log"
tar -cJf "$OUT/area_cache.tar.xz" -C "$W" cache
[ -f "$W/area.csv" ] && cp "$W/area.csv" "$OUT/"
[ -f "$W/sweep.json" ] && cp "$W/sweep.json" "$OUT/"
(cd "$W" && find pts -name '*.log' -size -2M | tar -cJf - -T -) > "$OUT/logs.tar.xz"
ls -l "$OUT"
rm -rf "$T"
