#!/bin/sh
# The benchmark at every cache level: gradc-bench at N = 10^3, 10^4, 10^5, 10^6 and 10^7
# points (more passes for small N, so that each figure is the best of many repetitions),
# and the machine's limits (gradc-bench-limits: triad bandwidth, FMA peak) in the same
# run. Writes into build-bench/results/sweep/ (GRADC_BENCH_OUT to change):
#   sweep.csv      kernel,implementation,n_points,ns_per_point,max_rel_error,
#                  ns_per_point_median,passes (ns_per_point: the best pass)
#   limits.csv     bandwidth_gbs,double_gflops,float_gflops
#   flops.csv      the generic programs' arithmetic and calls per point (gradc-bench-flops)
#   executed_flops.csv  flops per point the batch code executes (bench/flops_executed.sh,
#                  when gdb is installed; about 3 minutes)
#   sweep.md       ns/point per size and the roofline tables (bandwidth fractions at 10^7,
#                  FMA-peak fractions at 10^4)
#   sweep.png/svg  ns/point against N, log-log, one panel per kernel (gnuplot)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/gradc-bench bench/gradc-bench-limits bench/gradc-bench-flops bench/gradc-bench-one-call
out=${GRADC_BENCH_OUT:-$build/results}/sweep
mkdir -p "$out"
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
echo "machine limits..." >&2
$pin "$build"/bench/gradc-bench-limits > "$out/limits.csv" 2>/dev/null
"$build"/bench/gradc-bench-flops > "$out/flops.csv"
if command -v gdb >/dev/null 2>&1; then
    echo "flops executed per point (gdb single-steps one call of each batch implementation)..." >&2
    bench/flops_executed.sh > "$out/executed_flops.csv"
fi
echo "kernel,implementation,n_points,ns_per_point,max_rel_error,ns_per_point_median,passes" > "$out/sweep.csv"
for n in 1000 10000 100000 1000000 10000000; do
    passes=$((1000000 / n))
    [ "$passes" -lt 5 ] && passes=5
    [ "$passes" -gt 300 ] && passes=300
    echo "N = $n ($passes passes)..." >&2
    mkdir -p "$out/n$n"
    # The harness's progress (one line per kernel and system) on the terminal and in a file.
    { $pin "$build"/bench/gradc-bench --n "$n" --passes "$passes" --out "$out/n$n" 2>&1 >/dev/null || echo "FAILED: N = $n"; } |
        tee "$out/n$n/progress.txt" >&2
    if grep -q "FAILED\|MISMATCH" "$out/n$n/progress.txt"; then exit 1; fi
    tail -n +2 "$out/n$n/latest.csv" >> "$out/sweep.csv"
done
python3 bench/sweep_report.py "$out"
if command -v gnuplot >/dev/null 2>&1; then
    for term in png svg; do
        gnuplot -e "datadir='$out'; outfile='$out/sweep.$term'; term='$term'" bench/sweep.gp
    done
fi
cat "$out/sweep.md"
