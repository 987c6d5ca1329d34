#!/bin/sh
# Known answers of the mismatch triage and the black-box probe: each test
# would fail if they named the wrong thing.
#   1. model units that differ from Hopper's HGMMA bf16 in one way (subnormal
#      inputs flushed, RNE instead of RZ, chained in halves instead of one
#      fused step): the probe must find exactly that unit, and
#      `check --explain` against HGMMA must name exactly that difference;
#   2. the deliberately broken RTL of tb-broken (QGMMA with F=12) run on the
#      H100 QGMMA vectors: `check --explain` must say it behaves as f=12,
#      the probe must give f=12 and reproduce every output;
#   3. the probe on H100 captures (one instruction of each kind) must find
#      the catalogue's configuration, or one that reproduces every vector
#      as the catalogue's does, with the same F, rounding, output
#      precision and summation; and the fp16 conversion of the emulated
#      fp8 mma.sync where the sampled vectors tell it.
# usage: tests/triage_test.sh path/to/mmaref RTL_OUT_DIR [quick]
set -u
M=$1; RTL=$2; QUICK=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
field() { printf '%s\n' "$1" | tr ',' '\n' | sed -n "s/^$2=//p"; }
tree() { printf '%s\n' "$1" | sed 's/,.*//'; }
same_fields() {  # same_fields <cfg1> <cfg2> <key...>: the keys' values agree
  _a=$1; _b=$2; shift 2
  for _k in "$@"; do [ "$(field "$_a" "$_k")" = "$(field "$_b" "$_k")" ] || return 1; done
  [ "$(tree "$_a")" = "$(tree "$_b")" ]
}
KEYS="f l round p cadd interleave ftz align"

expect() {  # expect <rc> <output-substring> <cmd...>
  want=$1; sub=$2; shift 2
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" != "$want" ]; then bad "$* -> exit $rc, wanted $want: $(head -c 300 "$T/err")"; return; fi
  if [ -n "$sub" ] && ! grep -qF -- "$sub" "$T/err" "$T/out"; then bad "$* -> lacks '$sub': $(head -c 300 "$T/err")"; return; fi
  ok
}

# ---- 0. bad input: a message naming the file or argument, exit 2 -----------
printf '# mmavec 1\n# instr: fused,a=fp16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1]\n3f800000 3c00 3c00 3c00 3c00\n' > "$T/nod.vec"
printf '# mmavec 1\n# instr: fused,a=bf16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1] d\n3f800000 3f80 3f80 3f80 3f80 40400000\n' > "$T/bf.vec"
printf '# mmavec 1\n# instr: fused,a=fp16,k=2,f=20\n# k: 2\n# fields: c a[0..1] b[0..1] d\n3f800000 3c00 3c00 3c00 3c00 4040000\n' > "$T/short.vec"
expect 2 "usage: mmaref probe" $M probe
expect 2 "$T/none.vec" $M probe "$T/none.vec"
expect 2 "nod.vec: field d" $M probe "$T/nod.vec"
expect 2 "short.vec:5" $M probe "$T/short.vec"
expect 2 "bf.vec: its vectors (a=bf16" $M probe vectors/hw/h100/mma.m16n8k8.f32.f16.f16.f32.order.vec.xz "$T/bf.vec"
expect 2 "--threads needs a number of threads from 1 to 1024 (got '0')" $M probe "$T/bf.vec" --threads 0
expect 2 "unknown option '--frob'" $M probe "$T/bf.vec" --frob
expect 0 "Infers" $M probe --help
expect 0 "4000 vectors, 0 mismatches" $M check vectors/hw/h100/mma.m16n8k8.f32.f16.f16.f32.order.vec.xz --explain
grep -q triage "$T/out" && bad "check --explain printed a triage without mismatches" || ok

