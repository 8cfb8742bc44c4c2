// Deep expressions (hundreds of nodes) and kernels with repeated subexpressions.

#include <cmath>

#include <approx.hpp>
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

namespace {

/// A chain of 3·N + 1 nodes: y ← sin(y)*c + x·(k+1)/N, unrolled at compile time.
template <int N, class Y, class X>
auto chain(const Y& y, const X& x) {
    if constexpr (N == 0) {
        return y;
    } else {
        return chain<N - 1>(sin(y) * 0.9 + x * (1.0 / N), x);
    }
}

double chain_value(int n, double y, double x) {
    for (int i = n; i > 0; --i) y = std::sin(y) * 0.9 + x * (1.0 / i);
    return y;
}

}  // namespace

TEST_CASE("a 300-node chain: value and gradient against a loop and finite differences", "[lower][deep]") {
    auto [x, y] = gradc::variables<2>();
    auto k = gradc::compile(chain<75>(y, x));
    STATIC_REQUIRE(decltype(k)::program::size >= 200);
    const auto r = k.gradient(0.3, 0.8);
    CHECK_THAT(r.value, is_close_to(chain_value(75, 0.8, 0.3), 1e-14));
    const double dx = gradc::test::central_difference([](double v) { return chain_value(75, 0.8, v); }, 0.3);
    const double dy = gradc::test::central_difference([](double v) { return chain_value(75, v, 0.3); }, 0.8);
    CHECK_THAT(r.gradient[0], is_close_to(dx, 1e-8, 1e-10));
    CHECK_THAT(r.gradient[1], is_close_to(dy, 1e-8, 1e-10));
    const auto t = k.jvp(std::array{0.3, 0.8}, std::array{1.0, 0.0});
    CHECK_THAT(t.tangent, is_close_to(r.gradient[0], 1e-14, 1e-15));
}

TEST_CASE("repeated subexpressions: a polynomial in a shared subterm", "[lower][deep]") {
    auto [x, y] = gradc::variables<2>();
    auto u = exp(x) * y;  // payload-free, shared by every term below
    auto f = u * u * u - 2 * (u * u) + 3 * u - 1;
    auto k = gradc::compile(f);
    const double uv = std::exp(0.2) * 1.5;
    const double df_du = 3 * uv * uv - 4 * uv + 3;
    const auto r = k.gradient(0.2, 1.5);
    CHECK_THAT(r.value, is_close_to(uv * uv * uv - 2 * uv * uv + 3 * uv - 1));
    CHECK_THAT(r.gradient[0], is_close_to(df_du * uv));
    CHECK_THAT(r.gradient[1], is_close_to(df_du * std::exp(0.2)));
}
