/// A user's debug build: this file is compiled with -O0 (tests/simd/meson.build) and
/// -march=native, where xsimd 8.1's AVX-512BW log, and so pow, did not compile with GCC
/// (gradc/math/unoptimized_avx512bw.hpp). The batch calls must compile and give the
/// scalar results, in double and float.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include <approx.hpp>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

template <class T>
void check_log_and_pow_kernel() {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(log(x) * pow(x, y) + log2(x) + exp(y) + cbrt(x));
    constexpr std::size_t n = 37;  // full batches and a tail on every architecture
    std::vector<T> xs(n), ys(n), values(n), gx(n), gy(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = T(0.25) + T(0.125) * T(i);
        ys[i] = T(-1.5) + T(0.0625) * T(i);
    }
    const std::array<std::span<const T>, 2> in{xs, ys};
    const std::array<std::span<T>, 2> grad{gx, gy};
    k.gradient_batch(in, std::span<T>(values), grad);
    const T rtol = sizeof(T) == 4 ? T(1e-5) : T(1e-13);
    for (std::size_t i = 0; i < n; ++i) {
        const auto r = k.gradient(std::array{xs[i], ys[i]});
        CHECK(gradc::test::close(values[i], r.value, rtol, rtol));
        CHECK(gradc::test::close(gx[i], r.gradient[0], rtol, rtol));
        CHECK(gradc::test::close(gy[i], r.gradient[1], rtol, rtol));
    }
}

}  // namespace

TEST_CASE("batch calls of a kernel with log and pow compile and run at -O0, double", "[simd][unoptimized]") {
    check_log_and_pow_kernel<double>();
}

TEST_CASE("batch calls of a kernel with log and pow compile and run at -O0, float", "[simd][unoptimized]") {
    check_log_and_pow_kernel<float>();
}

GRADC_SIMD_DIAGNOSTICS_POP
