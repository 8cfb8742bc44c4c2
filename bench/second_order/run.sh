#!/bin/sh
# Build and run the second-order benchmark (bench/second_order/main.cpp) in build-bench/,
# on one core, N = 100,000 points (GRADC_BENCH_N to change), 5 repetitions; writes the
# JSON to build-bench/second_order.json and prints the Markdown tables of
# docs/benchmarks.md ("Second order").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/second_order/gradc-bench-second-order
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
$pin "$build"/bench/second_order/gradc-bench-second-order --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_format=json --benchmark_out="$build/second_order.json" \
    --benchmark_out_format=json >/dev/null
python3 bench/second_order/report.py "$build/second_order.json"
