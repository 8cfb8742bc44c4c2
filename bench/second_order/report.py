#!/usr/bin/env python3
"""Markdown tables from the second-order benchmark's JSON output (Google Benchmark,
--benchmark_format=json): ns per point (CPU time, the median of the repetitions when
there are several), hvp against gradient per kernel, the Hessian's diagonal and the whole
Hessian against map_reduce (kmeans, loglik), and the Black-Scholes Hessian of
every implementation against the hand-written closed-form Greeks."""
import json
import sys


def ns_per_point(runs):
    table = {}
    for b in runs["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        table[name] = b["cpu_time"] * scale / b["points"]
    return table


def main():
    runs = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
    t = ns_per_point(runs)
    points = int(runs["benchmarks"][0]["points"])
    print(f"N = {points:,} points, ns per point (CPU time), one thread\n")
    print("| kernel | gradient | hvp | hvp / gradient |")
    print("|---|---:|---:|---:|")
    for kernel in ["seed", "normal_logpdf", "black_scholes", "mlp"]:
        g, h = t.get(f"{kernel}/gradc gradient_batch"), t.get(f"{kernel}/gradc hvp_batch")
        if g and h:
            print(f"| {kernel} (batch) | {g:.3f} | {h:.3f} | {h / g:.2f} |")
    g, h = t.get("loglik/gradc map_reduce"), t.get("loglik/gradc map_reduce_hessian")
    if g and h:
        print(f"| loglik (map_reduce / map_reduce_hessian) | {g:.3f} | {h:.3f} | {h / g:.2f} |")
    print()
    print("| kernel | map_reduce | Hessian's diagonal | / map_reduce | whole Hessian | / map_reduce |")
    print("|---|---:|---:|---:|---:|---:|")
    for kernel in ["kmeans", "loglik"]:
        g = t.get(f"{kernel}/gradc map_reduce")
        d = t.get(f"{kernel}/gradc map_reduce_hessian_diagonal")
        h = t.get(f"{kernel}/gradc map_reduce_hessian")
        if g and d and h:
            print(f"| {kernel} | {g:.3f} | {d:.3f} | {d / g:.2f} | {h:.3f} | {h / g:.2f} |")
    print()
    hand = t.get("black_scholes hessian/hand-written Greeks (batch)")
    gradc = t.get("black_scholes hessian/gradc hessian_batch")
    print("| Black-Scholes: value, gradient and 5×5 Hessian | ns/point | / hand-written (batch) | / gradc hessian_batch |")
    print("|---|---:|---:|---:|")
    for name, v in t.items():
        if name.startswith("black_scholes hessian/"):
            print(f"| {name.split('/', 1)[1]} | {v:.2f} | {v / hand:.2f} | {v / gradc:.2f} |")


if __name__ == "__main__":
    main()
