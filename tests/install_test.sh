#!/bin/sh
# The installed product, used from outside the repository:
#  1. a copy of examples/ passes with the installed mmaref (examples/check.sh:
#     the units match, each broken variant fails with its mismatch class;
#     systolic4's broken processing element named by the triage, element
#     (1,2) with f=16; ieee_dot2's wrong inexact flag: flags only), and the
#     installed probe of systolic4.dut gives the
#     configuration the array computes;
#  2. docs/dpi.md's minimal testbench, built as printed in another directory
#     against the installed kit, its unit made of the installed RTL with the
#     installed mmaparams: the right unit passes (status 0), a unit with
#     F one short fails the simulation; the same through the shared library;
#     docs/dpi.md's flags testbench on examples/ieee_dot2: passes, and its
#     broken variant (a wrong inexact flag) fails;
#  3. an operand array of the wrong length stops the simulation with a
#     message naming the function and the lengths; so does a flags check on
#     a unit without flags.
# usage: tests/install_test.sh PREFIX MMAPARAMS   (PREFIX: a fresh make install)
set -u
P=$(cd "$1" && pwd); params=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
R=$(pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PATH="$P/bin:$PATH" PKG_CONFIG_PATH="$P/lib/pkgconfig"
fail=0

# ---- 0. the installed libraries export the public API and nothing else --------
# (a simulator loads several DPI libraries into one namespace; a C user
# links ours beside their own code)
pub=$(grep -ohE '\bmma_[a-z0-9_]+[[:space:]]*\(' "$R"/model/include/*.h | sed 's/[[:space:]]*($//' | sort -u)
extra=$(nm -g --defined-only "$P/lib/libmmaref.a" 2> /dev/null | awk 'NF == 3 { print $3 }' | sort -u | grep -vxF "$pub")
[ -z "$extra" ] || { echo "FAIL: the installed libmmaref.a exports private symbols: $(echo $extra | head -c 300)"; fail=1; }
extra=$(nm -D --defined-only "$P/lib/libmmaref_dpi.so" | awk '{ print $3 }' | grep -v '^mmaref_' | sort -u | grep -vxF "$pub")
[ -z "$extra" ] || { echo "FAIL: libmmaref_dpi.so exports private symbols: $(echo $extra | head -c 300)"; fail=1; }
[ "$(nm -D --defined-only "$P/lib/libmmaref_dpi.so" | grep -c ' mma_dot$')" = 1 ] || { echo "FAIL: libmmaref_dpi.so lacks mma_dot"; fail=1; }

# ---- 1. the examples, outside the repository, with the installed tool --------
cp -r "$R/examples" "$T/examples"
(cd "$T" && sh examples/check.sh mmaref "$T/work") > "$T/check.log" 2>&1 || fail=1
cat "$T/check.log"
# the systolic array passes; its broken variant fails, the triage naming the
# processing element and its F
grep -q '^== systolic4/systolic4 .*0 mismatches  \[exit 0\]' "$T/check.log" || { echo "FAIL: the installed mmaref does not pass systolic4"; fail=1; }
grep -q '^== systolic4/broken .*\[exit 1\]' "$T/check.log" && grep -q '1 output element (1,2) behaves as f=16 instead of 24' "$T/check.log" \
    || { echo "FAIL: the installed mmaref does not diagnose systolic4's broken processing element"; fail=1; }
# the IEEE unit with a rounding-mode input and flags passes; its broken
# variant (inexact without the sticky bits) fails on the flags alone
grep -q '^== ieee_dot2/ieee_dot2 .*0 mismatches  \[exit 0\]' "$T/check.log" || { echo "FAIL: the installed mmaref does not pass ieee_dot2"; fail=1; }
grep -q '^== ieee_dot2/broken .*\[exit 1\]' "$T/check.log" && grep -q 'flags only [0-9]*, other 0' "$T/check.log" \
    || { echo "FAIL: the installed mmaref does not find ieee_dot2's wrong inexact flag"; fail=1; }
# the probe through the unit, installed: the configuration the array computes
(cd "$T/examples/systolic4" && mmaref probe systolic4.dut --workdir "$T/probe" --count 300) > "$T/probe.log" 2>&1 \
    && grep -qx 'config: fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=4,l=1,f=24,align=rz,round=rz,p=23,ezero=none,nan=canon,zero=pos' "$T/probe.log" \
    && echo "== installed probe of systolic4.dut: $(grep '^config' "$T/probe.log")" \
    || { tail -5 "$T/probe.log"; echo "FAIL: the installed probe of systolic4.dut"; fail=1; }

# ---- 2. docs/dpi.md's testbench ------------------------------------------------
block() {   # block <language>: the first such code block after "## A minimal testbench"
    awk -v lang="$1" '/^## A minimal testbench/ { f = 1 } f && $0 == "```" lang { g = 1; next } g && /^```/ { exit } g' "$R/docs/dpi.md"
}
# my_dot_unit: the combinational QGMMA mma_dpa (F shifted by $1), one file with
# the RTL: both from the installation (mmaparams, $(pkg-config --variable=rtldir mmaref))
unit() {
    gp=$(mmaparams --sv --f-delta "$1" 'hopper:wgmma.m64n8k32.f32.e4m3.e4m3' | sed 's/^#(//; s/)$//')
    # the RTL's package before anything that names it (Verilator 5.006 wants
    # a package declared before its use)
    cat "$(pkg-config --variable=rtldir mmaref)"/mma_pkg.sv
    cat <<SV
module my_dot_unit (input logic [255:0] a, input logic [255:0] b, input logic [31:0] c,
                    output logic [31:0] d);
  logic v;
  logic [31:0] cov;
  mma_dpa #($gp) u (.clk(1'b0), .rst_n(1'b1), .in_valid(1'b1), .a(a), .b(b), .c(c),
                    .out_valid(v), .d(d), .cov(cov));
endmodule
SV
    for f in "$(pkg-config --variable=rtldir mmaref)"/*.sv; do [ "${f##*/}" = mma_pkg.sv ] || cat "$f"; done
}
[ "$(command -v mmaparams)" = "$P/bin/mmaparams" ] && mmaparams --help | grep -q '^usage: mmaparams' \
    && [ -s "$(pkg-config --variable=rtldir mmaref)/mma_dpa.sv" ] \
    && [ "$(wc -l < "$(pkg-config --variable=rtlfilelist mmaref)")" = "$(ls "$R"/rtl/*.sv | wc -l)" ] \
    || { echo "FAIL: mmaparams (--help) and the RTL are not installed"; fail=1; }
