#!/bin/sh
# How much is each suite worth?  For a few instructions, generate every suite
# and check it against deliberately wrong units (mutants of the right one):
# a suite catches a mutant when at least one vector mismatches; "first" is
# the index of the first vector that does (how few vectors it takes).
# usage: scripts/suite_value.sh [mmaref] [count]   (writes a Markdown table)
M=${1:-build/mmaref}
N=${2:-2000}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# every suite of the library, compliance first, the others in its order
SUITES="compliance $($M gen --list-suites | awk '$1 != "compliance" { print $1 }' | tr '\n' ' ')"
mutants() {   # mutants of configuration $1, one per line: "<name>|<config>"
  c=$1
  f=$(echo "$c" | sed -n 's/.*,f=\([0-9]*\).*/\1/p'); k=$(echo "$c" | sed -n 's/.*,k=\([0-9]*\).*/\1/p')
  l=$(echo "$c" | sed -n 's/.*,l=\([0-9]*\).*/\1/p')
  [ -n "$f" ] && echo "F-1|$(echo "$c" | sed "s/,f=$f,/,f=$((f - 1)),/")"
  [ -n "$f" ] && echo "F+1|$(echo "$c" | sed "s/,f=$f,/,f=$((f + 1)),/")"
  case $c in *round=rz,*) echo "RNE for RZ|$(echo "$c" | sed 's/round=rz,/round=rne,/')" ;;
             *round=rne,*) echo "RZ for RNE|$(echo "$c" | sed 's/round=rne,/round=rz,/')" ;;
             *round=rmm,*) echo "RNE for RMM|$(echo "$c" | sed 's/round=rmm,/round=rne,/')" ;;
             *round=rd,*) echo "RZ for RD|$(echo "$c" | sed 's/round=rd,/round=rz,/')" ;;
             *round=ru,*) echo "RZ for RU|$(echo "$c" | sed 's/round=ru,/round=rz,/')" ;; esac
  if [ -n "$l" ] && [ "$l" = "$k" ] && [ "$k" -ge 2 ]; then echo "chained halves|$(echo "$c" | sed "s/,l=$l,/,l=$((k / 2)),/")"; fi
  if [ -n "$l" ] && [ "$l" != "$k" ]; then echo "fused, not chained|$(echo "$c" | sed "s/,l=$l,/,l=$k,/")"; fi
  case $c in fused*cadd=*) ;; fused*align=rz*) echo "align RD|$(echo "$c" | sed 's/align=rz/align=rd/')" ;; esac
  case $c in fused*cadd=rd*) ;; fused*) echo "flush subnormal inputs|$c,ftz=in"; echo "IEEE NaN, not canonical|$(echo "$c" | sed 's/nan=canon/nan=default/')" ;; esac
  # IEEE units: zero signs, overflow, flags, NaN rule
  case $c in ieee*)
    echo "zero=pos (wrong zero sign)|$(echo "$c" | sed 's/zero=ieee/zero=pos/')"
    case $c in *round=rz,*|*round=rd,*|*round=ru,*|*round=rodd,*) echo "overflow to Inf|$(echo "$c" | sed 's/ovf=ieee/ovf=inf/')" ;;
                *) echo "saturation|$(echo "$c" | sed 's/ovf=ieee/ovf=sat/')" ;; esac
    echo "tininess before rounding (flags)|$(echo "$c" | sed 's/tiny=after/tiny=before/')"
    echo "canonical NaN|$(echo "$c" | sed 's/nan=default/nan=canon/; s/nan=prop/nan=default/')" ;; esac
  case $c in *ezero=-*) echo "zeros out of emax|$(echo "$c" | sed 's/ezero=-[0-9]*/ezero=none/')"; echo "ezero -126 (MMA-Sim 1.x)|$(echo "$c" | sed 's/ezero=-[0-9]*/ezero=-126/')" ;; esac
  case $c in *cadd=rdz*) echo "c rounded down, not cut|$(echo "$c" | sed 's/cadd=rdz/cadd=rd/')" ;; esac
  case $c in *f2=31*) echo "F2-1|$(echo "$c" | sed 's/f2=31/f2=30/')" ;; esac
  case $c in *povf=1*) echo "products never overflow|$(echo "$c" | sed 's/,povf=1//')" ;; esac
  case $c in pairwise*g=4*) echo "pairs, not quads|$(echo "$c" | sed 's/g=4/g=2/')" ;; esac
}
for I in hopper:wgmma.m64n8k32.f32.e4m3.e4m3 hopper:wgmma.m64n8k16.f16.f16.f16 hopper:wgmma.m64n8k16.f32.bf16.bf16 \
         ampere:mma.m16n8k16.f32.bf16.bf16.f32 cdna3:v_mfma_f32_16x16x32_fp8_fp8 cdna3:v_mfma_f32_16x16x16_bf16 \
         cdna2:v_mfma_f32_32x32x8f16 "ieee,a=fp16,c=fp32,k=2,round=rd" "ieee,a=e5m2,c=fp16,d=fp16,k=2,round=rz" \
         "ieee,a=fp16,c=fp16,d=fp16,k=4,round=rmm" "ieee,a=bf16,c=bf16,d=bf16,k=4,round=ru" \
         "ieee,a=e4m3,c=fp16,d=e4m3,k=8,round=rne,nan=prop"; do
  cfg=$($M describe "$I" | sed -n 's/^config: //p')
  mutants "$cfg" > "$T/mut"
  echo; echo "### $I"; echo
  echo "right unit: \`$cfg\`"; echo
  printf '| suite |'; while IFS='|' read -r name _; do printf ' %s |' "$name"; done < "$T/mut"; printf ' caught |\n'
  printf '|---|'; while IFS='|' read -r _ _; do printf -- '---|'; done < "$T/mut"; printf -- '---|\n'
  for S in $SUITES; do
    $M gen "$I" --suite $S --count "$N" --seed 3 -o "$T/s.vec" 2>/dev/null || continue
    hdr=$(grep -c '^#' "$T/s.vec")
    printf '| %s |' "$S"; caught=0; total=0
    while IFS='|' read -r name mc; do
      total=$((total + 1))
      out=$($M check "$T/s.vec" --instr "$mc" --show 1 2>&1)
      nm=$(printf '%s\n' "$out" | tail -1 | sed -n 's/.*, \([0-9]*\) mismatches/\1/p')
      if [ "${nm:-0}" -gt 0 ]; then
        caught=$((caught + 1))
        first=$(printf '%s\n' "$out" | sed -n 's/^mismatch [^:]*:\([0-9]*\):.*/\1/p' | head -1)
        printf ' %s (1st: %s) |' "$nm" "$((first - hdr))"
      else printf ' - |'; fi
    done < "$T/mut"
    printf ' %s/%s |\n' "$caught" "$total"
  done
done
