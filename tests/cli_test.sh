#!/bin/sh
# Command-line tests of mmaref: the contracts of docs/vector-format.md (bad input gives
# a message naming file, line and field, exit 2 and no output; same seed,
# same bytes; shards concatenate to the whole), and a generate-and-check
# round over every suite for a set of instructions.
# usage: tests/cli_test.sh path/to/mmaref [quick]
set -u
M=$1
QUICK=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() {  # expect <rc> <stderr-substring> <cmd...>
  want=$1; sub=$2; shift 2
  "$@" > "$T/out" 2> "$T/err"; rc=$?
  if [ "$rc" != "$want" ]; then bad "$* -> exit $rc, wanted $want: $(head -c 300 "$T/err")"; return; fi
  if [ -n "$sub" ] && ! grep -qF -- "$sub" "$T/err" "$T/out"; then bad "$* -> message lacks '$sub': $(head -c 300 "$T/err")"; return; fi
  ok
}
Q=hopper:wgmma.m64n8k32.f32.e4m3.e4m3

# list, describe, eval
n=$($M list | wc -l); [ "$n" -ge 300 ] && ok || bad "list has $n lines"
[ "$($M list --arch cdna3 | grep -c v_mfma_f32_16x16x32_fp8_fp8)" = 1 ] && ok || bad "list --arch cdna3"
$M list | awk '{ if ($0 !~ /^[a-z0-9-]+:[^ ]+ [A-Za-z+-]+ K=[0-9]+( F=[0-9]+)?( \(.*\))?$/) { print "bad list line: " $0; exit 1 } }' && ok || bad "list format"
expect 0 "config: fused," $M describe $Q
expect 2 "hopper:wgmma.m64n8k32.f32.e4m3.e4m3," $M describe hopper:wgmma.m64n8k32.f32.e4m3.e4m2
expect 2 "field 'f'" $M describe "fused,a=e4m3,k=32,f=0"
# more block scales than any array holds (found by fuzzing: gen wrote past them)
expect 2 "field 'block'" $M describe "a=e2m1,k=64,g=2,f=35,scale=ue4m3,block=2"
expect 2 "field 'ezero'" $M describe "fused,a=e4m3,k=32,f=11,ezero=-133231"
expect 2 "field 'block'" $M describe "exact,a=bf16,k=48,l=2,scale=ue8m0"
printf '# mmavec 1\n# instr: a=e2m1,k=64,g=2,f=35,scale=ue4m3,block=2\n' > "$T/blocks.vec"
expect 2 "blocks.vec:2: field instr: configuration: field 'block'" $M check "$T/blocks.vec"
# names as PTX writes them: describe prints the canonical one
[ "$($M describe hopper:wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 | head -1)" = "$Q" ] && ok || bad "describe canonical wgmma name"
[ "$($M describe blackwell:tcgen05.mma.cta_group::1.kind::f8f6f4.m64n8k32.f32.e4m3.e4m3 | head -1)" = \
  "blackwell:tcgen05.mma.m64n8k32.kind::f8f6f4.f32.e4m3.e4m3" ] && ok || bad "describe canonical tcgen05 name"
expect 2 "nearest: hopper:" $M describe hopper:foo
expect 2 "give the architecture" $M describe mma.m16n8k16.f32.f16.f16.f32
# a wgmma/tcgen05 shape only as PTX writes it: with blanks, signs or leading
# zeros the name was taken and kept, and did not read back from a vector
# file's header (found by fuzzing)
for s in "m64n8k  32" "m64n+8k32" "m64n008k32"; do
  expect 2 "nearest: hopper:wgmma.m64n8k32.f32.e4m3.e5m2" $M describe "hopper:wgmma.$s.f32.e4m3.e5m2"
done
# a vector file whose instr has no architecture takes '# arch:'
$M gen hopper:mma.m8n8k4.f64.f64.f64.f64 --suite random --count 20 --seed 3 -o "$T/arch.vec"
sed 's/^# instr: hopper:mma\./# instr: mma.sync.aligned./; s/m8n8k4.f64/m8n8k4.row.col.f64/' "$T/arch.vec" > "$T/arch2.vec"
expect 0 "20 vectors, 0 mismatches" $M check "$T/arch2.vec"
sed 's/^# arch: hopper/# arch: ampere/; s/^# instr: .*/# instr: hopper:mma.m8n8k4.f64.f64.f64.f64/' "$T/arch.vec" > "$T/arch3.vec"
expect 2 "field arch" $M check "$T/arch3.vec"
A1=$(printf '38,%.0s' $(seq 31))38
[ "$($M eval $Q 0 $A1 $A1)" = "42000000" ] && ok || bad "eval 32*1*1 = 32"
expect 2 "operand a has 31 values" $M eval $Q 0 "$(printf '38,%.0s' $(seq 30))38" $A1
expect 2 "operand b[0] 'zz'" $M eval $Q 0 $A1 "zz,$(printf '38,%.0s' $(seq 30))38"
expect 2 "operand c" $M eval $Q 123456789 $A1 $A1
expect 2 "unknown command" $M frobnicate
# --help: every command answers, and mmaref --help names every option the
# commands' sources parse
$M --help > "$T/help" || bad "mmaref --help exits non-zero"
# the commands are those mmaref --help lists (a new one is tested without
# touching this file); the ones the README names must be among them
cmds=$(sed -n 's/^usage: mmaref \([a-z]*\).*/\1/p' "$T/help" | sort -u)
for c in list describe eval run check probe gen metrics gemm bench verify version; do
  echo "$cmds" | grep -qx "$c" && ok || bad "mmaref --help does not list the command $c"
