"""The rule table's primitives as include/gradc/rules/list.hpp names them: the one list
every other place reads (the differential tester's generator, the PyTorch reference
generator, the check of the docs' function lists).

    unary()   -> [(rule, tensor_op), ...]   GRADC_UNARY_PRIMITIVES, in order
    binary()  -> [(rule, tensor_op), ...]   GRADC_BINARY_PRIMITIVES, in order

`rule` is the static mode's function (and the rule's type), `tensor_op` the dynamic
mode's (the same but max -> maximum, min -> minimum, as in LibTorch)."""
import os
import re

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "gradc", "rules", "list.hpp")


def _entries(macro):
    text = open(LIST).read()
    start = text.index("#define " + macro + "(X)")
    body = []
    for line in text[start:].splitlines()[0:]:
        body.append(line)
        if not line.rstrip().endswith("\\"):
            break
    entries = re.findall(r"X\((\w+),\s*(\w+)\)", " ".join(body))
    if not entries:
        raise RuntimeError(f"tools/primitives.py: no X(rule, tensor_op) entries in {macro} of {LIST}")
    return entries


def unary():
    return _entries("GRADC_UNARY_PRIMITIVES")


def binary():
    return _entries("GRADC_BINARY_PRIMITIVES")


if __name__ == "__main__":
    print("unary:", " ".join(r for r, _ in unary()))
    print("binary:", " ".join(r for r, _ in binary()))
