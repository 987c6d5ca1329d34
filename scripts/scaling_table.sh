#!/bin/sh
# The scaling table of docs/performance.md from scripts/scaling.sh's TSV
# (docs/data/scaling_16.tsv): rates per thread count and the speed-up at
# the most threads.   scripts/scaling_table.sh [FILE.tsv]
awk -F'\t' '
  function m(x) { return x >= 1e8 ? sprintf("%.0f M", x / 1e6) : sprintf("%.2f M", x / 1e6) }
  /^#/ || $1 == "command" { next }
  { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
    if (!($2 in tc)) { tc[$2] = 1; th[++nt] = $2 }
    r[$1, $2] = $4; sp[$1] = $5; last = $2 }
  END {
    h = "| command |"; s = "|---|"
    for (j = 1; j <= nt; j++) { h = h " " th[j] (j == 1 ? " thread" : "") " |"; s = s "---|" }
    print h " speed-up at " th[nt] " |"; print s "---|"
    unit["bench"] = " (dot/s)"; unit["check"] = " (vectors/s)"; unit["metrics"] = " (evaluations/s)"
    for (i = 1; i <= n; i++) {
      c = order[i]; line = "| `" c "`" unit[c] " |"
      for (j = 1; j <= nt; j++) line = line " " m(r[c, th[j]]) " |"
      print line " " sprintf("%.1f", sp[c]) " |"
    }
  }' "${1:-docs/data/scaling_16.tsv}"