done
for c in $cmds; do
  $M $c --help > "$T/h" 2>&1 && grep -q "^usage: mmaref $c" "$T/h" && ok || bad "mmaref $c --help"
  # the command's own help is a part of mmaref --help
  grep -qxF -- "$(head -1 "$T/h")" "$T/help" && ok || bad "mmaref --help lacks the first line of mmaref $c --help"
done
[ "$($M --version)" = "$($M version)" ] && grep -q -- '--version' "$T/help" && ok || bad "mmaref --version"
if [ -d cli ]; then
  for o in $(grep -ho 'strcmp([a-z]*\(\[i\]\)*, "-[-a-z]*")' cli/*.c | sed 's/.*"\(.*\)")/\1/' | sort -u); do
    case $o in -|-h|--help|--version) continue ;; esac
    grep -q -- "$o\b" "$T/help" && ok || bad "mmaref --help does not mention $o"
  done
fi

# gen: determinism, shards, every suite checks clean against the model
COUNT=3000; [ "$QUICK" = quick ] && COUNT=300
for I in $Q hopper:wgmma.m64n8k16.f16.f16.f16 ampere:mma.m16n8k16.f32.bf16.bf16.f32 \
         hopper:mma.m16n8k8.f64.f64.f64.f64 cdna3:v_mfma_f32_16x16x32_fp8_bf8 cdna3:v_mfma_f32_16x16x8_xf32 \
         cdna2:v_mfma_f32_32x32x8bf16_1k cdna1:v_mfma_f32_32x32x4bf16 cdna3:v_mfma_f32_32x32x1_2b_f32 \
         rtx-blackwell:mma.m16n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.f32.ue4m3 \
         blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e3m2.e2m1.ue8m0 \
         hopper:mma.m16n8k32.f32.e5m2.e4m3.f32 "fused,a=bf16,k=16,l=8,f=20,round=rne,d=fp16,c=fp32"; do
  for S in compliance random normal cancel order precision rounding specials neighbours; do
    $M gen "$I" --suite $S --count $COUNT --seed 5 -o "$T/g.vec" 2> "$T/err" || { bad "gen $I $S: $(cat "$T/err")"; continue; }
    r=$($M check "$T/g.vec" | tail -1)
    [ "$r" = "$COUNT vectors, 0 mismatches" ] && ok || bad "check $I $S: $r"
  done
done
$M gen $Q --suite compliance --count 1000 --seed 9 -o "$T/a.vec"
$M gen $Q --suite compliance --count 1000 --seed 9 -o "$T/b.vec.xz"
xz -dc "$T/b.vec.xz" | cmp -s - "$T/a.vec" && ok || bad "same seed, same bytes (.xz)"
# a damaged compressed file is an error, not a short read: cut before the
# trailer, gzip's data all decompresses and only its exit status says so
gzip -c "$T/a.vec" > "$T/w.vec.gz"; head -c $(($(wc -c < "$T/w.vec.gz") - 4)) "$T/w.vec.gz" > "$T/cut.vec.gz"
expect 2 "cut.vec.gz: not a readable compressed file (gzip:" $M check "$T/cut.vec.gz"
head -c 20000 "$T/b.vec.xz" > "$T/cut.vec.xz"
expect 2 "cut.vec.xz: not a readable compressed file (xz:" $M check "$T/cut.vec.xz"
cp "$T/b.vec.xz" "$T/it's \$(x).vec.xz"
expect 0 "1000 vectors, 0 mismatches" $M check "$T/it's \$(x).vec.xz"
for i in 0 1 2 3; do $M gen $Q --suite compliance --count 1000 --seed 9 --shard $i/4 -o "$T/s$i.vec"; done
cat "$T/s0.vec" "$T/s1.vec" "$T/s2.vec" "$T/s3.vec" | cmp -s - "$T/a.vec" && ok || bad "shards concatenate to the whole"
$M gen $Q --suite compliance --count 1000 --seed 10 -o "$T/c.vec"
cmp -s "$T/a.vec" "$T/c.vec" && bad "another seed gives other vectors" || ok

# gen --dist: the inputs mmaref metrics --dist draws, as vectors with the
# model's d: normal values quantized into bf16 have mean 0 and deviation 1
# (a uniform draw would give 0.58), the same bytes on any thread count
B16=hopper:wgmma.m64n8k16.f32.bf16.bf16
expect 0 "" $M gen $B16 --dist normal --count 2000 --seed 4 -o "$T/dn.vec"
expect 0 "2000 vectors, 0 mismatches" $M check "$T/dn.vec"
$M gen $B16 --dist normal --count 2000 --seed 4 --threads 1 -o "$T/dn1.vec"
cmp -s "$T/dn.vec" "$T/dn1.vec" && ok || bad "gen --dist: the same bytes on one thread"
grep -q '^# dist: normal$' "$T/dn.vec" && ok || bad "gen --dist: the header names the distribution"
python3 - "$T/dn.vec" <<'PY' && ok || bad "gen --dist normal: inputs not N(0,1) quantized to bf16"
import struct, sys
xs = []
for line in open(sys.argv[1]):
    if not line.startswith("#"):
        f = line.split()
        xs += [struct.unpack(">f", bytes.fromhex(h + "0000"))[0] for h in f[1:33]]
n = len(xs); m = sum(xs) / n; sd = (sum((x - m) ** 2 for x in xs) / n) ** 0.5
print("gen --dist normal: %d bf16 inputs, mean %.4f, deviation %.4f" % (n, m, sd))
sys.exit(0 if n == 64000 and abs(m) < 0.02 and abs(sd - 1) < 0.02 else 1)
PY
$M gen $B16 --dist llm --count 2000 --seed 4 -o "$T/dl.vec"
cmp -s "$T/dn.vec" "$T/dl.vec" && bad "gen --dist llm differs from normal" || ok
expect 2 "unknown distribution 'foo' (normal uniform llm cancel bits)" $M gen $B16 --dist foo --count 2 --seed 1 -o "$T/never.vec"
expect 2 "--suite and --dist exclude each other" $M gen $B16 --dist normal --suite normal --count 2 --seed 1 -o "$T/never.vec"
[ ! -e "$T/never.vec" ] && ok || bad "gen --dist: bad arguments wrote a file"

# run fills d; check catches a wrong d and shows it
sed '/^#/!s/ [0-9a-f]*$/ 00000000/' "$T/a.vec" > "$T/z.vec"
expect 0 "" $M run "$T/z.vec" -o "$T/r.vec"
cmp -s "$T/r.vec" "$T/a.vec" || { grep -v '^# source' "$T/r.vec" | grep -v '^#' > "$T/r1"; grep -v '^#' "$T/a.vec" > "$T/a1"; cmp -s "$T/r1" "$T/a1"; } && ok || bad "run reproduces d"
expect 1 "mismatch" $M check "$T/z.vec"
[ "$($M check "$T/z.vec" | tail -1 | sed 's/.*, //')" != "0 mismatches" ] && ok || bad "check counts mismatches"
expect 0 "" $M check "$T/r.vec" --instr "fused,a=e4m3,b=e4m3,k=32,f=13,d=e8m13,ezero=-133"
expect 1 "mismatch" $M check "$T/r.vec" --instr "fused,a=e4m3,b=e4m3,k=32,f=12,d=e8m13,ezero=-133"
# check --mismatches: exactly the mismatching vectors, whole, replayable
nbad=$($M check "$T/z.vec" --show 0 --mismatches "$T/mm.vec" | tail -1 | sed 's/.*, \([0-9]*\) mismatches/\1/')
[ "$(grep -vc '^#' "$T/mm.vec")" = "$nbad" ] && [ "$($M check "$T/mm.vec" | tail -1)" = "$nbad vectors, $nbad mismatches" ] \
    && ok || bad "check --mismatches wrote $(grep -vc '^#' "$T/mm.vec") of $nbad mismatching vectors"
expect 0 "" $M check "$T/r.vec" --mismatches "$T/none.vec"
[ -e "$T/none.vec" ] && bad "check --mismatches wrote a file without mismatches" || ok
expect 2 "no/such/dir/mm.vec: no such folder" $M check "$T/z.vec" --show 0 --mismatches "$T/no/such/dir/mm.vec"
# a file of an IEEE unit, with its flags field, checked as another unit
$M gen "ieee,a=fp16,c=fp32,k=2,round=rz" --suite ieee-sticky --count 300 --seed 4 -o "$T/fl.vec"
expect 0 "300 vectors, 0 mismatches" $M check "$T/fl.vec" --instr "exact,a=fp16,c=fp32,k=2,round=rz,zero=ieee,nan=default,ovf=ieee"

# bad input: file, line, field; exit 2; nothing written
head -7 "$T/a.vec" > "$T/bad.vec"; sed -n '20p' "$T/a.vec" | sed 's/ [0-9a-f][0-9a-f] / 1 /' >> "$T/bad.vec"
expect 2 "bad.vec:8: field a[" $M check "$T/bad.vec"
expect 2 "wrong width" $M run "$T/bad.vec" -o "$T/never.vec"
[ ! -e "$T/never.vec" ] && ok || bad "run wrote output on bad input"
ls "$T" | grep -q 'never.vec.tmp' && bad "temporary file left behind" || ok
head -7 "$T/a.vec" > "$T/bad2.vec"; sed -n '20p' "$T/a.vec" | sed 's/ [0-9a-f]*$//' >> "$T/bad2.vec"
expect 2 "field d: missing" $M check "$T/bad2.vec"
head -7 "$T/a.vec" > "$T/bad3.vec"; sed -n '20p' "$T/a.vec" | sed 's/^\(.........\)../\1zz/' >> "$T/bad3.vec"
expect 2 "not hexadecimal" $M check "$T/bad3.vec"
head -7 "$T/a.vec" > "$T/bad4.vec"; sed -n '20p' "$T/a.vec" | sed 's/$/ 00/' >> "$T/bad4.vec"
expect 2 "extra field" $M check "$T/bad4.vec"
sed 's/^# instr: .*/# instr: hopper:nonesuch/' "$T/a.vec" > "$T/bad5.vec"
expect 2 "field instr: unknown instruction" $M check "$T/bad5.vec"
sed 's/^# k: 32/# k: 16/' "$T/a.vec" > "$T/bad6.vec"
expect 2 "field k" $M check "$T/bad6.vec"
expect 2 "cannot open" $M check "$T/does-not-exist.vec"
printf 'hello\n' > "$T/bad7.vec"
expect 2 "not a vector file" $M check "$T/bad7.vec"
expect 2 "unknown suite" $M gen $Q --suite nonesuch --count 1 --seed 1 -o "$T/x.vec"
expect 2 "--shard" $M gen $Q --suite random --count 1 --seed 1 --shard 3/2 -o "$T/x.vec"

# gen --suite FILE: a vector file's operands as the suite, d and flags
# recomputed; the round trip gives the same lines but the suite's name
$M gen $Q --suite "$T/a.vec" --count 1000 --seed 9 -o "$T/rt.vec"
grep -v '^# suite:' "$T/a.vec" > "$T/rt1"; grep -v '^# suite:' "$T/rt.vec" > "$T/rt2"
cmp -s "$T/rt1" "$T/rt2" && ok || bad "gen --suite FILE: not the file's lines"
grep -qxF "# suite: $T/a.vec" "$T/rt.vec" && ok || bad "gen --suite FILE: the header does not name the file"
$M gen $Q --suite "$T/b.vec.xz" --count 1000 --seed 9 -o "$T/rtx.vec" && grep -v '^# suite:' "$T/rtx.vec" | cmp -s - "$T/rt1" && ok || bad "gen --suite FILE.vec.xz"
awk '!/^#/ { $NF = "00000000" } { print }' "$T/a.vec" > "$T/dz.vec"
$M gen $Q --suite "$T/dz.vec" --count 1000 --seed 9 -o "$T/rtd.vec" && grep -v '^#' "$T/rtd.vec" | cmp -s - "$(grep -v '^#' "$T/a.vec" > "$T/ab"; echo "$T/ab")" && ok || bad "gen --suite FILE: d not recomputed"
$M gen $Q --suite "$T/a.vec" --count 10 --seed 9 -o "$T/rt10.vec" && [ "$(grep -v '^#' "$T/rt10.vec")" = "$(head -10 "$T/ab")" ] && ok || bad "gen --suite FILE --count 10: not the first 10"
for i in 0 1 2; do $M gen $Q --suite "$T/a.vec" --count 1000 --seed 9 --shard $i/3 -o "$T/rs$i.vec"; done
cat "$T/rs0.vec" "$T/rs1.vec" "$T/rs2.vec" | cmp -s - "$T/rt.vec" && ok || bad "gen --suite FILE: shards concatenate to the whole"
MA=$(cd "$(dirname "$M")" && pwd)/$(basename "$M")
(cd "$T" && "$MA" gen $Q --suite a.vec --count 5 --seed 9 -o rt5.vec) && [ -s "$T/rt5.vec" ] && ok || bad "gen --suite NAME.vec in the current folder"
expect 2 "a.vec:1009: the file holds 1000 vectors, fewer than the 1001 asked for" $M gen $Q --suite "$T/a.vec" --count 1001 --seed 9 -o "$T/never.vec"
expect 2 "a.vec:3: field instr: the file is for $Q" $M gen hopper:wgmma.m64n8k16.f16.f16.f16 --suite "$T/a.vec" --count 5 --seed 9 -o "$T/never.vec"
expect 2 "none.vec: cannot open" $M gen $Q --suite "$T/none.vec" --count 5 --seed 9 -o "$T/never.vec"
expect 2 "unknown suite 'nonesuch'" $M gen $Q --suite nonesuch --count 5 --seed 9 -o "$T/never.vec"
sed '20s/^\([0-9a-f]*\) [0-9a-f]*/\1 zz/' "$T/a.vec" > "$T/bad8.vec"
expect 2 "bad8.vec:20: field a[0]: " $M gen $Q --suite "$T/bad8.vec" --count 1000 --seed 9 -o "$T/never.vec"
expect 0 "" $M gen $Q --suite "$T/bad8.vec" --count 5 --seed 9 -o "$T/first5.vec"
head -c 30000 "$T/b.vec.xz" > "$T/cut2.vec.xz"
expect 2 "cut2.vec.xz" $M gen $Q --suite "$T/cut2.vec.xz" --count 1000 --seed 9 -o "$T/never.vec"
[ ! -e "$T/never.vec" ] && ok || bad "gen --suite FILE: bad input wrote a file"

# IEEE units: flags in eval, in vector files (written, read, compared), refusals
IE="ieee,a=fp16,c=fp32,k=2,round=rd"
# the two examples of docs/algorithms.md, as the MPFR oracle computes them (make test-ieee, part "named")
[ "$($M eval --flags "ieee,a=e5m2,c=fp16,d=fp16,k=2,round=rz" 7b00 59,66 e6,65)" = "7bff 05 (overflow inexact)" ] && ok || bad "eval --flags: e5m2 RZ overflow"
[ "$($M eval --flags "ieee,a=bf16,c=fp32,d=fp32,k=2,round=rd" 80000000 8ab5,0ab5 0add,0add)" = "80000000 00 (none)" ] && ok || bad "eval --flags: bf16 RD cancellation"
expect 2 "defines no exception flags" $M eval --flags $Q 0 $A1 $A1
expect 2 "option 'round=rmm' refused" $M describe "$Q,round=rmm"
# issue 27: x86, Arm, RISC-V and CDNA4 names; an option of the instruction's own arithmetic is refused naming its value,
# the modes an instruction has (Arm FPMR, FPCR) are options with their ranges; describe names the source
expect 2 "nearest: x86:tdpbf16ps" $M describe x86:tdpbf17ps
expect 2 "nearest: riscv:vfwdota.vv.n8" $M describe riscv:vfwdota.vv.n9
expect 2 "(its own: ways=2)" $M describe "x86:tdpbf16ps,ways=1"
expect 2 "(its own: round=rodd)" $M describe "armv9:bfdot,round=rz"
expect 2 "this mode takes lscale=0..63" $M describe "armv9:fdot.f32.e4m3.e4m3,lscale=99"
[ "$($M describe "armv9:fdot.f32.e4m3.e4m3,lscale=3" | head -1)" = "armv9:fdot.f32.e4m3.e4m3,lscale=3" ] && ok || bad "describe an Arm FP8 mode"
[ "$($M describe "armv9:bfdot.ebf,round=rz" | sed -n 2p | grep -c ',round=rz,')" = 1 ] && ok || bad "describe an FPCR.RMode"
expect 0 "not checked on silicon" $M describe cdna4:v_mfma_scale_f32_16x16x128_f8f6f4.e2m1.e2m1
expect 0 "Source: Intel" $M describe x86:vdpbf16ps
for I in x86:tdpbf16ps x86:vdpbf16ps armv9:bfdot "armv9:fdot.f16.e5m2.e4m3,lscale=5,ovf=sat+inf" riscv:vfqwdota.vv.e4m3.n16; do
  $M gen "$I" --suite random --count 300 --seed 9 -o "$T/g27.vec" 2> "$T/err" || { bad "gen $I: $(cat "$T/err")"; continue; }
  r=$($M check "$T/g27.vec" | tail -1)
  [ "$r" = "300 vectors, 0 mismatches" ] && ok || bad "check $I: $r"
done
expect 0 "" $M describe "$Q,round=rz,zero=pos"
expect 2 "defines no exception flags" $M describe "hopper:wgmma.m64n8k16.f32.bf16.bf16,tiny=before"
expect 2 "defines no exception flags" $M describe "fused,a=e4m3,k=32,f=13,tiny=before"
expect 2 "do not apply" $M describe "fma,a=fp32,c=fp32,k=2,ovf=sat"
expect 2 "field 'd'" $M describe "ieee,a=fp16,k=2,d=tf32"
expect 2 "field 'round'" $M describe "ieee,a=fp16,k=2,round=rnd"
expect 0 "round=rmm,ovf=ieee,nan=prop,zero=ieee,tiny=before" $M describe "ieee,a=e4m3,k=4,d=e2m1,round=rmm,nan=prop,tiny=before"
for I in "$IE" "ieee,a=e4m3,b=e5m2,c=fp16,d=e4m3,k=8,l=4,round=rmm,nan=prop" "ieee,a=fp64,c=fp64,d=fp64,k=2,round=ru,tiny=before" \
         "ieee,a=e2m1,c=fp32,d=e2m1,k=32,scale=ue8m0,block=16,round=rodd" "fused,a=bf16,k=8,f=24,round=rz,ovf=ieee,zero=ieee,nan=prop"; do
  for S in compliance ieee-zero ieee-overflow ieee-tiny ieee-sticky ieee-nan; do
    $M gen "$I" --suite $S --count $COUNT --seed 5 -o "$T/g.vec" 2> "$T/err" || { bad "gen $I $S: $(cat "$T/err")"; continue; }
    r=$($M check "$T/g.vec" | tail -1)
    [ "$r" = "$COUNT vectors, 0 mismatches" ] && ok || bad "check $I $S: $r"
  done
done
$M gen "$IE" --suite compliance --count 1000 --seed 3 -o "$T/f.vec"
grep -q '^# fields: c a\[0..1\] b\[0..1\] d flags$' "$T/f.vec" && ok || bad "an ieee unit's file carries flags"
[ "$(grep -v '^#' "$T/f.vec" | awk '{print $NF}' | sort -u | wc -l)" -ge 3 ] && ok || bad "compliance raises several flag combinations"
sed '/^#/!s/ [0-9a-f]* [0-9a-f][0-9a-f]$/ 00000000 00/' "$T/f.vec" > "$T/fz.vec"
expect 0 "" $M run "$T/fz.vec" -o "$T/fr.vec"
grep -v '^#' "$T/fr.vec" | cmp -s - "$(grep -v '^#' "$T/f.vec" > "$T/f1"; echo "$T/f1")" && ok || bad "run fills d and flags"
awk '!/^#/ && !done && $NF != "00" { $NF = ($NF == "01") ? "03" : "01"; done = 1 } { print }' "$T/f.vec" > "$T/fb.vec"
expect 1 "flags=" $M check "$T/fb.vec"
sed 's/^# fields: \(.*\) d flags$/# fields: \1 d/; /^#/!s/ [0-9a-f][0-9a-f]$//' "$T/f.vec" > "$T/fn.vec"
[ "$($M check "$T/fn.vec" | tail -1)" = "1000 vectors, 0 mismatches" ] && ok || bad "a file without flags checks d alone"
awk '!/^#/ && !done { $NF = "20"; done = 1 } { print }' "$T/f.vec" > "$T/fw.vec"
expect 2 "field flags" $M check "$T/fw.vec"
sed 's/ d$/ d flags/; /^#/!s/$/ 00/' "$T/a.vec" > "$T/fq.vec"
expect 2 "defines no exception flags" $M check "$T/fq.vec"

# verify: arguments (the flow itself: tests/verify_test.sh)
expect 0 "" $M verify --help
expect 2 "unknown option '--frobnicate'" $M verify x.dut --frobnicate
expect 2 "--count needs a number" $M verify x.dut --count many
expect 2 "--shard needs i/n" $M verify x.dut --shard 2/2
expect 2 "cannot open" $M verify "$T/does-not-exist.dut"
printf '[unit]\nmatch %s\n' "$Q" > "$T/nofiles.dut"
expect 2 "nofiles.dut:2: key 'files': no source files" $M verify "$T/nofiles.dut"
expect 2 "not a results file" $M verify --merge "$T/a.vec"

# threads: the same bytes for any thread count (gen, run, check; plain
# files, pipes, .xz), and a bad line deep in a file named exactly
N=20000; [ "$QUICK" = quick ] && N=6000
for I in $Q cdna2:v_mfma_f32_16x16x16f16 blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3; do
  $M gen "$I" --suite compliance --count $N --seed 4 --threads 1 -o "$T/t1.vec"
  for t in 2 3 8; do
    $M gen "$I" --suite compliance --count $N --seed 4 --threads $t -o "$T/t.vec"
    cmp -s "$T/t1.vec" "$T/t.vec" && ok || bad "gen $I --threads $t differs from --threads 1"
  done
  $M gen "$I" --suite compliance --count $N --seed 4 --threads 3 -o "$T/t.vec.xz"
  xz -dc "$T/t.vec.xz" | cmp -s - "$T/t1.vec" && ok || bad "gen $I --threads 3 to .xz"
  awk '!/^#/ { $NF = substr("0000000000000000", 1, length($NF)) } { print }' "$T/t1.vec" > "$T/tz.vec"
  $M run "$T/tz.vec" -o "$T/r1.vec" --threads 1 2> /dev/null
  $M check "$T/tz.vec" --threads 1 --show 5 > "$T/c1.out"
  for t in 2 5; do
    $M run "$T/tz.vec" -o "$T/r.vec" --threads $t 2> /dev/null
    cmp -s "$T/r1.vec" "$T/r.vec" && ok || bad "run $I --threads $t differs"
    $M check "$T/tz.vec" --threads $t --show 5 > "$T/c.out"
    cmp -s "$T/c1.out" "$T/c.out" && ok || bad "check $I --threads $t prints otherwise"
  done
  cat "$T/tz.vec" | $M run - -o - --threads 4 2> /dev/null | cmp -s - "$T/r1.vec" && ok || bad "run $I from a pipe"
  $M check "$T/r1.vec" --threads 4 | tail -1 | grep -q " 0 mismatches$" && ok || bad "check $I of run's output"
done
awk -v n=$((N / 2 + 7)) 'NR == n { sub(/ [0-9a-f][0-9a-f] /, " 1 ") } { print }' "$T/t1.vec" > "$T/tbad.vec"
for t in 1 4; do
  expect 2 "tbad.vec:$((N / 2 + 7)): field" $M check "$T/tbad.vec" --threads $t
  expect 2 "tbad.vec:$((N / 2 + 7)): field" $M run "$T/tbad.vec" -o "$T/never2.vec" --threads $t
  [ ! -e "$T/never2.vec" ] && ok || bad "run --threads $t wrote output on bad input"
done
expect 2 "--threads" $M check "$T/t1.vec" --threads 0
# every way in and out of the threaded pass, the same bytes as one thread
# writing a plain file: stdout, .xz out and in, pipes, a last line without
# a newline, CRLF lines, an empty body, a bad line deep in a compressed file
$M gen "$I" --suite compliance --count 0 --seed 4 -o "$T/q0.vec"
for t in 1 4; do
  # an empty file checks nothing: a failure unless asked for
  expect 1 "0 vectors: nothing was checked" $M check "$T/q0.vec" --threads $t
  expect 0 "" $M check "$T/q0.vec" --threads $t --allow-empty
  $M gen "$I" --suite compliance --count $N --seed 4 --threads $t -o - | cmp -s - "$T/t1.vec" && ok || bad "gen --threads $t to stdout"
  $M run "$T/q0.vec" -o "$T/q0r.vec" --threads $t 2> /dev/null && [ "$(grep -vc '^#' "$T/q0r.vec")" = 0 ] && ok || bad "run --threads $t of an empty body"
done
awk '!/^#/ { $NF = "00000000" } { print }' "$T/t1.vec" > "$T/qz.vec"
$M run "$T/qz.vec" -o "$T/qr1.vec" --threads 1 2> /dev/null
xz -c "$T/qz.vec" > "$T/qz.vec.xz"
head -c -1 "$T/qz.vec" > "$T/qn.vec"
sed 's/$/\r/' "$T/qz.vec" > "$T/qcr.vec"
for t in 2 3 8; do
  $M run "$T/qz.vec" -o - --threads $t 2> /dev/null | cmp -s - "$T/qr1.vec" && ok || bad "run --threads $t to stdout"
  $M run "$T/qz.vec" -o "$T/qr.vec.xz" --threads $t 2> /dev/null
  xz -dc "$T/qr.vec.xz" | cmp -s - "$T/qr1.vec" && ok || bad "run --threads $t to .xz"
  $M run "$T/qz.vec.xz" -o "$T/qr.vec" --threads $t 2> /dev/null; cmp -s "$T/qr.vec" "$T/qr1.vec" && ok || bad "run --threads $t from .xz"
  $M run "$T/qn.vec" -o "$T/qr.vec" --threads $t 2> /dev/null; cmp -s "$T/qr.vec" "$T/qr1.vec" && ok || bad "run --threads $t, no final newline"
  $M run - -o "$T/qr.vec" --threads $t < "$T/qn.vec" 2> /dev/null; cmp -s "$T/qr.vec" "$T/qr1.vec" && ok || bad "run --threads $t, a pipe without a final newline"
  $M run "$T/qcr.vec" -o "$T/qr.vec" --threads $t 2> /dev/null; cmp -s "$T/qr.vec" "$T/qr1.vec" && ok || bad "run --threads $t of CRLF lines"
done
awk -v n=$((N - 3)) 'NR == n { sub(/ [0-9a-f][0-9a-f] /, " 1 ") } { print }' "$T/t1.vec" | xz -c > "$T/qbad.vec.xz"
(head -c -1 "$T/t1.vec"; printf ' 00') > "$T/qlast.vec"
for t in 1 3 8; do
  expect 2 "qbad.vec.xz:$((N - 3)): field" $M check "$T/qbad.vec.xz" --threads $t
  expect 2 "qbad.vec.xz:$((N - 3)): field" $M run "$T/qbad.vec.xz" -o "$T/never3.vec.xz" --threads $t
  expect 2 "qlast.vec:$((N + 9)): field" $M run "$T/qlast.vec" -o "$T/never3.vec" --threads $t
  [ ! -e "$T/never3.vec" ] && [ ! -e "$T/never3.vec.xz" ] && ok || bad "run --threads $t wrote output on bad input"
done
ls "$T" | grep -q 'never3.*tmp' && bad "temporary file left behind (threads)" || ok
# a large file (69 MB): run reads it mapped and lets it go in 64 MB segments
$M gen $Q --suite random --count 330000 --seed 6 --threads 1 -o "$T/big1.vec"
$M gen $Q --suite random --count 330000 --seed 6 --threads 3 -o "$T/big.vec"
cmp -s "$T/big1.vec" "$T/big.vec" && ok || bad "gen --threads 3 of 69 MB differs"
$M run "$T/big1.vec" -o "$T/big.vec" --threads 3 2> /dev/null
[ "$(grep -v '^#' "$T/big.vec" | cksum)" = "$(grep -v '^#' "$T/big1.vec" | cksum)" ] && ok || bad "run --threads 3 of 69 MB differs"
rm -f "$T/big1.vec" "$T/big.vec"
# a line longer than a piece (300 kB) deep in a file: named, whatever piece it starts in
$M gen $Q --suite normal --count 3000 --seed 5 -o "$T/long.vec"
awk 'NR == 2000 { s = "x"; while (length(s) < 300000) s = s s; $0 = $0 " " s } { print }' "$T/long.vec" > "$T/long2.vec"
for t in 1 3; do
  expect 2 "long2.vec:2000: " $M check "$T/long2.vec" --threads $t
done
# a file cut while it is read (by another program): a message, no crash.
# run writes into a FIFO nobody reads yet, so it stops at the full pipe
# after its first pieces, with the file's size taken; then the file is cut
# and the FIFO drained.  (It faults on the mapping: SIGBUS, which killed
# mmaref before its handler.)
$M gen $Q --suite normal --count 20000 --seed 5 -o "$T/cut.vec"
mkfifo "$T/cutfifo"
exec 3<> "$T/cutfifo"
$M run "$T/cut.vec" -o "$T/cutfifo" --threads 1 2> "$T/cut.err" & pid=$!
i=0
# (it has written its header: the size is taken)
while [ $i -lt 100 ] && [ "$(sed -n 's/^wchar: //p' /proc/$pid/io 2> /dev/null)" = 0 ]; do sleep 0.1; i=$((i + 1)); done
truncate -s 2000000 "$T/cut.vec"
cat <&3 > /dev/null & cpid=$!
wait $pid; rc=$?
kill $cpid 2> /dev/null; wait $cpid 2> /dev/null; exec 3>&-
[ $rc = 2 ] && grep -q "cut.vec: the file got shorter while it was read" "$T/cut.err" && ok || bad "run of a file cut while read (rc $rc): $(cat "$T/cut.err")"
rm -f "$T/long.vec" "$T/long2.vec" "$T/cut.vec" "$T/cutfifo"

# an output path that is not a regular file (a FIFO here; /dev/null alike) is
# written as it is: a rename over it replaced it with a plain file
mkfifo "$T/fifo"
cat "$T/fifo" > "$T/fromfifo" &
$M gen $Q --suite normal --count 3000 --seed 5 --threads 3 -o "$T/fifo"; rc=$?
wait
$M gen $Q --suite normal --count 3000 --seed 5 -o "$T/plain.vec"
[ $rc = 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fromfifo" "$T/plain.vec" && ok || bad "gen -o FIFO (rc $rc)"
cat "$T/fifo" > "$T/fromfifo" &
$M run "$T/plain.vec" -o "$T/fifo" --threads 2; rc=$?
wait
[ $rc = 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/fromfifo" "$T/plain.vec" && ok || bad "run -o FIFO (rc $rc)"
mkdir "$T/adir"
expect 2 "is a directory" $M gen $Q --suite normal --count 3 --seed 5 -o "$T/adir"
rm -rf "$T/fifo" "$T/fromfifo" "$T/plain.vec" "$T/adir"

# output files: compressed in the process, never through a shell; any name;
# nothing left behind by a failure, a signal or a full disk
mkdir "$T/od"
for ext in vec.xz vec.gz vec.zst; do
  $M gen $Q --suite compliance --count 1000 --seed 9 -o "$T/od/x';touch INJECTED;'.$ext" && ok || bad "gen to a name with quotes ($ext)"
  case $ext in vec.xz) dc="xz -dc";; vec.gz) dc="gzip -dc";; vec.zst) dc="zstd -qdc";; esac
  $dc "$T/od/x';touch INJECTED;'.$ext" | cmp -s - "$T/a.vec" && ok || bad "gen to .$ext: not the plain file's bytes"
  expect 0 "1000 vectors, 0 mismatches" $M check "$T/od/x';touch INJECTED;'.$ext"
