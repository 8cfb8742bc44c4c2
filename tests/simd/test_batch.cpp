/// Batch calls equal the scalar calls lane by lane, for every N from 0 to 3×lanes+1, in
/// float and double, on every architecture the build can run, with unaligned spans.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include <approx.hpp>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

using gradc::simd::batch;

/// Bit for bit where batch and scalar code do the same operations. Compilers fuse a*b + c
/// into one FMA in scalar code (GCC does by default, -ffp-contract=fast) but not across
/// xsimd's intrinsics, which changes the last bit; the test_simd_exact build turns fusion
/// off and checks equality, the default build allows the rounding difference of one fusion.
#ifdef GRADC_TEST_NO_FP_CONTRACT
constexpr double arithmetic_ulps = 0;
#else
constexpr double arithmetic_ulps = 4;
#endif

/// The architectures tested: the default one and the narrower ones the CPU also runs,
/// so that several lane counts (and the tails they give) are covered.
template <class F>
void for_each_arch(F&& f) {
    f(gradc::simd::default_arch{});
    if constexpr (!std::is_same_v<gradc::simd::default_arch, xsimd::avx2> && xsimd::avx2::supported())
        if (xsimd::avx2::available()) f(xsimd::avx2{});
    if constexpr (!std::is_same_v<gradc::simd::default_arch, xsimd::sse2> && xsimd::sse2::supported())
        if (xsimd::sse2::available()) f(xsimd::sse2{});
}

/// Points with every span at a different misalignment (offset k + 1 entries into its
/// own buffer), so that no load or store of the batch path is aligned by chance.
template <class T>
struct soa {
    std::vector<std::vector<T>> storage;
    std::vector<std::span<T>> spans;
    soa(std::size_t count, std::size_t n, T fill = T(0)) {
        for (std::size_t k = 0; k < count; ++k) {
            storage.emplace_back(n + k + 1, fill);
            spans.emplace_back(storage.back().data() + k + 1, n);
        }
    }
    template <std::size_t K>
    std::array<std::span<const T>, K> in() const {
        std::array<std::span<const T>, K> a;
        for (std::size_t k = 0; k < K; ++k) a[k] = spans[k];
        return a;
    }
    template <std::size_t K>
    std::array<std::span<T>, K> out() const {
        std::array<std::span<T>, K> a;
        for (std::size_t k = 0; k < K; ++k) a[k] = spans[k];
        return a;
    }
};

template <class T>
soa<T> random_points(std::size_t count, std::size_t n, double lo, double hi, unsigned seed) {
    soa<T> p(count, n);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    for (auto& s : p.spans)
        for (auto& x : s) x = static_cast<T>(u(rng));
    return p;
}

/// Equal, or within a few units in the last place where batch math differs from libm.
template <class T>
bool same(T batch_value, T scalar_value, double ulps) {
    if (ulps == 0) return batch_value == scalar_value || (std::isnan(batch_value) && std::isnan(scalar_value));
    const double eps = std::numeric_limits<T>::epsilon();
    return std::abs(double(batch_value) - double(scalar_value)) <=
           ulps * eps * std::max(1.0, std::abs(double(scalar_value)));
}

