#!/bin/sh
# make docs-check: every block of figures in README.md and docs/ that a
# command prints is marked with that command, and is rerun and compared:
#
#   <!-- generated: sh scripts/plots/tables.sh k32 -->
#   | unit | dist | mean ulp | ...
#   <!-- end generated -->
#
# The command (run by sh from the repository root, after `make`) must print
# exactly the lines between the markers; a block inside a ``` fence is
# compared without its fence lines.  A figure that differs fails the check,
# named by file, line and row.  `generated (slow):` marks a block whose
# command takes minutes (`make area`, the testbenches): rerun only with
# DOCS_CHECK_SLOW=1.
# usage: scripts/docs_check.sh [--update] [file.md...]   (default README.md docs/*.md)
#   --update   writes what the commands print now into the files instead
set -u
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
[ $# -eq 0 ] && set -- README.md docs/*.md
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
blocks=0 bad=0 skipped=0

# the blocks of a file: "start<TAB>end<TAB>slow<TAB>command" (marker lines)
blocks_of() {
    awk '
    /^<!-- generated( \(slow\))?: .* -->$/ {
        if (start) { printf "%s:%d: unclosed block\n", FILENAME, start > "/dev/stderr"; exit 2 }
        start = NR; slow = ($0 ~ /^<!-- generated \(slow\): /)
        cmd = $0; sub(/^<!-- generated( \(slow\))?: /, "", cmd); sub(/ -->$/, "", cmd); next }
    /^<!-- end generated -->$/ {
        if (!start) { printf "%s:%d: end marker without a start\n", FILENAME, NR > "/dev/stderr"; exit 2 }
        printf "%d\t%d\t%d\t%s\n", start, NR, slow, cmd; start = 0 }
    END { if (start) { printf "%s:%d: unclosed block\n", FILENAME, start > "/dev/stderr"; exit 2 } }' "$1"
}

for f in "$@"; do
    blocks_of "$f" > "$T/blocks" || { bad=$((bad + 1)); continue; }
    cp "$f" "$T/doc"
    shift_lines=0          # lines added by updates above the current block
    while IFS='	' read -r s e slow cmd; do
        if [ "$slow" = 1 ] && [ "${DOCS_CHECK_SLOW:-}" != 1 ]; then
            skipped=$((skipped + 1)); continue
        fi
        blocks=$((blocks + 1))
        sed -n "$((s + 1)),$((e - 1))p" "$f" > "$T/old"
        fence=0
        if head -1 "$T/old" | grep -q '^```' && tail -1 "$T/old" | grep -q '^```'; then
            fence=1
            sed '1d;$d' "$T/old" > "$T/old.in" && mv "$T/old.in" "$T/old"
        fi
        if ! sh -c "$cmd" > "$T/new" 2> "$T/err" < /dev/null; then
            echo "$f:$s: the command failed: $cmd"
            sed 's/^/    /' "$T/err" | tail -15
            bad=$((bad + 1)); continue
        fi
        if [ $update = 1 ]; then
            {
                sed -n "1,$((s + shift_lines))p" "$T/doc"
                [ $fence = 1 ] && sed -n "$((s + 1))p" "$f"
                cat "$T/new"
                [ $fence = 1 ] && sed -n "$((e - 1))p" "$f"
                sed -n "$((e + shift_lines)),\$p" "$T/doc"
            } > "$T/doc.new"
            shift_lines=$((shift_lines + $(wc -l < "$T/doc.new") - $(wc -l < "$T/doc")))
            mv "$T/doc.new" "$T/doc"
            continue
        fi
        # compare row by row; name each row that differs
        awk -v file="$f" -v first=$((s + 1 + fence)) -v cmd="$cmd" '
            NR == FNR { old[++n] = $0; next }
            { new[++m] = $0 }
            # a table row is named by its first two cells
            function row(x) { if (x !~ /^\|/) return "line"; split(x, c, "|"); gsub(/^ +| +$/, "", c[2]); gsub(/^ +| +$/, "", c[3])
                              return "row \"" c[2] (c[3] != "" ? " | " c[3] : "") "\"" }
            END {
                k = n > m ? n : m; d = 0
                for (i = 1; i <= k; i++) {
                    if (i <= n && i <= m && old[i] == new[i]) continue
                    d++
                    if (d > 20) continue
                    printf "%s:%d: %s differs from what `%s` prints now\n", file, first + i - 1, row(i <= n ? old[i] : new[i]), cmd
                    printf "    committed: %s\n    now:       %s\n", i <= n ? old[i] : "(no such line)", i <= m ? new[i] : "(no such line)"
                }
                if (d > 20) printf "%s: ... and %d more lines\n", file, d - 20
                exit d > 0
            }' "$T/old" "$T/new" || bad=$((bad + 1))
    done < "$T/blocks"
    [ $update = 1 ] && ! cmp -s "$T/doc" "$f" && { cp "$T/doc" "$f"; echo "docs: $f updated"; }
done

[ $update = 1 ] && exit $([ $bad = 0 ] && echo 0 || echo 1)
msg="$blocks blocks of figures rerun"
[ $skipped -gt 0 ] && msg="$msg, $skipped slow ones not (DOCS_CHECK_SLOW=1 reruns them)"
if [ $bad -gt 0 ]; then echo "docs-check: FAIL: $bad of $msg differ"; exit 1; fi
echo "docs-check: $msg: all as committed"
