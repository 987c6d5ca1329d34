# Area against error, one line per format and tree (scripts/area/report.py
# writes acc_<format>_<tree>.dat: area um2 of the fastest netlist, mean ulp
# (normal), depth-4096 error (accumulator only), F).
# key: a word per format and tree, 1 when that line has data (else no key entry).
# gnuplot -e "dir='d'; out='d/tradeoff_accuracy.png'; key='1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0'" accuracy.gp
set terminal pngcairo size 1500,680 font "sans,10"
set output out
set multiplot layout 1,2
set logscale y
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right box opaque font ",9"
set xlabel "area of the fastest netlist (um^2)"
set format y "%.0e"
f(n) = dir."/".n
fmt = "e4m3 bf16 mxfp8 nvfp4"
names = "e4m3 bf16 MXFP8 NVFP4"
trees = "'fused CPA' 'fused CSA' 'chained-2' 'even/odd'"
col(u) = word("#1f77b4 #2ca02c #d62728 #9467bd", u)
dash(t) = t + 1
pt(t) = word("7 5 9 11", t + 1) + 0
file(u, t) = "acc_".word(fmt, u)."_".t.".dat"
title(u, t) = word(key, 4*(u-1)+t+1) eq "1" ? word(names, u)." ".word(trees, t + 1) : ""
set title "one instruction, normal inputs"
set ylabel "mean error (FP32 ulps)"
plot for [u = 1:4] for [t = 0:3] f(file(u, t)) u 1:2 w lp dt dash(t) pt pt(t) ps 0.8 \
         lc rgb col(u) t title(u, t), \
     for [u = 1:4] for [t = 0:3] f(file(u, t)) u 1:2:4 w labels offset 0,0.8 \
         font ",7" tc rgb col(u) notitle
set title "dot product of depth 4096, accumulator only, normal inputs"
set ylabel "normwise relative error  sum|d-x| / sum|x|"
plot for [u = 1:4] for [t = 0:3] f(file(u, t)) u 1:3 w lp dt dash(t) pt pt(t) ps 0.8 \
         lc rgb col(u) t title(u, t), \
     for [u = 1:4] for [t = 0:3] f(file(u, t)) u 1:3:4 w labels offset 0,0.8 \
         font ",7" tc rgb col(u) notitle
unset multiplot
