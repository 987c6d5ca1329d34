#!/bin/sh
# rtl_cec.sh OLD_RTL_DIR MMAPARAMS [mmaparams options] UNIT
# Combinational equivalence of two versions of rtl/ for one unit (PIPE=0):
# each flattened by Yosys (synth -noabc, aigmap) to an AIG, then ABC's cec.
# For refactorings that must not change the logic, e.g.
#   git archive OLDREV rtl | tar -x -C /tmp/old
#   sh tb/rtl_cec.sh /tmp/old/rtl build/rtl/mmaparams 'fused,a=e4m3,b=e4m3,c=fp32,d=fp32,k=8,f=13'
# Exit 0 when equivalent, 1 when not (or when a step fails).  A K=32 unit
# can take ABC longer than ten minutes; K <= 8 takes seconds to minutes.
old=$1; P=$2; shift 2
YOSYS=${YOSYS:-yosys}
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
top=$("$P" --top "$@") && cp=$("$P" --yosys "$@") || exit 1
pkgfirst() { d=$1; [ -f "$d/mma_pkg.sv" ] && printf '%s ' "$d/mma_pkg.sv"; ls "$d"/*.sv | grep -v '/mma_pkg\.sv$' | tr '\n' ' '; }
for v in old new; do
    [ $v = old ] && src=$(pkgfirst "$old") || src=$(pkgfirst rtl)
    $YOSYS -q -p "read_verilog -sv $src; $cp; hierarchy -check -top $top;
                  synth -flatten -noshare -noabc -top $top; aigmap; opt_clean; write_aiger -zinit $W/$v.aig" \
        > "$W/$v.log" 2>&1 || { tail -5 "$W/$v.log"; echo "rtl_cec: yosys failed on the $v RTL"; exit 1; }
done
yosys-abc -c "cec $W/old.aig $W/new.aig" > "$W/cec.log" 2>&1
if grep -q "Networks are equivalent" "$W/cec.log"; then
    echo "rtl_cec: $top $*: equivalent"
else
    tail -3 "$W/cec.log"; echo "rtl_cec: $top $*: NOT equivalent"; exit 1
fi
