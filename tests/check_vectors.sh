#!/bin/sh
# Checks the model against every committed vector file (hardware captures and
# peer-model vectors): any mismatch fails the test.
# usage: tests/check_vectors.sh path/to/mmaref DIR...
M=$1; shift
files=0; vecs=0; bad=0
for d in "$@"; do
  [ -d "$d" ] || continue
  for f in $(find "$d" -name '*.vec' -o -name '*.vec.xz' -o -name '*.vec.gz' | sort); do
    out=$($M check "$f" --show 3); rc=$?
    last=$(printf '%s\n' "$out" | tail -1)
    n=$(printf '%s' "$last" | sed -n 's/^\([0-9]*\) vectors.*/\1/p')
    files=$((files + 1)); vecs=$((vecs + ${n:-0}))
    if [ $rc != 0 ]; then bad=$((bad + 1)); printf 'FAIL %s\n%s\n' "$f" "$(printf '%s\n' "$out" | tail -8)"; fi
  done
done
echo "vector files: $files files, $vecs vectors, $bad files with mismatches or errors"
echo "vector files: $((files - bad)) passed, $bad failed"
[ $bad = 0 ]
