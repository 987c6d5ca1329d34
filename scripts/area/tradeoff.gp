# Area against delay of every mapped netlist, one panel per format
# (scripts/area/report.py writes ad_<format>_<tree>.dat: delay ns, area um2,
# label; a block per point, its netlists joined by a line).
# have: a word per format, 1 when it has netlists; keyad: a word per format
# and tree, 1 when that line has data (else it gets no key entry).
# gnuplot -e "dir='d'; out='d/tradeoff.png'; have='1 1 0 0'; keyad='1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0'" tradeoff.gp
set terminal pngcairo size 1500,1100 font "sans,10"
set output out
set multiplot layout 2,2
set grid xtics ytics lc rgb "#dddddd"
set key top right box opaque font ",9"
set xlabel "critical path (ns, OpenSTA)"
set ylabel "area (um^2, sum of the cells)"
set format y "%.0f"
f(n) = dir."/".n
fmt = "e4m3 bf16 mxfp8 nvfp4"
names = "'e4m3 K=32' 'bf16 K=16' 'MXFP8 K=32' 'NVFP4 K=64'"
trees = "'fused CPA' 'fused CSA' 'chained-2' 'even/odd'"
col(i) = word("#1f77b4 #ff7f0e #2ca02c #9467bd", i)
pt(i) = word("7 5 9 11", i) + 0
do for [u = 1:4] {
    set title word(names, u)
    fu = word(fmt, u)
    if (word(have, u) eq "0") {
        unset key; unset tics; unset border; set xrange [0:1]; set yrange [0:1]
        set label 1 "not costed in this run" at 0.5,0.5 center
        plot NaN notitle
        unset label 1; set tics; set border; set key; set autoscale
    } else {
        plot for [t = 0:3] f("ad_".fu."_".t.".dat") u 1:2 \
                 w lp pt pt(t+1) ps 0.9 lw 1 lc rgb col(t+1) \
                 t (word(keyad, 4*(u-1)+t+1) eq "1" ? word(trees, t+1) : ""), \
             for [t = 0:3] f("ad_".fu."_".t.".dat") u 1:2:3 \
                 w labels offset 0.8,0.6 font ",8" tc rgb col(t+1) notitle
    }
}
unset multiplot