# the verify harness's headers (verify/harness/), which the generated testbenches include
for h in mmaref_harness.h mmaref_results.h; do
    cmp -s "$P/include/$h" "$R/verify/harness/$h" || { echo "FAIL: $P/include/$h is not verify/harness/$h"; fail=1; }
done
# run <dir> <F delta>: the build and run commands of the document, in dir
run() {
    mkdir -p "$1"
    block systemverilog > "$1/tb.sv"
    unit "$2" > "$1/my_dot_unit.sv"
    block sh | grep -v '^export PKG_CONFIG_PATH=' > "$1/build.sh"
    (cd "$1" && sh ./build.sh > run.log 2>&1; exit $?) 2>/dev/null
}
block systemverilog | grep -q '^module tb;' || { echo "FAIL: no testbench in docs/dpi.md"; fail=1; }
run "$T/doc" 0; rc=$?
line=$(grep -E "^[0-9]+ vectors, [0-9]+ mismatches" "$T/doc/run.log" | head -1)
echo "== docs/dpi.md testbench, installed kit, right unit: $line (exit $rc)"
if [ $rc != 0 ] || [ "$line" != "100000 vectors, 0 mismatches" ]; then tail -15 "$T/doc/run.log"; echo "FAIL: the docs/dpi.md testbench"; fail=1; fi
if grep -q '%Warning' "$T/doc/run.log"; then grep -A2 '%Warning' "$T/doc/run.log" | head; echo "FAIL: Verilator warnings"; fail=1; fi
run "$T/doc-broken" -1; rc=$?
line=$(grep -E "^[0-9]+ vectors, [0-9]+ mismatches" "$T/doc-broken/run.log" | head -1)
echo "== docs/dpi.md testbench, unit with F one short: $line (exit $rc)"
if [ $rc = 0 ] || ! grep -q "my_dot_unit does not match the model" "$T/doc-broken/run.log"; then
    tail -15 "$T/doc-broken/run.log"; echo "FAIL: the broken unit passed the docs/dpi.md testbench"; fail=1
fi
# the shared library (what -sv_lib loads), the same broken unit
(cd "$T/doc-broken" && rm -rf obj_dir &&
 verilator --binary --top-module tb "$(pkg-config --variable=svpkg mmaref)" tb.sv my_dot_unit.sv \
    -LDFLAGS "$(pkg-config --variable=svlib mmaref) -Wl,-rpath,$(pkg-config --variable=libdir mmaref)" > so.log 2>&1 &&
 ldd obj_dir/Vtb | grep -q "$P/lib/libmmaref_dpi.so" && obj_dir/Vtb >> so.log 2>&1; exit $?) 2>/dev/null; rc=$?
echo "== the same through libmmaref_dpi.so: exit $rc"
if [ $rc = 0 ] || ! grep -q "my_dot_unit does not match the model" "$T/doc-broken/so.log"; then
    tail -15 "$T/doc-broken/so.log"; echo "FAIL: the shared library"; fail=1
fi

