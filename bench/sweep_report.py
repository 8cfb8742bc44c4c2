#!/usr/bin/env python3
"""Report of bench/sweep.sh: ns/point per kernel, implementation and size, gradc against
hand-written code at every size, and the roofline: the fraction of the triad bandwidth
each batch implementation reaches at the largest N, and the fraction of the FMA peak it
reaches in cache (flops per point from flops.csv, counted by gradc-bench-flops, and
transcendental_costs.csv, by bench/flop_costs.sh). Writes sweep.md and one gnuplot data
file per kernel (sweep_<kernel>.dat: N, then one column per implementation)."""
import csv
import sys
from collections import defaultdict

out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/sweep.csv")))
bw, dflops, fflops = (float(x) for x in open(f"{out}/limits.csv").read().strip().split(","))

order = ["gradc-batch", "gradc-batch-value", "gradc-scalar", "hand-scalar", "hand-simd", "adolc", "sacado-sfad",
         "ceres-jet", "eigen-autodiff", "libtorch"]
kernels = ["seed", "normal_logpdf", "black_scholes", "mlp", "loglik"]
# Bytes each point moves through memory (inputs read, value and gradient written; the
# loglik reduction reads one datum per point and writes nothing per point).
bytes_per_point = {"seed": 8 * (2 + 3), "normal_logpdf": 8 * (3 + 4), "black_scholes": 8 * (5 + 6),
                   "mlp": 8 * (4 + 5), "loglik": 8}
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
    with open(f"{out}/sweep_{k}.dat", "w") as f:
        f.write("N " + " ".join(impls) + "\n")
        for n in sizes:
            f.write(f"{n} " + " ".join(f"{t[(k, i)][n]:.6g}" if n in t[(k, i)] else "-" for i in impls) + "\n")

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

# Flop side: flops per point between a lower bound (the counted arithmetic alone) and an
# upper bound (plus every transcendental call at the flops of its compiled code, every
# branch counted), achieved at the in-cache size N = 10,000 (or the smallest run).
try:
    costs = {r["function"]: int(r["flops"]) for r in csv.DictReader(open(f"{out}/transcendental_costs.csv"))}
    counts = {(r["kernel"], r["implementation"]): r for r in csv.DictReader(open(f"{out}/flops.csv"))}
except FileNotFoundError:
    counts = {}
if counts:
    small = 10000 if 10000 in sizes else sizes[0]
    md.append("")
    md.append(f"**Roofline, flop side** — flops per point (arithmetic counted on the generic program; "
              f"with transcendental calls at their compiled cost as the upper bound), achieved GFLOP/s and "
              f"fraction of the double FMA peak ({dflops:.0f} GFLOP/s), at N = {small:,} (in cache)")
    md.append("")
    md.append("| kernel | implementation | calls per point | flops/point | ns/point | GFLOP/s | fraction of peak |")
    md.append("|---|---|---|---:|---:|---:|---:|")
    for k in kernels:
        for i, counted in [("gradc-batch", "gradc"), ("hand-simd", "hand")]:
            c = counts.get((k, counted))
            ns = t.get((k, i), {}).get(small)
            if not c or not ns:
                continue
            calls = [x.split(":") for x in c["calls"].split()]
            low = int(c["arithmetic_flops"])
            high = low + sum(costs.get(name, 0) * int(n) for name, n in calls)
            md.append(f"| {k} | {i} | {c['calls'] or '—'} | {low}–{high} | {ns:.3g} | "
                      f"{low / ns:.1f}–{high / ns:.1f} | {low / ns / dflops:.0%}–{high / ns / dflops:.0%} |")
open(f"{out}/sweep.md", "w").write("\n".join(md) + "\n")
