#!/bin/sh
# run_hw.sh RTL_B MMAPARAMS tag=instr ...
# Runs every hardware vector file of vectors/hw/h100/ whose instruction is
# one of the given presets (the same unit: equal canonical configuration)
# through that preset's testbench: the DUT must match both the model and the
# file's captured d.  Exit status 1 on any mismatch.
rtlb=$1; params=$2; shift 2
dir=vectors/hw/h100
fail=0; ran=0; skipped=0; total=0
cfgs=""
for pair in "$@"; do
    tag=${pair%%=*}; instr=${pair#*=}
    cfgs="$cfgs$tag	$("$params" --config "$instr")
"
done
for f in $dir/*.vec $dir/*.vec.gz $dir/*.vec.xz; do
    [ -f "$f" ] || continue
    case $f in
        *.gz) hdr=$(gzip -dc "$f" | head -20) ;;
        *.xz) hdr=$(xz -dc "$f" | head -20) ;;
        *) hdr=$(head -20 "$f") ;;
    esac
    arch=$(printf '%s\n' "$hdr" | sed -n 's/^# arch: *//p' | head -1)
    instr=$(printf '%s\n' "$hdr" | sed -n 's/^# instr: *//p' | head -1)
    case $instr in *:*) name=$instr ;; *) name="$arch:$instr" ;; esac
    cfg=$("$params" --config "$name" 2>/dev/null)
    tag=$(printf '%s' "$cfgs" | awk -F '\t' -v c="$cfg" '$2 == c && c != "" {print $1; exit}')
    if [ -z "$tag" ]; then
        skipped=$((skipped + 1))
        continue
    fi
    log=$rtlb/$tag/hw-$(basename "$f").log
    "$rtlb/$tag/Vtb_top" +vec="$f" +quiet > "$log" 2>&1
    rc=$?
    printf '== %-12s %-52s ' "$tag" "$(basename "$f")"
    grep -E "vectors, .* mismatches" "$log" | head -1
    grep -E "with the file's d" "$log" | head -1
    n=$(sed -n 's/^\([0-9]*\) vectors, .*/\1/p' "$log" | head -1)
    total=$((total + ${n:-0}))
    ran=$((ran + 1))
    if [ $rc -ne 0 ]; then grep -E "^  vector|dut d=" "$log" | head -6; fail=1; fi
done
echo "== hardware vector files: $ran files, $total vectors run; $skipped files of instructions without an RTL unit here"
[ $fail -eq 0 ] || { echo "FAIL: hardware vector files"; exit 1; }
exit 0
