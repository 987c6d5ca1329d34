#!/bin/sh
# Per-architecture totals of a compare_all.sh results file (name, suite,
# vectors, mismatches; .tsv or .tsv.gz), as the table of
# docs/peer-comparison.md.   usage: scripts/peer/summary.sh RESULTS
case "$1" in *.gz) cat="gzip -dc" ;; *) cat=cat ;; esac
$cat "$1" | awk -F'\t' '
  { split($1, a, ":"); v[a[1]] += $3; m[a[1]] += $4; if (!seen[$1]++) n[a[1]]++; tv += $3; tm += $4; if (!all[$1]++) tn++ }
  END {
    print "| arch | names | vectors | disagreements |"
    print "|---|---|---|---|"
    split("volta turing ampere ada hopper blackwell rtx-blackwell cdna1 cdna2 cdna3", order, " ")
    for (i = 1; i <= 10; i++) { x = order[i]; if (x in v) printf "| %s | %d | %d | %d |\n", x, n[x], v[x], m[x] }
    printf "| **total** | **%d** | **%d** | **%d** |\n", tn, tv, tm
  }'
