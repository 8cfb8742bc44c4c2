#!/bin/sh
# Build and run the array benchmark (bench/arrays/: the MLP, the GMM, the Gaussian
# log-likelihood) in build-bench/ on one core,
# N = 10^6 points (GRADC_BENCH_N to change), 5 repetitions; prints medians and the
# ratios of docs/benchmarks.md ("Arrays").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/arrays/gradc-bench-arrays
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
$pin "$build"/bench/arrays/gradc-bench-arrays --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_format=json --benchmark_out="$build/arrays.json" --benchmark_out_format=json >/dev/null
python3 - "$build/arrays.json" <<'PY'
import json, sys
runs = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
def t(name):
    b = runs.get(name)
    return None if b is None else b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3}[b["time_unit"]]
print("| benchmark | median | ratio |\n|---|---|---|")
for name, ref in [("BM_small_hand", "BM_small_hand"), ("BM_small_gradc", "BM_small_hand"),
                  ("BM_large_eigen", "BM_large_eigen"), ("BM_large_gradc", "BM_large_eigen"),
                  ("BM_large_libtorch", "BM_large_eigen"),
                  ("BM_gaussian_hand<4>", "BM_gaussian_hand<4>"), ("BM_gaussian_gradc<4>", "BM_gaussian_hand<4>"),
                  ("BM_gaussian_gradc_value<4>", "BM_gaussian_hand<4>"), ("BM_gaussian_dynamic<4>", "BM_gaussian_hand<4>"),
                  ("BM_gaussian_hand<8>", "BM_gaussian_hand<8>"), ("BM_gaussian_gradc<8>", "BM_gaussian_hand<8>"),
                  ("BM_gaussian_gradc_value<8>", "BM_gaussian_hand<8>"), ("BM_gaussian_dynamic<8>", "BM_gaussian_hand<8>")]:
    if t(name) is not None:
        print(f"| {name} | {t(name) * 1e6:.2f} µs | {t(name) / t(ref):.2f}× |")
PY
