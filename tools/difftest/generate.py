#!/usr/bin/env python3
"""Writes random expressions for the differential tester (tests/difftest/harness.hpp).

Each expression is a generic C++ lambda over 1-6 variables, depth 1-8, built from every
primitive of the rule table, the arithmetic operators with literals of both signs,
`where` on comparisons, and shared subexpressions (a name used twice). The same lambda
is compiled as a static expression, run on tensors and evaluated in long double. A
subexpression drawn twice is bound once: the static mode computes equal subexpressions
once (their types, and literals compared by value), the dynamic mode each call, and
where an infinite partial meets a zero adjoint the two differ by construction, so the
programs compared compute each one once in every mode.
Expression i depends only on (seed, i), so a run of any size reproduces the expressions
of a smaller one and a reported expression can be regenerated alone.

    generate.py --seed S --count N --per-file K [--second-order-every E] [--float-every F] --out DIR

writes DIR/part_XXXX.cpp (K expressions each) and DIR/parts.cpp, which defines
`gradc::difftest::run_all(runner&)`.
"""
import argparse
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import primitives  # noqa: E402  (tools/primitives.py)

# The rule table's primitives, by the names the three modes share (the tensor names:
# reference.hpp forwards maximum/minimum to the static mode's max/min), read from
# include/gradc/rules/list.hpp, the one list (tools/primitives.py).
UNARY = [tensor_op for _, tensor_op in primitives.unary()]
BINARY = [tensor_op for _, tensor_op in primitives.binary()]
ARITHMETIC = ["+", "-", "*", "/"]
COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]
LITERALS = ["2.0", "-2.0", "0.5", "-0.5", "3.0", "-1.0", "1.0", "0.25", "-3.5", "1e-3", "10.0", "3", "-2"]


INTEGER = re.compile(r"(?<![\w.])(-?\d+)(?![\w.])")


def computation_key(text):
    """What makes two lets one computation in the static mode: equal texts, a literal's
    integer and floating spellings alike (`3` and `3.0`; a kernel compares literals by
    value, docs/static.md, "Copies of a subexpression with literals")."""
    return INTEGER.sub(r"\1.0", text)


class Expression:
    """One random expression as let-bound statements: `const auto t0 = sin(x0);` ..."""

    def __init__(self, rng, arity, depth):
        self.rng = rng
        self.arity = arity
        self.depth = depth
        self.lets = []      # (name, text, depth): one per computation
        self.bound = []     # (name, depth): every binding drawn, a computation drawn again included
        self.result = self.node(depth)

    def variable(self):
        return f"x{self.rng.randrange(self.arity)}"

    def literal(self):
        return self.rng.choice(LITERALS)

    def bind(self, text, depth):
        """The name of a new let for text, or of the earlier let of the same computation.
        Sharing draws from every binding drawn, so the random stream is the one it was
        before equal lets were merged."""
        key = computation_key(text)
        name = next((n for n, t, _ in self.lets if computation_key(t) == key), None)
        if name is None:
            name = f"t{len(self.lets)}"
            self.lets.append((name, text, depth))
        self.bound.append((name, depth))
        return name

    def node(self, depth):
        rng = self.rng
        if depth <= 0:
            return self.variable()
        shareable = [name for name, d in self.bound if d < depth]
        c = rng.random()
        if shareable and c < 0.1:
            return rng.choice(shareable)  # a shared subexpression
        if c < 0.5:
            return self.bind(f"{rng.choice(UNARY)}({self.node(depth - 1)})", depth)
        if c < 0.78:
            op = rng.choice(ARITHMETIC)
            a = self.node(depth - 1)
            if rng.random() < 0.3:
                lit = self.literal()
                return self.bind(f"({lit} {op} {a})" if rng.random() < 0.5 else f"({a} {op} {lit})", depth)
            return self.bind(f"({a} {op} {self.node(depth - 1)})", depth)
        if c < 0.9:
            f = rng.choice(BINARY)
            a = self.node(depth - 1)
            # A literal exponent, as a double (the references' pow takes floating operands).
            b = self.literal() if f == "pow" and rng.random() < 0.4 else self.node(depth - 1)
            if b in LITERALS and "." not in b and "e" not in b:
                b += ".0"
            return self.bind(f"{f}({a}, {b})", depth)
        if c < 0.93:
            return self.bind(f"(-{self.node(depth - 1)})", depth)
        left = self.node(depth - 1)
        right = self.literal() if rng.random() < 0.4 else self.node(depth - 1)
        condition = f"{left} {rng.choice(COMPARISONS)} {right}"
        return self.bind(f"where({condition}, {self.node(depth - 1)}, {self.node(depth - 1)})", depth)

    def body(self):
        """The lambda's statements, one line."""
        lets = " ".join(f"const auto {n} = {t};" for n, t, _ in self.lets)
        return (lets + " " if lets else "") + f"return {self.result};"