/// value_batch, gradient_batch and jvp_batch against value, gradient and jvp on scalars
/// at every point of every N from 0 to 3×lanes+1.
template <class T, class Kernel>
void check_against_scalar(const Kernel& k, double lo, double hi, double ulps) {
    constexpr std::size_t n_in = Kernel::arity;
    constexpr std::size_t W = Kernel::wrt_count;
    for_each_arch([&]<class A>(A arch) {
        constexpr std::size_t L = batch<T, A>::size;
        for (std::size_t n = 0; n <= 3 * L + 1; ++n) {
            CAPTURE(n, L, sizeof(T));
            const auto x = random_points<T>(n_in, n, lo, hi, 17 + unsigned(n));
            const auto dx = random_points<T>(W, n, -1, 1, 99 + unsigned(n));
            soa<T> values(1, n), grad(W, n), jv(1, n), tangents(1, n), value_only(1, n);

            k.value_batch(x.template in<n_in>(), value_only.spans[0], arch);
            k.gradient_batch(x.template in<n_in>(), values.spans[0], grad.template out<W>(), arch);
            k.jvp_batch(x.template in<n_in>(), dx.template in<W>(), jv.spans[0], tangents.spans[0], arch);

            for (std::size_t i = 0; i < n; ++i) {
                std::array<T, n_in> xi;
                for (std::size_t j = 0; j < n_in; ++j) xi[j] = x.spans[j][i];
                std::array<T, W> dxi;
                for (std::size_t j = 0; j < W; ++j) dxi[j] = dx.spans[j][i];
                const auto g = k.gradient(xi);
                const auto t = k.jvp(xi, dxi);
                CAPTURE(i);
                CHECK(same(value_only.spans[0][i], g.value, ulps));
                CHECK(same(values.spans[0][i], g.value, ulps));
                for (std::size_t j = 0; j < W; ++j) CHECK(same(grad.spans[j][i], g.gradient[j], ulps));
                CHECK(same(jv.spans[0][i], t.value, ulps));
                CHECK(same(tangents.spans[0][i], t.tangent, ulps));
            }
            // The tail writes nothing past the end of an output span.
            for (std::size_t j = 0; j < W; ++j) CHECK(grad.storage[j].size() == n + j + 1);
        }
    });
}

}  // namespace

TEMPLATE_TEST_CASE("batch calls equal scalar calls bit for bit on arithmetic kernels", "[simd]", double,
                   float) {
    auto [x1, x2, x3] = gradc::variables<3>();
    const auto k = gradc::compile(x1 * x2 + x1 / x2 - x3 * x3 * 0.5 + (x1 - x3) * (x2 + 2.0));
    check_against_scalar<TestType>(k, 0.5, 2.0, arithmetic_ulps);
}

// The test_simd_exact build compiles only the cases whose tolerance is arithmetic_ulps:
// the others do not depend on contraction and run in the default build.
#ifndef GRADC_TEST_NO_FP_CONTRACT
TEMPLATE_TEST_CASE("batch calls equal scalar calls on the seed kernel", "[simd]", double, float) {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x1) + x1 * x2);
    check_against_scalar<TestType>(k, -4.0, 4.0, 4);
}

TEMPLATE_TEST_CASE("batch calls equal scalar calls on exp, log, tanh, erfc, sqrt", "[simd]", double, float) {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto normal = gradc::compile(-0.5 * pow((x - mu) / sigma, 2.0) - log(sigma));
    check_against_scalar<TestType>(normal, 0.5, 2.0, 16);
    const auto mixed = gradc::compile(tanh(x * mu) + 0.5 * erfc(-x / sqrt(sigma)) + exp(-mu * sigma));
    check_against_scalar<TestType>(mixed, 0.5, 2.0, 16);
}

TEMPLATE_TEST_CASE("batch calls equal scalar calls on erfinv, within its batch form's ulps", "[simd]", double, float) {
    // Double batches skip the scalar's Newton step (gradc/math/erfinv.hpp): values up to 5
    // ulps apart, and the derivative √π/2·e^(y²) multiplies y's difference by 2y² (≤ 2.7
    // for x·y ≤ 0.9025): 32 leaves room for both. Float lanes round the same double.
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(erfinv(x * y) + erfinv(y - 1.0) * x);
    check_against_scalar<TestType>(k, 0.5, 0.95, 32);
}

