#!/bin/sh
# The Debian packages that the given make targets need (scripts/deps.txt):
# installed through apt-get when run as root, otherwise named, with a
# non-zero exit, so that nothing is compiled without them.
# usage: scripts/deps.sh [--list] [target...]   (no target: `make` alone)
#   --list   print the packages the targets need and exit
# MMAREF_DEPS=no (make MMAREF_DEPS=no ...) skips the check: tools from elsewhere.
set -u
here=$(dirname "$0")
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
[ $# -eq 0 ] && set -- all

# the packages of deps.txt whose target column names one of the targets or
# "*"; a target that no line names needs every package
pkgs=$(sed 's/#.*//' "$here/deps.txt" | awk -v goals="$*" '
    BEGIN { n = split(goals, g, " ") }
    NF >= 2 { pkg[++np] = $1; tg[np] = " " substr($0, index($0, $2)) " "; gsub(/[ \t]+/, " ", tg[np])
              for (i = 2; i <= NF; i++) known[$i] = 1 }
    END {
        for (i = 1; i <= n; i++) if (!(g[i] in known)) all = 1
        for (p = 1; p <= np; p++) {
            want = all
            for (i = 1; i <= n && !want; i++) if (index(tg[p], " " g[i] " ")) want = 1
            if (want) printf "%s ", pkg[p]
        }
    }')
if [ $list = 1 ]; then echo $pkgs; exit 0; fi

if ! command -v dpkg-query > /dev/null 2>&1; then
  echo "deps: not a Debian system: cannot check for$(printf ' %s' $pkgs | sed 's/ / /g')" >&2
  echo "deps: (make MMAREF_DEPS=no ... goes on without checking)" >&2
  exit 1
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "deps: installing$missing"
  t0=$(date +%s)
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } > /tmp/mmaref-deps.$$.log 2>&1 || {
    cat /tmp/mmaref-deps.$$.log >&2; rm -f /tmp/mmaref-deps.$$.log
    echo "deps: apt-get install failed for:$missing" >&2; exit 1; }
  rm -f /tmp/mmaref-deps.$$.log
  echo "deps: installed in $(($(date +%s) - t0)) s"
  exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them (as root): apt-get install$missing" >&2
echo "deps: or go on without them: make MMAREF_DEPS=no ..." >&2
exit 1
