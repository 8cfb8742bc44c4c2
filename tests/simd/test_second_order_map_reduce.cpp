// map_reduce_hessian, split as the first-order map-reduce (invariant nodes once on duals,
// deferred edges swept on the summed dual adjoints, the value's tail on the summed
// frontier): against the sum of per-point k.hessian(...) calls for kernels with heavy
// θ-only parts, with no invariant node but θ itself, with literals, with conditions, a
// small network with four parameters, an output that does not depend on the data; double
// and float; N = 0, 1, 7, 1000 and the tail lengths;
// on two threads; and against central differences of map_reduce's gradient.
// map_reduce_hessian_diagonal against the same sums, for each of those kernels and a
// k-means cost whose Hessian is diagonal by structure.
#include <array>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include <approx.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

using gradc::test::central_difference;
using gradc::test::close;

/// Column d of the data: uniform in [lo, hi), one value per point.
template <class T>
std::vector<std::vector<T>> uniform_columns(std::size_t count, std::size_t n, double lo, double hi, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<std::vector<T>> c(count, std::vector<T>(n));
    for (auto& col : c)
        for (auto& x : col) x = static_cast<T>(u(rng));
    return c;
}

template <class T, std::size_t K>
std::array<std::span<const T>, K> spans_of(const std::vector<std::vector<T>>& c) {
    std::array<std::span<const T>, K> s;
    for (std::size_t j = 0; j < K; ++j) s[j] = c[j];
    return s;
}

/// The per-point sums in double: Σ f, Σ ∇f, Σ ∇²f, and the same of the absolute values,
/// the scale a sum with cancellation is compared at.
template <std::size_t W>
struct point_sums {
    double value = 0, value_abs = 0;
    std::array<double, W> gradient{}, gradient_abs{};
    std::array<std::array<double, W>, W> hessian{}, hessian_abs{};
};

template <class Kernel, class T>
point_sums<Kernel::wrt_count> sum_of_point_hessians(const Kernel& k, const std::vector<std::vector<T>>& data,
                                                      const std::array<T, Kernel::wrt_count>& theta) {
    constexpr std::size_t W = Kernel::wrt_count, N = Kernel::arity;
    point_sums<W> s;
    const std::size_t n = data.empty() ? 0 : data[0].size();
    for (std::size_t i = 0; i < n; ++i) {
        std::array<T, N> x;
        std::size_t d = 0;
        for (std::size_t v = 0; v < N; ++v) {
            bool parameter = false;
            for (std::size_t j = 0; j < W; ++j)
                if (Kernel::wrt_variables[j] == v) {
                    x[v] = theta[j];
                    parameter = true;
                }
            if (!parameter) x[v] = data[d++][i];
        }
        const auto h = k.hessian(x);
        s.value += h.value;
        s.value_abs += std::abs(double(h.value));
        for (std::size_t p = 0; p < W; ++p) {
            s.gradient[p] += h.gradient[p];
            s.gradient_abs[p] += std::abs(double(h.gradient[p]));
            for (std::size_t q = 0; q < W; ++q) {
                s.hessian[p][q] += h.hessian[p][q];
                s.hessian_abs[p][q] += std::abs(double(h.hessian[p][q]));
            }
        }
    }
    return s;
}

/// |actual - expected| ≤ tol · (Σ|terms| + 1e-300): relative to the sum when its terms
/// share a sign, to the terms' scale when they cancel.
bool near_sum(double actual, double expected, double scale, double tol) {
    if (std::isnan(expected)) return std::isnan(actual);
    return std::abs(actual - expected) <= tol * (scale + 1e-300);
}

