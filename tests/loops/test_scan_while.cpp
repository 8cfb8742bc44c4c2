// gradc::scan(init, xs, f) and gradc::while_loop(init, cond, f)
// (include/gradc/loops/loop.hpp, include/gradc/loops/while_loop.hpp):
//  - scan: Horner's rule over a vector of coefficients of run-time length against the
//    polynomial's closed-form value and partials (lengths 0 to 6); a linear recurrence
//    over a matrix's rows, fixed and run-time extents, against its closed form and
//    against gradc::loop over gradc::rows(X) bit for bit;
//  - while_loop: c <- a c while c > 1, whose trip count k is known, against x a^k and
//    its partials (value, gradient, JVP, Hessian), over trip counts 0 to 6; the same
//    steps as gradc::loop(k, ...) bit for bit; Newton's square root against 1 / (2 √s);
//    a vector carry of run-time length; batch calls whose points stop after different
//    counts against one-point calls; calls from two threads; gradc::max_steps (within
//    the bound as without it; past it, every call throws gradc::Error).
// (Variables are taken apart with std::get: clang 14 cannot capture structured
// bindings in the loops' lambdas.)
#include <array>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/gradc.hpp>

#include "error_message.hpp"

using gradc::dynamic_extent;

namespace {

/// The number of halvings c <- a c (0 < a < 1) that take x to 1 or below.
int trips(double x, double a) {
    int k = 0;
    for (double c = x; c > 1; c *= a) ++k;
    return k;
}

}  // namespace

TEST_CASE("scan: Horner's rule over a vector of run-time length", "[loops][scan]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
    const auto x = std::get<0>(vars);
    const auto coefficients = std::get<1>(vars);
    // p(x) = a₀ xⁿ⁻¹ + … + aₙ₋₁, highest power first.
    const auto k = gradc::compile(gradc::scan(0.0, coefficients, [=](auto c, auto a) { return c * x + a; }));
    const double xv = 0.7;
    for (std::size_t n = 0; n <= 6; ++n) {
        std::vector<double> a(n);
        for (std::size_t i = 0; i < n; ++i) a[i] = 1.5 - 0.4 * double(i);
        double p = 0, dp = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double power = double(n - 1 - i);
            p += a[i] * std::pow(xv, power);
            if (power > 0) dp += a[i] * power * std::pow(xv, power - 1);
        }
        const auto r = k.gradient(xv, a);
        CHECK(r.value == Approx(p).margin(1e-15).epsilon(1e-14));
        CHECK(std::get<0>(r.gradient) == Approx(dp).margin(1e-15).epsilon(1e-13));
        const auto& ga = std::get<1>(r.gradient);
        REQUIRE(ga.size() == n);
        for (std::size_t i = 0; i < n; ++i) CHECK(ga[i] == Approx(std::pow(xv, double(n - 1 - i))).epsilon(1e-14));
    }
}

namespace {

/// Entry (t, j) of a gradient of a matrix of 3 columns: a run-time one's or a fixed one's.
double entry(const gradc::matrix_value<double>& m, std::size_t t, std::size_t j) {
    return m(t, j);
}
double entry(const std::array<double, 12>& m, std::size_t t, std::size_t j) {
    return m[t * 3 + j];
}

/// A scan of c_{t+1} = a c_t + X_t over X's n rows of 3 (kernel k; rows_loop the same
/// steps by gradc::loop over gradc::rows(X)) against c_n = aⁿ c₀ + Σ_t aⁿ⁻¹⁻ᵗ X_t.
template <class K, class L, class C, class X>
void check_rows_scan(const K& k, const L& rows_loop, const C& c0, const X& x, const std::vector<double>& data,
                     std::size_t n) {
    const double a = 0.8;
    const auto r = k.gradient(a, c0, x);
    double expected = 0, da = 0;
    for (std::size_t j = 0; j < 3; ++j) {
        expected += std::pow(a, double(n)) * c0[j];
        if (n > 0) da += double(n) * std::pow(a, double(n) - 1) * c0[j];
        for (std::size_t t = 0; t < n; ++t) {
            const double p = double(n - 1 - t);
            expected += std::pow(a, p) * data[t * 3 + j];
            if (p > 0) da += p * std::pow(a, p - 1) * data[t * 3 + j];
        }
    }
    CHECK(r.value == Approx(expected).epsilon(1e-14));
    CHECK(std::get<0>(r.gradient) == Approx(da).margin(1e-15).epsilon(1e-13));
    for (std::size_t j = 0; j < 3; ++j) CHECK(std::get<1>(r.gradient)[j] == Approx(std::pow(a, double(n))));
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(entry(std::get<2>(r.gradient), t, j) == Approx(std::pow(a, double(n - 1 - t))).epsilon(1e-14));
    const auto l = rows_loop.gradient(a, c0, x);
    CHECK(l.value == r.value);
    CHECK(std::get<0>(l.gradient) == std::get<0>(r.gradient));
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t j = 0; j < 3; ++j)
            CHECK(entry(std::get<2>(l.gradient), t, j) == entry(std::get<2>(r.gradient), t, j));
}

}  // namespace

