#!/usr/bin/env python3
"""Writes a C++ translation unit with one large static-mode expression, for measuring
compile time: `generate.py chain N` or `generate.py tree N` (N: about N nodes).

Each level of the expression is its own statement, as a user would write it, so the
only template recursion is the library's own (the walk and the lowering).
 - chain: e = sin(e) * y + x, repeated: each level uses the previous one (3 nodes a level);
 - tree: a balanced binary tree whose leaves are x·c_k + y (literals make every leaf
   distinct, so no subtree is merged with another), inner nodes alternating * and +.
The program calls `value`, `gradient` and `jvp` and prints the results, so that nothing
is optimised away."""
import sys


def chain(n):
    levels = max(1, (n - 2) // 3)
    lines = ["    auto e0 = x;"]
    for i in range(1, levels + 1):
        lines.append(f"    auto e{i} = sin(e{i - 1}) * y + x;")
    return lines, f"e{levels}"


def tree(n):
    # A leaf is x*c + y: 2 new nodes (the literal and the product) and the sum: 3 nodes.
    # A tree with L leaves has L - 1 inner nodes: about 4L nodes in all.
    leaves = 1
    while 4 * leaves * 2 <= n * 1.2:
        leaves *= 2
    lines = []
    level = [f"l{k}" for k in range(leaves)]
    for k in range(leaves):
        lines.append(f"    auto l{k} = x * {0.5 + k / leaves:.6f} + y;")
    depth = 0
    while len(level) > 1:
        depth += 1
        op = "*" if depth % 2 else "+"
        nxt = []
        for k in range(0, len(level), 2):
            name = f"t{depth}_{k // 2}"
            lines.append(f"    auto {name} = {level[k]} {op} {level[k + 1]};")
            nxt.append(name)
        level = nxt
    return lines, level[0]


def main():
    shape, n = sys.argv[1], int(sys.argv[2])
    lines, out = {"chain": chain, "tree": tree}[shape](n)
    print("#include <array>\n#include <cstdio>\n#include <gradc/gradc.hpp>\n")
    print("int main() {")
    print("    auto [x, y] = gradc::variables<2>();")
    print("\n".join(lines))
    print(f"    const auto k = gradc::compile({out});")
    print("    const auto v = k(0.3, 0.7);")
    print("    const auto g = k.gradient(0.3, 0.7);")
    print("    const auto t = k.jvp(std::array{0.3, 0.7}, std::array{1.0, 0.5});")
    print('    std::printf("nodes %zu value %.17g gradient %.17g %.17g jvp %.17g\\n", '
          "decltype(k)::program::size, v, g.gradient[0], g.gradient[1], t.tangent);")
    print("}")


if __name__ == "__main__":
    main()
