# plot_population.gp: runtime per frame against NPC count (the papers' Figure 3), from
# bench/out/population.csv written by bench_population. Run from the repository root:
#   gnuplot bench/plot_population.gp      (or: gnuplot -e "dir='OUT'" bench/plot_population.gp)
if (!exists("dir")) dir = 'bench/out'
csv = dir.'/population.csv'
if (!(system('test -r '.csv.' && echo yes') eq "yes")) {
  print 'plot_population.gp: no '.csv.', run bench_population first'
  exit
}
set datafile separator ','
set terminal pngcairo size 1200,420 font ',10'
set output dir.'/population.png'
set multiplot layout 1,3 title 'Replanning every NPC in one frame (saspu; dashed: 16.7 ms)'
set key top left
set grid
set xlabel 'NPCs (millions)'
set ylabel 'ms per frame (log)'
set logscale y
frame = 16.7
do for [d in "horse_breeder citizen acquisition_machine"] {
  set title d noenhanced
  plot csv using ((strcol(1) eq d && strcol(4) eq 'on'  && $5 == 1) ? $3/1e6 : 1/0):6 with points pt 7 ps 0.8 title 'cache on, 1 thread', \
       csv using ((strcol(1) eq d && strcol(4) eq 'on'  && $5 > 1)  ? $3/1e6 : 1/0):6 with points pt 7 ps 0.8 title 'cache on, all threads', \
       csv using ((strcol(1) eq d && strcol(4) eq 'off' && $5 == 1) ? $3/1e6 : 1/0):6 with points pt 7 ps 0.8 title 'cold, 1 thread', \
       csv using ((strcol(1) eq d && strcol(4) eq 'off' && $5 > 1)  ? $3/1e6 : 1/0):6 with points pt 7 ps 0.8 title 'cold, all threads', \
       frame with lines dt 2 lc rgb 'black' notitle
}
unset multiplot
