// A kernel above lower::piece_threshold nodes runs its programs as out-of-line pieces
// (lower/program.hpp, lower/program_pieces.hpp; scripts/test runs this file built with
// g++ and with clang under AddressSanitizer and UndefinedBehaviorSanitizer): every
// program that is cut so (primal, the derivative primal, the
// forward and the reverse sweep) on every value type that runs it (numbers, several
// directions at once, dual numbers, SIMD batches) against closed forms and finite
// differences.

#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include <approx.hpp>
#include "chain.hpp"
#include <gradc/gradc.hpp>

using gradc::test::central_difference;
using gradc::test::is_close_to;

namespace {

/// 3·N + 3 nodes: y ← sin(y)·x + x·x, with no literal, so that a second output using
/// it shares its nodes (x·x is one node for every level).
template <std::size_t N, class Y, class X>
auto chain(const Y& y, const X& x) {
    return gradc::test::repeat_levels<N>(y, [&](const auto& e, auto) { return sin(e) * x + x * x; });
}

constexpr int levels = 100;

double chain_value(double x, double y) {
    for (int i = levels; i > 0; --i) y = std::sin(y) * x + x * x;
    return y;
}

/// Value and both partials by the chain rule, level by level, for the closed-form check.
std::array<double, 3> chain_gradient(double x, double y) {
    double dx = 0, dy = 1;  // d y_k / d(x, y0)
    for (int i = levels; i > 0; --i) {
        const double c = std::cos(y);
        dx = c * dx * x + std::sin(y) + 2 * x;
        dy = c * dy * x;
        y = std::sin(y) * x + x * x;
    }
    return {y, dx, dy};
}

}  // namespace

TEST_CASE("a kernel of several pieces: value, gradient, jvp and vjp on numbers", "[lower][pieces]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(chain<levels>(y, x));
    using program = decltype(k)::program;
    STATIC_REQUIRE(program::size == 3 * levels + 3);
    STATIC_REQUIRE(program::pieces == (program::size > gradc::lower::piece_threshold ? 3 : 1));
#ifndef __clang__
    STATIC_REQUIRE(program::pieces == 3);
#endif

    for (const auto& p : {std::array{0.7, 0.4}, std::array{-1.3, 2.0}, std::array{0.2, -0.9}}) {
        const auto [value, dx, dy] = chain_gradient(p[0], p[1]);
        CHECK_THAT(k(p[0], p[1]), is_close_to(chain_value(p[0], p[1]), 1e-15, 1e-15));
        const auto g = k.gradient(p[0], p[1]);
        CHECK_THAT(g.value, is_close_to(value, 1e-15, 1e-15));
        CHECK_THAT(g.gradient[0], is_close_to(dx, 1e-13, 1e-14));
        CHECK_THAT(g.gradient[1], is_close_to(dy, 1e-13, 1e-14));
        CHECK_THAT(g.gradient[0], is_close_to(central_difference([&](double v) { return chain_value(v, p[1]); }, p[0]), 1e-7, 1e-9));
        const auto t = k.jvp(p, std::array{0.5, -2.0});
        CHECK_THAT(t.tangent, is_close_to(0.5 * dx - 2.0 * dy, 1e-13, 1e-14));
        const auto w = k.vjp(p, std::array{3.0});
        CHECK_THAT(w.gradient[0], is_close_to(3.0 * dx, 1e-13, 1e-14));
        CHECK_THAT(w.gradient[1], is_close_to(3.0 * dy, 1e-13, 1e-14));
    }
}

TEST_CASE("a kernel of several pieces: a Jacobian sweeps several directions at once", "[lower][pieces]") {
    auto [x, y] = gradc::variables<2>();
    const auto e = chain<levels>(y, x);
    const auto k = gradc::compile(e, e * e);  // two outputs sharing every node
    STATIC_REQUIRE(decltype(k)::program::size == 3 * levels + 4);
    STATIC_REQUIRE(decltype(k)::program::pieces == (decltype(k)::program::size > gradc::lower::piece_threshold ? 3 : 1));
    const double px = 0.7, py = 0.4;
    const auto [value, dx, dy] = chain_gradient(px, py);
    const auto j = k.jacobian(std::array{px, py});
    CHECK_THAT(j.jacobian[0][0], is_close_to(dx, 1e-13, 1e-14));
    CHECK_THAT(j.jacobian[0][1], is_close_to(dy, 1e-13, 1e-14));
    CHECK_THAT(j.jacobian[1][0], is_close_to(2 * value * dx, 1e-13, 1e-14));
    CHECK_THAT(j.jacobian[1][1], is_close_to(2 * value * dy, 1e-13, 1e-14));
}

