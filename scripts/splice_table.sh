#!/bin/sh
# Replace what stands between "<!-- BEGIN NAME -->" and "<!-- END NAME -->"
# in DOC by the contents of FILE (the generated tables of docs/).
# usage: scripts/splice_table.sh DOC NAME FILE
[ $# -eq 3 ] || { echo "usage: $0 DOC NAME FILE" >&2; exit 2; }
grep -qx "<!-- BEGIN $2 -->" "$1" || { echo "$0: $1 has no <!-- BEGIN $2 --> marker" >&2; exit 1; }
awk -v name="$2" -v file="$3" '
  $0 == "<!-- BEGIN " name " -->" { print; while ((getline l < file) > 0) print l; skip = 1; next }
  $0 == "<!-- END " name " -->" { skip = 0 }
  !skip { print }' "$1" > "$1.tmp" && mv "$1.tmp" "$1"
