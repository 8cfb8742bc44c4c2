#!/usr/bin/env python3
"""Shrinks expressions on which the differential tester found a mismatch
(tests/difftest/harness.hpp) to small ones that still mismatch.

An expression is the body generate.py writes: `const auto t0 = sin(x1); ... return t5;`.
One step replaces a let-bound subexpression by one of its operands (a name t_k or x_j) or
by a variable; unused lets are dropped and the rest renumbered. The candidates of a step
are compiled into one program with the same arity and seed (so the same points), a
chunk of the smallest first, and run; of those that still mismatch in the same way (the
first kind of the expression's report, whatever the variables), the smallest is kept,
until no candidate mismatches.

    shrink.py --output FILE [--max K] [--chunk C] --work DIR

reads a difftest run's output, shrinks its first K mismatching expressions (default 3)
and prints, for each, the smallest expression, the point and a reproduction. It compiles
with $CXX (g++) and the flags in $DIFFTEST_FLAGS, linking $DIFFTEST_OBJECTS (the
harness and the main program) and $DIFFTEST_LINK; scripts/difftest sets them.
test_shrink.py tests the search with a planted mismatch instead of a compiler.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402  (computation_key: the lets the static mode computes once)

LET = re.compile(r"const auto (t\d+) = (.*?);\s*(?=const auto |return )")
NAME = re.compile(r"\b([tx]\d+)\b")


def parse(body):
    """(lets, result): lets maps a name to its text, in order; result is the returned name."""
    lets = dict(LET.findall(body))
    m = re.search(r"return (\S+?);\s*$", body)
    if not m:
        raise ValueError(f"not a generated expression body: {body!r}")
    return lets, m.group(1)


def operands(text):
    """The names (t_k, x_j) an expression's text refers to, each once, in order."""
    seen = []
    for n in NAME.findall(text):
        if n not in seen:
            seen.append(n)
    return seen


def render(lets, result):
    """The body with only the lets the result needs, renumbered t0, t1, ... in order, a
    let of the same computation as an earlier one replaced by it (as generate.py binds
    them); a result that is a let-bound name whose text is a bare variable is inlined."""
    needed, stack = set(), [result]
    while stack:
        n = stack.pop()
        if n in lets and n not in needed:
            needed.add(n)
            stack.extend(operands(lets[n]))
    order = [n for n in lets if n in needed]
    rename, seen, statements = {}, {}, []
    sub = lambda text: NAME.sub(lambda m: rename.get(m.group(1), m.group(1)), text)
    for n in order:
        text = sub(lets[n])
        key = generate.computation_key(text)
        if key not in seen:
            seen[key] = f"t{len(statements)}"
            statements.append(f"const auto {seen[key]} = {text};")
        rename[n] = seen[key]
    return " ".join(statements + [f"return {sub(result)};"])


def size(body):
    """Nodes: the number of lets, then the length, as a tie-break."""
    lets, _ = parse(body)
    return (len(lets), len(body))


def candidates(body, arity):
    """Every body one step smaller: a let replaced by one of its operands or by a
    variable (every use of it), each rendered without the lets it no longer needs.
    The returned value stays an operation: a kernel of a bare variable has nothing to
    differentiate."""
    lets, result = parse(body)
    out = []
    for name, text in lets.items():
        for replacement in operands(text) + [f"x{j}" for j in range(arity)]:
            if replacement == name:
                continue
            if name == result and replacement.startswith("x"):
                continue
            if name == result:
                new_lets, new_result = dict(lets), replacement
            else:
                new_lets = {n: NAME.sub(lambda m: replacement if m.group(1) == name else m.group(1), t)
                            for n, t in lets.items() if n != name}
                new_result = result
            if new_result.startswith("x"):
                continue
            candidate = render(new_lets, new_result)
            if candidate != body and candidate not in out and size(candidate) < size(body):
                out.append(candidate)
    return out


def normalise_kind(kind):
    """A report's kind without the variables it names: `d/dx3: dynamic vs static scalar`
    and `d/dx0: ...` are the same mismatch."""
    return re.sub(r"\d+", "#", kind)


def shrink(body, arity, mismatching, log=None, max_rounds=100, chunk=None):
    """Greedy search: `mismatching(bodies)` returns the subset that still mismatches. The
    candidates of a step are tried smallest first, `chunk` at a time (all at once without
    a chunk); the first chunk with a mismatch gives the next expression."""
    body = render(*parse(body))
    for _ in range(max_rounds):
        cs = sorted(candidates(body, arity), key=size)
        step = chunk or max(len(cs), 1)
        still = []
        for start in range(0, len(cs), step):
            still = mismatching(cs[start:start + step])
            if still:
                break
        if not still:
            break
        body = min(still, key=size)
        if log:
            log(f"shrink: {size(body)[0]} lets: {body}")
    return body