TEMPLATE_TEST_CASE("jacobian_batch equals jacobian at every point, every lane and the tail", "[simd]", double, float) {
    using T = TestType;
    auto [x, y, z] = gradc::variables<3>();
    // Two outputs by two wrt variables (z, x: wrt order), and three outputs by one: a
    // reverse sweep carrying two weight vectors, and a forward sweep carrying one tangent.
    const auto square = gradc::compile(x * y + sin(z), x / y - z * z, gradc::wrt(z, x));
    const auto tall = gradc::compile(x * y, exp(x) - z, tanh(x * z), gradc::wrt(x));
    // sin, exp and tanh of batches are xsimd's, a few ulps from the C library's: 16 ulps,
    // as "batch calls equal scalar calls on exp, log, tanh, erfc, sqrt".
    constexpr double ulps = 16;
    for_each_arch([&]<class A>(A arch) {
        constexpr std::size_t L = batch<T, A>::size;
        for (std::size_t n = 0; n <= 3 * L + 1; ++n) {
            const auto p = random_points<T>(3, n, 0.5, 2.0, 23 + unsigned(n));
            soa<T> v(2, n), jac(4, n), v3(3, n), col(3, n);
            square.jacobian_batch(p.template in<3>(), v.template out<2>(), jac.template out<4>(), arch);
            tall.jacobian_batch(p.template in<3>(), v3.template out<3>(), col.template out<3>(), arch);
            for (std::size_t i = 0; i < n; ++i) {
                const std::array<T, 3> at{p.spans[0][i], p.spans[1][i], p.spans[2][i]};
                const auto s = square.jacobian(at);
                const auto c = tall.jacobian(at);
                for (std::size_t m = 0; m < 2; ++m) {
                    CHECK(same(v.spans[m][i], s.value[m], ulps));
                    for (std::size_t j = 0; j < 2; ++j) CHECK(same(jac.spans[2 * m + j][i], s.jacobian[m][j], ulps));
                }
                for (std::size_t m = 0; m < 3; ++m) {
                    CHECK(same(v3.spans[m][i], c.value[m], ulps));
                    CHECK(same(col.spans[m][i], c.jacobian[m][0], ulps));
                }
            }
        }
    });
    // The Jacobian of x·y + sin(z), x/y - z² by (z, x) at one point, in closed form.
    const std::array<T, 3> at{T(1.5), T(0.75), T(0.5)};
    const auto s = square.jacobian(at);
    CHECK(same(s.jacobian[0][0], T(std::cos(0.5)), ulps));
    CHECK(same(s.jacobian[0][1], T(0.75), 0));
    CHECK(same(s.jacobian[1][0], T(-1.0), 0));
    CHECK(same(s.jacobian[1][1], T(1 / 0.75), 2));
    // A broadcast variable is splatted: the same Jacobian as with its values spelled out.
    const auto p = random_points<T>(3, 9, 0.5, 2.0, 3);
    soa<T> vb(2, 9), jb(4, 9);
    square.jacobian_batch(std::tuple{std::span<const T>(p.spans[0]), gradc::broadcast(T(1.25)),
                                     std::span<const T>(p.spans[2])},
                          vb.template out<2>(), jb.template out<4>());
    for (std::size_t i = 0; i < 9; ++i) {
        const auto r = square.jacobian(std::array<T, 3>{p.spans[0][i], T(1.25), p.spans[2][i]});
        for (std::size_t m = 0; m < 2; ++m)
            for (std::size_t j = 0; j < 2; ++j) CHECK(same(jb.spans[2 * m + j][i], r.jacobian[m][j], ulps));
    }
    // One span per Jacobian entry: checked before anything is written.
    soa<T> three(3, 9);
    CHECK_THROWS_WITH(square.jacobian_batch(p.template in<3>(), vb.template out<2>(), three.template out<3>()),
                      Catch::Matchers::Contains("jacobian_batch") && Catch::Matchers::Contains("`jac`") &&
                          Catch::Matchers::Contains("expected 4"));
}

#endif  // GRADC_TEST_NO_FP_CONTRACT

TEMPLATE_TEST_CASE("gradient_batch with wrt() fills one span per wrt variable, in wrt order", "[simd]", double,
                   float) {
    auto [a, b, c] = gradc::variables<3>();
    const auto k = gradc::compile(a * b * b + c, gradc::wrt(c, a));
    check_against_scalar<TestType>(k, -2.0, 2.0, arithmetic_ulps);
}

