#!/bin/sh
# The x86 tables of docs/hardware.md ("x86"), from what the captures left in
# vectors/hw/<cpu>/ (scripts/device_x86_capture.sh: cpu.txt, log.tsv, the
# samples x86_<instr>.sample.vec.xz).
#
# usage: scripts/hw_x86_table.sh MMAREF counts DIR...   vectors judged on the
#            machine, per instruction and distribution (log.tsv)
#        scripts/hw_x86_table.sh MMAREF models DIR...   the catalogue model
#            and the nearest wrong ones, checked now on the committed samples
# A directory that does not exist is left out.
set -u
M=$1 what=$2
shift 2
cpu_of() { sed -n 's/^model name[[:space:]]*: //p' "$1/cpu.txt" | head -1; }
fam_of() { sed -n 's/^cpu family \([0-9]*\), model \([0-9]*\).*/family \1, model \2/p' "$1/cpu.txt" | head -1; }

if [ "$what" = counts ]; then
  echo "| CPU | instruction | distribution | vectors judged | mismatches |"
  echo "|---|---|---|---|---|"
  for d in "$@"; do
    [ -f "$d/log.tsv" ] || continue
    awk -F'\t' -v cpu="$(cpu_of "$d") ($(fam_of "$d"))" '
      { v[$1"\t"$2] += $4; if ($5 < 0) f[$1"\t"$2]++; else m[$1"\t"$2] += $5; V[$1] += $4; M[$1] += ($5 > 0 ? $5 : 0) }
      END {
        n = 0; for (k in v) keys[n++] = k
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
        for (i = 0; i < n; i++) { split(keys[i], p, "\t")
          printf "| %s | `x86:%s` | %s | %d | %d%s |\n", cpu, p[1], p[2], v[keys[i]], m[keys[i]], f[keys[i]] ? " (" f[keys[i]] " failed tasks)" : "" }
        for (k in V) printf "| %s | **`x86:%s`, all** | | **%d** | **%d** |\n", cpu, k, V[k], M[k] }' "$d/log.tsv"
  done
  exit 0
fi

[ "$what" = models ] || { echo "usage: $0 MMAREF counts|models DIR..." >&2; exit 2; }
echo "| CPU | model | sample vectors | mismatches |"
echo "|---|---|---|---|"
# (a chains configuration without tiny= gets tiny=after, the SDM's: its base leaves it out)
row() { c=$2; case $c in chains,*tiny=*) ;; chains,*) c="$c,tiny=after" ;; esac
        r=$("$M" check "$1" ${c:+--instr "$c"} --show 0 | tail -1); printf '| %s | %s | %s | %s |\n' "$3" "$4" "${r%% vectors*}" "${r##*, }" | sed 's/ mismatches |$/ |/'; }
for d in "$@"; do
  for f in "$d"/x86_*.sample.vec.xz; do
    [ -f "$f" ] || continue
    i=${f##*/x86_}; i=${i%%.*}
    cpu="$(cpu_of "$d")"
    row "$f" "" "$cpu" "\`x86:$i\` (catalogue)"
    if [ "$i" = tdpbf16ps ]; then
      base="chains,a=bf16,k=32,round=rne,ovf=ieee,zero=ieee"
      row "$f" "$base,ways=1,start=c,ftz=in+out,nan=x86" "$cpu" "one fma chain from c in k order"
      row "$f" "$base,ways=1,start=zero,ftz=in+out,nan=x86" "$cpu" "one fma chain from 0, then c"
      row "$f" "$base,ways=2,start=none,ftz=in+out,nan=x86" "$cpu" "even/odd chains starting at the first product (not +0)"
      row "$f" "$base,ways=2,start=zero,ftz=none,nan=x86" "$cpu" "no DAZ, no FTZ"
      row "$f" "$base,ways=2,start=zero,ftz=out,nan=x86" "$cpu" "FTZ only"
      row "$f" "$base,ways=2,start=zero,ftz=in,nan=x86" "$cpu" "DAZ only"
      row "$f" "$base,ways=2,start=zero,ftz=in+out,nan=x86,tiny=before" "$cpu" "flush by tininess before rounding"
      row "$f" "$base,ways=2,start=zero,ftz=in+out,nan=default" "$cpu" "default NaN (0x7fc00000) for every NaN"
      row "$f" "ieee,a=bf16,k=32,round=rne" "$cpu" "one exact sum, one rounding"
    else
      base="chains,a=bf16,k=2,ways=1,start=c,round=rne,ovf=ieee,zero=ieee"
      row "$f" "$base,order=up,ftz=in+out,nan=x86" "$cpu" "even product first (k order)"
      row "$f" "$base,order=down,ftz=none,nan=x86" "$cpu" "no DAZ, no FTZ"
      row "$f" "$base,order=down,ftz=out,nan=x86" "$cpu" "FTZ only"
      row "$f" "$base,order=down,ftz=in,nan=x86" "$cpu" "DAZ only"
      row "$f" "$base,order=down,ftz=in+out,nan=x86,tiny=before" "$cpu" "flush by tininess before rounding"
      row "$f" "$base,order=down,ftz=in+out,nan=default" "$cpu" "default NaN (0x7fc00000) for every NaN"
      row "$f" "$base,order=down,ftz=in+out,nan=prop" "$cpu" "IEEE-style propagation (c's NaN first)"
      row "$f" "ieee,a=bf16,k=2,round=rne" "$cpu" "one exact sum, one rounding"
    fi
  done
done
