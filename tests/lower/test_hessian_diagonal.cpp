// k.hessian_diagonal: the value, the gradient and ∂²f/∂wᵢ², against closed forms and the
// diagonal of k.hessian; whether the graph shows the Hessian diagonal (then it is one
// Hessian-vector product with v = 1, which a wrong answer would make visibly wrong:
// H·1 adds the entries off the diagonal), for products, sums, piecewise rules, a k-means
// cost and wrt subsets.
#include <array>
#include <cmath>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

namespace {

template <class K>
constexpr bool diagonal_by_structure(const K&) {
    return K::program::hessian_is_diagonal();
}

/// hessian_diagonal against the diagonal of hessian, and its value and gradient against gradient.
template <class K, class T, std::size_t N>
void check_against_hessian(const K& k, const std::array<T, N>& x) {
    const auto d = k.hessian_diagonal(x);
    const auto h = k.hessian(x);
    const auto g = k.gradient(x);
    CHECK(d.value == g.value);
    for (std::size_t i = 0; i < K::wrt_count; ++i) {
        CAPTURE(i);
        CHECK(d.gradient[i] == Approx(g.gradient[i]).epsilon(1e-14));
        CHECK(d.diagonal[i] == Approx(h.hessian[i][i]).epsilon(1e-12).margin(1e-14));
    }
}

}  // namespace

TEST_CASE("a sum of functions of one variable each has a diagonal Hessian by structure", "[second_order][hessian_diagonal]") {
    auto [x, y, z] = gradc::variables<3>();
    const auto k = gradc::compile(sin(x) + 0.5 * (x * x) + exp(y) + 3.0 * log(z) + abs(x - 1.0) + (y + z) * 2.0);
    STATIC_REQUIRE(diagonal_by_structure(k));
    const double a = 0.7, b = -0.3, c = 1.9;
    const auto d = k.hessian_diagonal(a, b, c);
    CHECK(d.value == Approx(std::sin(a) + 0.5 * a * a + std::exp(b) + 3 * std::log(c) + std::abs(a - 1) + (b + c) * 2));
    CHECK(d.gradient[0] == Approx(std::cos(a) + a - 1));
    CHECK(d.gradient[1] == Approx(std::exp(b) + 2));
    CHECK(d.gradient[2] == Approx(3 / c + 2));
    CHECK(d.diagonal[0] == Approx(-std::sin(a) + 1));
    CHECK(d.diagonal[1] == Approx(std::exp(b)));
    CHECK(d.diagonal[2] == Approx(-3 / (c * c)));
    check_against_hessian(k, std::array{a, b, c});
}