done
[ ! -e INJECTED ] && [ ! -e "$T/od/INJECTED" ] && ok || bad "a file name ran a command"
for ext in vec.bz2 vec.lz4 vec.zip; do
  expect 2 "unknown compression" $M gen $Q --suite compliance --count 10 --seed 9 -o "$T/od/u.$ext"
  [ ! -e "$T/od/u.$ext" ] && ok || bad "gen wrote $ext"
done
expect 2 "no such folder" $M gen $Q --suite compliance --count 10 --seed 9 -o "$T/nodir/x.vec"
expect 2 "--count 99999999999999999999 is more than the limit" $M gen $Q --suite compliance --count 99999999999999999999 --seed 1 -o "$T/od/n.vec"
expect 2 "the disk has" $M gen $Q --suite compliance --count 1000000000000 --seed 1 -o "$T/od/n.vec"
expect 2 "--seed needs an integer" $M gen $Q --suite compliance --count 10 --seed -1 -o "$T/od/n.vec"
# a signal while writing (INT, TERM, HUP): the temporary file goes with it.
# (python3 where present: a shell's background job ignores SIGINT)
if command -v python3 > /dev/null; then
  for ext in vec vec.xz vec.zst; do
    for sig in INT TERM HUP; do
      python3 -c '
import signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[3:], preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGHUP)])
time.sleep(float(sys.argv[2])); p.send_signal(getattr(signal, "SIG" + sys.argv[1])); sys.exit(0 if p.wait() < 0 else 1)
' $sig 0.5 $M gen $Q --suite compliance --count 100000000 --seed 1 --threads 2 -o "$T/od/sig.$ext" && ok || bad "gen did not die of SIG$sig"
      [ -z "$(ls -A "$T/od" | grep sig)" ] && ok || bad "SIG$sig during gen -o .$ext left $(ls -A "$T/od" | grep sig)"
    done
  done
