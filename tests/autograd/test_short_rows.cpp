// Kernels for short rows: sums over a short last dimension (rows summed side by side) and a
// short row broadcast down the rows of another tensor (the row tiled). Both must give what
// one row at a time gives: the sums bit for bit (the same additions in the same order), the
// elementwise results exactly for the field operations and to an ulp or two elsewhere.
#include <cmath>
#include <cstdint>
#include <vector>

#include "support.hpp"

using namespace testing;

namespace {

std::vector<double> wiggly(std::int64_t n, double phase) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = std::sin(0.37 * double(i) + phase) * std::exp(0.01 * double(i % 50));
    return v;
}

}  // namespace

TEST_CASE("sums over a short last dimension equal the sums of each row alone, bit for bit", "[autograd][reduction]") {
    for (auto dt : {gradc::kFloat64, gradc::kFloat32}) {
        for (std::int64_t length : {1, 2, 7, 10, 15, 16, 17, 31, 33, 40}) {
            for (std::int64_t rows : {1, 7, 8, 9, 17, 64, 1001}) {
                INFO("dtype " << (dt == gradc::kFloat64 ? "double" : "float") << ", " << rows << " rows of " << length);
                const auto x = gradc::from_vector(wiggly(rows * length, 0.5), {rows, length}).to(dt);
                const auto s = x.sum({1});
                const auto m = x.mean({1});
                REQUIRE(s.sizes() == gradc::Shape{rows});
                const auto sv = values(s), mv = values(m);
                const auto xv = values(x);
                for (std::int64_t r = 0; r < rows; ++r) {
                    const auto one = x.narrow(0, r, 1).sum();  // one row: the single-row path
                    CHECK(sv[static_cast<std::size_t>(r)] == one.item<double>());
                    CHECK(mv[static_cast<std::size_t>(r)] == x.narrow(0, r, 1).mean().item<double>());
                    // And against an independent sum (the rounding of the dtype allowed).
                    double plain = 0;
                    for (std::int64_t j = 0; j < length; ++j) plain += xv[static_cast<std::size_t>(r * length + j)];
                    CHECK(std::abs(sv[static_cast<std::size_t>(r)] - plain) <= (dt == gradc::kFloat64 ? 1e-13 : 1e-5) * length);
                }
            }
        }
    }
}

TEST_CASE("a short last dimension summed inside a larger tensor, with keepdim and its gradient", "[autograd][reduction]") {
    auto x = gradc::from_vector(wiggly(5 * 13 * 10, 1.0), {5, 13, 10}).requires_grad_(true);
    auto s = x.sum({2}, true);
    REQUIRE(s.sizes() == gradc::Shape{5, 13, 1});
    const auto xv = values(x), sv = values(s);
    for (std::size_t r = 0; r < 65; ++r) {
        double plain = 0;
        for (std::size_t j = 0; j < 10; ++j) plain += xv[r * 10 + j];
        CHECK(std::abs(sv[r] - plain) <= 1e-14);
    }
    (s * s).sum().backward();
    const auto g = values(x.grad());
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == 2 * sv[i / 10]);
}

TEST_CASE("a short row broadcast down the rows of another tensor matches elementwise results", "[autograd][binary]") {
    using Fn = gradc::Tensor (*)(const gradc::Tensor&, const gradc::Tensor&);
    struct Case {
        const char* name;
        Fn f;
        double (*reference)(double, double);
        double tolerance;  // relative; 0: exact
    };
    const Case cases[] = {
        {"add", [](const gradc::Tensor& a, const gradc::Tensor& b) { return a + b; }, [](double a, double b) { return a + b; }, 0},
        {"sub", [](const gradc::Tensor& a, const gradc::Tensor& b) { return a - b; }, [](double a, double b) { return a - b; }, 0},
        {"mul", gradc::mul, [](double a, double b) { return a * b; }, 0},
        {"div", gradc::div, [](double a, double b) { return a / b; }, 0},
        {"atan2", gradc::atan2, [](double a, double b) { return std::atan2(a, b); }, 1e-15},
        {"pow", [](const gradc::Tensor& a, const gradc::Tensor& b) { return gradc::pow(gradc::abs(a) + 0.5, b); },
         [](double a, double b) { return std::pow(std::abs(a) + 0.5, b); }, 1e-15},
    };
    for (const auto& c : cases) {
        for (std::int64_t d : {1, 3, 8, 10, 17, 64, 65}) {
            for (std::int64_t n : {2, 5, 33}) {
                for (bool row_first : {false, true}) {
                    INFO(c.name << ": rows of " << d << ", " << n << " rows, the row " << (row_first ? "first" : "second"));
                    const std::int64_t K = 3;
                    const auto full = gradc::from_vector(wiggly(n * d, 0.1), {1, n, d});  // x: [1, n, d]
                    const auto row = gradc::from_vector(wiggly(K * d, 2.0), {K, 1, d});   // μ: [K, 1, d]
                    const auto y = row_first ? c.f(row, full) : c.f(full, row);
                    REQUIRE(y.sizes() == gradc::Shape{K, n, d});
                    const auto yv = values(y), fv = values(full), rv = values(row);
                    for (std::int64_t k = 0; k < K; ++k)
                        for (std::int64_t i = 0; i < n; ++i)
                            for (std::int64_t j = 0; j < d; ++j) {
                                const double a = fv[static_cast<std::size_t>(i * d + j)], b = rv[static_cast<std::size_t>(k * d + j)];
                                const double want = row_first ? c.reference(b, a) : c.reference(a, b);
                                const double got = yv[static_cast<std::size_t>((k * n + i) * d + j)];
                                if (c.tolerance == 0) {
                                    CHECK(got == want);
                                } else {
                                    CHECK(std::abs(got - want) <= c.tolerance * std::abs(want));
                                }
                            }
                }
            }
        }
    }
    // Two dimensions, the row a plain vector: [n, d] with [d].
    const auto x = gradc::from_vector(wiggly(40 * 10, 0.3), {40, 10});
    const auto mu = gradc::from_vector(wiggly(10, 1.1), {10});
    const auto y = values(x - mu), xv = values(x), mv = values(mu);
    for (std::size_t i = 0; i < y.size(); ++i) CHECK(y[i] == xv[i] - mv[i % 10]);
}

TEST_CASE("a repeated row's gradient is summed over the rows", "[autograd][binary]") {
    auto x = gradc::from_vector(wiggly(6 * 10, 0.2), {6, 10}).requires_grad_(true);
    auto mu = gradc::from_vector(wiggly(10, 0.9), {10}).requires_grad_(true);
    ((x - mu) * (x - mu)).sum().backward();
    const auto xv = values(x), mv = values(mu), gx = values(x.grad()), gm = values(mu.grad());
    for (std::size_t j = 0; j < 10; ++j) {
        double want = 0;
        for (std::size_t i = 0; i < 6; ++i) {
            CHECK(gx[i * 10 + j] == Approx(2 * (xv[i * 10 + j] - mv[j])).epsilon(1e-14));
            want -= 2 * (xv[i * 10 + j] - mv[j]);
        }
        CHECK(gm[j] == Approx(want).epsilon(1e-13));
    }
}
