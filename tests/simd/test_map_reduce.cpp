/// map_reduce: Σᵢ f(θ, xᵢ) and its θ-gradient against a scalar loop and closed forms.

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include <approx.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

using gradc::test::close;

std::vector<double> normal_sample(std::size_t n, double mu, double sigma, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> d(mu, sigma);
    std::vector<double> x(n);
    for (auto& e : x) e = d(rng);
    return x;
}

}  // namespace

TEST_CASE("map_reduce equals a scalar loop for every N from 0 to 3×lanes+1", "[simd][map_reduce]") {
    auto [x, y, a, b] = gradc::variables<4>();
    // Parameters a, b; data x, y (in variable order), with a parameter between them.
    const auto k = gradc::compile(exp(-a * x) * y + b * b * x - log(b + y * y), gradc::wrt(b, a));
    auto check = [&]<class A>(A arch) {
        constexpr std::size_t L = xsimd::batch<double, A>::size;
        for (std::size_t n = 0; n <= 3 * L + 1; ++n) {
            CAPTURE(n, L);
            const auto xs = normal_sample(n + 1, 0, 1, unsigned(n));
            const auto ys = normal_sample(n + 2, 1, 1, unsigned(n) + 100);
            const std::array<std::span<const double>, 2> data{std::span(xs).subspan(1), std::span(ys).subspan(2)};
            const double theta_b = 1.3, theta_a = 0.4;
            const auto r = k.map_reduce(data, std::array{theta_b, theta_a}, arch);
            double value = 0, gb = 0, ga = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const auto g = k.gradient(xs[i + 1], ys[i + 2], theta_a, theta_b);
                value += g.value;
                gb += g.gradient[0];
                ga += g.gradient[1];
            }
            CHECK(close(r.value, value, 1e-12, 1e-12));
            CHECK(close(r.gradient[0], gb, 1e-12, 1e-12));
            CHECK(close(r.gradient[1], ga, 1e-12, 1e-12));
        }
    };
    check(gradc::simd::default_arch{});
    if constexpr (xsimd::sse2::supported()) check(xsimd::sse2{});
}

TEST_CASE("map_reduce: normal log-likelihood of 10^5 points against the closed form", "[simd][map_reduce]") {
    auto [x, mu, sigma] = gradc::variables<3>();
    const double half_log_2pi = 0.5 * std::log(2 * std::numbers::pi);
    const auto logpdf = gradc::compile(-0.5 * pow((x - mu) / sigma, 2.0) - log(sigma) - half_log_2pi,
                                       gradc::wrt(mu, sigma));
    const std::size_t n = 100'001;
    const auto xs = normal_sample(n, 1.5, 2.0, 3);
    const double m = 1.4, s = 2.1;
    const std::array<std::span<const double>, 1> data{xs};
    const auto r = logpdf.map_reduce(data, std::array{m, s});

    double s1 = 0, s2 = 0;
    for (double e : xs) {
        s1 += e - m;
        s2 += (e - m) * (e - m);
    }
    const double N = double(n);
    CHECK(close(r.value, -s2 / (2 * s * s) - N * std::log(s) - N * half_log_2pi, 1e-11));
    CHECK(close(r.gradient[0], s1 / (s * s), 1e-10, 1e-9));
    CHECK(close(r.gradient[1], -N / s + s2 / (s * s * s), 1e-10, 1e-9));

    SECTION("in float, the blocked sum keeps the error near float's epsilon") {
        std::vector<float> xf(xs.begin(), xs.end());
        const std::array<std::span<const float>, 1> fdata{xf};
        const auto rf = logpdf.map_reduce(fdata, std::array{float(m), float(s)});
        CHECK(close(rf.value, r.value, 1e-5));
        CHECK(close(rf.gradient[0], r.gradient[0], 1e-3, 1e-2));
        CHECK(close(rf.gradient[1], r.gradient[1], 1e-4));
    }
}

TEST_CASE("map_reduce argument errors name the argument", "[simd][map_reduce]") {
    auto [x, mu] = gradc::variables<2>();
    const auto k = gradc::compile((x - mu) * (x - mu), gradc::wrt(mu));
    std::vector<double> xs(5, 1.0);
    const std::array<std::span<const double>, 1> data{xs};
    const std::array<std::span<const double>, 2> two{xs, xs};
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH(k.map_reduce(data, std::array{1.0, 2.0}), Contains("`theta`") && Contains("2 entries"));
    CHECK_THROWS_WITH(k.map_reduce(two, std::array{1.0}), Contains("`data`") && Contains("2 spans"));
    CHECK(k.map_reduce(data, std::vector{1.0}).value == 0.0);
    const std::array<std::span<const double>, 1> empty{};
    const auto r = k.map_reduce(empty, std::array{1.0});
    CHECK(r.value == 0.0);
    CHECK(r.gradient[0] == 0.0);
}
GRADC_SIMD_DIAGNOSTICS_POP

