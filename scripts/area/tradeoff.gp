# Pareto plot of area against error (scripts/area/area.py report writes the
# .dat files: NAND2-eq, error, F per line; marks: NAND2-eq, error, "label").
# gnuplot -e "dir='build/area'; out='build/area/tradeoff.png'; gk='4096'" tradeoff.gp
set terminal pngcairo size 1500,680 font "sans,10"
set output out
set multiplot layout 1,2
set logscale y
set grid xtics ytics mytics lc rgb "#dddddd"
set key top right box opaque font ",9" samplen 3
set xlabel "area (NAND2 equivalents, Yosys + abc, generic gates)"
f(n) = dir."/".n

set title "one instruction (K products + c), normal inputs"
set ylabel "mean error (FP32 ulps)"
set yrange [0.04:3e7]
plot f("p_front_k32.dat") u 1:2 w steps lw 8 lc rgb "#e0e0e0" t "Pareto front of the e4m3 K=32 units", \
     f("p_e4m3_k32.dat") u 1:2 w lp pt 7 ps 0.8 lc rgb "#1f77b4" t "e4m3 K=32 fused, F=10..30", \
     f("p_e4m3_k32.dat") u 1:2:3 every 5 w labels offset 0,0.9 font ",8" tc rgb "#1f77b4" notitle, \
     f("p_bf16_k32.dat") u 1:2 w lp pt 5 ps 0.7 lc rgb "#2ca02c" t "bf16 K=16 fused, F=10..30", \
     f("p_bf16_k32.dat") u 1:2:3 every 5 w labels offset 0,0.9 font ",8" tc rgb "#2ca02c" notitle, \
     f("p_chain_k32.dat") u 1:2 w p pt 9 ps 1.4 lc rgb "#ff7f0e" t "e4m3 K=32 chained-2 (F=13, 25)", \
     f("p_evenodd_k32.dat") u 1:2 w p pt 11 ps 1.4 lc rgb "#9467bd" t "e4m3 K=32 even/odd (F=13, 25)", \
     f("p_marks_k32.dat") u 1:2 w p pt 6 ps 3 lw 2 lc rgb "#d62728" t "Hopper QGMMA (F=13), Blackwell (F=25)", \
     f("p_marks_k32.dat") u 1:2:3 w labels offset 0,-1.6 font ",9" tc rgb "#d62728" notitle

set title "GEMM depth ".gk." (chain of instruction calls), normal inputs"
set ylabel "normwise relative error  sum|d-x| / sum|x|"
set yrange [4e-9:3]
set format y "%.0e"
plot f("p_front_tc.dat") u 1:2 w steps lw 8 lc rgb "#e0e0e0" t "Pareto front, e4m3 K=32, accumulator only", \
     f("p_e4m3_tc.dat") u 1:2 w lp pt 7 ps 0.8 lc rgb "#1f77b4" t "e4m3 fused, accumulator only", \
     f("p_e4m3_pr.dat") u 1:2 w lp pt 7 ps 0.8 dt 2 lc rgb "#1f77b4" t "e4m3 fused, promoted every 128", \
     f("p_e4m3_tc.dat") u 1:2:3 every 5 w labels offset 0,0.9 font ",8" tc rgb "#1f77b4" notitle, \
     f("p_bf16_tc.dat") u 1:2 w lp pt 5 ps 0.7 lc rgb "#2ca02c" t "bf16 fused, accumulator only", \
     f("p_bf16_pr.dat") u 1:2 w lp pt 5 ps 0.7 dt 2 lc rgb "#2ca02c" t "bf16 fused, promoted every 128", \
     f("p_chain_tc.dat") u 1:2 w p pt 9 ps 1.4 lc rgb "#ff7f0e" t "chained-2, accumulator only", \
     f("p_evenodd_tc.dat") u 1:2 w p pt 11 ps 1.4 lc rgb "#9467bd" t "even/odd, accumulator only", \
     f("p_marks_tc.dat") u 1:2 w p pt 6 ps 3 lw 2 lc rgb "#d62728" t "Hopper (F=13), Blackwell (F=25): accumulator only", \
     f("p_marks_tc.dat") u 1:2:3 w labels offset 0,1.6 font ",9" tc rgb "#d62728" notitle, \
     f("p_marks_pr.dat") u 1:2 w p pt 4 ps 3 lw 2 lc rgb "#d62728" t "the same, promoted every 128", \
     f("p_marks_pr.dat") u 1:2:3 w labels offset 0,-1.6 font ",9" tc rgb "#d62728" notitle
unset multiplot