# ---- 1. model units with one difference ---------------------------------
H=hopper:wgmma.m64n8k16.f32.bf16.bf16
HC=$($M describe $H | sed -n 's/^config: //p')
for v in ftz=in round=rne l=8; do
  key=${v%%=*}; want=${v#*=}
  # the key replaced, not given twice (a configuration names each key once)
  cfg_v=$(echo "$HC" | tr ',' '\n' | grep -v "^$key=" | tr '\n' ',')$v
  $M gen "$cfg_v" --suite compliance --count 20000 --seed 3 -o "$T/ka.vec" 2> "$T/err" || { bad "gen $v: $(cat "$T/err")"; continue; }
  $M probe "$T/ka.vec" --threads 2 > "$T/probe.out" 2> "$T/err"; rc=$?
  cfg=$(sed -n 's/^config: //p' "$T/probe.out")
  if [ $rc = 0 ] && [ "$(field "$cfg" "$key")" = "$want" ]; then ok; else bad "probe of HGMMA with $v: exit $rc, $cfg"; fi
  # all else as HGMMA
  others=$(echo $KEYS | tr ' ' '\n' | grep -vx "$key" | tr '\n' ' ')
  same_fields "$cfg" "$HC" $others && ok || bad "probe of HGMMA with $v changed more than $key: $cfg"
  $M check "$T/ka.vec" --instr $H --explain --show 0 > "$T/explain.out"; rc=$?
  grep -q "behaves as $key=$want instead of [a-z0-9]* on 100.0% of the mismatching vectors" "$T/explain.out" && [ $rc = 1 ] \
    && ok || bad "check --explain of HGMMA with $v (exit $rc): $(grep -E 'behaves|nearest' "$T/explain.out")"
done

# ---- 2. the broken F=12 RTL -----------------------------------------------
Q=vectors/hw/h100/wgmma.m64n8k32.f32.e4m3.e4m3.compliance.vec.xz
if [ -x "$RTL/Vmma_dpa" ]; then
  "$RTL/Vmma_dpa" $Q "$T/rtl.vec" "$(cat "$RTL/params")" 2> "$T/err" || bad "rtl_outputs: $(cat "$T/err")"
  $M check "$T/rtl.vec" --explain --show 0 > "$T/explain.out"; rc=$?
  sed -n '/^triage/,$p' "$T/explain.out"
  grep -q "behaves as f=12 instead of 13 on 100.0% of the mismatching vectors .* and on all [0-9]* that match" "$T/explain.out" \
    && [ $rc = 1 ] && ok || bad "check --explain of the F=12 RTL (exit $rc)"
  $M probe "$T/rtl.vec" --threads 2 > "$T/probe.out" 2> "$T/err"; rc=$?
  cfg=$(sed -n 's/^config: //p' "$T/probe.out")
  QC=$($M describe hopper:wgmma.m64n8k32.f32.e4m3.e4m3 | sed -n 's/^config: //p')
  [ $rc = 0 ] && [ "$(field "$cfg" f)" = 12 ] && same_fields "$cfg" "$QC" l round p cadd interleave ftz align \
    && ok || bad "probe of the F=12 RTL (exit $rc): $cfg"
  echo "== probe of the F=12 RTL: $cfg"
else
  bad "no RTL harness at $RTL (make $RTL/Vmma_dpa)"
fi

# ---- 3. H100 captures -------------------------------------------------------
FAMILIES="wgmma.m64n8k32.f32.e4m3.e4m3 wgmma.m64n8k32.f16.e5m2.e4m3 wgmma.m64n8k16.f32.bf16.bf16 \
  wgmma.m64n8k8.f32.tf32.tf32 mma.m16n8k16.f16.f16.f16.f16 mma.m16n8k8.f64.f64.f64.f64 \
  mma.m16n8k16.f32.e4m3.e4m3.f32 mma.m16n8k16.f16.e5m2.e5m2.f16"
[ "$QUICK" = quick ] && FAMILIES="wgmma.m64n8k32.f32.e4m3.e4m3 mma.m16n8k8.f64.f64.f64.f64"
for fam in $FAMILIES; do
  set -- vectors/hw/h100/$fam.*.vec.xz
  name=$(xz -dc "$1" | sed -n 's/^# instr: //p' | head -1)
  cat_cfg=$($M describe "$name" | sed -n 's/^config: //p')
  $M probe "$@" --threads 2 > "$T/probe.out" 2> "$T/err"; rc=$?
  cfg=$(sed -n 's/^config: //p' "$T/probe.out")
  if [ $rc = 0 ] && same_fields "$cfg" "$cat_cfg" $KEYS && grep -q "^the same as the catalogue's.* $name[, ]" "$T/probe.out"; then
    ok; echo "== probe $fam: $cfg"
  else
    bad "probe $fam (exit $rc): $cfg; the catalogue: $cat_cfg"
  fi
done

# the emulated fp8 mma.sync converts its operands to fp16 first: 9 of the
# 409 sampled e4m3 x e5m2 vectors of the million run tell
S=vectors/hw/h100/million/mma.m16n8k16.f32.e4m3.e5m2.f32.sample.vec.xz
$M probe $S --threads 2 > "$T/probe.out" 2> "$T/err"; rc=$?
cfg=$(sed -n 's/^config: //p' "$T/probe.out")
[ $rc = 0 ] && [ "$(field "$cfg" via)" = fp16 ] && grep -q "as they are: 9 wrong" "$T/probe.out" \
  && ok || bad "probe of the sampled e4m3 x e5m2 mma.sync (exit $rc): $cfg"

echo "triage and probe tests: $pass passed, $fail failed"
[ $fail = 0 ]
