# ns/point against N, log-log, one panel per kernel, every implementation; data from
# bench/sweep_report.py (sweep_<kernel>.dat). Variables: datadir, outfile, term (png|svg).
if (!exists("term")) term = 'png'
if (term eq 'png') { set terminal pngcairo size 1500,1000 font "sans,10" background rgb "white" } else { set terminal svg size 1500,1000 dynamic font "sans,10" background rgb "white" }
set output outfile
set termoption noenhanced
set datafile missing "-"
# Eleven systems: three more colours than gnuplot's default eight, so that none repeats.
set linetype 9 lc rgb "#8c564b"
set linetype 10 lc rgb "#7f7f7f"
set linetype 11 lc rgb "#bcbd22"
set logscale xy 10
set grid xtics ytics mytics
set key below horizontal maxcols 5 font ",8"
set xlabel "N (points)"
set ylabel "ns per point"
set multiplot layout 2,3 title "gradc benchmark at every size: value + gradient, best of the passes, one core"
do for [k in "seed normal_logpdf black_scholes mlp normal_broadcast loglik"] {
    f = sprintf("%s/sweep_%s.dat", datadir, k)
    set title k
    plot for [c=2:12] f using 1:c with linespoints title columnheader(c)
}
unset multiplot
