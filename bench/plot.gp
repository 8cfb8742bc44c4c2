# ns/point per kernel (clusters) and implementation (bars), log scale; data from
# gradc-bench's latest.dat ("-" where an implementation did not run a kernel).
# Variables: datafile, outfile, term (svg|png).
if (!exists("datafile")) datafile = 'bench/results/latest.dat'
if (!exists("outfile")) outfile = 'bench/results/latest.svg'
if (!exists("term")) term = 'svg'
if (term eq 'png') { set terminal pngcairo size 1100,520 font "sans,10" background rgb "white" } else { set terminal svg size 1100,520 dynamic font "sans,11" background rgb "white" }
set output outfile
set datafile missing "-"
set termoption noenhanced  # kernel names have underscores
# Eleven systems: three more colours than gnuplot's default eight, so that none repeats.
set linetype 9 lc rgb "#8c564b"
set linetype 10 lc rgb "#7f7f7f"
set linetype 11 lc rgb "#bcbd22"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.9 border -1
set boxwidth 0.9
set logscale y 10
set yrange [0.05:*]
set ylabel "ns per point (value + gradient), log scale"
set title "gradc benchmark: best of several passes, one core"
set key outside right top vertical
set grid ytics mytics
set xtics nomirror
plot for [c=2:12] datafile using c:xtic(1) title columnheader(c)