def expression(seed, index):
    rng = random.Random(f"{seed}-{index}")
    arity = rng.randint(1, 6)
    depth = rng.randint(1, 8)
    e = Expression(rng, arity, depth)
    while e.result.startswith("x"):  # a bare variable: nothing to differentiate
        e = Expression(rng, arity, depth)
    return arity, depth, rng.getrandbits(63), e.body()


def lambda_text(arity, body):
    params = ", ".join(f"[[maybe_unused]] const auto& x{j}" for j in range(arity))
    return f"[]({params}) {{ using namespace gradc::difftest::reference; {body} }}"


def checks(index, second_order_every, float_every, narrow_every=0):
    """The harness's `checks` flags for expression `index`."""
    flags = []
    if second_order_every and index % second_order_every == 0:
        flags.append("second_order")
    if float_every and index % float_every == float_every // 2:  # others than the Hessians' when sparse
        flags.append("single_precision")
    if narrow_every and (index + 5) % narrow_every == 0:  # 5, 15, ...: apart from both when sparse
        flags.append("narrow_simd")
    return " | ".join(f"gradc::difftest::{f}" for f in flags) or "gradc::difftest::first_order"


def check_call(arity, depth, point_seed, body, flags):
    return (f"    check<{arity}, {flags}>(r, {c_string(body)}, {depth}, {point_seed}ULL, "
            f"{lambda_text(arity, body)});")


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--first", type=int, default=0, help="index of the first expression")
    p.add_argument("--per-file", type=int, default=50)
    p.add_argument("--second-order-every", type=int, default=1,
                   help="compare Hessians for every E-th expression only (0: none); they cost compile time")
    p.add_argument("--float-every", type=int, default=1,
                   help="run the float kernel for every F-th expression only (0: none)")
    p.add_argument("--narrow-every", type=int, default=1,
                   help="run the batch calls on the narrower SIMD architectures (AVX2, SSE2) for every "
                        "A-th expression only (0: none)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    parts = []
    for start in range(a.first, a.first + a.count, a.per_file):
        name = f"part_{len(parts):04d}"
        lines = ["// Generated by tools/difftest/generate.py; do not edit.", '#include "harness.hpp"', "",
                 "namespace gradc::difftest {", "", f"void {name}(runner& r) {{"]
        for i in range(start, min(start + a.per_file, a.first + a.count)):
            arity, depth, point_seed, body = expression(a.seed, i)
            lines.append(check_call(arity, depth, point_seed, body, checks(i, a.second_order_every, a.float_every, a.narrow_every)))
        lines += ["}", "", "}  // namespace gradc::difftest", ""]
        with open(os.path.join(a.out, name + ".cpp"), "w") as f:
            f.write("\n".join(lines))
        parts.append(name)
    index = ["// Generated by tools/difftest/generate.py; do not edit.", '#include "harness.hpp"', "",
             "namespace gradc::difftest {", ""]
    index += [f"void {n}(runner& r);" for n in parts]
    index += ["", "void run_all(runner& r) {"] + [f"    {n}(r);" for n in parts] + ["}", "",
              "}  // namespace gradc::difftest", ""]
    with open(os.path.join(a.out, "parts.cpp"), "w") as f:
        f.write("\n".join(index))


if __name__ == "__main__":
    main()
