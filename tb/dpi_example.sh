#!/bin/sh
# Builds and runs the minimal testbench of docs/dpi.md as printed there
# (the SystemVerilog block under "A minimal testbench" and its build
# commands), with my_dot_unit an mma_dpa of the QGMMA preset; it must print
# "100000 vectors, 0 mismatches".
# usage: tb/dpi_example.sh RTL_B MMAPARAMS LIBMMAREF
set -eu
rtlb=$1; params=$2; lib=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
d=$rtlb/dpi_example
rm -rf "$d"; mkdir -p "$d"
# the example, verbatim from the documentation
awk '/^## A minimal testbench/ { f = 1 } f && /^```systemverilog/ { g = 1; next } g && /^```/ { exit } g' \
    docs/dpi.md > "$d/tb.sv"
grep -q "^module tb;" "$d/tb.sv" || { echo "FAIL: no example found in docs/dpi.md"; exit 1; }
# my_dot_unit: the combinational QGMMA unit
gparams=$("$params" 'hopper:wgmma.m64n8k32.f32.e4m3.e4m3' | sed 's/-G\([A-Z0-9_]*\)=\([-0-9]*\)/.\1(\2),/g; s/, *$//')
cat > "$d/my_dot_unit.sv" <<SV
module my_dot_unit (input logic [255:0] a, input logic [255:0] b, input logic [31:0] c,
                    output logic [31:0] d);
  logic v;
  logic [31:0] cov;
  mma_dpa #($gparams) u (.clk(1'b0), .rst_n(1'b1), .in_valid(1'b1), .a(a), .b(b), .c(c),
                         .out_valid(v), .d(d), .cov(cov));
endmodule
SV
vlt=$(verilator --getenv VERILATOR_ROOT)
for f in mmaref_dpi mmaref_tbkit; do
    cc -c -O2 -Imodel/include -Idpi -I"$vlt/include/vltstd" "dpi/$f.c" -o "$d/$f.o"
done
verilator --binary -Wno-fatal --top-module tb -Mdir "$d/obj" dpi/mmaref_pkg.sv "$d/tb.sv" \
    "$d/my_dot_unit.sv" rtl/*.sv -CFLAGS -O1 \
    -LDFLAGS "$PWD/$d/mmaref_dpi.o $PWD/$d/mmaref_tbkit.o $lib -lm" \
    > "$d/build.log" 2>&1 || { tail -20 "$d/build.log"; echo "FAIL: the docs/dpi.md example does not build"; exit 1; }
"$d/obj/Vtb" > "$d/run.log" 2>&1 || true
line=$(grep -E "vectors, .* mismatches" "$d/run.log" | head -1)
echo "== docs/dpi.md minimal testbench: $line"
[ "$line" = "100000 vectors, 0 mismatches" ] || { tail -20 "$d/run.log"; echo "FAIL: the docs/dpi.md example"; exit 1; }