fi
# a full disk: a tmpfs of 4 MB where this test may mount one (root).  gen
# refuses at once what surely does not fit (plain text, its size known);
# compressed output that does not fit fails as it is written, and run's
# output is not known ahead
$M gen $Q --suite random --count 200000 --seed 1 -o "$T/od/r.vec"
if mkdir "$T/small" && mount -t tmpfs -o size=4m tmpfs "$T/small" 2> /dev/null; then
  expect 2 "the disk has" $M gen $Q --suite random --count 200000 --seed 1 -o "$T/small/full.vec"
  for ext in vec.xz vec.gz vec.zst; do
    expect 1 "error: $T/small/full.$ext: No space left on device" $M gen $Q --suite random --count 200000 --seed 1 -o "$T/small/full.$ext"
    [ -z "$(ls -A "$T/small")" ] && ok || bad "a full disk left $(ls -A "$T/small")"
  done
  for ext in vec vec.xz; do
    for t in 1 2; do
      expect 1 "error: $T/small/fullr.$ext: No space left on device" $M run "$T/od/r.vec" -o "$T/small/fullr.$ext" --threads $t
      [ -z "$(ls -A "$T/small")" ] && ok || bad "a full disk left $(ls -A "$T/small") (run)"
    done
  done
  umount "$T/small"