TEST_CASE("map_reduce hoists parameter-only nodes without changing the result", "[simd][map_reduce]") {
    // Parameter-only subexpressions (exp(mu), log(sigma), sigma*sigma, a parameter-only
    // condition, an output term with no data at all) are evaluated once per call and
    // their part of the adjoint is swept once on summed adjoints; the result must equal
    // the per-point scalar loop.
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto k = gradc::compile(where(x > mu, log(sigma) * x, sigma * sigma - x) + exp(mu) * x +
                                      where(sigma > 1.0, sigma, mu * mu) + hypot(mu, sigma),
                                  gradc::wrt(mu, sigma));
    const std::size_t n = 1003;
    const auto xs = normal_sample(n, 0.4, 1.3, 7);
    for (const auto& theta : {std::array{0.3, 1.7}, std::array{-0.2, 0.8}}) {
        double value = 0, d_mu = 0, d_sigma = 0;
        for (double xi : xs) {
            const auto g = k.gradient(xi, theta[0], theta[1]);
            value += g.value;
            d_mu += g.gradient[0];
            d_sigma += g.gradient[1];
        }
        const std::array<std::span<const double>, 1> data{std::span<const double>(xs)};
        const auto r = k.map_reduce(data, theta);
        CHECK_THAT(r.value, gradc::test::is_close_to(value, 1e-12, 1e-12));
        CHECK_THAT(r.gradient[0], gradc::test::is_close_to(d_mu, 1e-12, 1e-12));
        CHECK_THAT(r.gradient[1], gradc::test::is_close_to(d_sigma, 1e-12, 1e-12));
    }
    // The split itself: exp(mu), log(sigma), the parameters and the literal are invariant.
    using P = decltype(k)::program;
    constexpr auto inv = gradc::lower::map_reduce_split<P, gradc::simd::detail::data_mask<decltype(k)>>::invariant;
    std::size_t invariant_nodes = 0;
    for (bool b : inv) invariant_nodes += b ? 1 : 0;
    CHECK(invariant_nodes >= 8);
    CHECK(!inv[P::output_nodes[0]]);
}

namespace {

/// map_reduce of k over the points, against the sum of k.gradient at every point.
template <class Kernel, class A>
void check_against_loop(const Kernel& k, const std::vector<double>& xs, const std::vector<double>& ys,
                        const std::array<double, 2>& theta, A arch) {
    const std::array<std::span<const double>, 2> data{std::span<const double>(xs), std::span<const double>(ys)};
    const auto r = k.map_reduce(data, theta, arch);
    double value = 0, g0 = 0, g1 = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        const auto g = k.gradient(xs[i], ys[i], theta[0], theta[1]);
        value += g.value;
        g0 += g.gradient[0];
        g1 += g.gradient[1];
    }
    CAPTURE(xs.size(), theta[0], theta[1]);
    CHECK_THAT(r.value, gradc::test::is_close_to(value, 1e-12, 1e-11));
    CHECK_THAT(r.gradient[0], gradc::test::is_close_to(g0, 1e-12, 1e-11));
    CHECK_THAT(r.gradient[1], gradc::test::is_close_to(g1, 1e-12, 1e-11));
}

}  // namespace

