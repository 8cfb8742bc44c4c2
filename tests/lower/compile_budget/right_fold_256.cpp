// A sum of 256 terms with a literal each, written as a C++ fold, which nests to the
// right: t0 + (t1 + (t2 + ...)), about 1,280 nodes. Merged as written, its graph cost
// time and memory in the square of its nodes (over 21 GB); check.py compiles it under a
// memory limit (Note [Merge order] in expr/operand_merge.hpp). Exits 0 when the value,
// gradient and JVP match the closed form.
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include <gradc/gradc.hpp>

constexpr double coefficient(std::size_t k) { return 0.5 + double(k) / 512.0; }

template <class X, std::size_t... K>
auto sum_right(const X& x, std::index_sequence<K...>) {
    return ((x * coefficient(K) / 256.0) + ...);
}

int main() {
    constexpr std::size_t terms = 256;
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sum_right(x, std::make_index_sequence<terms>{}) * y);
    double s = 0;
    for (std::size_t i = 0; i < terms; ++i) s += coefficient(i) / 256.0;
    const double xv = 0.3, yv = 0.7;
    const auto g = k.gradient(xv, yv);
    const auto t = k.jvp(std::array{xv, yv}, std::array{1.0, 0.5});
    const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-13 * std::abs(b); };
    const bool ok = close(k(xv, yv), xv * s * yv) && close(g.value, xv * s * yv) && close(g.gradient[0], s * yv) &&
                    close(g.gradient[1], xv * s) && close(t.tangent, s * yv + 0.5 * xv * s);
    std::printf("%zu nodes: value %.17g gradient %.17g %.17g jvp %.17g: %s\n", decltype(k)::program::size, g.value,
                g.gradient[0], g.gradient[1], t.tangent, ok ? "as the closed form" : "WRONG");
    return ok ? 0 : 1;
}
