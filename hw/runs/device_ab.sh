#!/bin/sh
# A/B on the device host: the AVX-512 kernels against the AVX2 ones (one binary,
# MMAREF_NO_AVX512), and this commit against 43b52a2 (before this session's kernels)
set -u
D=$(cd "$(dirname "$0")" && pwd)
for b in mmaref mmaref_old; do python3 -c "import lzma,shutil,sys;shutil.copyfileobj(lzma.open(sys.argv[1]+'.xz'),open(sys.argv[1],'wb'))" "$D/$b"; chmod +x "$D/$b"; done
M=$D/mmaref; O=$D/mmaref_old
Q=hopper:wgmma.m64n8k32.f32.e4m3.e4m3; A=ampere:mma.m16n8k16.f32.f16.f16.f32; H=hopper:wgmma.m64n8k16.f32.bf16.bf16
C1=cdna1:v_mfma_f32_16x16x16f16; C4=cdna1:v_mfma_f32_4x4x4f16
for u in $Q $A $H $C1 $C4; do $M gen $u --suite random --count 100000 --seed 1 -o /tmp/$u.vec --threads 16; done
r() { awk 'NR > 1 { printf "%s %s %.1f %s\n", $1, $3, $4 / 1e6, ($8 == "" || $8 == "-") ? "-" : sprintf("%.1f", $8 / 1e6) }'; }
for rep in 1 2 3; do
  echo "== rep $rep: bench (normal suite, 4096 vectors): name kernel mma_dot-M batch-M"
  echo "-- new";              $M bench $Q $A $H $C1 --threads 1 --seconds 0.5 | r
  echo "-- new, no AVX-512";  MMAREF_NO_AVX512=1 $M bench $Q $A $H $C1 --threads 1 --seconds 0.5 | r
  echo "-- old (43b52a2)";    $O bench $Q $A $H $C1 --threads 1 --seconds 0.5 | r
  echo "== rep $rep: bench --file (100,000 random-bit vectors, batch)"
  for u in $Q $A $H $C1 $C4; do
    echo "$u new $($M bench --file /tmp/$u.vec --threads 1 --seconds 0.5 | r | awk '{print $3}') noavx512 $(MMAREF_NO_AVX512=1 $M bench --file /tmp/$u.vec --threads 1 --seconds 0.5 | r | awk '{print $3}') old $($O bench --file /tmp/$u.vec --threads 1 --seconds 0.5 | r | awk '{print $3}')"
  done
done