TEST_CASE("map_reduce's linear shortcuts give the per-point sums", "[simd][map_reduce]") {
    // Each kernel exercises one shortcut of the split (lower/program.hpp): the value's
    // affine tail (through sub, add, mul, div by a parameter, and where with a parameter
    // condition), edges deferred to one sweep on summed adjoints, an output whose adjoint
    // is only counted, a division by a parameter as a product with its reciprocal, and
    // fused sin/erfc nodes per point.
    auto [x, y, mu, sigma] = gradc::variables<4>();
    const auto tail = gradc::compile(3.0 * ((x - mu) / sigma) - log(sigma) + 2.0, gradc::wrt(mu, sigma));
    const auto tail_where = gradc::compile(where(mu > 0.0, x - mu, sigma) * 2.0 + 1.0, gradc::wrt(mu, sigma));
    const auto counted = gradc::compile((x - mu) + 2.0 * (y - sigma), gradc::wrt(mu, sigma));
    const auto gated = gradc::compile(where(mu > 0.0, x * y, sigma) + 3.0 - where(sigma > 1.0, x / sigma, y - mu),
                                      gradc::wrt(mu, sigma));
    const auto reciprocal = gradc::compile(pow((x - mu) / (sigma * sigma), 2.0) + y / mu, gradc::wrt(mu, sigma));
    const auto fused = gradc::compile(sin(x * mu) * sigma + erfc(y - sigma) * cos(mu), gradc::wrt(mu, sigma));
    // Boundary adjoints the same at every point other than the seed: 2.5 for the node
    // (x·y − log σ), −4 for (x/σ − sin μ); counted, not summed.
    const auto scaled = gradc::compile(2.5 * (x * y - log(sigma)) - 4.0 * ((x / sigma) - sin(mu)) - 0.5 * (mu * x),
                                       gradc::wrt(mu, sigma));
    auto run = [&](auto arch) {
        for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000)}) {
            const auto xs = normal_sample(n, 0.4, 1.3, unsigned(n) + 1);
            const auto ys = normal_sample(n, -0.2, 0.9, unsigned(n) + 2);
            for (const auto& theta : {std::array{0.7, 1.6}, std::array{-0.3, 0.8}}) {
                check_against_loop(tail, xs, ys, theta, arch);
                check_against_loop(tail_where, xs, ys, theta, arch);
                check_against_loop(counted, xs, ys, theta, arch);
                check_against_loop(gated, xs, ys, theta, arch);
                check_against_loop(reciprocal, xs, ys, theta, arch);
                check_against_loop(fused, xs, ys, theta, arch);
                check_against_loop(scaled, xs, ys, theta, arch);
            }
        }
    };
    run(gradc::simd::default_arch{});
    if constexpr (xsimd::sse2::supported()) run(xsimd::sse2{});
    // Those tails reach down to x itself: Σx is all that is summed for the value.
    using PT = decltype(tail)::program;
    using PW = decltype(tail_where)::program;
    CHECK(PT::desc[gradc::lower::map_reduce_split<PT, gradc::simd::detail::data_mask<decltype(tail)>>::plan.frontier].kind == gradc::lower::node_kind::variable);
    CHECK(PW::desc[gradc::lower::map_reduce_split<PW, gradc::simd::detail::data_mask<decltype(tail_where)>>::plan.frontier].kind == gradc::lower::node_kind::variable);

    // The split the likelihood gets: only z² is summed for the value, and the adjoint
    // sweep per point stops at z (z → x - mu is swept once, on Σ adjoint of z).
    auto [xx, m, s] = gradc::variables<3>();
    const auto z = (xx - m) / s;
    const auto ll = gradc::compile(-0.5 * (z * z) - log(s) - 0.9189385332046727, gradc::wrt(m, s));
    using P = decltype(ll)::program;
    constexpr auto& split = gradc::lower::map_reduce_split<P, gradc::simd::detail::data_mask<decltype(ll)>>::plan;
    CHECK(split.frontier != P::output_nodes[0]);
    CHECK(split.tail_offset);
    std::size_t deferred = 0, boundary = 0;
    for (std::size_t e = 0; e < P::edge_count; ++e) deferred += split.deferred[e] ? 1 : 0;
    for (bool b : split.boundary) boundary += b ? 1 : 0;
    CHECK(deferred >= 4);  // x - mu → mu, z → x - mu, the invariant log(s) → s, the output → log(s)
    CHECK(boundary <= 3);
    // The adjoint of (-0.5·z² − log s), and of the output, is 1 at every point: counted.
    std::size_t counted_slots = 0, summed = 0;
    for (std::size_t b = 0; b < split.boundary.size(); ++b) {
        counted_slots += split.boundary[b] && split.counted[b] ? 1 : 0;
        summed += split.boundary[b] && !split.counted[b] ? 1 : 0;
    }
    CHECK(counted_slots >= 1);
    CHECK(summed == 2);  // the adjoints of z and of s, which vary from point to point

    using PS = decltype(scaled)::program;
    constexpr auto& scaled_split = gradc::lower::map_reduce_split<PS, gradc::simd::detail::data_mask<decltype(scaled)>>::plan;
    std::size_t scaled_counted = 0;
    for (std::size_t b = 0; b < scaled_split.boundary.size(); ++b)
        scaled_counted += scaled_split.boundary[b] && scaled_split.counted[b] ? 1 : 0;
    CHECK(scaled_counted >= 2);
}