TEST_CASE("a kernel of several pieces: the Hessian on dual numbers", "[lower][pieces]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(chain<levels>(y, x));
    const double px = 0.7, py = 0.4;
    const auto h = k.hessian(px, py);
    const auto [value, dx, dy] = chain_gradient(px, py);
    CHECK_THAT(h.value, is_close_to(value, 1e-15, 1e-15));
    CHECK_THAT(h.gradient[0], is_close_to(dx, 1e-13, 1e-14));
    CHECK_THAT(h.gradient[1], is_close_to(dy, 1e-13, 1e-14));
    // Each column: the central difference of the closed-form gradient.
    for (int j = 0; j < 2; ++j) {
        const auto column = [&](int i) {
            return central_difference(
                [&](double v) { return chain_gradient(j == 0 ? v : px, j == 1 ? v : py)[1 + i]; }, j == 0 ? px : py);
        };
        CHECK_THAT(h.hessian[0][j], is_close_to(column(0), 1e-6, 1e-8));
        CHECK_THAT(h.hessian[1][j], is_close_to(column(1), 1e-6, 1e-8));
    }
    CHECK(h.hessian[0][1] == h.hessian[1][0]);
}

TEST_CASE("a kernel of several pieces: batches of points agree with single points", "[lower][pieces][simd]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(chain<levels>(y, x));
    constexpr std::size_t n = 37;  // not a multiple of any batch width
    std::vector<double> xs(n), ys(n), values(n), gx(n), gy(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = -1.5 + 3.0 * double(i) / n;
        ys[i] = 0.3 + 0.05 * double(i);
    }
    const std::array<std::span<const double>, 2> in{xs, ys};
    const std::array<std::span<double>, 2> grad{gx, gy};
    k.gradient_batch(in, std::span<double>(values), grad);
    for (std::size_t i = 0; i < n; ++i) {
        const auto [value, dx, dy] = chain_gradient(xs[i], ys[i]);
        // The batch's sin and cos are xsimd's, a few ulps from the C library's; 60 levels
        // carry that through.
        CHECK_THAT(values[i], is_close_to(value, 1e-12, 1e-13));
        CHECK_THAT(gx[i], is_close_to(dx, 1e-11, 1e-12));
        CHECK_THAT(gy[i], is_close_to(dy, 1e-11, 1e-12));
    }
}

namespace {

/// f = z + where(y > 0, t, y), t = cbrt(x - 1), z = t after `levels` steps e ← sin(e)·0.5 + y:
/// t is two copies (lower/equal_copies.hpp), the first piece's and the last's. (Each step
/// reads e once: a subtree that holds a literal is copied wherever it is read again, so
/// e ← sin(e)·0.5 + e would double the nodes at every step.) Value and gradient by the
/// chain rule.
std::array<double, 3> copies_gradient(double x, double y) {
    const double t = std::cbrt(x - 1.0);
    double e = t, de_dt = 1, de_dy = 0;
    for (int i = 0; i < levels; ++i) {
        const double c = 0.5 * std::cos(e);
        de_dt *= c;
        de_dy = c * de_dy + 1.0;
        e = std::sin(e) * 0.5 + y;
    }
    const double dt = 1.0 / (3.0 * t * t);
    return {e + (y > 0 ? t : y), (de_dt + (y > 0 ? 1.0 : 0.0)) * dt, de_dy + (y > 0 ? 0.0 : 1.0)};
}

}  // namespace

