# Area against error, one line per unit and tree (scripts/area/report.py
# writes acc_<unit>_<tree>.dat: area um2 of the fastest netlist, mean ulp
# (normal), depth-4096 error (accumulator only), F).
# key: a word per unit and tree, 1 when that line has data (else no key entry).
# gnuplot -e "dir='d'; out='d/tradeoff_accuracy.png'; nu=2; nt=5; names=\"...\"; trees=\"...\"; key='...'" accuracy.gp
set terminal pngcairo size 1500,680 font "sans,10"
set output out
set multiplot layout 1,2
set logscale y
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right box opaque font ",8"
set xlabel "area of the fastest netlist (um^2)"
set format y "%.0e"
f(n) = dir."/".n
col(u) = word("#1f77b4 #2ca02c #d62728 #17becf #bcbd22 #e377c2 #9467bd", u + 1)
dash(t) = t + 1
pt(t) = word("7 5 13 9 11", t + 1) + 0
file(u, t) = "acc_".u."_".t.".dat"
title(u, t) = word(key, nt*u+t+1) eq "1" ? word(names, u+1)." ".word(trees, t + 1) : ""
set title "one instruction, normal inputs"
set ylabel "mean error (FP32 ulps)"
plot for [u = 0:nu-1] for [t = 0:nt-1] f(file(u, t)) u 1:2 w lp dt dash(t) pt pt(t) ps 0.7 \
         lc rgb col(u) t title(u, t), \
     for [u = 0:nu-1] for [t = 0:nt-1] f(file(u, t)) u 1:2:4 w labels offset 0,0.8 \
         font ",7" tc rgb col(u) notitle
set title "dot product of depth 4096, accumulator only, normal inputs"
set ylabel "normwise relative error  sum|d-x| / sum|x|"
plot for [u = 0:nu-1] for [t = 0:nt-1] f(file(u, t)) u 1:3 w lp dt dash(t) pt pt(t) ps 0.7 \
         lc rgb col(u) t title(u, t), \
     for [u = 0:nu-1] for [t = 0:nt-1] f(file(u, t)) u 1:3:4 w labels offset 0,0.8 \
         font ",7" tc rgb col(u) notitle
unset multiplot
