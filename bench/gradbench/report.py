#!/usr/bin/env python3
"""Tables and plots of GradBench runs: gradc against the local peers, in one run.

Usage: report.py RESULTS_DIR [NIGHTLY_DIR]

RESULTS_DIR holds one log per eval and tool, EVAL.TOOL.jsonl, as GradBench's runner
writes them with --log (every message of the eval and of the tool). For each eval and
input the report takes each tool's fastest "evaluate" timing of the objective and of the
derivative (the eval's two functions; particle and saddle have four nestings and no
objective), and writes
  RESULTS_DIR/table.md   one table per eval: times, derivative ÷ objective, gradc's rank
                         among the tools on the derivative, validity; beside them the best
                         derivative ÷ objective of GradBench's nightly run (NIGHTLY_DIR) among
                         the tools whose derivative is within 2x of the fastest there
  RESULTS_DIR/times.csv  the same, one row per eval, input and tool
  RESULTS_DIR/summary.md one line per eval: where gradc's derivative ranks, its time against
                         the fastest other tool's, its derivative ÷ objective against the
                         nightly's best
  RESULTS_DIR/EVAL.dat   the data of the plots, then EVAL.png and EVAL.svg (gnuplot): time
                         against size, log-log, one line per tool and function
"""
import csv
import io
import json
import math
import os
import re
import subprocess
import sys

# The eval's objective and derivative, by their protocol names (GradBench's eval READMEs).
FUNCTIONS = {
    "hello": ("square", "double"), "gmm": ("objective", "jacobian"), "ba": ("objective", "jacobian"),
    "lstm": ("objective", "jacobian"), "ht": ("objective", "jacobian"), "ode": ("primal", "gradient"),
    "kmeans": ("cost", "dir"), "lse": ("primal", "gradient"), "llsq": ("primal", "gradient"),
    "det": ("primal", "gradient"), "particle": (None, "rr ff fr rf"), "saddle": (None, "rr ff fr rf"),
}

# Tools left out of the ranks and of the nightly's best ratios: manual's ode gradient is a
# closed form, not a derivative computed by AD (GradBench's ode README; the goal compares
# AD tools only).
NOT_RANKED = {"ode": {"manual"}}


def read_log(path):
    """{(function, description): {"ns": fastest evaluate, "valid": bool or None}} of one log."""
    asked, results = {}, {}
    with open(path) as log:
        for line in log:
            entry = json.loads(line)
            message = entry["message"]
            if entry["from"] == "eval" and message.get("kind") == "evaluate":
                key = (message["function"], message.get("description") or "")
                asked[message["id"]] = key
                results[key] = {"ns": None, "valid": None}
            elif entry["from"] == "tool" and message.get("id") in asked and "timings" in message:
                times = [t["nanoseconds"] for t in message["timings"] if t["name"] == "evaluate"]
                results[asked[message["id"]]]["ns"] = min(times) if times else None
            elif entry["from"] == "tool" and message.get("id") in asked and message.get("success") is False:
                results[asked[message["id"]]]["valid"] = False
            elif entry["from"] == "eval" and message.get("kind") == "analysis" and message.get("of") in asked:
                results[asked[message["of"]]]["valid"] = bool(message.get("valid"))
    return results


def size_of(description):
    """A number that grows with the input: the product of the integers in its description."""
    numbers = [int(n) for n in re.findall(r"\d+", description)]
    return math.prod(numbers) if numbers else 1


def nightly_best_ratios(nightly, eval_name):
    """{description: best derivative ÷ primal among the tools within 2x of the fastest derivative}."""
    left_out = NOT_RANKED.get(eval_name, set())
    path = os.path.join(nightly or "", "evals", eval_name, "summary.json")
    if not nightly or not os.path.exists(path):
        return {}
    summary = json.load(open(path))
    seconds = lambda t: t["secs"] + t["nanos"] * 1e-9
    by_size = {}
    for tool, sizes in summary["tools"].items():
        if tool in left_out:
            continue
        for description, times in sizes.items():
            if "primal" in times and "derivative" in times:
                by_size.setdefault(description, []).append((seconds(times["derivative"]), seconds(times["primal"]), tool))
    best = {}
    for description, rows in by_size.items():
        fastest = min(d for d, _, _ in rows)
        near = [(d / p, tool) for d, p, tool in rows if d <= 2 * fastest and p > 0]
        if near:
            best[description] = min(near)
    return best


def fmt(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns} ns"


