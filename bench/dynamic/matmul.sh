#!/bin/sh
# Build and run the matrix-product benchmark (bench/dynamic/matmul.cpp) in build-bench/ on
# one core, 5 repetitions; prints the median CPU times and the ratios to LibTorch of
# docs/benchmarks.md ("Matrix products of the dynamic mode").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/dynamic/gradc-bench-matmul
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
$pin "$build"/bench/dynamic/gradc-bench-matmul --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_format=json --benchmark_out="$build/matmul.json" --benchmark_out_format=json >/dev/null
python3 - "$build/matmul.json" <<'PY'
import json, sys
runs = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
def t(name):
    b = runs.get(name)
    return None if b is None else b["cpu_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
cases = [("square/64", "64×64·64×64"), ("square/256", "256²"), ("square/512", "512²"), ("square/1024", "1024²"),
         ("gmm/0", "[1000×10]·[10×10]"), ("gmm/1", "[5,1000,10]·[5,10,10]ᵀ"), ("gmm/2", "[5,1000,10]ᵀ·[5,1000,10]")]
print("| product | gradc (µs) | LibTorch (µs) | Eigen (µs) | gradc ÷ LibTorch |\n|---|---|---|---|---|")
for key, label in cases:
    kind, arg = key.split("/")
    g, l, e = (t(f"BM_matmul_{kind}_{who}/{arg}") for who in ("gradc", "libtorch", "eigen"))
    cell = lambda v: "—" if v is None else f"{v:.1f}"
    print(f"| {label} | {cell(g)} | {cell(l)} | {cell(e)} | {'—' if l is None else f'{g / l:.2f}×'} |")
PY