TEST_CASE("a k-means cost has a diagonal Hessian by structure", "[second_order][hessian_diagonal]") {
    // Two centres (a, b) and (c, e) of two 2-d points, each point's squared distance to its
    // nearest centre: min reads its operands only to choose.
    auto [a, b, c, e] = gradc::variables<4>();
    const auto sq = [](const auto& u) { return u * u; };
    const auto cost = min(sq(a - 1.0) + sq(b - 2.0), sq(c - 1.0) + sq(e - 2.0)) +
                      min(sq(a + 1.0) + sq(b - 0.5), sq(c + 1.0) + sq(e - 0.5));
    const auto k = gradc::compile(cost);
    STATIC_REQUIRE(diagonal_by_structure(k));
    // Centre (a, b) = (0.9, 2.1) is nearest to the first point, (c, e) = (-1.2, 0.4) to the
    // second: each centre's coordinates get 2 from its one point.
    const auto d = k.hessian_diagonal(0.9, 2.1, -1.2, 0.4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(d.diagonal[i] == 2.0);
    CHECK(d.gradient[0] == Approx(2 * (0.9 - 1)));
    CHECK(d.gradient[3] == Approx(2 * (0.4 - 0.5)));
    // Both points nearest to (a, b): 4 on its coordinates, 0 on the other centre's.
    const auto both = k.hessian_diagonal(0.0, 1.0, 5.0, 5.0);
    CHECK(both.diagonal[0] == 4.0);
    CHECK(both.diagonal[1] == 4.0);
    CHECK(both.diagonal[2] == 0.0);
    CHECK(both.diagonal[3] == 0.0);
    check_against_hessian(k, std::array{0.9, 2.1, -1.2, 0.4});
    check_against_hessian(k, std::array{0.0, 1.0, 5.0, 5.0});
}

TEST_CASE("products of two wrt variables take the whole Hessian's diagonal", "[second_order][hessian_diagonal]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(x * y + sin(x + y));
    STATIC_REQUIRE_FALSE(diagonal_by_structure(k));
    const double a = 0.4, b = 1.3;
    const auto d = k.hessian_diagonal(a, b);
    // H·1 would give -2 sin(a + b) + 1 in each entry.
    CHECK(d.diagonal[0] == Approx(-std::sin(a + b)));
    CHECK(d.diagonal[1] == Approx(-std::sin(a + b)));
    CHECK(d.gradient[0] == Approx(b + std::cos(a + b)));
    check_against_hessian(k, std::array{a, b});

    // A nonlinear function of a sum is not diagonal either; a product by a literal is.
    const auto squared_sum = gradc::compile(exp(x + y));
    STATIC_REQUIRE_FALSE(diagonal_by_structure(squared_sum));
    check_against_hessian(squared_sum, std::array{a, b});
    const auto scaled = gradc::compile((x + y) * 3.0 + x * x);
    STATIC_REQUIRE(diagonal_by_structure(scaled));
    const auto s = scaled.hessian_diagonal(a, b);
    CHECK(s.diagonal[0] == 2.0);
    CHECK(s.diagonal[1] == 0.0);
    // x/y: its partial by y reads both.
    const auto ratio = gradc::compile(x / y);
    STATIC_REQUIRE_FALSE(diagonal_by_structure(ratio));
    const auto q = ratio.hessian_diagonal(a, b);
    CHECK(q.diagonal[0] == 0.0);
    CHECK(q.diagonal[1] == Approx(2 * a / (b * b * b)));
}

TEST_CASE("the structure is read over the wrt variables only", "[second_order][hessian_diagonal]") {
    auto [x, y, z] = gradc::variables<3>();
    // x·y mixes x and y, but only x is differentiated: a Hessian of one entry.
    const auto k = gradc::compile(x * y + z * sin(x), gradc::wrt(x));
    STATIC_REQUIRE(diagonal_by_structure(k));
    const auto d = k.hessian_diagonal(0.3, 2.0, 1.5);
    CHECK(d.diagonal[0] == Approx(-1.5 * std::sin(0.3)));
    // Over (z, x) it is not: z·sin(x) mixes them.
    const auto kz = gradc::compile(x * y + z * sin(x), gradc::wrt(z, x));
    STATIC_REQUIRE_FALSE(diagonal_by_structure(kz));
    const auto dz = kz.hessian_diagonal(0.3, 2.0, 1.5);
    CHECK(dz.diagonal[0] == 0.0);
    CHECK(dz.diagonal[1] == Approx(-1.5 * std::sin(0.3)));
    check_against_hessian(kz, std::array{0.3, 2.0, 1.5});
}

TEST_CASE("hessian_diagonal in float, and on a tanh layer", "[second_order][hessian_diagonal]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(tanh(x) * 2.0 + cos(y));
    STATIC_REQUIRE(diagonal_by_structure(k));
    const auto d = k.hessian_diagonal(std::array{0.5f, 0.25f});
    const float t = std::tanh(0.5f);
    CHECK(d.diagonal[0] == Approx(2 * (-2 * t * (1 - t * t))).epsilon(1e-5));
    CHECK(d.diagonal[1] == Approx(-std::cos(0.25f)).epsilon(1e-6));
}
