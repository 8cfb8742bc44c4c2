#!/bin/sh
# Build the benchmark in build-bench/ and run it: quick mode (N = 100,000) by default,
# `bench/run.sh --full` for N = 1,000,000. Prints the Markdown table and writes
# bench/results/latest.{csv,md,dat} and latest.svg (gnuplot, when installed).
# `bench/run.sh --portable [--full]` builds the portable configuration instead
# (build-bench-portable/, -Dportable=true: the batch code is compiled for SSE2, AVX2 and
# AVX-512 and the widest this CPU runs is chosen at run time).
# The first build takes about a minute (see docs/benchmarks.md: mostly the peers' headers;
# the gradc kernels compile in a few seconds).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=build-bench
portable=false
if [ "${1:-}" = "--portable" ]; then
    build=build-bench-portable
    portable=true
    shift
fi
if [ ! -d "$build" ]; then
    meson setup "$build" -Dbenchmarks=true -Dtests=false -Dexamples=false -Dportable=$portable >/dev/null
fi
meson compile -C "$build" -j 2 bench/gradc-bench >/dev/null
# One core, so that the figures are single-thread figures.
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
$pin "$build"/bench/gradc-bench --out bench/results "$@"
if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "datafile='bench/results/latest.dat'; outfile='bench/results/latest.svg'" bench/plot.gp
fi
