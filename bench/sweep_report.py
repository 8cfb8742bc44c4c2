#!/usr/bin/env python3
"""Report of bench/sweep.sh: ns/point per kernel, implementation and size, gradc against
hand-written code at every size, and the roofline: the fraction of the triad bandwidth
each batch implementation reaches at the largest N, and the fraction of the FMA peak it
reaches in cache (flops per point executed, executed_flops.csv from
bench/flops_executed.sh, beside the generic program's count, flops.csv from
gradc-bench-flops). Writes sweep.md and one gnuplot data
file per kernel (sweep_<kernel>.dat: N, then one column per implementation)."""
import csv
import sys
from collections import defaultdict

out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/sweep.csv")))
bw, dflops, fflops = (float(x) for x in open(f"{out}/limits.csv").read().strip().split(","))

order = ["gradc-batch", "gradc-batch-value", "gradc-scalar", "hand-scalar", "hand-simd", "hand-simd-stats", "adolc", "sacado-sfad",
         "ceres-jet", "eigen-autodiff", "libtorch"]
kernels = ["seed", "normal_logpdf", "black_scholes", "mlp", "normal_broadcast", "loglik"]
# Bytes each point moves through memory (inputs read, value and gradient written; the
# loglik reduction reads one datum per point and writes nothing per point; μ and σ of
# normal_broadcast are not read per point).
bytes_per_point = {"seed": 8 * (2 + 3), "normal_logpdf": 8 * (3 + 4), "black_scholes": 8 * (5 + 6),
                   "mlp": 8 * (4 + 5), "normal_broadcast": 8 * (1 + 4), "loglik": 8}
t = defaultdict(dict)
for r in rows:
    t[(r["kernel"], r["implementation"])][int(r["n_points"])] = float(r["ns_per_point"])
sizes = sorted({int(r["n_points"]) for r in rows})

md = [f"Machine limits (same run, one core): triad {bw:.1f} GB/s, FMA peak {dflops:.0f} GFLOP/s (double), "
      f"{fflops:.0f} GFLOP/s (float).", ""]
for k in kernels:
    md.append(f"**{k}** — ns per point (value + gradient), best of the passes")
    md.append("")
    md.append("| implementation | " + " | ".join(f"N = {n:,}" for n in sizes) + " |")
    md.append("|---|" + "---:|" * len(sizes))
    impls = [i for i in order if (k, i) in t]
    for i in impls:
        md.append(f"| {i} | " + " | ".join(f"{t[(k, i)][n]:.3g}" if n in t[(k, i)] else "—" for n in sizes) + " |")
    if (k, "gradc-batch") in t and (k, "hand-simd") in t:
        g, h = t[(k, "gradc-batch")], t[(k, "hand-simd")]
        md.append("| gradc-batch / hand-simd | " + " | ".join(
            f"{g[n] / h[n]:.2f}×" if n in g and n in h else "—" for n in sizes) + " |")
    md.append("")
    # Every implementation a column, in one order for every kernel ("-" where a kernel has
    # none), so that each system has the same column, and so the same line style, in
    # every panel of the plot.
    with open(f"{out}/sweep_{k}.dat", "w") as f:
        f.write("N " + " ".join(order) + "\n")
        for n in sizes:
            f.write(f"{n} " + " ".join(f"{t[(k, i)][n]:.6g}" if (k, i) in t and n in t[(k, i)] else "-"
                                       for i in order) + "\n")

md.append("**Roofline, bandwidth side** — bytes per point moved through memory, achieved GB/s "
          "(bytes per point / ns per point) and its fraction of the triad bandwidth, at the largest N")
md.append("")
md.append("| kernel | bytes/point | gradc-batch GB/s | fraction | hand-simd GB/s | fraction |")
md.append("|---|---:|---:|---:|---:|---:|")
big = sizes[-1]
for k in kernels:
    b = bytes_per_point[k]
    cells = []
    for i in ["gradc-batch", "hand-simd"]:
        ns = t.get((k, i), {}).get(big)
        cells += [f"{b / ns:.1f}", f"{b / ns / bw:.0%}"] if ns else ["—", "—"]
    md.append(f"| {k} | {b} | " + " | ".join(cells) + " |")

# Flop side: the flops per point the compiled batch code executes (executed_flops.csv, by
# bench/flops_executed.sh), achieved at the in-cache size N = 10,000 (or the smallest
# run); beside them, the generic program's arithmetic and transcendental calls per point
# (flops.csv, by gradc-bench-flops), which say where the flops come from.
def read(name):
    try:
        return list(csv.DictReader(open(f"{out}/{name}")))
    except FileNotFoundError:
        return []
executed = {(r["kernel"], r["implementation"]): r for r in read("executed_flops.csv")}
program = {(r["kernel"], r["implementation"]): r for r in read("flops.csv")}
if executed:
    small = 10000 if 10000 in sizes else sizes[0]
    md.append("")
    md.append(f"**Roofline, flop side** — flops per point executed by the compiled batch code, achieved GFLOP/s "
              f"(flops per point / ns per point) and its fraction of the double FMA peak ({dflops:.0f} GFLOP/s), "
              f"at N = {small:,} (in cache); the generic program's arithmetic flops and transcendental calls per "
              f"point beside them")
    md.append("")
    md.append("| kernel | implementation | program: arithmetic, calls | executed flops/point | instructions/point "
              "| ns/point | GFLOP/s | fraction of peak |")
    md.append("|---|---|---|---:|---:|---:|---:|---:|")
    for k in kernels:
        for i, counted in [("gradc-batch", "gradc"), ("hand-simd", "hand")]:
            e = executed.get((k, i))
            ns = t.get((k, i), {}).get(small)
            if not e or not ns:
                continue
            p = program.get((k, counted))
            origin = f"{p['arithmetic_flops']}, {p['calls'] or 'no call'}" if p else "—"
            f = float(e["flops_per_point"])
            md.append(f"| {k} | {i} | {origin} | {f:.4g} | {float(e['instructions_per_point']):.4g} | {ns:.3g} | "
                      f"{f / ns:.1f} | {f / ns / dflops:.0%} |")
open(f"{out}/sweep.md", "w").write("\n".join(md) + "\n")
