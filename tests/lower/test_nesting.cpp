// Formulas nested to the right merge their large operand first (Note [Merge order] in
// expr/operand_merge.hpp): the operands' nodes and literals then sit in the node's graph
// in another order than written. Checked here: every literal reaches its own node (closed
// forms over distinct literals, nested both ways, in two-operand nodes, `where` and
// conditions), and a subexpression holding literals used twice inside a large formula
// is still one computation (the 0·∞ case of test_equal_copies.cpp).

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include <approx.hpp>
#include <gradc/gradc.hpp>

using gradc::test::is_close_to;

namespace {

/// Term k of the sums below: x · c_k / 256 with c_k = 0.5 + k/512, each literal distinct.
constexpr double coefficient(std::size_t k) { return 0.5 + double(k) / 512.0; }

template <class X, std::size_t... K>
auto sum_right(const X& x, std::index_sequence<K...>) {
    return ((x * coefficient(K) / 256.0) + ...);
}
template <class X, std::size_t... K>
auto sum_left(const X& x, std::index_sequence<K...>) {
    return (... + (x * coefficient(K) / 256.0));
}

/// Σ_k c_k / 256 for k < n.
double coefficient_sum(std::size_t n) {
    double s = 0;
    for (std::size_t k = 0; k < n; ++k) s += coefficient(k) / 256.0;
    return s;
}

/// p(x) = Σ_k a_k x^k in Horner form, a_k = (-1)^k / (k + 1), built from the back.
template <std::size_t K, std::size_t Degree, class X>
auto horner(const X& x) {
    constexpr double a = (K % 2 ? -1.0 : 1.0) / double(K + 1);
    if constexpr (K == Degree) {
        return x * 0.0 + a;
    } else {
        return a + x * horner<K + 1, Degree>(x);
    }
}

}  // namespace

TEST_CASE("a sum nested to the right has the value and gradient of the same sum nested to the left",
          "[lower][nesting]") {
    constexpr std::size_t terms = 40;  // 200 nodes: its right-hand operands are merged first
    auto [x, y] = gradc::variables<2>();
    const auto right = gradc::compile(sum_right(x, std::make_index_sequence<terms>{}) * y);
    const auto left = gradc::compile(sum_left(x, std::make_index_sequence<terms>{}) * y);
    STATIC_REQUIRE(decltype(right)::program::size == decltype(left)::program::size);
    const double s = coefficient_sum(terms);
    for (const auto& [xv, yv] : {std::pair{0.3, 0.7}, std::pair{-1.5, 2.0}}) {
        const auto r = right.gradient(xv, yv);
        const auto l = left.gradient(xv, yv);
        CHECK_THAT(r.value, is_close_to(xv * s * yv, 1e-14));
        CHECK_THAT(r.gradient[0], is_close_to(s * yv, 1e-14));
        CHECK_THAT(r.gradient[1], is_close_to(xv * s, 1e-14));
        CHECK_THAT(l.value, is_close_to(r.value, 1e-14));
        CHECK_THAT(l.gradient[0], is_close_to(r.gradient[0], 1e-14));
        const auto t = right.jvp(std::array{xv, yv}, std::array{1.0, -0.5});
        CHECK_THAT(t.tangent, is_close_to(s * yv - 0.5 * xv * s, 1e-14));
    }
}

TEST_CASE("a polynomial in Horner form with literal coefficients", "[lower][nesting]") {
    constexpr std::size_t degree = 60;
    auto [x] = gradc::variables<1>();
    const auto k = gradc::compile(horner<0, degree>(x));
    for (const double xv : {0.5, -0.8}) {
        double p = 0, dp = 0;
        for (std::size_t j = degree + 1; j-- > 0;) {
            dp = dp * xv + p;
            p = p * xv + (j % 2 ? -1.0 : 1.0) / double(j + 1);
        }
        const auto r = k.gradient(xv);
        CHECK_THAT(r.value, is_close_to(p, 1e-14));
        CHECK_THAT(r.gradient[0], is_close_to(dp, 1e-13));
    }
}

TEST_CASE("where and conditions whose later operands are large keep each literal in place", "[lower][nesting]") {
    auto [x, y] = gradc::variables<2>();
    const auto big = sum_right(x, std::make_index_sequence<20>{});  // 100 nodes, 40 literals
    const double s = coefficient_sum(20);
    // The condition's second operand and where's third are the large ones; the small ones
    // hold literals of their own (2.5, 3.0, 0.25), which must not trade places with big's.
    const auto k = gradc::compile(where(y * 2.5 < big, y * 3.0, big * y + 0.25));
    // x = 1: big = s ≈ 0.0977; y = 0.01: 2.5·y = 0.025 < s, so 3·y.
    const auto low = k.gradient(1.0, 0.01);
    CHECK_THAT(low.value, is_close_to(0.03, 1e-14));
    CHECK(low.gradient[0] == 0.0);
    CHECK_THAT(low.gradient[1], is_close_to(3.0, 1e-14));
    // y = 0.5: 1.25 ≥ s, so big·y + 0.25.
    const auto high = k.gradient(1.0, 0.5);
    CHECK_THAT(high.value, is_close_to(s * 0.5 + 0.25, 1e-14));
    CHECK_THAT(high.gradient[0], is_close_to(s * 0.5, 1e-14));
    CHECK_THAT(high.gradient[1], is_close_to(s, 1e-14));
}

TEST_CASE("a subexpression with a literal used twice in a formula nested to the right is one computation",
          "[lower][nesting][copies]") {
    auto [x0, x1, x2] = gradc::variables<3>();
    const auto t = cbrt(where(x0 <= -2.0, x1, x2));
    // t appears in the first term and again inside the large right-hand side.
    const auto rest = sum_right(x0, std::make_index_sequence<20>{}) + where(x0 < 0.0, t, t * 0.0);
    const auto k = gradc::compile(t * 1.0 + rest);
    const double s = coefficient_sum(20);
    // x0 ≥ 0, x2 = 0: t's adjoints are 1 and 0, its partial +∞: one node gives +∞, two NaN.
    const auto at_zero = k.gradient(1.0, 0.5, 0.0);
    CHECK_THAT(at_zero.value, is_close_to(s, 1e-14));
    CHECK_THAT(at_zero.gradient[0], is_close_to(s, 1e-14));
    CHECK(at_zero.gradient[1] == 0.0);
    CHECK(at_zero.gradient[2] == std::numeric_limits<double>::infinity());
    // -2 < x0 < 0, x2 = 8: f = Σ + 2·cbrt(x2).
    const auto mid = k.gradient(-1.0, 0.5, 8.0);
    CHECK_THAT(mid.value, is_close_to(-s + 4.0, 1e-14));
    CHECK_THAT(mid.gradient[2], is_close_to(1.0 / 6.0, 1e-14));
}
