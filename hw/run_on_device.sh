#!/bin/sh
# Run the capture over every *.vec, *.vec.xz, *.vec.gz in INDIR; write
# OUTDIR/<name>.vec (uncompressed). Builds nothing: the binary is built on the
# build machine (make -C hw) and carried (hwbuild/). One summary line per file;
# exit status 1 if any file failed (2 for bad arguments).
#
# usage: hw/run_on_device.sh INDIR OUTDIR
#   CAPTURE=/path/to/capture overrides the binary (default: <repo>/hwbuild/capture)
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 INDIR OUTDIR" >&2
  exit 2
fi
indir=$1
outdir=$2
here=$(cd "$(dirname "$0")" && pwd)
cap=${CAPTURE:-$here/../hwbuild/capture}
if [ ! -x "$cap" ]; then
  echo "run_on_device: no capture binary at $cap (build with make -C hw, carry hwbuild)" >&2
  exit 2
fi
if [ ! -d "$indir" ]; then
  echo "run_on_device: $indir is not a directory" >&2
  exit 2
fi
mkdir -p "$outdir" || exit 2
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/capture.XXXXXX") || exit 2
trap 'rm -rf "$tmpd"' EXIT INT TERM

total=0
failed=0
for f in "$indir"/*.vec "$indir"/*.vec.xz "$indir"/*.vec.gz; do
  [ -e "$f" ] || continue
  base=$(basename "$f")
  case "$base" in
    *.vec.xz) name=${base%.xz}; src=$tmpd/$name; xz -dc "$f" > "$src" 2> "$tmpd/err" || src= ;;
    *.vec.gz) name=${base%.gz}; src=$tmpd/$name; gzip -dc "$f" > "$src" 2> "$tmpd/err" || src= ;;
    *) name=$base; src=$f ;;
  esac
  total=$((total + 1))
  if [ -z "$src" ]; then
    echo "FAIL $base: cannot decompress: $(head -c 300 "$tmpd/err")"
    failed=$((failed + 1))
    continue
  fi
  if msg=$("$cap" "$src" "$outdir/$name" 2>&1); then
    echo "OK   $base: $(printf '%s\n' "$msg" | tail -n 1 | sed 's/^capture: [^:]*: //')"
  else
    rc=$?
    echo "FAIL $base (exit $rc): $(printf '%s\n' "$msg" | tail -n 3 | tr '\n' ' ')"
    failed=$((failed + 1))
  fi
  [ "$src" = "$f" ] || rm -f "$src"
done
echo "run_on_device: $((total - failed)) of $total files captured into $outdir"
[ "$total" -gt 0 ] || { echo "run_on_device: no *.vec, *.vec.xz or *.vec.gz in $indir" >&2; exit 1; }
[ "$failed" -eq 0 ]
