#!/bin/sh
# The area sweep on the device host (16 cores, one command of at most 10
# minutes, nothing of ours installed there): synthesis, timing and power of
# as many points of the full sweep as fit in SECS seconds, the longest
# first, with the tools of area-tools.tar.xz and the sources (rtl/ and
# scripts/area/ as they were when scripts/area/bundle.sh ran) of
# src.tar.xz, both beside this script.  mmaref verify needs Verilator and a
# compiler, so verification is left to the build machine:
# `make area-import AREA_RESULTS=<returned folder>` verifies every point
# there and takes synthesis, timing and power from the returned cache.
#
# Run from anywhere (the bundle is found beside this script):
#   sh <bundle>/run.sh [SECS, default 500]
# A point starts only if its estimate (points.estimate) ends it within SECS;
# at SECS + 25 s whatever still runs is stopped and what is done is written
# (exit 0: a run with the returned cache finishes the rest; exit 1: a
# point failed, named in sweep.log).
# A previous run's returned area_cache.tar.xz, copied beside this script,
# is unpacked first: the sweep resumes.
# Writes to $OUT (6 files): area_cache.tar.xz (the per-stage results),
# area.csv, sweep.json, sweep.log, logs.tar.xz, src.tar.xz (the sources
# the sweep ran, for the import).
set -u
SECS=${1:-500}
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/build/area-device}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) && export OUT
T0=$(date +%s)
# tar through Python's tarfile: the host may have no xz program
untar() {
    python3 -c 'import sys, tarfile
kw = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
tarfile.open(sys.argv[1]).extractall(sys.argv[2], **kw)' "$1" "$2"
}
packxz() {   # packxz <archive> <dir> <member>: <dir>/<member> into <archive>, whole or not at all
    python3 -c 'import os, sys, tarfile
with tarfile.open(sys.argv[1] + ".tmp", "w:xz") as t:
    t.add(os.path.join(sys.argv[2], sys.argv[3]), arcname=sys.argv[3])
os.replace(sys.argv[1] + ".tmp", sys.argv[1])' "$1" "$2" "$3"
}
T=${TMPDIR:-/tmp}/areawork-$$
mkdir -p "$T"
untar "$B/area-tools.tar.xz" "$T" && untar "$B/src.tar.xz" "$T" \
    || { echo "device_sweep: cannot unpack $B/area-tools.tar.xz or $B/src.tar.xz" | tee "$OUT/sweep.log"; exit 2; }
R=$T/area-tools
S=$T/src
export AREA_YOSYS=$R/bin/yosys AREA_ABC=$R/bin/yosys-abc AREA_STA=$R/bin/sta TCL_LIBRARY=$R/share/tcl
unset LD_LIBRARY_PATH
W=${AREA_WORK:-$T/work}
mkdir -p "$W"
# the host has 16 cores: AREA_JOBS overrides
J=${AREA_JOBS:-$(nproc)}
[ -z "${AREA_JOBS:-}" ] && [ "$J" -gt 16 ] && J=16
UNPACK=$(( $(date +%s) - T0 ))
echo "device_sweep: $(nproc) cores reported, $J jobs, unpacked in ${UNPACK} s; $("$AREA_YOSYS" -V), $("$AREA_STA" -version), $(python3 -V 2>&1); $(cat "$S/SOURCE")" \
    | tee "$OUT/sweep.log"
if [ -f "$B/area_cache.tar.xz" ]; then
    untar "$B/area_cache.tar.xz" "$W" && echo "device_sweep: resumed from $(ls "$W/cache" | wc -l) cached stage results" | tee -a "$OUT/sweep.log"
fi
UNPACK=$(( $(date +%s) - T0 ))
BUDGET=$(( SECS - UNPACK ))
# --speed: this host's cores against the build machine's, where
# points.estimate was measured (AREA_SPEED overrides; the estimate decides
# only which points start before the budget ends)
{ cd "$S" && PYTHONUNBUFFERED=1 timeout -k 15 -s TERM $(( BUDGET + 25 )) python3 scripts/area/area.py sweep \
    --set "${AREA_SET:-full}" --out "$W" --liberty "$R/sky130hd_tt.lib.gz" \
    --no-verify --jobs "$J" --map-jobs "${AREA_MAP_JOBS:-3}" --speed "${AREA_SPEED:-1.0}" \
    --mmaparams "$R/bin/mmaparams" --mmaref "$R/bin/mmaref" \
    --stop-after "$BUDGET" ${AREA_ONLY:+--only "$AREA_ONLY"} 2>&1; echo $? > "$T/rc"; } | tee -a "$OUT/sweep.log"
rc=$(cat "$T/rc" 2>/dev/null || echo 2)
cd "$W" || exit 2
case $rc in
    124|143|137) echo "device_sweep: stopped at the time budget (exit $rc): what was done is in the cache; run again with it to finish" | tee -a "$OUT/sweep.log"; rc=0 ;;
    *) echo "device_sweep: sweep exit $rc after $(( $(date +%s) - T0 )) s" | tee -a "$OUT/sweep.log" ;;
esac
packxz "$OUT/area_cache.tar.xz" . cache
[ -f area.csv ] && cp area.csv "$OUT/"
[ -f sweep.json ] && cp sweep.json "$OUT/"
cp "$B/src.tar.xz" "$OUT/"
python3 -c 'import os, tarfile
with tarfile.open("logs.tar.xz.tmp", "w:xz") as t:
    for d, _, fs in os.walk("pts"):
        for f in fs:
            p = os.path.join(d, f)
            if f.endswith(".log") and os.path.getsize(p) < 2 << 20:
                t.add(p)
os.replace("logs.tar.xz.tmp", os.environ["OUT"] + "/logs.tar.xz")' 
echo "device_sweep: $(ls "$OUT" | tr '\n' ' ') in $OUT after $(( $(date +%s) - T0 )) s" | tee -a "$OUT/sweep.log"
cd / && rm -rf "$T"
exit $rc
