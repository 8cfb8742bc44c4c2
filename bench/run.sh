#!/bin/sh
# Build the benchmark in build-bench/ and run it: quick mode (N = 100,000) by default,
# `bench/run.sh --full` for N = 1,000,000. Prints the Markdown table and writes
# latest.{csv,md,dat,json} and the plot latest.{svg,png} (gnuplot, when installed) into
# build-bench/results/, outside the tracked files; GRADC_BENCH_OUT=bench/results/<date>-<machine> writes a committed reference
# run instead.
# `bench/run.sh --portable [--full]` builds the portable configuration instead
# (build-bench-portable/, -Dportable=true: the batch code is compiled for SSE2, AVX2 and
# AVX-512 and the widest this CPU runs is chosen at run time).
# Other arguments go to the benchmark, Google Benchmark's flags included
# (`bench/run.sh --benchmark_filter=mlp`; `--summary` prints only the summary table,
# `--raw` every repetition as it runs).
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
# The build's progress (ninja's line per step) to stderr; stdout is the table.
{ meson compile -C "$build" -j "${GRADC_BENCH_JOBS:-2}" bench/gradc-bench 2>&1; echo $? > "$build/compile-status"; } |
    grep --line-buffered -E "^\[[0-9]+/[0-9]+\]|error" >&2 || true
if [ "$(cat "$build/compile-status")" != 0 ]; then
    echo "bench/run.sh: building the benchmark failed (meson compile -C $build bench/gradc-bench shows why)" >&2
    exit 1
fi
# One core, so that the figures are single-thread figures.
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
out=${GRADC_BENCH_OUT:-$build/results}
mkdir -p "$out"
$pin "$build"/bench/gradc-bench --out "$out" "$@"
if command -v gnuplot >/dev/null 2>&1; then
    for term in svg png; do
        # A system that ran no kernel (a peer not installed) has an empty column: not worth a warning.
        gnuplot -e "datafile='$out/latest.dat'; outfile='$out/latest.$term'; term='$term'" bench/plot.gp 2>&1 |
            grep -v "Skipping data file with no valid points" >&2 || true
    done
fi
