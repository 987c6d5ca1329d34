#!/bin/sh
# rtl_check.sh MMAPARAMS tag=instr ...
# 1. every preset parameter set: Verilator 5 lint (-Wall, unused signals
#    aside) and Yosys read_verilog -sv + hierarchy + proc (the two tools the
#    RTL must be accepted by);
# 2. unsupported parameters stop elaboration in both tools with a message
#    naming the parameter.
params=$1; shift
src=$(echo rtl/*.sv)
VERILATOR=${VERILATOR:-verilator}
YOSYS=${YOSYS:-yosys}
fail=0
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
# bad parameters: both tools must stop and name the parameter
for bad in "F=7:parameter F" "F=41:parameter F" "L=5:parameter L" "TREE=1:parameter TREE" \
           "CADD=3:parameter CADD" "ALIGN=1:parameter ALIGN" "P=24:parameter P" "PIPE=3:parameter PIPE" \
           "A_SPEC=4:parameter SPEC"; do
    kv=${bad%%:*}; msg=${bad#*:}
    k=${kv%%=*}; v=${kv#*=}
    if out=$($VERILATOR --lint-only --top-module mma_dpa -G$k=$v $src 2>&1); then
        echo "FAIL: verilator accepted $kv"; fail=1
    elif ! echo "$out" | grep -q "$msg"; then
        echo "$out" | head -5; echo "FAIL: verilator's message for $kv does not name the parameter"; fail=1
    fi
    if out=$($YOSYS -q -p "read_verilog -sv $src; chparam -set $k $v mma_dpa; hierarchy -check -top mma_dpa" 2>&1); then
        echo "FAIL: yosys accepted $kv"; fail=1
    elif ! echo "$out" | grep -q "$msg"; then
        echo "$out" | head -5; echo "FAIL: yosys's message for $kv does not name the parameter"; fail=1
    fi
done
[ $fail -eq 0 ] && echo "== rtl-check: bad parameters stop elaboration in verilator and yosys, naming the parameter"
exit $fail
