#!/bin/sh
# Compare mmaref with the peer model mmasim on every instruction both know
# (docs/peer-comparison.md).  For each name in mmasim_instructions.txt:
#   mmaref gen NAME --suite compliance|random --count N --seed SEED
#   mmasim_fill.py (d from mmasim, CPU)
#   mmaref check (bit for bit; NaN = NaN only where the unit says nan=any)
# Writes one TSV line per file to DIR/results.tsv (name, suite, vectors,
# mismatches) and prints the totals.
#
#   scripts/peer/compare_all.sh [-n COUNT] [-s SEED] [-j JOBS] [-m REGEX] [-S SUITES] [-l NAMES] DIR
#
# NAMES is the list of names (default scripts/peer/mmasim_instructions.txt,
# 380 names; mmasim_instructions_all.txt has every shape mmasim lists).
# SUITES (default "compliance random") are mmaref gen suites; MMAREF names
# the mmaref binary to use (default build/mmaref).
#
# DIR receives the filled files (<arch>__<qualifier, :: as _>.<suite>.vec)
# and results.tsv.  Needs build/mmaref and mmasim (docs/peer.md).
set -eu
COUNT=10000 SEED=11 JOBS=2 MATCH=. SUITES="compliance random" NAMES=
while getopts n:s:j:m:S:l: o; do
  case $o in n) COUNT=$OPTARG;; s) SEED=$OPTARG;; j) JOBS=$OPTARG;; m) MATCH=$OPTARG;; S) SUITES=$OPTARG;; l) NAMES=$OPTARG;; *) exit 2;; esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: $0 [-n COUNT] [-s SEED] [-j JOBS] [-m REGEX] [-S SUITES] [-l NAMES] DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
M=${MMAREF:-$ROOT/build/mmaref}   # a private copy keeps a concurrent rebuild out
DIR=$1
mkdir -p "$DIR"
grep -E -- "$MATCH" "${NAMES:-$ROOT/scripts/peer/mmasim_instructions.txt}" > "$DIR/names.txt"

# 1. generate (our generator; d is the model's, replaced below)
while read -r I; do
  F=$(printf '%s' "$I" | sed 's/:/__/; s/::/_/g')
  for S in $SUITES; do
    "$M" gen "$I" --suite $S --count "$COUNT" --seed "$SEED" -o "$DIR/$F.$S.vec"
  done
done < "$DIR/names.txt"

# 2. fill d with mmasim, JOBS processes, in place
ls "$DIR"/*.vec > "$DIR/files.txt"
split -n l/"$JOBS" "$DIR/files.txt" "$DIR/part."
for p in "$DIR"/part.*; do
  xargs python3 "$ROOT/scripts/peer/mmasim_fill.py" -q < "$p" &
done
wait
rm -f "$DIR"/part.*

# 3. check with the model
: > "$DIR/results.tsv"
while read -r I; do
  F=$(printf '%s' "$I" | sed 's/:/__/; s/::/_/g')
  for S in $SUITES; do
    r=$("$M" check "$DIR/$F.$S.vec" --show 0 | tail -1 || true)
    n=${r%% vectors*}; m=${r#*, }; m=${m%% mismatches}
    printf '%s\t%s\t%s\t%s\n' "$I" "$S" "$n" "$m" >> "$DIR/results.tsv"
  done
done < "$DIR/names.txt"
awk -F'\t' '{v+=$3; m+=$4; if ($4 > 0) f++} END {printf "%d files, %d vectors, %d mismatches, %d files with mismatches\n", NR, v, m, f}' "$DIR/results.tsv"
