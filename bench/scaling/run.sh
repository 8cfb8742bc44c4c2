#!/bin/sh
# Strong scaling on this machine (docs/scaling.md): threads 1 and 2, then MPI ranks 1 and
# 2, N = 10,000,000 points (GRADC_BENCH_N to change).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/scaling/gradc-bench-threads bench/scaling/gradc-bench-mpi
"$build"/bench/scaling/gradc-bench-threads --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
for np in 1 2; do
    mpiexec --allow-run-as-root --oversubscribe -np $np "$build"/bench/scaling/gradc-bench-mpi
done