def main():
    results_dir = sys.argv[1]
    nightly = sys.argv[2] if len(sys.argv) > 2 else None
    logs = {}
    for name in sorted(os.listdir(results_dir)):
        match = re.fullmatch(r"(\w+)\.([\w-]+)\.jsonl", name)
        if match:
            logs.setdefault(match[1], {})[match[2]] = read_log(os.path.join(results_dir, name))
    table, summary = [], []
    csv_text = io.StringIO()
    csv_rows = csv.writer(csv_text, lineterminator="\n")
    csv_rows.writerow(["eval", "input", "tool", "function", "min_ns", "valid"])
    for eval_name, tools in logs.items():
        objective, derivatives = FUNCTIONS.get(eval_name, (None, ""))
        derivatives = derivatives.split()
        best = nightly_best_ratios(nightly, eval_name)
        tool_names = ["gradc"] + sorted(t for t in tools if t != "gradc")
        tool_names = [t for t in tool_names if t in tools]
        inputs = sorted({key[1] for results in tools.values() for key in results}, key=size_of)
        table.append(f"\n### {eval_name}\n")
        columns = [f"{t} {f}" for t in tool_names for f in ([objective] if objective else []) + derivatives]
        header = ["input"] + columns + (["gradc ratio", "nightly best ratio"] if objective else []) + ["gradc rank", "valid"]
        table.append("| " + " | ".join(header) + " |")
        table.append("|" + "---|" * len(header))
        plot_rows = []
        firsts, against_fastest, ratios, nightly_ratios, valid_count = 0, [], [], [], 0
        for description in inputs:
            row, valid = [description], True
            times = {}
            for tool in tool_names:
                for function in ([objective] if objective else []) + derivatives:
                    entry = tools[tool].get((function, description), {"ns": None, "valid": None})
                    times[(tool, function)] = entry["ns"]
                    row.append(fmt(entry["ns"]))
                    csv_rows.writerow([eval_name, description, tool, function, entry["ns"] or "", entry["valid"]])
                    if tool == "gradc" and entry["valid"] is False:
                        valid = False
            main_derivative = derivatives[0]
            if objective:
                gradc_objective, gradc_derivative = times.get(("gradc", objective)), times.get(("gradc", main_derivative))
                ratio = gradc_derivative / gradc_objective if gradc_objective and gradc_derivative else None
                row.append(f"{ratio:.2f}" if ratio else "-")
                nightly_best = best.get(description)
                row.append(f"{nightly_best[0]:.2f} ({nightly_best[1]})" if nightly_best else "-")
            derivative_times = sorted((times[(t, main_derivative)], t) for t in tool_names
                                      if times.get((t, main_derivative)) and t not in NOT_RANKED.get(eval_name, set()))
            rank = next((i + 1 for i, (_, t) in enumerate(derivative_times) if t == "gradc"), None)
            firsts += rank == 1
            others = [ns for ns, t in derivative_times if t != "gradc"]
            if times.get(("gradc", main_derivative)) and others:
                against_fastest.append(times[("gradc", main_derivative)] / min(others))
            if objective and ratio:
                ratios.append(ratio)
            if objective and best.get(description):
                nightly_ratios.append(best[description][0])
            valid_count += valid
            row.append(f"{rank} of {len(derivative_times)}" if rank else "-")
            row.append("yes" if valid else "**no**")
            table.append("| " + " | ".join(row) + " |")
            plot_rows.append([size_of(description)] + [times[(t, f)] or "NaN" for t in tool_names
                                                          for f in ([objective] if objective else []) + derivatives])
        write_plot(results_dir, eval_name, columns, plot_rows)
        span = lambda values, unit="": f"{min(values):.2f}–{max(values):.2f}{unit}" if values else "-"
        summary.append(f"| {eval_name} | {valid_count} of {len(inputs)} | {firsts} of {len(inputs)} | "
                       f"{span(against_fastest, '×')} | {span(ratios)} | {span(nightly_ratios)} |")
    with open(os.path.join(results_dir, "table.md"), "w") as out:
        out.write("Fastest evaluate time of each function (min of runs); ratio = derivative ÷ objective.\n")
        out.write("\n".join(table) + "\n")
    with open(os.path.join(results_dir, "summary.md"), "w") as out:
        out.write("| eval | valid | gradc's derivative the fastest | gradc's derivative ÷ the fastest other tool's | "
                  "gradc's derivative ÷ objective | nightly's best derivative ÷ objective |\n|---|---|---|---|---|---|\n")
        out.write("\n".join(summary) + "\n")
    with open(os.path.join(results_dir, "times.csv"), "w") as out:
        out.write(csv_text.getvalue())
    print(os.path.join(results_dir, "table.md"))


def write_plot(results_dir, eval_name, columns, rows):
    data = os.path.join(results_dir, f"{eval_name}.dat")
    with open(data, "w") as out:
        out.write("# size " + " ".join(c.replace(" ", "_") for c in columns) + "\n")
        for row in rows:
            out.write(" ".join(str(v) for v in row) + "\n")
    if len(rows) < 2:
        return
    # Inputs of one size (ode's n·s) would join into vertical strokes: points alone then.
    style = "linespoints" if len({row[0] for row in rows}) == len(rows) else "points"
    plots = ", ".join(f"'{data}' using 1:{i + 2} with {style} title '{c}'" for i, c in enumerate(columns))
    for terminal, extension in (("pngcairo size 900,600", "png"), ("svg size 900,600", "svg")):
        script = (f"set terminal {terminal}; set output '{os.path.join(results_dir, eval_name + '.' + extension)}';"
                  f"set logscale xy; set format xy '10^{{%L}}'; set key outside right; set grid;"
                  f"set title 'GradBench {eval_name}: time against size (this machine, one run)';"
                  f"set xlabel 'size (product of the eval''s size parameters)'; set ylabel 'fastest run (ns)';"
                  f"plot {plots}")
        try:
            subprocess.run(["gnuplot", "-e", script], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"report.py: no {extension} plot for {eval_name}: {error}", file=sys.stderr)


if __name__ == "__main__":
    main()