else
  echo "cli tests: (no tmpfs mount here: the full-disk cases are skipped)"
fi
expect 1 "No space left on device" $M gen $Q --suite compliance --count 1000 --seed 1 -o /dev/full
rm -rf "$T/od"

# --plot: a PNG or SVG of the run through gnuplot, whole or not at all
mkdir -p "$T/pl"
expect 2 "must end in .png or .svg" $M metrics $Q --count 200 --plot "$T/pl/m.pdf"
expect 2 "must end in .png or .svg" $M gemm $Q --k 64 --count 20 --plot "$T/pl/g"
[ -z "$(ls -A "$T/pl")" ] && ok || bad "a refused --plot left $(ls -A "$T/pl")"
if command -v gnuplot > /dev/null 2>&1; then
  expect 0 "" $M metrics $Q "fused,a=e4m3,b=e4m3,k=32,f=20" --count 2000 --plot "$T/pl/m.png"
  [ "$(head -c 8 "$T/pl/m.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && ok || bad "metrics --plot: not a PNG"
  expect 0 "" $M gemm $Q --k 64,128,256 --mode tc,promote --count 200 --plot "$T/pl/g.svg"
  [ -s "$T/pl/g.svg" ] && grep -q "<svg" "$T/pl/g.svg" && ok || bad "gemm --plot: not an SVG"
  [ "$(grep -c "mmaref gemm: K=" "$T/out")" = 3 ] && ok || bad "gemm --k list: not a table per depth"
  # gnuplot refuses (a path it cannot write is ours, so: no such folder for the result)
  expect 2 "" $M metrics $Q --count 200 --plot "$T/pl/nodir/m.png"
  [ ! -e "$T/pl/nodir" ] && ok || bad "--plot into a missing folder made it"
  ls "$T/pl" | grep -q tmp && bad "--plot left a temporary file" || ok
  # no gnuplot on PATH: refused before any work, nothing written
  expect 2 "gnuplot is not installed" env PATH=/nonexistent $M metrics $Q --count 200 --plot "$T/pl/x.png"
  [ ! -e "$T/pl/x.png" ] && ok || bad "--plot without gnuplot wrote a file"
else
  echo "cli tests: (no gnuplot: the drawing cases of --plot are skipped)"
  expect 2 "gnuplot is not installed" $M metrics $Q --count 200 --plot "$T/pl/x.png"
fi

echo "cli tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