/// map_reduce_hessian of `k` on `count` data columns of n points in [lo, hi) equals the
/// per-point sum; the result is exactly symmetric and the same on two threads.
template <class T, class Kernel>
void check_kernel(const Kernel& k, std::array<T, Kernel::wrt_count> theta, double lo, double hi, unsigned seed) {
    constexpr std::size_t W = Kernel::wrt_count, C = Kernel::arity - W;
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    for (std::size_t n : {0u, 1u, 7u, 15u, 17u, 1000u, 5003u}) {
        CAPTURE(n, sizeof(T));
        const auto data = uniform_columns<T>(C, n, lo, hi, seed + unsigned(n));
        const auto h = k.map_reduce_hessian(spans_of<T, C>(data), theta);
        const auto s = sum_of_point_hessians(k, data, theta);
        CHECK(near_sum(h.value, s.value, s.value_abs, tol));
        for (std::size_t p = 0; p < W; ++p) {
            CAPTURE(p, h.gradient[p], s.gradient[p]);
            CHECK(near_sum(h.gradient[p], s.gradient[p], s.gradient_abs[p], tol));
            for (std::size_t q = 0; q < W; ++q) {
                CAPTURE(q, h.hessian[p][q], s.hessian[p][q]);
                CHECK(near_sum(h.hessian[p][q], s.hessian[p][q], s.hessian_abs[p][q], tol));
                CHECK(h.hessian[p][q] == h.hessian[q][p]);
            }
        }
        const auto threaded = k.map_reduce_hessian(spans_of<T, C>(data), theta, gradc::threads{2});
        CHECK(threaded.value == h.value);
        for (std::size_t p = 0; p < W; ++p) {
            CHECK(threaded.gradient[p] == h.gradient[p]);
            for (std::size_t q = 0; q < W; ++q) CHECK(threaded.hessian[p][q] == h.hessian[p][q]);
        }
        // The diagonal alone: one direction where the Hessian is diagonal by structure,
        // W otherwise; the same sums either way.
        const auto d = k.map_reduce_hessian_diagonal(spans_of<T, C>(data), theta);
        const auto d2 = k.map_reduce_hessian_diagonal(spans_of<T, C>(data), theta, gradc::threads{2});
        CHECK(near_sum(d.value, s.value, s.value_abs, tol));
        CHECK(d2.value == d.value);
        for (std::size_t p = 0; p < W; ++p) {
            CAPTURE(p, d.diagonal[p], s.hessian[p][p]);
            CHECK(near_sum(d.gradient[p], s.gradient[p], s.gradient_abs[p], tol));
            CHECK(near_sum(d.diagonal[p], s.hessian[p][p], s.hessian_abs[p][p], tol));
            CHECK(d2.gradient[p] == d.gradient[p]);
            CHECK(d2.diagonal[p] == d.diagonal[p]);
        }
    }
}

