#!/bin/sh
# Every suite of `mmaref gen` on the units of tests/gen_identity.units and
# three seeds, each output's SHA-256 against tests/gen_identity.sha256: the
# stimulus moved from the command into the library (issue 30) and must
# write the same bytes as before.  The manifest was recorded with the
# binary built before the move (commit 969e6d8); --record writes it anew.
#   sh tests/gen_identity.sh build/mmaref [--record]
set -u
M=${1:?usage: gen_identity.sh MMAREF [--record]}
DIR=$(dirname "$0")
MAN=$DIR/gen_identity.sha256
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
COUNT=300
for s in $("$M" gen --list-suites | awk '{print $1}'); do
    while read -r u; do
        for seed in 1 7 18446744073709551615; do
            "$M" gen "$u" --suite "$s" --count $COUNT --seed $seed --threads 1 -o "$T/v.vec" || { echo "FAIL gen $u $s $seed"; exit 1; }
            printf '%s %s %s %s\n' "$s" "$u" "$seed" "$(sha256sum < "$T/v.vec" | cut -c1-64)"
        done
    done < "$DIR/gen_identity.units"
done > "$T/now"
n=$(wc -l < "$T/now")
if [ "${2:-}" = --record ]; then
    mv "$T/now" "$MAN" && echo "recorded $n outputs in $MAN"
    exit 0
fi
if diff "$MAN" "$T/now" > "$T/diff"; then
    echo "gen identity (suites x units x seeds, $COUNT vectors each): $n passed, 0 failed"
else
    bad=$(grep -c '^>' "$T/diff")
    head -20 "$T/diff"
    echo "gen identity (suites x units x seeds, $COUNT vectors each): $((n - bad)) passed, $bad failed"
    exit 1
fi
