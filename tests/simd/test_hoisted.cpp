// Batch calls with broadcast variables evaluate the nodes that read only those variables
// once per call (Note [Hoisted broadcast work], lower/hoisted_program.hpp). Each case
// compares the broadcast call with the same call given the broadcast values copied into
// spans (the program without hoisting): equal to rounding, NaN where it is NaN, and
// infinities and zeros exactly. Every primitive is hoisted with its partial, at ordinary
// values and at the special values the special-value work keeps exact (±0, ±inf, NaN,
// subnormals), beside per-point nodes of the same rule.
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>
#include <gradc/rules/list.hpp>
#include <gradc/simd.hpp>

#include "approx.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// The broadcast values tried: ordinary ones inside and outside each rule's domain, and
/// special values.
const std::vector<double> fixed_values{0.3, 1.7, -0.6, 2.5, 0.0, -0.0, inf, -inf, nan, 1e-310, -4e-320};

/// Same to rounding; NaN where NaN; infinities and zeros bit for bit (sign included).
void check_same(const std::vector<double>& actual, const std::vector<double>& expected, const std::string& what) {
    REQUIRE(actual.size() == expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        INFO(what << ", point " << i << ": " << actual[i] << " against " << expected[i]);
        if (std::isnan(expected[i])) {
            CHECK(std::isnan(actual[i]));
        } else if (std::isinf(expected[i]) || expected[i] == 0) {
            CHECK(actual[i] == expected[i]);
            CHECK(std::signbit(actual[i]) == std::signbit(expected[i]));
        } else {
            CHECK_THAT(actual[i], gradc::test::is_close_to(expected[i], 1e-14, 1e-300));
        }
    }
}

/// Points of the per-point variable: 13 (a full batch and a tail on every architecture).
std::vector<double> points() {
    std::vector<double> x;
    for (int i = 0; i < 13; ++i) x.push_back(-1.2 + 0.21 * i);
    x[4] = 0.0;
    return x;
}

/// value_batch and gradient_batch of kernel k over (a broadcast, x per point), against
/// the same calls with a spanned.
template <class K>
void check_one_broadcast(const K& k, const std::string& name) {
    static_assert(gradc::simd::detail::hoists<
                  K, gradc::simd::detail::point_inputs<double, 2, std::array{false, true}>>());
    const std::vector<double> x = points();
    const std::size_t n = x.size();
    for (const double a : fixed_values) {
        const std::vector<double> filled(n, a);
        const auto hoisted = std::tuple{gradc::broadcast(a), std::span<const double>(x)};
        const std::array<std::span<const double>, 2> spanned{filled, x};
        const std::string what = name + " at a = " + std::to_string(a);
        std::vector<double> v0(n), v1(n);
        k.value_batch(hoisted, v0);
        k.value_batch(spanned, v1);
        check_same(v0, v1, what + ", value_batch");
        std::vector<double> g0a(n), g0x(n), g1a(n), g1x(n);
        k.gradient_batch(hoisted, v0, std::array<std::span<double>, 2>{g0a, g0x});
        k.gradient_batch(spanned, v1, std::array<std::span<double>, 2>{g1a, g1x});
        check_same(v0, v1, what + ", gradient_batch value");
        check_same(g0a, g1a, what + ", ∂/∂a");
        check_same(g0x, g1x, what + ", ∂/∂x");
    }
}

/// The same over (a, b broadcast, x per point), every pair of broadcast values.
template <class K>
void check_two_broadcast(const K& k, const std::string& name) {
    const std::vector<double> x = points();
    const std::size_t n = x.size();
    for (const double a : fixed_values) {
        for (const double b : fixed_values) {
            const std::vector<double> fa(n, a), fb(n, b);
            const auto hoisted = std::tuple{gradc::broadcast(a), gradc::broadcast(b), std::span<const double>(x)};
            const std::array<std::span<const double>, 3> spanned{fa, fb, x};
            const std::string what = name + " at a = " + std::to_string(a) + ", b = " + std::to_string(b);
            std::vector<double> v0(n), v1(n), g0a(n), g0b(n), g0x(n), g1a(n), g1b(n), g1x(n);
            k.gradient_batch(hoisted, v0, std::array<std::span<double>, 3>{g0a, g0b, g0x});
            k.gradient_batch(spanned, v1, std::array<std::span<double>, 3>{g1a, g1b, g1x});
            check_same(v0, v1, what + ", value");
            check_same(g0a, g1a, what + ", ∂/∂a");
            check_same(g0b, g1b, what + ", ∂/∂b");
            check_same(g0x, g1x, what + ", ∂/∂x");
        }
    }
}

}  // namespace

