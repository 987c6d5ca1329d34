#!/bin/sh
# rtl_families.sh [MMAREF] [MMAPARAMS]: which algorithms of the catalogue
# (`mmaref list`) the RTL realizes, as a markdown table for docs/rtl.md:
# per algorithm the instructions, how many mmaparams maps onto rtl/ (its top
# module), and the reason it gives for the first one it refuses.
M=${1:-build/mmaref}
P=${2:-build/rtl/mmaparams}
[ -x "$P" ] || make -s MMAREF_DEPS=no "$P" > /dev/null || exit 1
echo "| algorithm | instructions | with RTL | top | the first refusal |"
echo "|---|---|---|---|---|"
"$M" list | awk '{print $2, $1}' | sort -s -k1,1 | {
    last="" n=0 ok=0 top="" why=""
    flush() {
        [ -n "$last" ] && echo "| $last | $n | $ok | ${top:--} | ${why:-} |"
    }
    while read -r alg instr; do
        if [ "$alg" != "$last" ]; then flush; last=$alg n=0 ok=0 top="" why=""; fi
        n=$((n + 1))
        if err=$("$P" "$instr" 2>&1 > /dev/null); then
            ok=$((ok + 1)); top=$("$P" --top "$instr")
        elif [ -z "$why" ]; then
            why=$(echo "$err" | sed 's/^mmaparams: [^ ]*: //; s/|/\\|/g')
        fi
    done
    flush
}