# ---- 2b. docs/dpi.md's flags testbench: examples/ieee_dot2, right and broken -------
flags_tb() {   # flags_tb <dir> [verilator options]: built and run as the document says
    mkdir -p "$1"; d=$1; shift
    awk '/^## Exception flags/ { f = 1 } f && $0 == "```systemverilog" { g = 1; next } g && /^```/ { exit } g' "$R/docs/dpi.md" > "$d/tb_flags.sv"
    (cd "$d" && verilator --binary --top-module tb_flags "$(pkg-config --variable=svpkg mmaref)" tb_flags.sv \
        "$T/examples/ieee_dot2/ieee_dot2.sv" "$@" -LDFLAGS "$(pkg-config --variable=dpilib mmaref) -lm -lpthread" > build.log 2>&1 \
        && obj_dir/Vtb_flags > run.log 2>&1; exit $?) 2>/dev/null
}
flags_tb "$T/flags"; rc=$?
echo "== docs/dpi.md flags testbench, ieee_dot2: $(grep -E '^[0-9]+ vectors' "$T/flags/run.log"); $(grep -o 'exception flags compared.*' "$T/flags/run.log") (exit $rc)"
if [ $rc != 0 ] || ! grep -q '^20000 vectors, 0 mismatches' "$T/flags/run.log" \
   || ! grep -q 'exception flags compared on 20000 vectors: wrong on 0' "$T/flags/run.log" || grep -q '%Warning' "$T/flags/build.log"; then
    cat "$T/flags/build.log" "$T/flags/run.log" 2>/dev/null | tail -15; echo "FAIL: the docs/dpi.md flags testbench"; fail=1
fi
flags_tb "$T/flags-broken" +define+BROKEN_INEXACT; rc=$?
echo "== the same, inexact without the sticky bits: $(grep -o 'exception flags compared.*' "$T/flags-broken/run.log") (exit $rc)"
if [ $rc = 0 ] || ! grep -q 'dut flags=00 (none) model flags=01 (inexact)' "$T/flags-broken/run.log" \
   || ! grep -q 'ieee_dot2 does not match the model' "$T/flags-broken/run.log"; then
    tail -15 "$T/flags-broken/run.log"; echo "FAIL: a wrong inexact flag passed the scoreboard"; fail=1
fi

# ---- 3. an operand array of the wrong length stops the simulation ----------------
mkdir -p "$T/len"
cat > "$T/len/tb.sv" <<'SV'
module tb;
  import mmaref_pkg::*;
  initial begin
    longint unsigned a[31], b[31], d;
    int h;
    h = mmaref_open("hopper:wgmma.m64n8k32.f32.e4m3.e4m3");
    foreach (a[k]) begin a[k] = 64'h38; b[k] = 64'h38; end
    d = mmaref_dot(h, 0, a, b);
    $display("mmaref_dot returned %h with a wrong length: not stopped", d);
    $finish;
  end
endmodule
SV
# must_stop <dir> <what> <message>: dir/tb.sv, built against the installed
# kit, stops the simulation (non-zero exit) with the message
must_stop() {
    (cd "$1" && verilator --binary --top-module tb "$(pkg-config --variable=svpkg mmaref)" tb.sv \
        -LDFLAGS "$(pkg-config --variable=dpilib mmaref) -lm -lpthread" > build.log 2>&1 && obj_dir/Vtb > run.log 2>&1; exit $?) 2>/dev/null
    rc=$?
    echo "== $2: exit $rc, $(grep -o "$3" "$1/run.log")"
    if [ $rc = 0 ] || grep -q "not stopped" "$1/run.log" || ! grep -q "$3" "$1/run.log"; then
        cat "$1/build.log" "$1/run.log" | tail -15; echo "FAIL: $2 did not stop the simulation"; fail=1
    fi
}
must_stop "$T/len" "an array of 31 elements for K=32" 'mmaref_dot: operand array a has 31 elements, the unit has K=32'
# ... and so does a flags check on a unit that defines no flags
mkdir -p "$T/noflags"
cat > "$T/noflags/tb.sv" <<'SV'
module tb;
  import mmaref_pkg::*;
  initial begin
    longint unsigned a[32], b[32];
    int h, bad;
    chandle sb;
    h = mmaref_open("hopper:wgmma.m64n8k32.f32.e4m3.e4m3");
    sb = mmaref_sb_open(h, "no flags");
    foreach (a[k]) begin a[k] = 64'h38; b[k] = 64'h38; end
    bad = mmaref_sb_check_flags(sb, 0, a, b, 64'h42000000, 0, -1);
    $display("mmaref_sb_check_flags returned %0d on a unit without flags: not stopped", bad);
    $finish;
  end
endmodule
SV
must_stop "$T/noflags" "flags compared on a unit without them" 'mmaref_sb_check_flags: unit [^ ]* defines no exception flags'
[ $fail = 0 ] && echo "PASS: the installed kit, from outside the repository"
exit $fail