# ---- running candidates through the harness -------------------------------------------

REPORT = re.compile(r"^mismatch \(depth.*?\n(?P<lines>(?:  (?!reproduce).*\n)*)  reproduce: "
                    r"gradc::difftest::check<(?P<arity>\d+)(?:, (?P<checks>[^>]*))?>\(r, \"(?P<text>[^\"]*)\", "
                    r"(?P<depth>\d+), (?P<seed>\d+)ULL", re.M)


def parse_reports(output):
    """{expression text: [(kind, point, detail), ...]} from the harness's output."""
    return {m.group("text"): kinds_of(m) for m in REPORT.finditer(output)}


def kinds_of(m):
    kinds = []
    for line in m.group("lines").splitlines():
        k = re.match(r"  (.*?) at \((.*?)\): (.*)$", line)
        if k:
            kinds.append(k.groups())
    return kinds


def checks_for(kind):
    """The harness's checks that a kind of report needs: the others cost compile time."""
    if kind.startswith("d2/") or kind.startswith("(H") or "hessian" in kind:
        return "gradc::difftest::second_order"
    if "float" in kind:
        return "gradc::difftest::single_precision"
    return "gradc::difftest::first_order"


def lambda_text(arity, body):
    params = ", ".join(f"[[maybe_unused]] const auto& x{j}" for j in range(arity))
    return f"[]({params}) {{ using namespace gradc::difftest::reference; {body} }}"


class Harness:
    """Compiles and runs candidate bodies with the harness, one program per round."""

    def __init__(self, arity, depth, seed, checks, kind, work):
        self.arity, self.depth, self.seed, self.checks = arity, depth, seed, checks
        self.kind = normalise_kind(kind)
        self.work = work
        self.round = 0
        self.reports = {}
        os.makedirs(work, exist_ok=True)

    def __call__(self, bodies):
        if not bodies:
            return []
        self.round += 1
        src = os.path.join(self.work, f"round_{self.round}.cpp")
        calls = [f'    check<{self.arity}, {self.checks}>(r, "{b}", {self.depth}, {self.seed}ULL, '
                 f'{lambda_text(self.arity, b)});' for b in bodies]
        with open(src, "w") as f:
            f.write("\n".join(['#include "harness.hpp"', "namespace gradc::difftest {",
                               "void run_all(runner& r) {"] + calls + ["}", "}", ""]))
        exe = os.path.join(self.work, f"round_{self.round}")
        cxx = os.environ.get("CXX", "g++")
        flags = shlex.split(os.environ.get("DIFFTEST_FLAGS", ""))
        objects = shlex.split(os.environ.get("DIFFTEST_OBJECTS", ""))
        link = shlex.split(os.environ.get("DIFFTEST_LINK", ""))
        subprocess.run([cxx, *flags, src, *objects, "-o", exe, *link], check=True)
        out = subprocess.run([exe], capture_output=True, text=True).stdout
        reports = parse_reports(out)
        self.reports.update(reports)
        return [b for b in bodies
                if any(normalise_kind(k) == self.kind for k, _, _ in reports.get(b, []))]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output", required=True, help="a difftest run's output")
    p.add_argument("--max", type=int, default=3, help="expressions to shrink")
    p.add_argument("--chunk", type=int, default=16, help="candidates compiled together")
    p.add_argument("--work", required=True)
    a = p.parse_args()
    with open(a.output) as f:
        reports = list(REPORT.finditer(f.read()))
    for n, m in enumerate(reports[:a.max]):
        kind, point, detail = kinds_of(m)[0]
        arity, depth, seed = int(m.group("arity")), int(m.group("depth")), int(m.group("seed"))
        h = Harness(arity, depth, seed, checks_for(kind), kind, os.path.join(a.work, f"shrink_{n}"))
        body = m.group("text")
        print(f"shrinking mismatch {n + 1} of {len(reports)} ({kind}, {size(body)[0]} lets)", flush=True)
        if not h([body]):
            print(f"  the mismatch does not reproduce with {h.checks} alone")
            continue
        smallest = shrink(body, arity, h, chunk=a.chunk, log=lambda s: print("  " + s, file=sys.stderr))
        kind, point, detail = next(k for k in h.reports[smallest] if normalise_kind(k[0]) == h.kind)
        print(f"  minimal reproduction ({size(smallest)[0]} lets, {h.round} programs compiled): "
              f"{kind} at ({point}): {detail}")
        print(f"  reproduce: gradc::difftest::check<{arity}, {h.checks}>(r, \"{smallest}\", {depth}, {seed}ULL, "
              f"{lambda_text(arity, smallest)});", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
