#!/bin/sh
# make area-import AREA_RESULTS=<dir>: the device sweep's returned files
# (scripts/area/device_sweep.sh: area_cache.tar.xz, src.tar.xz, sweep.json)
# made into docs/data/area.csv, docs/data/area_sweep.json, the plots and
# docs/tradeoff.md.  The sweep is run again here on the sources the device
# ran (src.tar.xz: rtl/ and scripts/area/ of the bundle) with --from-cache:
# every point the device costed is verified here (mmaref verify, which the
# device cannot run) and takes synthesis, timing and power from the returned
# cache; a point the device did not reach is marked skipped.  The accuracy
# columns are computed here (mmaref metrics, mmaref gemm).  docs/ is
# written only when every point is verified and costed or skipped.
#   sh scripts/area/import.sh <results dir> <liberty> <build dir> <jobs> [publish dir, default docs]
# Merging: the cache of a previous import stays, so the results of two
# device runs (the second resumed from the first) can be imported in turn.
set -u
RES=$1 LIB=$2 B=$3 J=$4 PUB=${5:-docs}
W=$B/area-import
for f in area_cache.tar.xz src.tar.xz; do
    [ -s "$RES/$f" ] || { echo "area-import: $RES/$f: missing (the folder device_sweep.sh wrote to \$OUT)" >&2; exit 2; }
done
rm -rf "$W/src"
mkdir -p "$W/work"
tar -xJf "$RES/src.tar.xz" -C "$W" || { echo "area-import: $RES/src.tar.xz: cannot unpack" >&2; exit 2; }
tar -xJf "$RES/area_cache.tar.xz" -C "$W/work" || { echo "area-import: $RES/area_cache.tar.xz: cannot unpack" >&2; exit 2; }
echo "area-import: $(cat "$W/src/SOURCE"); $(ls "$W/work/cache" | wc -l) cached stage results"
SET=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('set', 'full'))" "$RES/sweep.json" 2>/dev/null || echo full)
python3 "$W/src/scripts/area/area.py" sweep --set "$SET" --out "$W/work" --liberty "$LIB" --from-cache --jobs "$J" \
    --rtl "$W/src/rtl" --mmaparams "$B/rtl/mmaparams" --mmaref "$B/mmaref" || {
    echo "area-import: a point failed (above): docs/ left as it was" >&2; exit 1; }
python3 scripts/area/area.py report --area "$W/work/area.csv" --mmaref "$B/mmaref" --out "$W/report" \
    --device "$RES/sweep.json" --publish "$PUB"