TEST_CASE("scan: over a matrix's rows, fixed and run-time extents", "[loops][scan]") {
    {
        const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, 3>);
        const auto a = std::get<0>(vars);
        const auto c0 = std::get<1>(vars);
        const auto X = std::get<2>(vars);
        const auto k = gradc::compile(sum(gradc::scan(c0, X, [=](auto c, auto x_t) { return a * c + x_t; })));
        const auto rows_loop =
            gradc::compile(sum(gradc::loop(gradc::rows(X), c0, [=](auto c, auto t) { return a * c + row(X, t); })));
        for (std::size_t n : {0, 1, 5}) {
            std::vector<double> data(n * 3);
            for (std::size_t e = 0; e < n * 3; ++e) data[e] = 0.3 * double(e / 3) - 0.2 * double(e % 3) + 0.1;
            check_rows_scan(k, rows_loop, std::vector<double>{1.0, -0.5, 2.0}, gradc::mat_view(data, n, 3), data, n);
        }
    }
    {
        const auto vars = gradc::variables(gradc::scalar, gradc::vec<3>, gradc::mat<4, 3>);
        const auto a = std::get<0>(vars);
        const auto c0 = std::get<1>(vars);
        const auto X = std::get<2>(vars);
        const auto k = gradc::compile(sum(gradc::scan(c0, X, [=](auto c, auto x_t) { return a * c + x_t; })));
        const auto rows_loop =
            gradc::compile(sum(gradc::loop(gradc::rows(X), c0, [=](auto c, auto t) { return a * c + row(X, t); })));
        std::array<double, 12> x{};
        for (std::size_t e = 0; e < 12; ++e) x[e] = 0.5 - 0.1 * double((e / 3) * (e % 3));
        check_rows_scan(k, rows_loop, std::array<double, 3>{1.0, -0.5, 2.0}, x, std::vector<double>(x.begin(), x.end()),
                        4);
    }
}

TEST_CASE("while_loop: c <- a c while c > 1, against x a^k", "[loops][while_loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto a = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto shrink = [=](auto c) { return a * c; };
    const auto k = gradc::compile(gradc::while_loop(x, [](auto c) { return c > 1.0; }, shrink));
    const double av = 0.6;
    for (double xv : {0.5, 1.2, 2.5, 4.0, 9.0, 20.0}) {
        const int n = trips(xv, av);
        const double an = std::pow(av, n);
        const auto r = k.gradient(av, xv);
        CHECK(k(av, xv) == Approx(xv * an).epsilon(1e-15));
        CHECK(r.value == Approx(xv * an).epsilon(1e-15));
        CHECK(std::get<0>(r.gradient) == Approx(n * xv * std::pow(av, n - 1)).margin(1e-300).epsilon(1e-14));
        CHECK(std::get<1>(r.gradient) == Approx(an).epsilon(1e-15));
        CHECK(k.jvp(std::tuple{av, xv}, std::tuple{0.5, -2.0}).tangent ==
              Approx(0.5 * std::get<0>(r.gradient) - 2.0 * std::get<1>(r.gradient)).epsilon(1e-14));
        const auto H = k.hessian(av, xv);
        CHECK(H.hessian[0][0] == Approx(n * (n - 1) * xv * std::pow(av, n - 2)).margin(1e-300).epsilon(1e-13));
        CHECK(H.hessian[0][1] == Approx(n * std::pow(av, n - 1)).margin(1e-300).epsilon(1e-14));
        CHECK(H.hessian[1][1] == 0.0);

        // The same n steps by gradc::loop: the where keeps each value as it is.
        const auto counted = gradc::compile(gradc::loop(n, x, [=](auto c, auto) { return shrink(c); }));
        const auto l = counted.gradient(av, xv);
        CHECK(l.value == r.value);
        CHECK(std::get<0>(l.gradient) == std::get<0>(r.gradient));
        CHECK(std::get<1>(l.gradient) == std::get<1>(r.gradient));
    }
}