TEMPLATE_TEST_CASE("value_batch and jvp_batch of a kernel with two outputs", "[simd]", double, float) {
    using T = TestType;
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(x * y, x / y - y);
    for_each_arch([&]<class A>(A arch) {
        constexpr std::size_t L = batch<T, A>::size;
        for (std::size_t n = 0; n <= 3 * L + 1; ++n) {
            const auto p = random_points<T>(2, n, 0.5, 2.0, unsigned(n));
            const auto d = random_points<T>(2, n, -1, 1, 7 + unsigned(n));
            soa<T> v(2, n), vj(2, n), t(2, n);
            k.value_batch(p.template in<2>(), v.template out<2>(), arch);
            k.jvp_batch(p.template in<2>(), d.template in<2>(), vj.template out<2>(), t.template out<2>(), arch);
            for (std::size_t i = 0; i < n; ++i) {
                const auto s = k.jvp(std::array<T, 2>{p.spans[0][i], p.spans[1][i]},
                                     std::array<T, 2>{d.spans[0][i], d.spans[1][i]});
                for (std::size_t m = 0; m < 2; ++m) {
                    CHECK(same(v.spans[m][i], s.value[m], arithmetic_ulps));
                    CHECK(same(vj.spans[m][i], s.value[m], arithmetic_ulps));
                    CHECK(same(t.spans[m][i], s.tangent[m], arithmetic_ulps));
                }
            }
        }
    });
}

TEMPLATE_TEST_CASE("vjp_batch equals vjp at every point, every lane and the tail", "[simd]", double, float) {
    using T = TestType;
    auto [x, y, z] = gradc::variables<3>();
    // Two outputs, derivatives by z and x only (in that order).
    const auto k = gradc::compile(x * y + sin(z), x / y - z * z, gradc::wrt(z, x));
    for_each_arch([&]<class A>(A arch) {
        constexpr std::size_t L = batch<T, A>::size;
        for (std::size_t n = 0; n <= 3 * L + 1; ++n) {
            const auto p = random_points<T>(3, n, 0.5, 2.0, 11 + unsigned(n));
            const auto w = random_points<T>(2, n, -1, 1, 17 + unsigned(n));
            soa<T> g(2, n);
            k.vjp_batch(p.template in<3>(), w.template in<2>(), g.template out<2>(), arch);
            for (std::size_t i = 0; i < n; ++i) {
                const auto s = k.vjp(std::array<T, 3>{p.spans[0][i], p.spans[1][i], p.spans[2][i]},
                                     std::array<T, 2>{w.spans[0][i], w.spans[1][i]});
                for (std::size_t j = 0; j < 2; ++j) CHECK(same(g.spans[j][i], s.gradient[j], arithmetic_ulps + 2));
            }
        }
    });
    // One weight span per output, one gradient span per wrt variable: checked first.
    const auto p = random_points<T>(3, 4, 0.5, 2.0, 1);
    const auto w1 = random_points<T>(1, 4, -1, 1, 2);
    soa<T> g(2, 4);
    CHECK_THROWS_WITH(k.vjp_batch(p.template in<3>(), w1.template in<1>(), g.template out<2>()),
                      Catch::Matchers::Contains("vjp_batch") && Catch::Matchers::Contains("weights"));
}

