"""The docs' lists of the rule table's functions name exactly the primitives of
include/gradc/rules/list.hpp (tools/primitives.py): docs/static.md's functions found by
argument-dependent lookup, and docs/dynamic.md's rows "rule table, unary" and "rule
table, binary" (pow is listed with the arithmetic there). A rule added to the list and
not to a guide, or a guide naming one that is gone, fails here, naming it."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(root, "tools"))
import primitives  # noqa: E402

failures = []


def compare(where, listed, expected):
    listed, expected = set(listed), set(expected)
    if listed - expected:
        failures.append(f"{where} names {', '.join(sorted(listed - expected))}, not in include/gradc/rules/list.hpp")
    if expected - listed:
        failures.append(f"{where} lacks {', '.join(sorted(expected - listed))} of include/gradc/rules/list.hpp")


def words_in_backticks(text):
    return [w for span in re.findall(r"`([^`]*)`", text) for w in span.split()]


static = open(os.path.join(root, "docs", "static.md")).read()
m = re.search(r"- Functions found by argument-dependent lookup.*?:\n(.*?)\n- ", static, re.S)
if not m:
    failures.append("docs/static.md: the list of functions found by argument-dependent lookup is gone")
else:
    unary_text, _, binary_text = m.group(1).partition("with two operands")
    compare("docs/static.md (one operand)", words_in_backticks(unary_text), [r for r, _ in primitives.unary()])
    compare("docs/static.md (two operands)", words_in_backticks(binary_text), [r for r, _ in primitives.binary()])

dynamic = open(os.path.join(root, "docs", "dynamic.md")).read()
rows = {}
for name in ("rule table, unary", "rule table, binary", "arithmetic"):
    m = re.search(r"^\| " + re.escape(name) + r" \| (.*) \|$", dynamic, re.M)
    if not m:
        failures.append(f"docs/dynamic.md: the row \"{name}\" of the functions table is gone")
    rows[name] = words_in_backticks(m.group(1)) if m else []
compare("docs/dynamic.md row \"rule table, unary\"", rows["rule table, unary"], [t for _, t in primitives.unary()])
binary_listed = [w for w in rows["rule table, binary"]] + [t for _, t in primitives.binary() if t in rows["arithmetic"]]
compare("docs/dynamic.md rows \"rule table, binary\" and \"arithmetic\"", binary_listed,
        [t for _, t in primitives.binary()])

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"the docs list the {len(primitives.unary())} one-operand and {len(primitives.binary())} two-operand primitives")
