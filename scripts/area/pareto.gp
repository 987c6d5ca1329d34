# The area x delay x error front, one panel per unit (scripts/area/report.py
# writes par_<unit>.dat: delay ns, area um2, log10 mean ulp (normal inputs),
# 1 on the front, label F (p: pipelined) at a front point's fastest netlist).
# Every netlist of the unit (every tree, F, pipeline and delay target) is a
# dot coloured by its error; the netlists no other beats in area, delay and
# error at once are circled.
# gnuplot -e "dir='d'; out='d/tradeoff_pareto.png'; nu=2; names=\"...\"" pareto.gp
cols = (nu <= 2 ? nu : 3)
rows = int((nu + cols - 1) / cols)
set terminal pngcairo size 560*cols,460*rows font "sans,10"
set output out
set multiplot layout rows,cols
set grid xtics ytics lc rgb "#dddddd"
set key top right box opaque font ",8"
set xlabel "critical path or clock period (ns, OpenSTA)"
set ylabel "area (um^2, sum of the cells)"
set cblabel "log10 mean error (FP32 ulps, normal inputs)"
set format y "%.0f"
set palette defined (0 "#1a9850", 1 "#fee08b", 2 "#d73027")
f(n) = dir."/".n
do for [u = 0:nu-1] {
    set title word(names, u+1)
    plot f("par_".u.".dat") u 1:2:3 w p pt 7 ps 0.6 lc palette t "netlist (colour: error)", \
         f("par_".u.".dat") u 1:($4 > 0 ? $2 : NaN) w p pt 6 ps 1.4 lc rgb "black" t "on the front", \
         f("par_".u.".dat") u 1:2:5 w labels offset 1.2,0.6 font ",7" notitle
}
unset multiplot