#ifndef GRADC_TEST_NO_FP_CONTRACT
TEMPLATE_TEST_CASE("max and min propagate NaN in batch calls as in scalar calls", "[simd]", double, float) {
    // xsimd evaluates a != a as an ordered comparison; the rules test isnan instead.
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(max(x, y) + min(x, y) * 2);
    const TestType nan = std::numeric_limits<TestType>::quiet_NaN();
    std::vector<TestType> xs(19), ys(19), v(19), gx(19), gy(19);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        xs[i] = i % 3 == 0 ? nan : TestType(0.5) * TestType(i);
        ys[i] = i % 4 == 0 ? nan : TestType(3);
    }
    const std::array<std::span<const TestType>, 2> in{xs, ys};
    const std::array<std::span<TestType>, 2> grad{gx, gy};
    k.gradient_batch(in, std::span<TestType>(v), grad);
    for (std::size_t i = 0; i < xs.size(); ++i) {
        INFO("point " << i);
        const auto s = k.gradient(xs[i], ys[i]);
        CHECK(std::isnan(v[i]) == (std::isnan(xs[i]) || std::isnan(ys[i])));
        CHECK(std::isnan(s.value) == std::isnan(v[i]));
        CHECK(gx[i] == s.gradient[0]);
        CHECK(gy[i] == s.gradient[1]);
    }
}

TEMPLATE_TEST_CASE("pow in batch calls has C's special values", "[simd]", double, float) {
    // xsimd 8.1's batch pow gave 0 for pow(±0, b), NaN for pow(±inf, 0), pow(nan, 0) and
    // pow(±1, ±inf), the wrong sign for a negative base with a huge even exponent, and
    // wrong magnitudes for subnormal bases (rules::power). Every pair of this grid must
    // equal std::pow: bit for bit where the result is 0, ±inf, ±1 or NaN, within the
    // batch pow's accuracy (exp(b·log a)) elsewhere.
    using T = TestType;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T tiny = std::numeric_limits<T>::denorm_min() * T(1000);
    const std::vector<T> bases{-inf, -2, -1, T(-0.5), T(-0.0), 0, T(0.5), 1, 2, inf, nan, tiny};
    const std::vector<T> exponents{-inf, -3, T(-2.5), -1, T(-0.5), T(-0.0), 0, T(0.5), 1, 2, 3, inf, nan,
                                   T(1e30), T(-1e30), std::numeric_limits<T>::denorm_min()};
    std::vector<T> xs, ys;
    for (T a : bases)
        for (T b : exponents) {
            xs.push_back(a);
            ys.push_back(b);
        }
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(pow(x, y));
    std::vector<T> v(xs.size());
    const std::array<std::span<const T>, 2> in{xs, ys};
    k.value_batch(in, std::span<T>(v));
    for (std::size_t i = 0; i < xs.size(); ++i) {
        INFO("pow(" << xs[i] << ", " << ys[i] << ")");
        CHECK(gradc::test::matches_c_result(v[i], T(std::pow(xs[i], ys[i])), T(std::is_same_v<T, double> ? 1e-13 : 1e-5)));
    }
    // d/dx pow(x, 1) at 0 is 1 (it was 0: 1·pow(0, 0) with the batch pow's 0).
    const auto k1 = gradc::compile(pow(x, 1.0) + y * 0);
    const std::vector<T> zeros(9, T(0)), ones(9, T(1));
    std::vector<T> val(9), gx(9), gy(9);
    const std::array<std::span<const T>, 2> in1{zeros, ones};
    const std::array<std::span<T>, 2> grad{gx, gy};
    k1.gradient_batch(in1, std::span<T>(val), grad);
    for (std::size_t i = 0; i < 9; ++i) CHECK(gx[i] == T(1));
}

