# plot_plan.gp: PNG plots of the CSV files bench_plan writes (run: gnuplot -e "dir='bench/out'" bench/plot_plan.gp).
if (!exists("dir")) dir = "bench/out"

set datafile separator ","
set terminal pngcairo size 1500,1000 font "sans,10"
set key top left
set grid
set fit quiet
set fit logfile "/dev/null"

cpu = system(sprintf("tail -n 1 '%s/machine.csv' | cut -d, -f1,2 | tr -d '\"'", dir))

# A column when the row's key columns match, otherwise undefined (skipped).
pick3(a, b, c, v) = (strcol(1) eq a && strcol(2) eq b && strcol(3) eq c) ? v : NaN
pick1(a, v) = (strcol(1) eq a) ? v : NaN

# ---------------------------------------------------------------------
# cold.png: per-pair time quantiles, saspu against A*, per domain
# ---------------------------------------------------------------------
set output dir."/cold.png"
set multiplot layout 2,2 title "Cold planning, one core: ns per plan by percentile of pairs (".cpu.")"
set logscale y
set xlabel "percentile of pairs"
set ylabel "ns per plan"
do for [d in "horse_breeder_ssci citizen acquisition_machine western_random"] {
  set title d noenhanced
  plot dir."/cold_quantiles.csv" using (pick3(d, "solvable", "saspu", $4)):5 \
         with lines lw 2 lc rgb "#1a7f37" title "saspu, solvable", \
       "" using (pick3(d, "unsolvable", "saspu", $4)):5 \
         with lines lw 2 dt 2 lc rgb "#1a7f37" title "saspu, unsolvable", \
       "" using (pick3(d, "solvable", "astar", $4)):5 \
         with lines lw 2 lc rgb "#cf222e" title "A*, solvable", \
       "" using (pick3(d, "unsolvable", "astar", $4)):5 \
         with lines lw 2 dt 2 lc rgb "#cf222e" title "A*, unsolvable"
}
unset multiplot
unset logscale

# ---------------------------------------------------------------------
# curves.png: saspu time against size on linear axes, with the fit the
# complexity bound predicts (linear, quadratic for MultiPrv_2_Cycle)
# ---------------------------------------------------------------------
set output dir."/curves.png"
set terminal pngcairo size 1500,500 font "sans,10"
set multiplot layout 1,3 title "saspu complexity curves, one instance per size (".cpu.")"
set ylabel "us per plan"

lin(x) = a1 + b1 * x
quad(x) = a2 + b2 * x + c2 * x * x
lin5(x) = a3 + b3 * x
a1 = 0.1; b1 = 0.1; a2 = 0.1; b2 = 0.1; c2 = 0.01; a3 = 0.1; b3 = 0.1

set title "MultiPrv_n_Cycle, m = 4: time vs n (linear)" noenhanced
set xlabel "n (values per variable)"
fit lin(x) dir."/curves.csv" using (pick1("multiprv_n_cycle", $2)):($6 / 1000) via a1, b1
plot dir."/curves.csv" using (pick1("multiprv_n_cycle", $2)):($6 / 1000) \
       with points pt 7 lc rgb "#1a7f37" title "saspu", \
     lin(x) with lines lc rgb "#555555" title sprintf("%.3f + %.4f n", a1, b1)

set title "MultiPrv_2_Cycle: time vs m (quadratic, O(|A| + |E_A|))" noenhanced
set xlabel "m (variables)"
fit quad(x) dir."/curves.csv" using (pick1("multiprv_2_cycle", $2)):($6 / 1000) via a2, b2, c2
plot dir."/curves.csv" using (pick1("multiprv_2_cycle", $2)):($6 / 1000) \
       with points pt 7 lc rgb "#1a7f37" title "saspu", \
     quad(x) with lines lc rgb "#555555" title sprintf("%.3f + %.4f m + %.5f m^2", a2, b2, c2)

set title "OnePrv_5: time vs m (linear)" noenhanced
fit lin5(x) dir."/curves.csv" using (pick1("oneprv_5", $2)):($6 / 1000) via a3, b3
plot dir."/curves.csv" using (pick1("oneprv_5", $2)):($6 / 1000) \
       with points pt 7 lc rgb "#1a7f37" title "saspu", \
     lin5(x) with lines lc rgb "#555555" title sprintf("%.3f + %.4f m", a3, b3)
unset multiplot

# ---------------------------------------------------------------------
# curves_vs_astar.png: both planners on log-log axes; a capped A* run is
# drawn as an open triangle (its time is only a lower bound)
# ---------------------------------------------------------------------
set output dir."/curves_vs_astar.png"
set multiplot layout 1,3 title "saspu against GOAP A* on the synthetic families (".cpu.")"
set logscale xy
set key bottom right
set ylabel "ns per plan"
ok(f, v) = (strcol(1) eq f && strcol(7) eq "found") ? v : NaN
capped(f, v) = (strcol(1) eq f && strcol(7) eq "capped") ? v : NaN
do for [f in "multiprv_n_cycle multiprv_2_cycle oneprv_5"] {
  set title f noenhanced
  set xlabel (f eq "multiprv_n_cycle" ? "n (m = 4)" : "m")
  plot dir."/curves.csv" using (pick1(f, $2)):6 with linespoints pt 7 lc rgb "#1a7f37" title "saspu", \
       "" using (ok(f, $2)):8 with linespoints pt 5 lc rgb "#cf222e" title "A*", \
       "" using (capped(f, $2)):8 with points pt 8 ps 2 lc rgb "#cf222e" title "A* capped (lower bound)"
}
unset multiplot
