#!/usr/bin/env python3
"""Writes a C++ translation unit with one large static-mode expression, for measuring
compile time: `generate.py SHAPE N` (N: about N nodes).

Each level of the expression is its own statement or a C++ fold, as a user would write
it, so the only template recursion is the library's own (the walk and the lowering).
 - chain: e = sin(e) * y + x, repeated: each level uses the previous one (3 nodes a level);
 - tree: a balanced binary tree whose leaves are x·c_k + y (literals make every leaf
   distinct, so no subtree is merged with another), inner nodes alternating * and +;
 - fold_left, fold_right: a sum of terms x * c_k / 256.0 written as C++ folds,
   (... + t) nesting to the left and (t + ...) to the right (5 nodes a term; folds of
   at most 256 terms, since clang limits a fold's length, summed the same way);
 - fold_right_plain: a right fold of terms f(g(v)) * w without literals, f and g from
   twelve functions and (v, w) from (x, y), (y, x), (x, x), (y, y), and the same terms
   divided by x or y (about 3 nodes a term, 1,152 distinct terms);
 - horner: a polynomial of literal coefficients in Horner form, c0 + x*(c1 + x*(...)),
   written from the back (3 nodes a degree);
 - mixed: a right fold of terms s * b_k + exp(s * c_k) * 7.0 with s = sin(x * a_k) * y,
   where s, which holds a literal, is used twice (about 17 nodes a term).
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


FUNCTIONS = ["sin", "cos", "tanh", "atan", "exp", "log1p", "sqrt", "cbrt", "erf", "sinh", "asinh", "sigmoid"]

LITERAL_TERM = """template <std::size_t K, class X, class Y>
auto term(X x, Y) { return x * (0.5 + double(K) / 4096.0) / 256.0; }"""

# Each fold shape: nodes a term (None: counted in `fold`), and its term as a function
# template of its number K.
TERMS = {
    "fold_left": (5, LITERAL_TERM),
    "fold_right": (5, LITERAL_TERM),
    "fold_right_plain": (None, """template <std::size_t K, class E>
auto fn(E e) {
""" + "".join(f"    {'if' if i == 0 else 'else if'} constexpr (K == {i}) return {f}(e);\n"
              for i, f in enumerate(FUNCTIONS[:-1])) + f"""    else return {FUNCTIONS[-1]}(e);
}}
template <std::size_t K, class X, class Y>
auto term(X x, Y y) {{
    constexpr std::size_t f = K % 12, g = K / 12 % 12, pair = K / 144 % 4;
    if constexpr (K / 576 % 2 == 1 && pair % 2 == 1) return term<K % 576>(x, y) / x;
    else if constexpr (K / 576 % 2 == 1) return term<K % 576>(x, y) / y;
    else if constexpr (pair == 0) return fn<f>(fn<g>(x)) * y;
    else if constexpr (pair == 1) return fn<f>(fn<g>(y)) * x;
    else if constexpr (pair == 2) return fn<f>(fn<g>(x)) * x;
    else return fn<f>(fn<g>(y)) * y;
}}"""),
    "mixed": (17, """template <std::size_t K, class X, class Y>
auto term(X x, Y y) {
    const auto s = sin(x * (0.5 + double(K) / 4096.0)) * y;
    return s * (1.25 + double(K) / 8192.0) + exp(s * (0.3 - double(K) / 16384.0)) * 7.0;
}"""),
}


def fold(shape, n):
    per_term, _ = TERMS[shape]
    if per_term:
        terms = max(2, n // per_term)
    else:
        # The first 576 terms add about 2.94 nodes each (their inner g(v) are shared),
        # the divided ones 2; 1,152 distinct terms at most (equal ones would be merged).
        terms = n * 100 // 294 if n <= 1693 else 576 + (n - 1693) // 2
        terms = max(2, min(terms, 1152))
    left = shape == "fold_left"
    lines, names, base = [], [], 0
    while base < terms:
        count = min(256, terms - base)
        names.append(f"p{len(names)}")
        lines.append(f"    auto {names[-1]} = {'fold_l' if left else 'fold_r'}<{base}>(x, y, "
                     f"std::make_index_sequence<{count}>{{}});")
        base += count
    if left:
        out = " + ".join(names)
    else:
        out = names[-1]
        for name in reversed(names[:-1]):
            out = f"{name} + ({out})"
    lines.append(f"    auto e = {out};")
    return lines, "e"


def horner(n):
    degree = max(1, n // 3)
    lines = [f"    auto h{degree} = x * {1.0 / (degree + 1):.6f} + {1.0 / degree:.6f};"]
    for i in range(degree - 1, -1, -1):
        lines.append(f"    auto h{i} = {(-1) ** i / (i + 1):.6f} + x * h{i + 1};")
    lines.append("    auto e = h0 * y;")
    return lines, "e"


def main():
    shape, n = sys.argv[1], int(sys.argv[2])
    if shape in TERMS:
        lines, out = fold(shape, n)
    else:
        lines, out = {"chain": chain, "tree": tree, "horner": horner}[shape](n)
    print("#include <array>\n#include <cstdio>\n#include <utility>\n#include <gradc/gradc.hpp>\n")
    if shape in TERMS:
        print(TERMS[shape][1])
        print("template <std::size_t Base, class X, class Y, std::size_t... I>\n"
              "auto fold_l(X x, Y y, std::index_sequence<I...>) { return (... + term<Base + I>(x, y)); }\n"
              "template <std::size_t Base, class X, class Y, std::size_t... I>\n"
              "auto fold_r(X x, Y y, std::index_sequence<I...>) { return (term<Base + I>(x, y) + ...); }\n")
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
