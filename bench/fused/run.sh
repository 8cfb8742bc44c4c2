#!/bin/sh
# Build and run the fused-kernel benchmark (bench/fused/main.cpp, libtorch.cpp) in
# build-bench/ on one core: forward + backward of three formulas at 10^6 and 10^7
# elements, fused, unfused and LibTorch, 3 repetitions, with the C library's default
# memory behaviour and with --keep_memory (main.cpp); prints the medians, the ratios and
# the large allocations of docs/benchmarks.md ("Fused kernels").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=build-bench
bench/build-targets.sh bench/fused/gradc-bench-fused
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
for mode in default keep_memory; do
    flag=""
    [ "$mode" = keep_memory ] && flag="--keep_memory"
    $pin "$build"/bench/fused/gradc-bench-fused $flag --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
        --benchmark_min_time=0.5 --benchmark_format=json --benchmark_out="$build/fused-$mode.json" \
        --benchmark_out_format=json >/dev/null
    echo "memory: $mode"
    python3 - "$build/fused-$mode.json" <<'PY'
import json, sys
runs = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("aggregate_name") == "median"}
def get(system, formula, n):
    return runs.get(f"BM_{system}<fb::{formula}>/{n}/real_time") or runs.get(f"BM_{system}<fused_bench::{formula}>/{n}/real_time")
print("| formula | elements | fused | unfused | LibTorch | unfused / fused | LibTorch / fused | large allocations: fused / unfused / LibTorch |")
print("|---|---|---|---|---|---|---|---|")
for formula in ["black_scholes", "gelu_bias", "normal_logpdf"]:
    for n in [1000000, 10000000]:
        r = {s: get(s, formula, n) for s in ["fused", "unfused", "libtorch"]}
        ms = {s: (b["real_time"] if b else None) for s, b in r.items()}
        cell = lambda s: f"{ms[s]:.1f} ms" if ms[s] else "—"
        ratio = lambda s: f"{ms[s] / ms['fused']:.2f}×" if ms[s] and ms["fused"] else "—"
        alloc = lambda s: f"{int(r[s]['allocs'])} ({r[s]['alloc_MB']:.0f} MB)" if r[s] else "—"
        print(f"| {formula} | {n:,} | {cell('fused')} | {cell('unfused')} | {cell('libtorch')} | {ratio('unfused')} | "
              f"{ratio('libtorch')} | {alloc('fused')} / {alloc('unfused')} / {alloc('libtorch')} |")
PY
done
