#!/bin/sh
# The generated parts of docs/triage.md: the probe on every instruction
# captured on the H100 (the files of one instruction probed together, the
# million-run sample of million/ included), and the example outputs.
# Each part sits between '<!-- gen:NAME begin -->' and
# '<!-- gen:NAME end -->' in the document.
#   triage_doc.sh MMAREF RTL_OUT_DIR             print every part
#   triage_doc.sh MMAREF RTL_OUT_DIR --check F   fail unless F holds them
#   triage_doc.sh MMAREF RTL_OUT_DIR --update F  write them into F
# RTL_OUT_DIR: the broken F=12 RTL run over vector files (mk/triage.mk).
# Exit status 1 also when the probe misses an H100 instruction: no
# configuration reproducing all its vectors, or another F, rounding,
# output precision or summation than the catalogue's.
M=${1:-build/mmaref}; RTL=${2:-build/rtl/out_qgmma_e4m3_broken}
MODE=${3:-}; DOC=${4:-}
V=vectors/hw/h100
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
field() { printf '%s\n' "$1" | tr ',' '\n' | sed -n "s/^$2=//p"; }
# the arithmetic of a configuration string: its tree and fields but the formats and k
arith() { printf '%s\n' "$1" | tr ',' '\n' | grep -vE '^(a|b|c|d|k)=' | paste -sd, -; }
fail=0

# ---- h100: the probe on every instruction --------------------------------
{
  echo "| instruction | vectors | configuration found by the probe (formats and k left out) | the catalogue's |"
  echo "|---|---|---|---|"
  for fam in $(cd $V && ls *.vec.xz million/*.vec.xz | sed 's|^million/||; s/\.[a-z]*\.vec\.xz$//' | sort -u); do
    set --
    for f in $V/$fam.*.vec.xz $V/million/$fam.*.vec.xz; do [ -f "$f" ] && set -- "$@" "$f"; done
    name=$(xz -dc "$1" | sed -n 's/^# instr: //p' | head -1)
    cat_cfg=$($M describe "$name" | sed -n 's/^config: //p')
    $M probe "$@" > "$T/out" 2> "$T/err"; rc=$?
    cfg=$(sed -n 's/^config: //p' "$T/out")
    n=$(sed -n 's/^reproduces [0-9]* of \([0-9]*\) vectors.*/\1/p' "$T/out")
    # the catalogue's values where they differ
    diffs=""
    for key in f l round p cadd interleave ezero via; do
      [ "$(field "$cfg" $key)" = "$(field "$cat_cfg" $key)" ] || diffs="$diffs${diffs:+, }$key=$(field "$cat_cfg" $key)"
    done
    [ "$(arith "$cfg")" = "$(arith "$cat_cfg")" ] && diffs=""
    if [ -z "$diffs" ] && [ "$(arith "$cfg")" = "$(arith "$cat_cfg")" ]; then same="the same"
    elif grep -q "^the same as the catalogue's.* $name[, ]" "$T/out"; then same="$diffs, which reproduces the same vectors"
    else same="differs"; fi
    # with the compliance suite the vectors pin the summation, F, the
    # rounding and the precision: those must be the catalogue's
    pinned=ok
    if [ -f $V/$fam.compliance.vec.xz ]; then
      for key in f l round p cadd interleave; do
        [ "$(field "$cfg" $key)" = "$(field "$cat_cfg" $key)" ] || pinned=no
      done
    else
      same="$same (no compliance capture)"
    fi
    [ $rc = 0 ] && [ "$same" != differs ] && [ $pinned = ok ] || { fail=1; echo "probe missed $name (exit $rc): $cfg" >&2; }
    printf '| %s | %s | `%s` | %s |\n' "$name" "$n" "$(arith "$cfg")" "$same"
  done
} > "$T/gen.h100"

# ---- examples -------------------------------------------------------------
{
  echo '```'
  echo '$ mmaref probe vectors/hw/h100/wgmma.m64n8k16.f32.bf16.bf16.*.vec.xz'
  $M probe $V/wgmma.m64n8k16.f32.bf16.bf16.*.vec.xz 2> /dev/null
  echo '```'
} > "$T/gen.probe"
Q=$V/wgmma.m64n8k32.f32.e4m3.e4m3.compliance.vec.xz
"$RTL/Vmma_dpa" $Q "$T/rtl.vec" "$(cat "$RTL/params")" 2> "$T/err" || { cat "$T/err" >&2; fail=1; }
{
  echo '```'
  echo '$ mmaref check qgmma_f12_rtl.vec --explain --show 1'
  $M check "$T/rtl.vec" --explain --show 1 | sed "s|$T/rtl.vec|qgmma_f12_rtl.vec|"
  echo '```'
} > "$T/gen.explain"
{
  echo '```'
  echo '$ mmaref probe qgmma_f12_rtl.vec'
  $M probe "$T/rtl.vec" 2> /dev/null
  echo '```'
} > "$T/gen.probe12"

parts="h100 probe explain probe12"
case $MODE in
--check|--update)
  cp "$DOC" "$T/doc"
  for p in $parts; do
    awk -v p="$p" -v f="$T/gen.$p" '
      $0 == "<!-- gen:" p " begin -->" { print; while ((getline l < f) > 0) print l; skip = 1; next }
      $0 == "<!-- gen:" p " end -->" { skip = 0 }
      !skip' "$T/doc" > "$T/doc.new"
    grep -q "<!-- gen:$p begin -->" "$T/doc" || { echo "triage_doc: $DOC has no part '$p'" >&2; fail=1; }
    mv "$T/doc.new" "$T/doc"
  done
  if [ "$MODE" = --update ]; then cp "$T/doc" "$DOC"
  elif ! cmp -s "$T/doc" "$DOC"; then
    echo "triage_doc: $DOC does not hold what the commands give now:" >&2
    diff "$DOC" "$T/doc" >&2
    fail=1
  fi ;;
*)
  for p in $parts; do echo "== $p"; cat "$T/gen.$p"; done ;;
esac
exit $fail
