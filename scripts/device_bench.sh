#!/bin/sh
# The device host's speed figures (docs/performance.md): the scaling over its
# cores (scripts/scaling.sh), mmaref against mmasim on the same vectors
# (make bench-peer: scripts/peer/bench_peer.py) and mmaref bench on its
# cores.  Run from a folder that holds a static mmaref, these scripts and
# the mmasim wheel under whl/ (the device has PyTorch); results to $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$D"/whl/*.whl &&
  export PYTHONPATH=/tmp/site
{ lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-200; python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())'; } > "$OUT/info.txt" 2>&1
cat "$OUT/info.txt"
# one device call runs at most 10 minutes: `device_bench.sh scaling` (about
# 8; SCALING_THREADS="1 16": about 5), then `device_bench.sh peer` (about 2;
# no argument: both)
PART=${1:-all}
if [ "$PART" != peer ]; then
timeout 580 sh "$D/scaling.sh" "$D/mmaref" 16000000 ${SCALING_THREADS:-} > "$OUT/scaling.tsv" 2> "$OUT/scaling.err"
cat "$OUT/scaling.tsv"; tail -3 "$OUT/scaling.err"
fi
[ "$PART" = scaling ] && exit 0
timeout 280 python3 "$D/bench_peer.py" --mmaref "$D/mmaref" -n 100000 --list "$D/bench_instructions.txt" \
  --dir /tmp/bp --tsv "$OUT/bench_peer.tsv" > "$OUT/bench_peer.log" 2>&1
tail -25 "$OUT/bench_peer.log"
timeout 60 "$D/mmaref" bench $(grep -v '^#' "$D/bench_instructions.txt") --seconds 0.3 > "$OUT/bench_device.txt" 2>&1
cat "$OUT/bench_device.txt"