TEST_CASE("while_loop: Newton's square root and a vector carry of run-time length", "[loops][while_loop]") {
    {
        const auto vars = gradc::variables(gradc::scalar);
        const auto s = std::get<0>(vars);
        const auto root = gradc::while_loop(
            s + 1.0, [=](auto c) { return abs(c * c - s) > 1e-13 * s; }, [=](auto c) { return 0.5 * (c + s / c); });
        const auto k = gradc::compile(root);
        for (double sv : {0.01, 2.0, 150.0, 1e6}) {
            const auto r = k.gradient(sv);
            CHECK(r.value == Approx(std::sqrt(sv)).epsilon(1e-13));
            // The iterates' derivative converges to the root's, as quickly.
            CHECK(std::get<0>(r.gradient) == Approx(0.5 / std::sqrt(sv)).epsilon(1e-9));
        }
    }
    {
        const auto vars = gradc::variables(gradc::scalar, gradc::vec<dynamic_extent>);
        const auto a = std::get<0>(vars);
        const auto v = std::get<1>(vars);
        const auto k = gradc::compile(
            sum(gradc::while_loop(v, [](auto c) { return sum(c * c) > 1.0; }, [=](auto c) { return a * c; })));
        const double av = 0.7;
        for (const std::vector<double>& y : {std::vector<double>{3.0, -4.0}, std::vector<double>{0.1, 0.2, 0.3},
                                             std::vector<double>{}}) {
            double s2 = 0, s = 0;
            for (double e : y) {
                s2 += e * e;
                s += e;
            }
            int n = 0;
            for (double q = s2; q > 1; q *= av * av) ++n;
            const auto r = k.gradient(av, y);
            CHECK(r.value == Approx(std::pow(av, n) * s).margin(1e-15));
            CHECK(std::get<0>(r.gradient) == Approx(n * std::pow(av, n - 1) * s).margin(1e-15));
            const auto& gv = std::get<1>(r.gradient);
            REQUIRE(gv.size() == y.size());
            for (double g : gv) CHECK(g == Approx(std::pow(av, n)));
        }
    }
}

TEST_CASE("while_loop: batch points that stop after different counts", "[loops][while_loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto a = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto k = gradc::compile(
        gradc::while_loop(x, [](auto c) { return c > 1.0; }, [=](auto c) { return a * c + 0.01 * sin(c); }));
    constexpr std::size_t points = 13;  // one full batch and a partial one, at any width
    std::vector<double> as(points), xs(points), values(points), g0(points), g1(points), only(points);
    for (std::size_t i = 0; i < points; ++i) {
        as[i] = 0.5 + 0.03 * double(i);
        xs[i] = 0.8 + 1.7 * double(i);  // 0 to about 7 steps
    }
    k.gradient_batch(std::array{std::span<const double>(as), std::span<const double>(xs)}, std::span<double>(values),
                     std::array{std::span<double>(g0), std::span<double>(g1)});
    k.value_batch(std::array{std::span<const double>(as), std::span<const double>(xs)}, std::span<double>(only));
    for (std::size_t i = 0; i < points; ++i) {
        const auto r = k.gradient(as[i], xs[i]);
        CHECK(values[i] == r.value);
        CHECK(only[i] == r.value);
        CHECK(g0[i] == Approx(std::get<0>(r.gradient)).epsilon(1e-15));
        CHECK(g1[i] == Approx(std::get<1>(r.gradient)).epsilon(1e-15));
    }

    // Two threads, each its own trip counts.
    std::vector<double> got(2);
    std::thread first([&] {
        for (int r = 0; r < 50; ++r) got[0] = std::get<0>(k.gradient(0.5, 30.0).gradient);
    });
    std::thread second([&] {
        for (int r = 0; r < 50; ++r) got[1] = std::get<0>(k.gradient(0.9, 3.0).gradient);
    });
    first.join();
    second.join();
    CHECK(got[0] == std::get<0>(k.gradient(0.5, 30.0).gradient));
    CHECK(got[1] == std::get<0>(k.gradient(0.9, 3.0).gradient));
}

