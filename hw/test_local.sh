#!/bin/sh
# Checks of the capture program that need no GPU: input validation, refusals
# and exit codes. usage: hw/test_local.sh [path/to/capture]
set -u
here=$(cd "$(dirname "$0")" && pwd)
cap=${1:-$here/../hwbuild/capture}
t=$(mktemp -d "${TMPDIR:-/tmp}/captest.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# expect NAME WANT_RC GREP_PATTERN cmd...
expect() {
  name=$1 want=$2 pat=$3
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$name: exit $rc, wanted $want: $out"
  elif [ -n "$pat" ] && ! printf '%s' "$out" | grep -q -- "$pat"; then
    fail "$name: message lacks '$pat': $out"
  else
    pass "$name"
  fi
}

python3 "$here/make_test_vectors.py" hopper:wgmma.m64n8k32.f32.e4m3.e4m3 20 1 "$t/good.vec"
python3 "$here/make_test_vectors.py" mma.m8n8k4.f64.f64.f64.f64 9 2 "$t/f64.vec"
expect "list has 51 instructions" 0 "" sh -c "'$cap' --list | wc -l | grep -qx 51"
expect "dry-run valid fp8 file" 0 "20 vectors" "$cap" --dry-run "$t/good.vec"
expect "dry-run valid f64 file" 0 "9 vectors" "$cap" --dry-run "$t/f64.vec"

# malformed lines: field count, hex width, non-hex
sed '9s/ [0-9a-f]*$//' "$t/good.vec" > "$t/count.vec"
expect "wrong field count" 2 "count.vec:9: 65 fields, expected 66" "$cap" --dry-run "$t/count.vec"
sed '10s/^\([0-9a-f]*\) \([0-9a-f]*\) /\1 \2f /' "$t/good.vec" > "$t/width.vec"
expect "wrong hex width" 2 "width.vec:10: field 2 (a\[0\])" "$cap" --dry-run "$t/width.vec"
sed '11s/^\([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]\)[0-9a-f] /\1 \2 \3 \4g /' "$t/good.vec" > "$t/nonhex.vec"
expect "non-hex digit" 2 "nonhex.vec:11: field 4 (a\[2\]).*not hexadecimal" "$cap" --dry-run "$t/nonhex.vec"
sed 's/^# instr: .*/# instr: hopper:wgmma.m64n8k64.f32.e4m3.e4m3/' "$t/good.vec" > "$t/unknown.vec"
expect "unknown instruction" 2 "unknown instruction" "$cap" --dry-run "$t/unknown.vec"
sed 's/^# instr: .*/# instr: ampere:mma.m16n8k16.f32.f16.f16.f32/' "$t/good.vec" > "$t/arch.vec"
expect "other arch refused" 2 "refused" "$cap" --dry-run "$t/arch.vec"
sed 's/^# k: .*/# k: 16/' "$t/good.vec" > "$t/k.vec"
expect "k mismatch" 2 "K=32" "$cap" --dry-run "$t/k.vec"
sed 's/^# fields: .*/# fields: c a[0..31] b[0..31] sa sb d/' "$t/good.vec" > "$t/fields.vec"
expect "fields mismatch" 2 "field list" "$cap" --dry-run "$t/fields.vec"
sed '/^# mmavec 1/d' "$t/good.vec" > "$t/magic.vec"
expect "missing magic line" 2 "mmavec" "$cap" --dry-run "$t/magic.vec"
sed 's/^# instr: hopper:/# instr: /' "$t/good.vec" > "$t/noprefix.vec"
expect "instr without arch prefix" 0 "" "$cap" --dry-run "$t/noprefix.vec"
expect "missing input file" 2 "cannot open" "$cap" --dry-run "$t/nonexistent.vec"
expect "bad usage" 2 "usage" "$cap" onlyone

# On a machine without an sm_90 GPU a capture is refused and writes nothing.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi >/dev/null 2>&1; then
  expect "no GPU: refused" 2 "refused" "$cap" "$t/good.vec" "$t/out.vec"
  if [ -e "$t/out.vec" ] || ls "$t"/out.vec.tmp.* >/dev/null 2>&1; then
    fail "no GPU: output written"
  else
    pass "no GPU: nothing written"
  fi
  expect "no GPU: selftest refused" 2 "refused" "$cap" --selftest
fi
# a malformed file is refused before the GPU is touched, writing nothing
expect "malformed: refused" 2 "" "$cap" "$t/count.vec" "$t/out2.vec"
[ -e "$t/out2.vec" ] && fail "malformed: output written" || pass "malformed: nothing written"

echo "test_local: $fails failed"
[ "$fails" -eq 0 ]
