#!/bin/sh
# Fifth device run (docs/hardware.md): 2.1 million vectors per
# instruction judged on the device with the final model (the DMMA NaN rule
# and via=fp16 found by the fourth run, hw/runs/device_run4.sh), the fp64
# NaN vectors captured a second time (the same bytes as the fourth run's,
# but the date), and more rows of the truncation experiment.  Carried as in
# hw/runs/device_run4.sh.  PHASES (default "nan ntrun million") picks the
# parts: the first call ran out of the device tool's ten minutes in the
# million part (ntrun then enumerated all 2^31 tf32 codes; it no longer
# does), which a second call with PHASES=million ran.
set -u
PHASES=${PHASES:-"nan ntrun million"}
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
D=${D:-.}
B=$D/hwbuild
S=$D/scripts
O=${OUT:-/tmp/run5out}
W=${WORK:-/tmp/run5}
rm -rf "$W"
mkdir -p "$W/cap" "$O"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/gpu.txt"

has nan && echo "== fp64 NaN vectors, again" && for q in mma.m8n8k4.f64.f64.f64.f64 mma.m16n8k4.f64.f64.f64.f64 mma.m16n8k8.f64.f64.f64.f64 \
         mma.m16n8k16.f64.f64.f64.f64 wmma.m8n8k4.f64.f64.f64.f64; do
  python3 "$S/hw_dmma_nan.py" "hopper:$q" "$W/$q.nan.in.vec" &&
    "$B/capture" "$W/$q.nan.in.vec" "$W/cap/$q.nan.vec" > /dev/null
  printf '%s: %s, sha256 of the vector lines %s\n' "$q" "$("$B/mmaref" check "$W/cap/$q.nan.vec" --show 0 | tail -1)" \
    "$(grep -v '^#' "$W/cap/$q.nan.vec" | sha256sum | cut -c1-16)"
done | tee "$O/nan.txt"

has ntrun && echo "== truncation" && {
  for q in wgmma.m64n8k32.f32.e5m2.e5m2 wgmma.m64n8k32.f32.e4m3.e5m2; do
    "$B/ntrun" $q --k 1024 --count 2000 --seed 1 --nc 32
  done
  "$B/ntrun" wgmma.m64n8k32.f32.e4m3.e4m3 --k 4096 --count 2000 --seed 2 --nc 128
  "$B/ntrun" mma.m16n8k32.f32.e4m3.e4m3.f32 --k 1024 --count 2000 --seed 1 --nc 128
  "$B/ntrun" wgmma.m64n8k16.f32.f16.f16 --k 1024 --count 2000 --seed 1 --nc 32
  "$B/ntrun" wgmma.m64n8k8.f32.tf32.tf32 --k 1024 --count 2000 --seed 1 --nc 32
} > "$O/ntrun.txt" 2>&1 && grep '^# first' "$O/ntrun.txt"

has million || exit 0
echo "== 2.1 million vectors per instruction"
MIX="compliance:1200000:6 random:300000:2 bits:300000:2 specials:200000:1 cancel:100000:1" \
MMAREF=$B/mmaref CAPTURE=$B/capture WORK=$W/mwork timeout "${MILLION_LIMIT:-480}" \
  sh "$S/hw_million.sh" "${PLAN:-$S/hw_plan_h100_million.txt}" "$W/million"
echo "hw_million exit $?"
rm -rf "$W/mwork"
(cd "$W" && tar cf - million | xz -T0 -6 > "$O/million.tar.xz")
ls -la "$O"
