#!/bin/sh
# Full H100 capture, run on the device machine (see docs/hardware.md):
# builds mmaref there, generates the input suites (deterministic: the same
# bytes as `mmaref gen` gives anywhere), runs them through the capture
# harness (hw/, built here and carried as hwbuild/), compresses the results
# and packs them into $OUT as tarballs of at most ~15 MB.
#
# usage: scripts/hw_capture.sh PLANFILE [COMPLIANCE_COUNT]
#   PLANFILE lines: <instr> <compliance count>  ('#' comments)
set -eu
plan=$1
W=${WORK:-/tmp/hwcap}
OUTD=${OUT:-$W/outpack}
rm -rf "$W"; mkdir -p "$W/in" "$W/out" "$OUTD"
B=${MMAREF:-hwbuild/mmaref}   # a static build, carried with the harness
suites=${SUITES:-"order precision rounding specials ezero random normal cancel"}
grep -v '^#' "$plan" | while read -r instr count; do
  [ -n "$instr" ] || continue
  q=${instr#*:}
  [ "$count" = 0 ] || $B gen "$instr" --suite compliance --count "$count" --seed 1 -o "$W/in/$q.compliance.vec" &
  for s in $suites; do
    case $s in random|normal|cancel) n=2000 ;; *) n=${DIRECTED:-4000} ;; esac
    $B gen "$instr" --suite "$s" --count $n --seed 1 -o "$W/in/$q.$s.vec" &
  done
  wait
done
echo "inputs: $(ls "$W/in" | wc -l) files"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
start=$(date +%s)
hw/run_on_device.sh "$W/in" "$W/out" > "$W/capture.log" 2>&1 || echo "capture: some files failed"
echo "capture took $(( $(date +%s) - start )) s"
grep -c '^OK' "$W/capture.log" || true
grep -v '^OK' "$W/capture.log" | head -40
# model check on the device too, for a first look
for f in "$W"/out/*.vec; do
  printf '%s: ' "$(basename "$f")"; $B check "$f" --show 0 | tail -1
done > "$W/check.log" 2>&1 || true
awk '!/ 0 mismatches/' "$W/check.log" | head -60
cp "$W/capture.log" "$W/check.log" "$OUTD/" 
cd "$W/out" && xz -T0 -9 ./*.vec
# pack into tarballs of about 15 MB
i=0; size=0; list=""
for f in *.vec.xz; do
  s=$(stat -c %s "$f")
  if [ $((size + s)) -gt 15000000 ] && [ -n "$list" ]; then
    tar cf "$OUTD/hw$i.tar" $list; i=$((i + 1)); size=0; list=""
  fi
  list="$list $f"; size=$((size + s))
done
[ -z "$list" ] || tar cf "$OUTD/hw$i.tar" $list
ls -la "$OUTD"
