#!/bin/sh
# Build and run the Ceres benchmark (bench/ceres/main.cpp) in build-bench/ on one core,
# 5 repetitions interleaved at random (the load of a shared machine then falls on every
# benchmark alike); prints the best of the 5 (the least disturbed) and the ratios of docs/benchmarks.md ("Ceres Solver").
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=${GRADC_BENCH_BUILD:-build-bench}
[ "$build" = build-bench ] && bench/build-targets.sh bench/ceres/gradc-bench-ceres
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c $(($(nproc) - 1))"; fi
$pin "$build"/bench/ceres/gradc-bench-ceres --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_min_time=0.5 --benchmark_format=json --benchmark_out="$build/ceres.json" \
    --benchmark_out_format=json >/dev/null
python3 - "$build/ceres.json" <<'PY'
import json, sys
runs = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("run_type") == "iteration":
        runs.setdefault(b["run_name"], []).append(b)
def per(name, counter):
    b = runs.get(name)
    return None if b is None else min(r[counter] for r in b) * 1e9
print("| benchmark | Ceres autodiff | gradc | hand-written | Ceres / gradc |\n|---|---|---|---|---|")
for what, counter, unit, suffix in [("cost_evaluate_jacobian", "ns_per_block", "ns per residual block", ""),
                                    ("cost_evaluate_residual", "ns_per_block", "ns per residual block", ""),
                                    ("bundle_evaluate_jacobian", "ns_per_block", "ns per residual block", ""),
                                    ("first_order", "ns_per_point", "ns per point", "/1000"),
                                    ("first_order", "ns_per_point", "ns per point", "/100000")]:
    c = per(f"BM_{what}_ceres_autodiff{suffix}", counter)
    g = per(f"BM_{what}_gradc{suffix}", counter)
    h = per(f"BM_{what}_hand{suffix}", counter)
    hand = f"{h:.2f}" if h is not None else "—"
    if c is not None and g is not None:
        print(f"| {what}{suffix} ({unit}) | {c:.2f} | {g:.2f} | {hand} | {c / g:.2f}× |")
PY
