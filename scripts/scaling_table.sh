#!/bin/sh
# The scaling table of docs/performance.md from scripts/scaling.sh's TSV
# (docs/data/scaling_16.tsv): rates per thread count, the speed-up at the
# most threads, and, where the TSV has its 'Px1' rows, the host's ceiling
# (P one-thread processes at once on 1/P of the work each) and mmaref's
# speed-up as a share of it.   scripts/scaling_table.sh [FILE.tsv]
awk -F'\t' '
  function m(x) { return x >= 1e8 ? sprintf("%.0f M", x / 1e6) : sprintf("%.2f M", x / 1e6) }
  /^#/ || $1 == "command" { next }
  { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
  $2 ~ /x1$/ { ceil[$1] = $4; csp[$1] = $5; hasc = 1; next }
  { if (!($2 in tc)) { tc[$2] = 1; th[++nt] = $2 }
    r[$1, $2] = $4; sp[$1] = $5 }
  END {
    h = "| command |"; s = "|---|"
    for (j = 1; j <= nt; j++) { h = h " " th[j] (j == 1 ? " thread" : "") " |"; s = s "---|" }
    h = h " speed-up at " th[nt] " |"; s = s "---|"
    if (hasc) { h = h " " th[nt] " one-thread processes | their speed-up | mmaref / host |"; s = s "---|---|---|" }
    print h; print s
    unit["bench"] = " (dot/s)"; unit["check"] = " (vectors/s)"; unit["metrics"] = " (evaluations/s)"
    for (i = 1; i <= n; i++) {
      c = order[i]; line = "| `" c "`" unit[c] " |"
      for (j = 1; j <= nt; j++) line = line " " m(r[c, th[j]]) " |"
      line = line " " sprintf("%.1f", sp[c]) " |"
      if (hasc) line = line " " m(ceil[c]) " | " sprintf("%.1f", csp[c]) " | " sprintf("%.2f", sp[c] / csp[c]) " |"
      print line
    }
  }' "${1:-docs/data/scaling_16.tsv}"
