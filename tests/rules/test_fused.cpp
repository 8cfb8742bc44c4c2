// The optional parts of a rule (rules/rule.hpp) against the rule itself:
//  - `eval_with_partials` returns exactly `eval` and `partial`, bit for bit, on double,
//    float and SIMD batches (whose erf/erfc and double tanh come from gradc/math/),
//    over every branch of erf/erfc and tanh and at 0, ±inf and NaN;
//  - `affine_in` holds: the partial does not depend on the operand it is taken for (nor
//    on the result), and a `linear` operand gives 0 at 0.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <boost/hana/for_each.hpp>

#include <approx.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "domains.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

template <class T>
bool same_bits(T a, T b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(a) ==
           std::bit_cast<std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>>(b);
}

/// Points that visit every branch of xsimd's erf/erfc (|a| < 0.65 or 2/3, < 2.2, < 6,
/// beyond) and of the double batches' tanh (|a| < 0.625, beyond, subnormal derivative),
/// the range reductions of sin/cos, and the special values.
std::vector<double> probe_points() {
    std::vector<double> p{0.0, -0.0, 0.624, 0.625, 0.64, 0.65, 0.66, 2.0 / 3, 2.19, 2.2, 2.21, 5.9, 6.0, 6.1, 19.1, 26.0, 27.5, 44.5, 50.0, 355.5, 360.0, 1e3, 1e-300,
                          std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    const std::size_t n = p.size();
    for (std::size_t i = 0; i < n; ++i) p.push_back(-p[i]);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> wide(-8, 8), narrow(-0.6, 0.6);
    for (int i = 0; i < 400; ++i) p.push_back(wide(rng));
    for (int i = 0; i < 64; ++i) p.push_back(narrow(rng));  // whole batches in the first branch
    for (int i = 0; i < 64; ++i) p.push_back(1.0 + narrow(rng));  // ... in the second
    return p;
}

template <class R, class T>
void check_fused_scalars() {
    for (const double d : probe_points()) {
        const T a = static_cast<T>(d);
        const auto f = R::eval_with_partials(a);
        const T y = R::eval(a);
        INFO("rule " << R::name << " at " << d);
        CHECK(same_bits(f.value, y));
        CHECK(same_bits(f.partial[0], gradc::rules::scale(R::partial(gradc::rules::arg<0>, a, y), T(1))));
    }
}

template <class R, class T, class A>
void check_fused_batches() {
    using B = xsimd::batch<T, A>;
    std::vector<T> p;
    for (const double d : probe_points()) p.push_back(static_cast<T>(d));
    while (p.size() % B::size != 0) p.push_back(T(0.5));
    for (std::size_t i = 0; i < p.size(); i += B::size) {
        const B a = B::load_unaligned(p.data() + i);
        const auto f = R::eval_with_partials(a);
        const B y = R::eval(a);
        const B d = R::partial(gradc::rules::arg<0>, a, y);
        for (std::size_t l = 0; l < B::size; ++l) {
            INFO("rule " << R::name << " at " << p[i + l] << " (lane " << l << " of " << B::size << ")");
            CHECK(same_bits(f.value.get(l), y.get(l)));
            CHECK(same_bits(f.partial[0].get(l), d.get(l)));
        }
    }
}

}  // namespace

TEST_CASE("eval_with_partials equals eval and partial bit for bit", "[rules][fused]") {
    std::size_t fused = 0;
    boost::hana::for_each(gradc::rules::all, [&](auto rule) {
        using R = typename decltype(rule)::type;
        using double_batch = xsimd::batch<double, gradc::simd::default_arch>;
        if constexpr (gradc::rules::fused_rule<R, double> || gradc::rules::fused_rule<R, double_batch>) {
            static_assert(R::arity == 1, "extend this test to binary fused rules");
            ++fused;
            if constexpr (gradc::rules::fused_rule<R, double>) check_fused_scalars<R, double>();
            if constexpr (gradc::rules::fused_rule<R, float>) check_fused_scalars<R, float>();
            check_fused_batches<R, double, gradc::simd::default_arch>();
            if constexpr (gradc::rules::fused_rule<R, xsimd::batch<float, gradc::simd::default_arch>>)
                check_fused_batches<R, float, gradc::simd::default_arch>();
            if constexpr (xsimd::sse2::supported()) {
                check_fused_batches<R, double, xsimd::sse2>();
                if constexpr (gradc::rules::fused_rule<R, xsimd::batch<float, xsimd::sse2>>)
                    check_fused_batches<R, float, xsimd::sse2>();
            }
        }
    });
    CHECK(fused == 5);  // sin, cos, erf, erfc; tanh on batches only
}

