/// Run-time architecture dispatch (gradc/simd/dispatch.hpp): the batch calls compiled
/// once per architecture (dispatch/kernels_<arch>.cpp, each with its own flags) give the
/// scalar results on every architecture this CPU runs, and gradc::simd::dispatch picks the
/// widest. In a portable build (-Dportable=true) this file is compiled for the SSE2
/// baseline, so it is the one-binary case of the `portable` option.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "dispatch/kernels_impl.hpp"

namespace {

using namespace gradc_dispatch_test;

template <class T>
inputs<T> random_inputs(std::size_t n, unsigned seed) {
    // S, K, T, r, v of Black-Scholes; x0, x1 (and x2, x3 as tangents) for seed and loglik.
    const double lo[5] = {80, 80, 0.25, 0.01, 0.1}, hi[5] = {120, 120, 2, 0.05, 0.5};
    inputs<T> in;
    in.n = n;
    std::mt19937_64 rng(seed);
    for (std::size_t j = 0; j < 5; ++j) {
        std::uniform_real_distribution<double> u(lo[j], hi[j]);
        in.x[j].resize(n);
        for (auto& e : in.x[j]) e = static_cast<T>(u(rng));
    }
    return in;
}

/// Within `ulps` units of T's epsilon, relative to max(1, |reference|, scale).
template <class T>
bool close(T got, T want, double ulps, double scale = 1) {
    const double eps = std::numeric_limits<T>::epsilon();
    return std::abs(double(got) - double(want)) <= ulps * eps * std::max({1.0, std::abs(double(want)), scale});
}

template <class T>
void check_same(const outputs<T>& b, const outputs<T>& s, const inputs<T>& in) {
    const std::size_t n = in.n;
    // Transcendentals (sin, erfc, exp, log) come from xsimd in batches and from libm in
    // scalar code: ulp-scale differences, amplified by the Black-Scholes subtraction.
    constexpr double ulps = 64;
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i);
        CHECK(close(b.seed_value[i], s.seed_value[i], ulps));
        CHECK(close(b.seed_jvp[i], s.seed_jvp[i], ulps));
        for (std::size_t j = 0; j < 2; ++j) CHECK(close(b.seed_grad[j][i], s.seed_grad[j][i], ulps));
        // The price is a difference of two terms of the size of S and K: its rounding
        // error scales with them, not with the price.
        const double terms = double(in.x[0][i]) + double(in.x[1][i]);
        CHECK(close(b.bs_value[i], s.bs_value[i], ulps, terms));
        CHECK(close(b.bs_value_only[i], s.bs_value[i], ulps, terms));
        for (std::size_t j = 0; j < 5; ++j) CHECK(close(b.bs_grad[j][i], s.bs_grad[j][i], ulps, terms));
    }
    // A sum of n terms in a different order.
    const double sum_ulps = ulps * std::max(1.0, std::sqrt(double(n)));
    CHECK(close(b.loglik, s.loglik, sum_ulps * std::max(1.0, double(n))));
    CHECK(close(b.loglik_grad[0], s.loglik_grad[0], sum_ulps * std::max(1.0, double(n))));
    CHECK(close(b.loglik_grad[1], s.loglik_grad[1], sum_ulps * std::max(1.0, double(n))));
}

/// Every architecture of dispatch_archs this CPU runs, called directly.
template <class T>
void check_every_arch() {
    std::size_t tested = 0;
    auto one = [&]<class A>(A arch) {
        if (!gradc::simd::runs_on_this_cpu<A>()) {
            WARN("this CPU does not run " << A::name() << ": not tested");
            return;
        }
        ++tested;
        // Lanes of T in A (batch<T, A> itself is not usable here: this file is compiled
        // for the baseline only).
        constexpr std::size_t L = A::alignment() / sizeof(T);
        for (std::size_t n : {std::size_t(0), std::size_t(1), L - 1, L, L + 1, 2 * L + 3, 3 * L + 1,
                              std::size_t(1000)}) {
            CAPTURE(A::name(), n, sizeof(T));
            const auto in = random_inputs<T>(n, 11 + unsigned(n));
            auto got = make_outputs<T>(n);
            run_batch_calls(arch, in, got);
            CHECK(std::string(got.arch) == A::name());
            check_same(got, run_scalar(in), in);
        }
    };
    one(xsimd::avx512bw{});
    one(xsimd::avx2{});
    one(xsimd::sse2{});
    CHECK(tested >= 1);
}

}  // namespace

TEMPLATE_TEST_CASE("every architecture this CPU runs gives the scalar results", "[simd][dispatch]", double,
                   float) {
    check_every_arch<TestType>();
}

TEST_CASE("dispatch runs the widest architecture this CPU runs", "[simd][dispatch]") {
    const char* expected = gradc::simd::runs_on_this_cpu<xsimd::avx512bw>() ? "avx512bw"
                           : gradc::simd::runs_on_this_cpu<xsimd::avx2>()   ? "avx2"
                                                                            : "sse2";
    CHECK(std::string(gradc::simd::chosen_arch_name()) == expected);
    const auto in = random_inputs<double>(37, 5);
    auto got = make_outputs<double>(37);
    gradc::simd::dispatch([&](auto arch) { run_batch_calls(arch, in, got); });
    CHECK(std::string(got.arch) == expected);
    check_same(got, run_scalar(in), in);
    // A narrower list: the widest of it that runs.
    using narrow = xsimd::arch_list<xsimd::avx2, xsimd::sse2>;
    gradc::simd::dispatch<narrow>([&](auto arch) { run_batch_calls(arch, in, got); });
    CHECK(std::string(got.arch) == (gradc::simd::runs_on_this_cpu<xsimd::avx2>() ? "avx2" : "sse2"));
}

TEST_CASE("dispatch lets the batch calls' gradc::Error through", "[simd][dispatch]") {
    auto in = random_inputs<double>(20, 3);
    in.x[1].resize(19);
    auto got = make_outputs<double>(20);
    CHECK_THROWS_AS(gradc::simd::dispatch([&](auto arch) { run_batch_calls(arch, in, got); }),
                    gradc::Error);
}