TEST_CASE("a kernel of several pieces: copies of a subexpression with a literal pass their adjoints across pieces",
          "[lower][pieces][copies]") {
    auto [x, y] = gradc::variables<2>();
    const auto t = cbrt(x - 1.0);
    const auto z = gradc::test::repeat_levels<levels>(t, [y = y](const auto& e, auto) { return sin(e) * 0.5 + y; });
    const auto k = gradc::compile(z + where(y > 0.0, t, y));
    using program = decltype(k)::program;
    STATIC_REQUIRE(program::copies.count == 2);  // the second t's x - 1 and cbrt
    STATIC_REQUIRE(program::pieces == (program::size > gradc::lower::piece_threshold ? 4 : 1));
    for (const auto& p : {std::array{2.0, 0.5}, std::array{2.0, -0.5}, std::array{-0.5, 1.5}}) {
        const auto [value, dx, dy] = copies_gradient(p[0], p[1]);
        const auto g = k.gradient(p[0], p[1]);
        CHECK_THAT(g.value, is_close_to(value, 1e-14, 1e-14));
        CHECK_THAT(g.gradient[0], is_close_to(dx, 1e-12, 1e-13));
        CHECK_THAT(g.gradient[1], is_close_to(dy, 1e-12, 1e-13));
        const auto h = k.hessian(p[0], p[1]);
        CHECK_THAT(h.gradient[0], is_close_to(dx, 1e-12, 1e-13));
        CHECK_THAT(h.hessian[0][0],
                   is_close_to(central_difference([&](double v) { return copies_gradient(v, p[1])[1]; }, p[0]), 1e-6, 1e-8));
    }
    // x = 1: t = 0, cbrt' = +∞; the last copy's adjoint is 0 where y ≤ 0 and is summed
    // with the first's before it meets the partial: +∞ (two nodes: NaN).
    CHECK(k.gradient(1.0, -0.5).gradient[0] == std::numeric_limits<double>::infinity());
    CHECK(k.gradient(1.0, 0.5).gradient[0] == std::numeric_limits<double>::infinity());

    constexpr std::size_t n = 21;
    std::vector<double> xs(n), ys(n), values(n), gx(n), gy(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = i % 5 == 0 ? 1.0 : -1.0 + 0.2 * double(i);
        ys[i] = i % 2 == 0 ? 0.5 : -0.5;
    }
    const std::array<std::span<const double>, 2> in{xs, ys};
    const std::array<std::span<double>, 2> grad{gx, gy};
    k.gradient_batch(in, std::span<double>(values), grad);
    for (std::size_t i = 0; i < n; ++i) {
        const auto g = k.gradient(xs[i], ys[i]);
        CAPTURE(i, xs[i], ys[i]);
        CHECK_THAT(values[i], is_close_to(g.value, 1e-12, 1e-13));
        CHECK_THAT(gx[i], is_close_to(g.gradient[0], 1e-11, 1e-12));
        CHECK_THAT(gy[i], is_close_to(g.gradient[1], 1e-11, 1e-12));
    }
}

TEST_CASE("a kernel of several pieces: hundreds of copies, some of them equal", "[lower][pieces][copies]") {
    // Σₖ (x·cₖ + y) over 130 levels, cₖ = (k mod 64)/100: every leaf has one structure, so
    // 260 nodes are copies or their targets (more than a fold expands in clang: the slots
    // they zero are written by a braced list), and leaves k and k + 64 are equal.
    constexpr int terms = 130;
    auto [x, y] = gradc::variables<2>();
    const auto f = gradc::test::repeat_levels<terms - 1>(x * 0.0 + y, [x = x, y = y](const auto& s, auto level) {
        return s + (x * (double(decltype(level)::value % 64) / 100.0) + y);
    });
    const auto k = gradc::compile(f);
    using program = decltype(k)::program;
    STATIC_REQUIRE(program::copies.zeroed_count > 256);
    CHECK(k.bound().forwards);
    double c = 0;
    for (int level = 0; level < terms; ++level) c += double(level % 64) / 100.0;
    for (const auto& p : {std::array{0.7, -1.5}, std::array{-2.0, 0.25}}) {
        const auto g = k.gradient(p[0], p[1]);
        CHECK_THAT(g.value, is_close_to(c * p[0] + terms * p[1], 1e-13, 1e-13));
        CHECK_THAT(g.gradient[0], is_close_to(c, 1e-13, 1e-13));
        CHECK_THAT(g.gradient[1], is_close_to(double(terms), 1e-13, 1e-13));
    }
}
