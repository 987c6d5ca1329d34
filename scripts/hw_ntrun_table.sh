#!/bin/sh
# The accumulator-truncation experiment on the H100 beside `mmaref gemm
# --ntrun` (docs/accuracy.md, "The truncation experiment on an H100"):
# reads the device's log (docs/data/ntrun-h100.txt, written by hw/ntrun in
# hw/runs/device_run4.sh and device_run5.sh: the GPU's column and the
# model's on the same inputs), runs `mmaref gemm --ntrun` for the model on
# its own draws, and writes the tables between the ntrun-h100 markers.
# usage: scripts/hw_ntrun_table.sh [build/mmaref] [docs/accuracy.md]
set -e
M=${1:-build/mmaref}
DOC=${2:-docs/accuracy.md}
LOG=${NTRUN_LOG:-docs/data/ntrun-h100.txt}
W=${PLOT_WORK:-build/plots}
mkdir -p "$W"

# one line per experiment: instr K nc|feed seed first_hw first_model differing frac_hw_at_first
awk '
  /^# ntrun / { instr = $3; sub(/^hopper:/, "", instr); match($0, /K=[0-9]+/); k = substr($0, RSTART + 2, RLENGTH - 2)
                match($0, /seed [0-9]+/); seed = substr($0, RSTART + 5, RLENGTH - 5); mode = "feed"; next }
  /^# every [0-9]+ products/ { mode = $3; next }
  /^[0-9]+\t/ { f[$1] = $2 }
  /^# first Ntrun/ { hw = $9; sub(/,/, "", hw); md = $11; sub(/;/, "", md)
                     print instr, k, mode, seed, hw, md, $NF, (hw >= 0 ? f[hw] : "-"); delete f }' "$LOG" > "$W/ntrun-hw.txt"

gemm_first() {   # instr nc k seed -> "first fraction" from mmaref gemm --ntrun
  "$M" gemm "hopper:$1" --nc "$2" --k "$3" --ntrun --count 2000 --seed "$4" --json > "$W/ntrun.json"
  first=$(sed -n 's/.*"first_change":\(-*[0-9]*\).*/\1/p' "$W/ntrun.json" | head -1)
  at=$(tr '{' '\n' < "$W/ntrun.json" | sed -n "s/^\"ntrun\":$first,\"changed\":\([^,]*\),.*/\1/p" | head -1)
  echo "$first ${at:--}"
}

{
echo '| instruction (H100; N(0, 1) inputs, 2000 outputs) | K | truncated | H100: results first change at Ntrun | H100: fraction changed there | model on the same inputs: first change | results where the model and the H100 differ (all 24 Ntrun) | `mmaref gemm --ntrun` (its own draws): first change | fraction there |'
echo '|---|---|---|---|---|---|---|---|---|'
while read -r instr k mode seed hw md diff frac; do
  if [ "$mode" = feed ]; then what="every call, fed back as c"; g="- -"
  else
    calls=$((mode / $(echo "$instr" | sed 's/.*k\([0-9]*\)\..*/\1/')))
    what="every $mode products ($calls call$([ "$calls" = 1 ] || echo s))"
    g=$(gemm_first "$instr" "$mode" "$k" "$seed")
  fi
  printf '| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$instr" "$k" "$what" "$hw" "$frac" "$md" "$diff" ${g}
done < "$W/ntrun-hw.txt"
} > "$W/ntrun-h100.md"

# the whole curve of the QGMMA and fp8 mma.sync rows (BLOCK_K = 32)
curve() {   # instr -> "ntrun hw" lines from the log
  awk -v want="hopper:$1" '/^# ntrun / { on = ($3 == want) } /^# every / { on = on && $3 == 32 } on && /^[0-9]+\t/ { print $1, $2 }' "$LOG"
}
{
echo '| Ntrun | QGMMA `wgmma.m64n8k32.f32.e4m3.e4m3`, H100 | the same, `mmaref gemm --ntrun` | emulated `mma.m16n8k32.f32.e4m3.e4m3.f32`, H100 | the same, `mmaref gemm --ntrun` |'
echo '|---|---|---|---|---|'
curve wgmma.m64n8k32.f32.e4m3.e4m3 > "$W/c1"
curve mma.m16n8k32.f32.e4m3.e4m3.f32 > "$W/c2"
"$M" gemm hopper:wgmma.m64n8k32.f32.e4m3.e4m3 --nc 32 --k 1024 --ntrun --count 2000 --seed 1 --csv | awk -F, 'NR > 1 { print $7, $8 }' > "$W/g1"
"$M" gemm hopper:mma.m16n8k32.f32.e4m3.e4m3.f32 --nc 32 --k 1024 --ntrun --count 2000 --seed 1 --csv | awk -F, 'NR > 1 { print $7, $8 }' > "$W/g2"
paste -d' ' "$W/c1" "$W/g1" "$W/c2" "$W/g2" | awk '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $4, $6, $8 }'
} > "$W/ntrun-h100-curve.md"

sh scripts/splice_table.sh "$DOC" ntrun-h100 "$W/ntrun-h100.md"
sh scripts/splice_table.sh "$DOC" ntrun-h100-curve "$W/ntrun-h100-curve.md"
echo "hw_ntrun_table: $DOC updated"