TEST_CASE("while_loop: gradc::max_steps bounds the steps", "[loops][while_loop]") {
    const auto vars = gradc::variables(gradc::scalar, gradc::scalar);
    const auto a = std::get<0>(vars);
    const auto x = std::get<1>(vars);
    const auto cond = [](auto c) { return c > 1.0; };
    const auto shrink = [=](auto c) { return a * c; };
    const auto unbounded = gradc::compile(gradc::while_loop(x, cond, shrink));
    const auto bounded = gradc::compile(gradc::while_loop(x, cond, shrink, gradc::max_steps{4}));
    const auto both = gradc::compile(gradc::while_loop(x, cond, shrink, gradc::checkpoints{2}, gradc::max_steps{4}));
    const std::string message =
        "gradc::while_loop: the condition still holds after gradc::max_steps{4} steps; expected it to fail within them";
    // 4.0 takes 3 steps at a = 0.6 and 5.0 takes 4: within the bound, as without it.
    // 9.0 would take 5 steps: every call throws, the one-point ones and the batch.
    const auto check = [&](const auto& k) {
        for (double xv : {0.5, 4.0, 5.0}) {
            const auto expected = unbounded.gradient(0.6, xv);
            const auto r = k.gradient(0.6, xv);
            CHECK(r.value == expected.value);
            CHECK(r.gradient == expected.gradient);
            CHECK(k(0.6, xv) == expected.value);
            CHECK(k.jvp(std::tuple{0.6, xv}, std::tuple{1.0, 0.0}).tangent ==
                  Approx(std::get<0>(expected.gradient)).epsilon(1e-15));
        }
        CHECK(sample::error_of([&] { (void)k(0.6, 9.0); }) == message);
        CHECK(sample::error_of([&] { (void)k.gradient(0.6, 9.0); }) == message);
        CHECK(sample::error_of([&] { (void)k.jvp(std::tuple{0.6, 9.0}, std::tuple{1.0, 0.0}); }) == message);
        CHECK(sample::error_of([&] { (void)k.hessian(0.6, 9.0); }) == message);
        const std::vector<double> as(5, 0.6), xs{0.5, 2.0, 9.0, 3.0, 1.5};
        std::vector<double> values(5), g0(5), g1(5);
        CHECK(sample::error_of([&] {
                  k.gradient_batch(std::array{std::span<const double>(as), std::span<const double>(xs)},
                                   std::span<double>(values), std::array{std::span<double>(g0), std::span<double>(g1)});
              }) == message);
    };
    check(bounded);
    check(both);
    // No step allowed: init when its condition fails, else an error.
    const auto none = gradc::compile(gradc::while_loop(x, cond, shrink, gradc::max_steps{0}));
    CHECK(none(0.6, 0.5) == 0.5);
    CHECK(std::get<1>(none.gradient(0.6, 0.5).gradient) == 1.0);
    CHECK(sample::error_of([&] { (void)none(0.6, 2.0); }) ==
          "gradc::while_loop: the condition still holds after gradc::max_steps{0} steps; expected it to fail within "
          "them");
    CHECK(sample::error_of([] { (void)gradc::max_steps{-1}; }) == "gradc::max_steps{m}: got m = -1, expected m >= 0");
}
