// An expression nested 600 levels deep (1,002 nodes): beyond what the default template
// depth of g++ and clang allowed while the lowering walked the expression (about 400–500
// levels); the graph each node builds from its operands' graphs needs no recursion.

#include <cmath>

#include <approx.hpp>
#include "chain.hpp"
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

namespace {

/// 5·N + 2 nodes, nested 3·N deep: y ← sin(y)·x + x·c_k.
template <std::size_t N, class Y, class X>
auto chain(const Y& y, const X& x) {
    return gradc::test::repeat_levels<N>(y, [&](const auto& e, auto level) { return sin(e) * x + x * (1.0 / (level + 1)); });
}

double chain_value(int n, double y, double x) {
    for (int i = n; i > 0; --i) y = std::sin(y) * x + x * (1.0 / (i + 1));
    return y;
}

}  // namespace

TEST_CASE("a 600-level chain of 1,002 nodes compiles with the default template depth and is exact", "[lower][deep]") {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(chain<200>(y, x));
    STATIC_REQUIRE(decltype(k)::program::size == 1002);
    const auto r = k.gradient(0.7, 0.4);
    CHECK_THAT(r.value, is_close_to(chain_value(200, 0.4, 0.7), 1e-14));
    const double dx = gradc::test::central_difference([](double v) { return chain_value(200, 0.4, v); }, 0.7);
    const double dy = gradc::test::central_difference([](double v) { return chain_value(200, v, 0.7); }, 0.4);
    CHECK_THAT(r.gradient[0], is_close_to(dx, 1e-8, 1e-10));
    CHECK_THAT(r.gradient[1], is_close_to(dy, 1e-8, 1e-10));
    const auto t = k.jvp(std::array{0.7, 0.4}, std::array{0.0, 1.0});
    CHECK_THAT(t.tangent, is_close_to(r.gradient[1], 1e-14, 1e-15));
}