TEMPLATE_TEST_CASE("logarithms, cbrt, logit and pow at subnormal arguments agree with scalar calls", "[simd]", double,
                   float) {
    // xsimd 8.1's double batch log, log2, log10 and cbrt treated a subnormal argument as
    // normal: log(1e-310) was -746.52 instead of -713.80 (gradc/math/logarithm.hpp).
    using T = TestType;
    const T tiny = std::numeric_limits<T>::denorm_min();
    const T smallest_normal = std::numeric_limits<T>::min();
    std::vector<T> xs{tiny, tiny * 3, tiny * 1000, smallest_normal / 2, smallest_normal * T(0.999), smallest_normal,
                      T(1e-3), T(0.25)};
    if constexpr (std::is_same_v<T, double>) xs.insert(xs.end(), {1e-310, 4e-320, 2.2e-308});
    const std::size_t n = xs.size();
    std::vector<T> negated(n);
    for (std::size_t i = 0; i < n; ++i) negated[i] = -xs[i];
    auto [x, y] = gradc::variables<2>();
    const auto logs = gradc::compile(log(x) + 2 * log2(x) + 3 * log10(x) + logit(x) + pow(x, y) + y * 0);
    const auto root = gradc::compile(cbrt(x) + y * 0);
    const std::vector<T> halves(n, T(0.5));
    // Relative: the values are as small as 1e-108 (cbrt), where `same` is absolute.
    const double rtol = (std::is_same_v<T, double> ? 8 : 4) * std::numeric_limits<T>::epsilon();
    const auto agree = [&](T batch_value, T scalar_value) {
        return gradc::test::close(batch_value, scalar_value, rtol, 0);
    };
    for_each_arch([&]<class A>(A arch) {
        CAPTURE(batch<T, A>::size);
        std::vector<T> v(n), gx(n), gy(n);
        const std::array<std::span<T>, 2> grad{gx, gy};
        const std::array<std::span<const T>, 2> in{xs, halves};
        logs.gradient_batch(in, std::span<T>(v), grad, arch);
        for (std::size_t i = 0; i < n; ++i) {
            INFO("x = " << xs[i]);
            const auto s = logs.gradient(xs[i], T(0.5));
            CHECK(agree(v[i], s.value));
            CHECK(agree(gx[i], s.gradient[0]));
            // y·log(x), with the batch pow's accuracy (exp(b·log a), docs/static.md).
            CHECK(gradc::test::close(gy[i], s.gradient[1], std::is_same_v<T, double> ? 1e-13 : 1e-5, 0));
        }
        for (const auto* inputs : {&xs, &negated}) {
            const std::array<std::span<const T>, 2> root_in{*inputs, halves};
            root.gradient_batch(root_in, std::span<T>(v), grad, arch);
            for (std::size_t i = 0; i < n; ++i) {
                INFO("x = " << (*inputs)[i]);
                const auto s = root.gradient((*inputs)[i], T(0.5));
                CHECK(agree(v[i], s.value));
                CHECK(agree(gx[i], s.gradient[0]));
            }
        }
    });
}

TEST_CASE("batch calls accept vectors, spans of spans, and outputs that alias inputs", "[simd]") {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(x1 * x2 + x1);
    std::vector<double> a{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, b(11, 2.0);
    std::vector<std::span<const double>> in{a, b};
    std::vector<double> values(11);
    k.value_batch(in, values);
    for (std::size_t i = 0; i < 11; ++i) CHECK(values[i] == a[i] * 2 + a[i]);
    // In place: the result overwrites the first input.
    const std::array<std::span<const double>, 2> in_place{a, b};
    k.value_batch(in_place, std::span<double>(a));
    for (std::size_t i = 0; i < 11; ++i) CHECK(a[i] == values[i]);
}

TEST_CASE("batch arguments may be std::array or std::vector of vectors, as docs/simd.md says", "[simd]") {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(x1 * x2 + sin(x1));
    const std::array<std::vector<double>, 2> in{std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5},
                                                std::vector<double>(9, 3.0)};
    std::vector<double> values(9);
    std::vector<std::vector<double>> grad(2, std::vector<double>(9));
    k.gradient_batch(in, values, grad);
    std::array<std::vector<double>, 1> jv{std::vector<double>(9)}, tangents{std::vector<double>(9)};
    const std::vector<std::vector<double>> dx{std::vector<double>(9, 1.0), std::vector<double>(9, -1.0)};
    k.jvp_batch(in, dx, jv, tangents);
    for (std::size_t i = 0; i < 9; ++i) {
        const auto g = k.gradient(in[0][i], in[1][i]);
        CHECK(values[i] == g.value);
        CHECK(grad[0][i] == g.gradient[0]);
        CHECK(grad[1][i] == g.gradient[1]);
        CHECK(jv[0][i] == g.value);
        CHECK(tangents[0][i] == Approx(g.gradient[0] - g.gradient[1]));
    }
    // A list of vectors of the wrong length is refused like a list of spans.
    grad[1].resize(8);
    CHECK_THROWS_AS(k.gradient_batch(in, values, grad), gradc::Error);
    // map_reduce: data as vectors of floats.
    auto [x, mu] = gradc::variables<2>();
    const auto sq = gradc::compile((x - mu) * (x - mu), gradc::wrt(mu));
    const std::vector<std::vector<float>> data{std::vector<float>{1, 2, 3, 4, 5}};
    const auto r = sq.map_reduce(data, std::array{1.0f});
    CHECK(r.value == 30.0f);
    CHECK(r.gradient[0] == -20.0f);
}

