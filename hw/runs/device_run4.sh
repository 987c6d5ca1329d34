#!/bin/sh
# Fourth device run (docs/hardware.md): the self-test of all 51
# harness instructions, the directed NaN vectors of the fp64 instructions,
# the wmma captures, the accumulator-truncation experiment, and a million
# vectors per instruction judged on the device (scripts/hw_million.sh).
#
# Built on the build machine and carried in $D/hwbuild: capture and ntrun
# (make -C hw), mmaref (static: gcc -static ... cli/*.c build/libmmaref.a);
# $D/scripts holds this script's helpers when the tree that travels lacks
# them.  Results go to $OUT: run4.tar (the captured files, xz) and
# million.tar.xz (counts, mismatches, the kept sample).
set -u
D=${D:-.}
B=$D/hwbuild
S=$D/scripts
O=${OUT:-/tmp/run4out}
W=${WORK:-/tmp/run4}
rm -rf "$W"
mkdir -p "$W/cap" "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' >> "$O/gpu.txt"

echo "== self-test"
"$B/capture" --selftest > "$O/selftest.txt" 2>&1
tail -1 "$O/selftest.txt"; grep -v '^OK' "$O/selftest.txt" | head -20

echo "== fp64 NaN vectors"
for q in mma.m8n8k4.f64.f64.f64.f64 mma.m16n8k4.f64.f64.f64.f64 mma.m16n8k8.f64.f64.f64.f64 \
         mma.m16n8k16.f64.f64.f64.f64 wmma.m8n8k4.f64.f64.f64.f64; do
  python3 "$S/hw_dmma_nan.py" "hopper:$q" "$W/$q.nan.in.vec" &&
    "$B/capture" "$W/$q.nan.in.vec" "$W/cap/$q.nan.vec" | tail -1
  printf '%s: ' "$q"; "$B/mmaref" check "$W/cap/$q.nan.vec" --show 0 | tail -1
done

echo "== wmma suites"
for q in $("$B/capture" --list | awk '{print $1}' | grep ':wmma' | sed 's/^hopper://'); do
  for sc in order:4000 precision:4000 rounding:4000 specials:4000 ezero:4000 compliance:20000; do
    s=${sc%%:*} n=${sc#*:}
    "$B/mmaref" gen "hopper:$q" --suite "$s" --count "$n" --seed 1 -o "$W/$q.$s.in.vec" &&
      "$B/capture" "$W/$q.$s.in.vec" "$W/cap/$q.$s.vec" > /dev/null &&
      printf '%s %s: %s\n' "$q" "$s" "$("$B/mmaref" check "$W/cap/$q.$s.vec" --show 0 | tail -1)"
  done &
done
wait

echo "== truncation"
{
  "$B/ntrun" wgmma.m64n8k32.f32.e4m3.e4m3 --k 1024 --count 2000 --seed 1 --nc 32
  "$B/ntrun" wgmma.m64n8k32.f32.e4m3.e4m3 --k 1024 --count 2000 --seed 1 --nc 128
  "$B/ntrun" wgmma.m64n8k32.f32.e4m3.e4m3 --k 1024 --count 2000 --seed 1 --feed
  "$B/ntrun" mma.m16n8k32.f32.e4m3.e4m3.f32 --k 1024 --count 2000 --seed 1 --nc 32
  "$B/ntrun" mma.m16n8k16.f32.f16.f16.f32 --k 1024 --count 2000 --seed 1 --nc 32
  "$B/ntrun" wgmma.m64n8k16.f32.bf16.bf16 --k 1024 --count 2000 --seed 1 --nc 32
} > "$O/ntrun.txt" 2>&1
grep '^#' "$O/ntrun.txt"

echo "== a million vectors per instruction"
MMAREF=$B/mmaref CAPTURE=$B/capture WORK=$W/mwork timeout "${MILLION_LIMIT:-420}" \
  sh "$S/hw_million.sh" "${PLAN:-$S/hw_plan_h100_million.txt}" "$W/million"
echo "hw_million exit $?"

rm -f "$W"/*.in.vec
(cd "$W/cap" && xz -T0 -6 ./*.vec && tar cf "$O/run4.tar" ./*.vec.xz)
rm -rf "$W/mwork"
(cd "$W" && tar cf - million | xz -T0 -6 > "$O/million.tar.xz")
ls -la "$O"
