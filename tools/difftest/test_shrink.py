#!/usr/bin/env python3
"""Tests of the differential tester's shrinker (shrink.py) without a compiler: a planted
mismatch stands for the harness, and the search must end at the smallest expression that
still has it."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402
import shrink  # noqa: E402


def inlined(body):
    """The expression as one term, every let substituted."""
    lets, result = shrink.parse(body)

    def expand(name):
        if name not in lets:
            return name
        return shrink.NAME.sub(lambda m: expand(m.group(1)), lets[name])
    return expand(result)


def arguments_of(f, text):
    """The argument texts of every call of `f` in `text`."""
    out = []
    for m in re.finditer(rf"(?<![a-z0-9]){f}\(", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end():i - 1])
    return out


def planted(body):
    """The planted bug: acosh of anything that depends on x2."""
    return any("x2" in a for a in arguments_of("acosh", inlined(body)))


BODY = ("const auto t0 = (x2 + x3); const auto t1 = log10(t0); const auto t2 = sin(x0); "
        "const auto t3 = acosh(t1); const auto t4 = (t2 * t3); const auto t5 = asinh(t4); "
        "const auto t6 = hypot(t5, x1); return t6;")


class Shrink(unittest.TestCase):
    def test_parse_and_render(self):
        lets, result = shrink.parse(BODY)
        self.assertEqual(list(lets), [f"t{i}" for i in range(7)])
        self.assertEqual(lets["t3"], "acosh(t1)")
        self.assertEqual(result, "t6")
        self.assertEqual(shrink.render(lets, result), BODY)
        # Unused lets go, the others are renumbered in order.
        self.assertEqual(shrink.render(lets, "t3"),
                         "const auto t0 = (x2 + x3); const auto t1 = log10(t0); const auto t2 = acosh(t1); return t2;")

    def test_candidates_are_smaller_expressions(self):
        cs = shrink.candidates(BODY, 4)
        # The result replaced by an operand: t6 by t5.
        self.assertIn("const auto t0 = (x2 + x3); const auto t1 = log10(t0); const auto t2 = sin(x0); "
                      "const auto t3 = acosh(t1); const auto t4 = (t2 * t3); const auto t5 = asinh(t4); return t5;", cs)
        for c in cs:
            self.assertLess(shrink.size(c), shrink.size(BODY))
            lets, result = shrink.parse(c)
            self.assertTrue(result.startswith("t"), c)  # never a bare variable
            for n, text in lets.items():  # every name defined before it is used
                for o in shrink.operands(text):
                    self.assertTrue(o.startswith("x") or int(o[1:]) < int(n[1:]), c)
        # A let replaced by a variable.
        self.assertIn("const auto t0 = sin(x0); const auto t1 = acosh(x3); const auto t2 = (t0 * t1); "
                      "const auto t3 = asinh(t2); const auto t4 = hypot(t3, x1); return t4;", cs)

    def test_planted_mismatch_shrinks_to_its_core(self):
        self.assertTrue(planted(BODY))
        calls = []

        def mismatching(bodies):
            calls.append(len(bodies))
            return [b for b in bodies if planted(b)]
        smallest = shrink.shrink(BODY, 4, mismatching)
        self.assertEqual(smallest, "const auto t0 = acosh(x2); return t0;")
        self.assertTrue(all(calls))
        self.assertGreater(len(calls), 1)

    def test_chunks_of_candidates_reach_the_same_core(self):
        sizes = []

        def mismatching(bodies):
            sizes.append(len(bodies))
            return [b for b in bodies if planted(b)]
        self.assertEqual(shrink.shrink(BODY, 4, mismatching, chunk=3), "const auto t0 = acosh(x2); return t0;")
        self.assertLessEqual(max(sizes), 3)

    def test_no_mismatch_left_keeps_the_expression(self):
        self.assertEqual(shrink.shrink(BODY, 4, lambda bodies: []), BODY)

    def test_generated_expressions_shrink(self):
        # Every generated body parses, renders to itself, and a planted mismatch on its first
        # primitive shrinks to that primitive of one variable.
        for i in range(60):
            arity, _, _, body = generate.expression(3, i)
            lets, result = shrink.parse(body)
            self.assertEqual(shrink.render(lets, result), body)
            unary = [t for t in lets.values() if re.fullmatch(r"[a-z0-9]+\([tx]\d+\)", t)]
            if not unary:
                continue
            f = unary[0].split("(")[0]

            def has(b):
                return re.search(rf"(?<![a-z0-9]){f}\(", inlined(b)) is not None
            smallest = shrink.shrink(body, arity, lambda bodies: [b for b in bodies if has(b)])
            self.assertRegex(smallest, rf"^const auto t0 = {f}\(x\d\); return t0;$")

    def test_reports_are_parsed(self):
        output = ("mismatch (depth 3, 2 variables):\n"
                  "  d/dx1: dynamic vs static scalar at (0.5, -inf): static 1, dynamic NaN\n"
                  "  value: static batch vs static scalar at (1, 2): scalar 1, batch 2\n"
                  "  reproduce: gradc::difftest::check<2, gradc::difftest::all_checks>(r, \"const auto t0 = "
                  "sin(x1); return t0;\", 3, 5ULL, [](...) { ... });\n"
                  "difftest: 1 expressions, 1 mismatches\n")
        r = shrink.parse_reports(output)
        self.assertEqual(list(r), ["const auto t0 = sin(x1); return t0;"])
        self.assertEqual(r["const auto t0 = sin(x1); return t0;"][0],
                         ("d/dx1: dynamic vs static scalar", "0.5, -inf", "static 1, dynamic NaN"))
        m = next(shrink.REPORT.finditer(output))
        self.assertEqual((m.group("arity"), m.group("depth"), m.group("seed")), ("2", "3", "5"))
        self.assertEqual(shrink.checks_for("d2/dx0dx1: dynamic vs static scalar"), "gradc::difftest::second_order")
        self.assertEqual(shrink.checks_for("value: float batch vs float scalar"), "gradc::difftest::single_precision")
        self.assertEqual(shrink.checks_for("d/dx1: dynamic vs static scalar"), "gradc::difftest::first_order")
        self.assertEqual(shrink.normalise_kind("d/dx1: dynamic vs static scalar"),
                         shrink.normalise_kind("d/dx4: dynamic vs static scalar"))


class OneComputationPerLet(unittest.TestCase):
    """A subexpression drawn twice is bound once (generate.py says why), by the generator
    and by the shrinker's candidates alike."""

    def test_generated_lets_are_distinct_computations(self):
        for i in range(2000):
            body = generate.expression(11, i)[3]
            lets, _ = shrink.parse(body)
            keys = [generate.computation_key(t) for t in lets.values()]
            self.assertEqual(len(keys), len(set(keys)), body)
        self.assertEqual(generate.computation_key("(x0 * 3) + (x1 / -2) + pow(t1, 2.0) + (1e-3 * t12)"),
                         "(x0 * 3.0) + (x1 / -2.0) + pow(t1, 2.0) + (1e-3.0 * t12)")

    def test_a_drawn_again_computation_is_shared(self):
        # Seed 11, expression 6513 draws log10(x2) twice: t0 and t3 in the 10^4 run's log.
        body = generate.expression(11, 6513)[3]
        self.assertEqual(body.count("log10(x2)"), 1, body)

    def test_render_merges_lets_of_one_computation(self):
        body = ("const auto t0 = log10(x2); const auto t1 = (x0 * 3); const auto t2 = log10(x2); "
                "const auto t3 = (x0 * 3.0); const auto t4 = (t0 + t1); const auto t5 = (t2 + t3); "
                "const auto t6 = (t4 * t5); return t6;")
        self.assertEqual(shrink.render(*shrink.parse(body)),
                         "const auto t0 = log10(x2); const auto t1 = (x0 * 3); const auto t2 = (t0 + t1); "
                         "const auto t3 = (t2 * t2); return t3;")


if __name__ == "__main__":
    unittest.main()
