#!/bin/sh
# A live capture on the CPU running the tests (make test-x86-live): when it
# runs VDPBF16PS (AVX512-BF16: Intel since Cooper Lake, AMD since Zen 4) or
# TDPBF16PS (AMX-BF16, with the kernel's permission), COUNT vectors of each
# distribution of hw/xeon/capture_x86 go through the instruction and are
# judged by the catalogue model; any mismatch fails.  A CPU with neither
# passes, saying so.
# usage: tests/x86_live.sh CAPTURE MMAREF [COUNT]
C=$1 M=$2 N=${3:-20000}
# judged by the model's integer kernels, not the host's fma (the chains'
# fast path may run on it: fast_chains.c), so that the CPU under test is
# not also the judge
export MMAREF_NO_HOST_FMA=1
have=$("$C" --probe 2>/dev/null)
cpu=$("$C" --probe 2>&1 >/dev/null | sed 's/^cpu: //')
if [ -z "$have" ]; then
  echo "test-x86-live: this CPU ($cpu) runs neither VDPBF16PS nor TDPBF16PS: nothing to capture"
  exit 0
fi
bad=0 total=0
for i in $have; do
  for d in bits random tiny overflow cancel zeros nan ties; do
    out=$("$C" --instr "$i" --dist "$d" --count "$N" --seed 1 | "$M" check - --show 3)
    last=$(printf '%s\n' "$out" | tail -1)
    case "$last" in
      "$N vectors, 0 mismatches") total=$((total + N)) ;;
      *) bad=$((bad + 1)); printf 'FAIL x86:%s %s on %s\n%s\n' "$i" "$d" "$cpu" "$(printf '%s\n' "$out" | tail -8)" ;;
    esac
  done
done
echo "test-x86-live: $cpu: $have: $total vectors captured and judged, $bad distributions with mismatches"
[ $bad = 0 ]
