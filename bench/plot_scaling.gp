# plot_scaling.gp: frame cost against agents for timed crowds (steps of 1-3 s, the same share
# ending per frame), from bench/out/scaling.csv written by bench_scaling.lua. Run from the
# repository root:  gnuplot bench/plot_scaling.gp   (or: gnuplot -e "dir='OUT'" bench/plot_scaling.gp)
if (!exists("dir")) dir = 'bench/out'
csv = dir.'/scaling.csv'
if (!(system('test -r '.csv.' && echo yes') eq "yes")) {
  print 'plot_scaling.gp: no '.csv.', run bench_scaling.lua first'
  exit
}
set datafile separator ','
set terminal pngcairo size 900,420 font ',10'
set output dir.'/scaling.png'
set multiplot layout 1,2 title 'Timed crowd: frame cost against agents (dashed: 16.7 ms)'
set grid
set logscale x
set xlabel 'agents'
set key top left
set title 'ms per frame (log)'
set logscale y
plot csv using 1:2 skip 1 with linespoints pt 7 title 'ms per frame', \
     16.7 with lines dt 2 lc rgb 'black' notitle
set title 'ns per step ended'
unset logscale y
set yrange [0:*]
plot csv using 1:4 skip 1 with linespoints pt 7 title 'ns per step ended'
unset multiplot