TEST_CASE("an affine operand's partial reads only the other operands", "[rules][affine]") {
    using gradc::rules::affinity;
    std::size_t checked = 0;
    boost::hana::for_each(gradc::rules::all, [&](auto rule) {
        using R = typename decltype(rule)::type;
        for (const gradc::test::point& p : gradc::test::points<R>()) {
            [&]<int... K>(std::integer_sequence<int, K...>) {
                (
                    [&] {
                        if constexpr (gradc::rules::affine_in<R, K> != affinity::none) {
                            ++checked;
                            INFO("rule " << R::name << ", operand " << K);
                            // Operand K (and the result) moved: the partial stays.
                            auto partial = [&](double v) {
                                gradc::test::point q = p;
                                q[std::is_same_v<R, gradc::rules::where> ? K - 1 : K] = v;
                                auto at = [&](const auto&... a) {
                                    return gradc::rules::scale(R::partial(gradc::rules::arg<K>, a..., R::eval(a...)), 1.0);
                                };
                                auto value = [&](const auto&... a) { return R::eval(a...); };
                                if constexpr (std::is_same_v<R, gradc::rules::where>) {
                                    return std::pair{at(q[2] != 0, q[0], q[1]), value(q[2] != 0, q[0], q[1])};
                                } else if constexpr (R::arity == 1) {
                                    return std::pair{at(q[0]), value(q[0])};
                                } else {
                                    return std::pair{at(q[0], q[1]), value(q[0], q[1])};
                                }
                            };
                            const auto [p1, y1] = partial(1.5);
                            const auto [p2, y2] = partial(-3.25);
                            CHECK(p1 == p2);
                            // Affine: the value moves by partial × step.
                            CHECK_THAT(y1 - y2, gradc::test::is_close_to(p1 * 4.75, 1e-14, 1e-14));
                            if constexpr (gradc::rules::affine_in<R, K> == affinity::linear) {
                                CHECK(partial(0.0).second == 0.0);
                            }
                        }
                    }(),
                    ...);
            }(std::make_integer_sequence<int, R::arity>{});
        }
    });
    CHECK(checked > 0);
}

TEST_CASE("a kernel's derivative programs give the value its primal gives", "[rules][fused]") {
    // The derivative programs evaluate sin, cos, erf, erfc (and tanh on batches) fused with their partials;
    // the value-only primal does not. Both must agree bit for bit, on doubles and batches.
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * erfc(y) + cos(x * y) - erf(x - y) + tanh(x + y));
    for (const double a : {-2.5, -0.3, 0.0, 0.7, 1.9}) {
        for (const double b : {-1.1, 0.2, 0.66, 2.4, 7.0}) {
            CHECK(same_bits(k.gradient(a, b).value, k(a, b)));
        }
    }
    const std::size_t n = 203;
    std::vector<double> xs(n), ys(n), v(n), g(n), gx(n), gy(n);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> d(-4, 4);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = d(rng);
        ys[i] = d(rng);
    }
    const std::array<std::span<const double>, 2> in{xs, ys};
    k.value_batch(in, std::span<double>(v));
    const std::array<std::span<double>, 2> grad{gx, gy};
    k.gradient_batch(in, std::span<double>(g), grad);
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(same_bits(g[i], v[i]));
        const auto s = k.gradient(xs[i], ys[i]);
        CHECK_THAT(gx[i], gradc::test::is_close_to(s.gradient[0], 1e-13, 1e-13));
        CHECK_THAT(gy[i], gradc::test::is_close_to(s.gradient[1], 1e-13, 1e-13));
    }
}

GRADC_SIMD_DIAGNOSTICS_POP
