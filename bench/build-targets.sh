#!/bin/sh
# Configures build-bench/ (benchmarks on, tests and examples off) when it does not exist,
# and builds the benchmark targets given as arguments (GRADC_BENCH_JOBS parallel jobs,
# default 2). Used by the run scripts of
# bench/second_order/ and bench/scaling/.
set -eu
cd "$(dirname "$0")/.."
if [ ! -d build-bench ]; then
    meson setup build-bench -Dbenchmarks=true -Dtests=false -Dexamples=false >/dev/null
fi
meson compile -C build-bench -j "${GRADC_BENCH_JOBS:-2}" "$@" >/dev/null