TEST_CASE("hoisted: every one-operand primitive, once per call and per point", "[simd][hoisted]") {
    auto [a, x] = gradc::variables<2>();
    // f(a) is hoisted with its partial; f(x) beside it keeps the rule's per-point code.
#define GRADC_TEST_UNARY(rule, tensor_op) \
    check_one_broadcast(gradc::compile(rule(a) * x + rule(x) - 0.5 * rule(a)), #rule);
    GRADC_UNARY_PRIMITIVES(GRADC_TEST_UNARY)
#undef GRADC_TEST_UNARY
}

TEST_CASE("hoisted: every two-operand primitive and the arithmetic ones", "[simd][hoisted]") {
    auto [a, b, x] = gradc::variables<3>();
#define GRADC_TEST_BINARY(rule, tensor_op) \
    check_two_broadcast(gradc::compile(rule(a, b) * x + rule(x, a) + rule(b, x)), #rule);
    GRADC_BINARY_PRIMITIVES(GRADC_TEST_BINARY)
#undef GRADC_TEST_BINARY
    check_two_broadcast(gradc::compile(a / b * x + (a - b) * (a + b) - x / a), "arithmetic");
    // A gate partial (where) over invariant operands, and conditions that read both kinds.
    check_two_broadcast(gradc::compile(where(a > b, a * b, -b) * x + where(x < a, x, b)), "where");
}

TEST_CASE("hoisted: copies of a subexpression with literals, several outputs, wrt order", "[simd][hoisted]") {
    auto [a, b, x] = gradc::variables<3>();
    // Two copies of t that hold equal literals pass their adjoints on (lower/equal_copies.hpp).
    const auto t = cbrt(where(a <= -2.0, b, a * 1.5));
    check_two_broadcast(gradc::compile(t * x + t * t - log(b) * 2.0), "copies");
    const auto two = gradc::compile(exp(a) * x + b, tanh(b) - erfc(a) * x, gradc::wrt(x, a));
    const std::vector<double> xs = points();
    const std::size_t n = xs.size();
    const double a0 = 0.4, b0 = -1.1, two_weight = 2.0;  // gradc::broadcast keeps a reference
    const std::vector<double> fa(n, a0), fb(n, b0), ones(n, 1.0), halves(n, -0.5);
    const auto hoisted = std::tuple{gradc::broadcast(a0), gradc::broadcast(b0), std::span<const double>(xs)};
    const std::array<std::span<const double>, 3> spanned{fa, fb, xs};
    std::vector<double> v0(n), v1(n), w0(n), w1(n), t0(n), t1(n), u0(n), u1(n);
    // jvp_batch: tangents for (x, a) in wrt order.
    two.jvp_batch(hoisted, std::array<std::span<const double>, 2>{ones, halves}, std::array<std::span<double>, 2>{v0, w0},
                  std::array<std::span<double>, 2>{t0, u0});
    two.jvp_batch(spanned, std::array<std::span<const double>, 2>{ones, halves}, std::array<std::span<double>, 2>{v1, w1},
                  std::array<std::span<double>, 2>{t1, u1});
    check_same(v0, v1, "jvp_batch value 0");
    check_same(w0, w1, "jvp_batch value 1");
    check_same(t0, t1, "jvp_batch tangent 0");
    check_same(u0, u1, "jvp_batch tangent 1");
    // vjp_batch: weights per output, gradients in wrt order.
    two.vjp_batch(hoisted, std::tuple{std::span<const double>(halves), gradc::broadcast(two_weight)},
                  std::array<std::span<double>, 2>{t0, u0});
    const std::vector<double> twos(n, 2.0);
    two.vjp_batch(spanned, std::array<std::span<const double>, 2>{halves, twos}, std::array<std::span<double>, 2>{t1, u1});
    check_same(t0, t1, "vjp_batch ∂/∂x");
    check_same(u0, u1, "vjp_batch ∂/∂a");
    // Closed forms: ∂(output 1)/∂a = -erfc′(a)·x = 2/√π·exp(-a²)·x.
    for (std::size_t i = 0; i < n; ++i) {
        const double ea = std::exp(0.4), d_erfc = -2.0 / std::sqrt(std::acos(-1.0)) * std::exp(-0.16);
        CHECK_THAT(t0[i], gradc::test::is_close_to(-0.5 * ea - 2.0 * std::erfc(0.4), 1e-13, 1e-13));
        CHECK_THAT(u0[i], gradc::test::is_close_to(-0.5 * ea * xs[i] - 2.0 * d_erfc * xs[i], 1e-13, 1e-13));
    }
}

TEST_CASE("hoisted: only calls with a broadcast variable that a primitive reads alone", "[simd][hoisted]") {
    using gradc::simd::detail::hoists;
    using gradc::simd::detail::point_inputs;
    auto [a, x] = gradc::variables<2>();
    const auto k = gradc::compile(log(a) * x);
    const auto linear = gradc::compile(a * x);
    static_assert(hoists<decltype(k), point_inputs<double, 2, std::array{false, true}>>());
    static_assert(!hoists<decltype(k), point_inputs<double, 2, std::array{true, false}>>());  // x alone: nothing
    static_assert(!hoists<decltype(k), point_inputs<double, 2, std::array{true, true}>>());
    static_assert(!hoists<decltype(linear), point_inputs<double, 2, std::array{false, true}>>());
    SUCCEED("decided at compile time");
}

GRADC_SIMD_DIAGNOSTICS_POP