TEST_CASE("wrong counts and lengths throw gradc::Error naming the argument; nothing is written",
          "[simd]") {
    auto [x1, x2] = gradc::variables<2>();
    const auto k = gradc::compile(x1 * x2);
    std::vector<double> a(10, 1.0), b(10, 2.0), short_b(9, 2.0), c(10, 3.0);
    std::vector<double> values(10, -7.0), g1(10, -7.0), g2(10, -7.0), short_values(9, -7.0), g3(10, -7.0);
    const std::array<std::span<const double>, 2> in{a, b};
    const std::array<std::span<double>, 2> grad{g1, g2};
    auto untouched = [&] {
        for (const auto* v : {&values, &g1, &g2, &g3})
            for (double e : *v) CHECK(e == -7.0);
        for (double e : short_values) CHECK(e == -7.0);
    };
    using Catch::Matchers::Contains;

    SECTION("spans of different lengths") {
        const std::array<std::span<const double>, 2> bad{a, short_b};
        CHECK_THROWS_AS(k.value_batch(bad, values), gradc::Error);
        CHECK_THROWS_WITH(k.gradient_batch(bad, values, grad), Contains("in[1]") && Contains("9 entries"));
    }
    SECTION("wrong number of input spans") {
        const std::array<std::span<const double>, 3> three{a, b, c};
        CHECK_THROWS_WITH(k.value_batch(three, values), Contains("`in`") && Contains("3 spans"));
        const std::array<std::span<const double>, 1> one{a};
        CHECK_THROWS_AS(k.gradient_batch(one, values, grad), gradc::Error);
    }
    SECTION("output of the wrong length") {
        CHECK_THROWS_WITH(k.value_batch(in, short_values), Contains("`values`") && Contains("9 entries"));
        CHECK_THROWS_WITH(k.gradient_batch(in, short_values, grad), Contains("`values`"));
        const std::array<std::span<double>, 2> bad_grad{g1, short_values};
        CHECK_THROWS_WITH(k.gradient_batch(in, values, bad_grad), Contains("grad[1]"));
    }
    SECTION("wrong number of gradient spans") {
        const std::array<std::span<double>, 3> three{g1, g2, g3};
        CHECK_THROWS_WITH(k.gradient_batch(in, values, three), Contains("`grad`") && Contains("3 spans"));
    }
    SECTION("jvp arguments") {
        std::vector<double> t(10, -7.0);
        const std::array<std::span<const double>, 1> one_tangent{a};
        CHECK_THROWS_WITH(k.jvp_batch(in, one_tangent, values, std::span<double>(g3)), Contains("tangents_in"));
        const std::array<std::span<const double>, 2> tangents{a, short_b};
        CHECK_THROWS_WITH(k.jvp_batch(in, tangents, values, std::span<double>(g3)), Contains("tangents_in[1]"));
        CHECK_THROWS_WITH(k.jvp_batch(in, in, values, std::span<double>(short_values)), Contains("tangents_out"));
    }
    untouched();
}
#endif  // GRADC_TEST_NO_FP_CONTRACT

GRADC_SIMD_DIAGNOSTICS_POP