template <class T>
void check_all_kernels() {
    {
        // A one-dimensional k-means cost with three centres: each point's squared distance
        // to its nearest centre. Diagonal by structure (min only chooses), so its diagonal
        // is one direction of duals.
        auto [x, c0, c1, c2] = gradc::variables<4>();
        const auto sq = [](const auto& u) { return u * u; };
        const auto k = gradc::compile(min(min(sq(x - c0), sq(x - c1)), sq(x - c2)), gradc::wrt(c0, c1, c2));
        static_assert(decltype(k)::program::hessian_is_diagonal());
        check_kernel<T>(k, {T(-1.5), T(0.2), T(2.5)}, -3.0, 4.0, 7);
    }
    {
        // The normal log-likelihood in (μ, σ): log σ, 1/σ and the literal once.
        auto [x, mu, sigma] = gradc::variables<3>();
        const auto z = (x - mu) / sigma;
        const auto k = gradc::compile(-0.5 * (z * z) - log(sigma) - 0.9189385332046727, gradc::wrt(mu, sigma));
        check_kernel<T>(k, {T(1.4), T(2.1)}, -3.0, 6.0, 1);
    }
    {
        // Heavy θ-only subexpressions: exp(a·b) and log(a) once per call.
        auto [a, x, b] = gradc::variables<3>();
        const auto k = gradc::compile(exp(a * b) * x + log(a) * x * x, gradc::wrt(a, b));
        check_kernel<T>(k, {T(0.7), T(-0.4)}, -2.0, 2.0, 2);
    }
    {
        // No invariant node but the parameters themselves.
        auto [a, b, x] = gradc::variables<3>();
        const auto k = gradc::compile(sin(a * x) + cos(b * x) * (a * x), gradc::wrt(a, b));
        check_kernel<T>(k, {T(0.3), T(1.1)}, -2.0, 2.0, 3);
    }
    {
        // Literals in the invariant part, the varying part and the tail; three
        // parameters, two data columns.
        auto [x, c, y, s, w] = gradc::variables<5>();
        const auto k = gradc::compile(3.0 * exp(-0.5 * (x - c) * (x - c) / (s * s)) + 0.25 * log(s) -
                                          2.0 * w * y + tanh(1.5 * w - 0.2) * 0.5,
                                      gradc::wrt(c, s, w));
        check_kernel<T>(k, {T(0.2), T(0.9), T(-0.6)}, -1.5, 1.5, 4);
    }
    {
        // A Student-t log-density with a literal ν (examples/newton_mle.cpp): exp(-s),
        // (ν + 1)/2 and 1/ν once; log1p per point.
        auto [x, mu, s] = gradc::variables<3>();
        const double nu = 5;
        const auto z = (x - mu) * exp(-s);
        const auto k = gradc::compile(-s - 0.5 * (nu + 1) * log1p(z * z / nu), gradc::wrt(mu, s));
        check_kernel<T>(k, {T(0.4), T(-0.3)}, -3.0, 3.0, 5);
    }
    {
        // A small network: four parameters, two data columns, three tanh per point, and
        // many boundary slots (adjoints of θ, of exp(a·d), log(b² + 1), sqrt(c² + d²) and
        // 1/(b² + 0.1), summed per point).
        auto [x, y, a, b, c, d] = gradc::variables<6>();
        const auto h1 = tanh(a * x + b * y + c);
        const auto h2 = tanh(b * x - c * y + d);
        const auto h3 = tanh(c * x + d * y - a);
        const auto k = gradc::compile(exp(a * d) * h1 + log(b * b + 1.0) * h2 * h3 +
                                          sqrt(c * c + d * d) * (h1 - h2) * (h3 + 1.0) -
                                          0.5 * (y - h1 * a) * (y - h1 * a) / (b * b + 0.1),
                                      gradc::wrt(a, b, c, d));
        check_kernel<T>(k, {T(0.3), T(0.7), T(-0.2), T(0.5)}, -1.5, 1.5, 10);
    }
    {
        // Conditions on data and on θ, sin and cos of θ once, and a tail through where:
        // the first-order map-reduce tests' piecewise kernels.
        auto [x, mu, sigma] = gradc::variables<3>();
        const auto k = gradc::compile(where(x > mu, log(sigma) * x, sigma * sigma - x) + exp(mu) * x +
                                          where(sigma > 1.0, sigma, mu * mu) + sin(mu) * cos(sigma) * x * x,
                                      gradc::wrt(mu, sigma));
        check_kernel<T>(k, {T(0.3), T(1.3)}, -1.0, 2.0, 7);
        const auto tail_where = gradc::compile(where(mu > 0.0, x - mu, sigma) * 2.0 + 1.0 + hypot(mu, sigma) * x,
                                               gradc::wrt(mu, sigma));
        check_kernel<T>(tail_where, {T(0.3), T(1.3)}, -1.0, 2.0, 8);
        check_kernel<T>(tail_where, {T(-0.3), T(1.3)}, -1.0, 2.0, 8);
    }
    {
        // Boundary adjoints the same at every point that are not the seed: the node
        // (x·y − log σ) has adjoint 2.5 at every point and (x/σ − sin μ) −4, through
        // literal factors and a negation; their sums are counted, not added per point.
        auto [x, y, mu, sigma] = gradc::variables<4>();
        const auto k = gradc::compile(2.5 * (x * y - log(sigma)) - 4.0 * ((x / sigma) - sin(mu)) - 0.5 * (mu * x),
                                      gradc::wrt(mu, sigma));
        check_kernel<T>(k, {T(0.4), T(1.7)}, -1.5, 1.5, 11);
    }
    {
        // The output does not depend on the data (x is a variable of the set, unused): N
        // times the one-point Hessian.
        auto [a, x] = gradc::variables<2>();
        (void)x;
        const auto k = gradc::compile(exp(a) * a, gradc::wrt(a));
        check_kernel<T>(k, {T(0.6)}, -1.0, 1.0, 6);
    }
}

}  // namespace

TEST_CASE("map_reduce_hessian equals the sum of per-point Hessians (double)", "[second_order][map_reduce]") {
    check_all_kernels<double>();
}

TEST_CASE("map_reduce_hessian equals the sum of per-point Hessians (float)", "[second_order][map_reduce]") {
    check_all_kernels<float>();
}

TEST_CASE("map_reduce_hessian is the derivative of map_reduce's gradient (central differences)",
          "[second_order][map_reduce]") {
    auto [a, x, b] = gradc::variables<3>();
    const auto k = gradc::compile(exp(a * b) * x + log(a) * x * x - 0.5 * b * b * x, gradc::wrt(a, b));
    const auto data = uniform_columns<double>(1, 1000, -2.0, 2.0, 9);
    const std::array<std::span<const double>, 1> spans{data[0]};
    const std::array<double, 2> theta{0.7, -0.4};
    const auto h = k.map_reduce_hessian(spans, theta);
    const auto first = k.map_reduce(spans, theta);
    for (std::size_t p = 0; p < 2; ++p) {
        CHECK(close(h.gradient[p], first.gradient[p], 1e-12, 1e-12));
        for (std::size_t q = 0; q < 2; ++q) {
            const double fd = central_difference(
                [&](double t) {
                    std::array<double, 2> shifted = theta;
                    shifted[q] = t;
                    return k.map_reduce(spans, shifted).gradient[p];
                },
                theta[q]);
            CAPTURE(p, q, h.hessian[p][q], fd);
            CHECK(close(h.hessian[p][q], fd, 1e-8, 1e-8));
        }
    }
    CHECK(close(h.value, first.value, 1e-12, 1e-12));
}
