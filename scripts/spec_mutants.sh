#!/bin/sh
# The table of docs/hardware.md ("What rests on a specification only"): each
# specification preset, and a unit one rule away from it, against the
# oracle written from the document (tests/spec/test_spec.c --mutate); every
# mutant must be caught.  Builds the test program when missing.
# usage: scripts/spec_mutants.sh [COUNT]   (4000 vectors a preset); then
# the line of test_spec's own run (make test-spec)
set -u
[ -x build/tests/test_spec ] || make -s MMAREF_DEPS=no build/tests/test_spec > /dev/null 2>&1 || exit 2
echo "| preset | the unit one rule away | vectors telling it from the document's oracle |"
echo "|---|---|---|"
build/tests/test_spec "${1:-4000}" --mutate | sed -n 's/^  mutant of \([^ ]*\) *[A-Z ]*[a-z]*: *\([0-9]*\) of \([0-9]*\) vectors differ  (\(.*\))$/| `\1` | `\4` | \2 of \3 |/p'
echo
build/tests/test_spec 20000 | tail -1
