# gnuplot script of make plots (scripts/plots/plots.sh sets W and D)
set terminal pngcairo size 900,560 font "sans,10"
set grid
set key top right

# 1. error vs F, one instruction, K = 32
set output D."/accuracy_f_k32.png"
set title "K = 32 dot product of e4m3 inputs + fp32 c: error vs accumulator fraction bits F\n(fused,a=e4m3,b=e4m3,k=32,f=F: align RZ, fp32 output RZ; 200,000 vectors per point)"
set xlabel "F (fraction bits kept in alignment)"
set ylabel "|error| in fp32 ulps"
set logscale y
set format y "10^{%L}"
set xrange [9.5:30.5]
set arrow 1 from 13, graph 0 to 13, graph 1 nohead dt 3 lc rgb "#888888"
set arrow 2 from 25, graph 0 to 25, graph 1 nohead dt 3 lc rgb "#888888"
set label 1 "Hopper/Ada FP8 (13)" at 13.2, graph 0.95 tc rgb "#666666"
set label 2 "Blackwell (25)" at 25.2, graph 0.95 tc rgb "#666666"
set key bottom left
ex_n = system("cat ".W."/f_k32_normal_exact.dat | cut -d' ' -f1")
plot W."/f_k32_normal.dat" u 1:2 w lp pt 7 lc rgb "#1f77b4" t "normal: mean", \
     W."/f_k32_normal.dat" u 1:3 w lp pt 5 lc rgb "#1f77b4" dt 2 t "normal: p99", \
     W."/f_k32_llm.dat" u 1:2 w lp pt 7 lc rgb "#d62728" t "llm: mean", \
     W."/f_k32_llm.dat" u 1:3 w lp pt 5 lc rgb "#d62728" dt 2 t "llm: p99", \
     ex_n + 0 w l lc rgb "#2ca02c" lw 2 t "exact, rounded once (RNE): mean"
unset arrow; unset label

# 2. error vs F for GEMM depths, tensor-core-only vs promotion every 128
set output D."/accuracy_f_gemm.png"
set title "Depth-K dot products (N(0,0.5) inputs in e4m3) as K/32 calls of fused,k=32,f=F:\nrunning sum in the accumulator (tc, solid) or promoted to FP32 every 128 products (dashed)"
set ylabel "mean |error| / mean |exact|  (zero: not drawn)"
set key bottom left
set arrow 1 from 13, graph 0 to 13, graph 1 nohead dt 3 lc rgb "#888888"
set arrow 2 from 25, graph 0 to 25, graph 1 nohead dt 3 lc rgb "#888888"
plot for [i=1:4] W."/f_gemm_".word("256 1024 4096 16384", i)."_tc.dat" u 1:($2 > 0 ? $2 : 1/0) w lp pt 7 lc i t "K = ".word("256 1024 4096 16384", i)." tc", \
     for [i=1:4] W."/f_gemm_".word("256 1024 4096 16384", i)."_promote.dat" u 1:($2 > 0 ? $2 : 1/0) w lp pt 6 dt 2 lc i t "K = ".word("256 1024 4096 16384", i)." promote"
unset arrow

# 3. histograms: signed error per unit (top), log2 |error| of all three (bottom)
set output D."/accuracy_hist.png"
set terminal pngcairo size 1200,800 font "sans,10"
unset logscale y
set format y "%g"
set xrange [*:*]
set style fill solid 0.6 noborder
set key off
set multiplot title "Error of K = 32 dot products (e4m3 inputs, fp32 c, normal), 10^6 vectors, in fp32 ulps at the exact value"
set size 0.333, 0.5
set ylabel "fraction of results"
set xlabel "d - exact (ulps), within the 99th percentile"
set origin 0, 0.47
set title "hopper:wgmma.m64n8k32.f32.e4m3.e4m3\n(F=13, e8m13 output RZ)"
plot W."/hist.dat" index 0 u 1:3 w boxes lc rgb "#d62728"
set origin 0.333, 0.47
set title "blackwell tcgen05 kind::f8f6f4 e4m3\n(F=25, fp32 output RZ)"
plot W."/hist.dat" index 2 u 1:3 w boxes lc rgb "#1f77b4"
set origin 0.666, 0.47
set title "exact sum rounded once to fp32\n(RNE: the correctly rounded result)"
plot W."/hist.dat" index 4 u 1:3 w boxes lc rgb "#2ca02c"
set origin 0, 0
set size 1, 0.47
set title "log2 |error| (quarter octaves; exact results not shown: see docs/accuracy.md)"
set xlabel "log2 |d - exact| (ulps)"
set key top right
set xrange [-12:28]
plot W."/hist.dat" index 1 u 1:3 w steps lw 2 lc rgb "#d62728" t "hopper QGMMA (F=13)", \
     W."/hist.dat" index 3 u 1:3 w steps lw 2 lc rgb "#1f77b4" t "blackwell (F=25)", \
     W."/hist.dat" index 5 u 1:3 w steps lw 2 lc rgb "#2ca02c" t "exact, rounded once (RNE)"
unset multiplot
