#!/bin/sh
# rtl_check.sh MMAPARAMS tag=instr ...
# 1. every preset parameter set: Verilator 5 lint (-Wall, unused signals
#    aside) and Yosys read_verilog -sv + hierarchy + proc (the two tools the
#    RTL must be accepted by);
# 2. the structural variants (SUM, STAGES) of two presets, and the
#    block-scaled top mma_dpa_bs (BS_UNITS), the same way;
# 3. unsupported parameters stop elaboration in both tools with a message
#    naming the module and the parameter.
params=$1; shift
src="rtl/mma_pkg.sv $(ls rtl/*.sv | grep -v '^rtl/mma_pkg.sv$' | tr '\n' ' ')"   # the package first
VERILATOR=${VERILATOR:-verilator}
YOSYS=${YOSYS:-yosys}
fail=0
nb=0
for pair in "$@"; do
    tag=${pair%%=*}; instr=${pair#*=}
    for pipe in 0 2; do
        vp="$("$params" "$instr") -GPIPE=$pipe"
        yp="$("$params" --yosys "$instr" | sed "s/ mma_dpa\$/ -set PIPE $pipe mma_dpa/")"
        if ! out=$($VERILATOR --lint-only -Wall -Wno-UNUSEDSIGNAL --top-module mma_dpa $vp $src 2>&1); then
            echo "$out" | head -20; echo "FAIL: verilator lint $tag PIPE=$pipe"; fail=1
        fi
        if ! out=$($YOSYS -q -p "read_verilog -sv $src; $yp; hierarchy -check -top mma_dpa; proc; opt_clean" 2>&1); then
            echo "$out" | head -20; echo "FAIL: yosys $tag PIPE=$pipe"; fail=1
        elif echo "$out" | grep -qi "warning" ; then
            echo "$out" | grep -i warning | sort -u | head -5
        fi
    done
    echo "== rtl-check $tag: verilator lint and yosys elaboration clean (PIPE=0, 2)"
done
# the variants: carry-save sums and register cuts (mma_dpa), and the
# block-scaled units (mma_dpa_bs), each as mmaparams gives it
BS_UNITS="blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e4m3.e4m3.ue8m0
blackwell:tcgen05.mma.m128n8k64.kind::mxf4nvf4.block16.f32.e2m1.e2m1.ue4m3
blackwell:tcgen05.mma.m128n8k64.kind::mxf4.block32.f32.e2m1.e2m1.ue8m0
blackwell:tcgen05.mma.m128n8k32.kind::mxf8f6f4.block32.f32.e5m2.e2m3.ue8m0"
nv=0
for instr in hopper:wgmma.m64n8k32.f32.e4m3.e4m3 cdna3:v_mfma_f32_16x16x32_fp8_fp8 $BS_UNITS; do
    top=$("$params" --top "$instr")
    for st in "--sum 1 --stages 1" "--sum 2 --stages 2" "--sum 1 --stages 3" "--sum 2 --stages 4 --pipe 2"; do
        vp=$("$params" $st "$instr"); yp=$("$params" --yosys $st "$instr")
        if ! out=$($VERILATOR --lint-only -Wall -Wno-UNUSEDSIGNAL --top-module $top $vp $src 2>&1); then
            echo "$out" | head -20; echo "FAIL: verilator lint $instr $st"; fail=1
        fi
        if ! out=$($YOSYS -q -p "read_verilog -sv $src; $yp; hierarchy -check -top $top; proc; opt_clean" 2>&1); then
            echo "$out" | head -20; echo "FAIL: yosys $instr $st"; fail=1
        fi
        nv=$((nv + 1))
    done
done
echo "== rtl-check variants: verilator lint and yosys elaboration clean ($nv parameter sets: SUM 1/2 x STAGES 1..4 of QGMMA e4m3, CDNA3 fp8 and four block-scaled units)"
# bad parameters: both tools must stop and name the module and the
# parameter (the checks both tops share are in mma_dpa_checks, which names
# the top it was instantiated by)
for bad in "F=7:mma_dpa: parameter F" "F=41:mma_dpa: parameter F" "L=5:mma_dpa: parameter L" \
           "TREE=1:mma_dpa: parameter TREE" "CADD=3:mma_dpa: parameter CADD" "ALIGN=1:mma_dpa: parameter ALIGN" \
           "RHO=4:mma_dpa: parameter RHO" "P=24:mma_dpa: parameter P" "PIPE=3:mma_dpa: parameter PIPE" \
           "A_EB=13:mma_dpa: parameter A_EB" "A_SPEC=4:mma_unpack: parameter SPEC" "SUM=3:mma_dpa: parameter SUM" \
           "STAGES=5:mma_dpa: parameter STAGES" "bs:SCALE=3:mma_dpa_bs: parameter SCALE" \
           "bs:BLOCK=5:mma_dpa_bs: parameter BLOCK" "bs:TREE=1:mma_dpa_bs: parameter TREE" \
           "bs:F=46:mma_dpa_bs: parameter F" "bs:ALIGN=1:mma_dpa_bs: parameter ALIGN" \
           "bs:A_EB=6:mma_dpa_bs: parameter A_EB" "bs:STAGES=-1:mma_dpa_bs: parameter STAGES"; do
    top=mma_dpa; nb=$((nb + 1))
    case $bad in bs:*) top=mma_dpa_bs; bad=${bad#bs:} ;; esac
    kv=${bad%%:*}; msg=${bad#*:}
    k=${kv%%=*}; v=${kv#*=}
    if out=$($VERILATOR --lint-only --top-module $top -G$k=$v $src 2>&1); then
        echo "FAIL: verilator accepted $kv"; fail=1
    elif ! echo "$out" | grep -q "$msg"; then
        echo "$out" | head -5; echo "FAIL: verilator's message for $kv does not say '$msg'"; fail=1
    fi
    yv=$v
    [ "$v" -lt 0 ] && yv=$(printf "32'sh%08x" $((v & 0xffffffff)))   # chparam takes no negative decimals
    if out=$($YOSYS -q -p "read_verilog -sv $src; chparam -set $k $yv $top; hierarchy -check -top $top" 2>&1); then
        echo "FAIL: yosys accepted $kv"; fail=1
    elif ! echo "$out" | grep -q "$msg"; then
        echo "$out" | head -5; echo "FAIL: yosys's message for $kv does not say '$msg'"; fail=1
    fi
done
[ $fail -eq 0 ] && echo "== rtl-check: $nb bad parameters stop elaboration in verilator and yosys, naming the module and the parameter"
exit $fail
