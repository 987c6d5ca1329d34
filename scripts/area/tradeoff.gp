# Area against delay of every mapped netlist, one panel per unit
# (scripts/area/report.py writes ad_<unit>_<tree>.dat: delay ns, area um2,
# label F at the fastest netlist; a block per point, its netlists joined by
# a line).  nu units named by names, nt trees named by trees; keyad: a word
# per unit and tree, 1 when that line has data (else it gets no key entry).
# gnuplot -e "dir='d'; out='d/tradeoff.png'; nu=2; nt=5; names=\"'e4m3 K=32' 'bf16 K=16'\"; trees=\"...\"; key='...'; keyad='...'" tradeoff.gp
cols = (nu <= 2 ? nu : 3)
rows = int((nu + cols - 1) / cols)
set terminal pngcairo size 560*cols,460*rows font "sans,10"
set output out
set multiplot layout rows,cols
set grid xtics ytics lc rgb "#dddddd"
set key top right box opaque font ",8"
set xlabel "critical path or clock period (ns, OpenSTA)"
set ylabel "area (um^2, sum of the cells)"
set format y "%.0f"
f(n) = dir."/".n
col(i) = word("#1f77b4 #ff7f0e #d62728 #2ca02c #9467bd", i)
pt(i) = word("7 5 13 9 11", i) + 0
do for [u = 0:nu-1] {
    set title word(names, u+1)
    plot for [t = 0:nt-1] f("ad_".u."_".t.".dat") u 1:2 \
             w lp pt pt(t+1) ps 0.7 lw 1 lc rgb col(t+1) \
             t (word(keyad, nt*u+t+1) eq "1" ? word(trees, t+1) : ""), \
         for [t = 0:nt-1] f("ad_".u."_".t.".dat") u 1:2:3 \
             w labels offset 0.8,0.6 font ",7" tc rgb col(t+1) notitle
}
unset multiplot
