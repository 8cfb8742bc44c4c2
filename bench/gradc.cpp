/// gradc: the five kernels as gradc expressions, compiled once, run by the batch calls
/// (gradc-batch) and by the scalar gradient per point (gradc-scalar).

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <utility>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "bench.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
namespace {

auto seed_kernel() {
    auto [x1, x2] = gradc::variables<2>();
    return gradc::compile(sin(x1) + x1 * x2);
}

auto normal_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma) - half_log_2pi);
}

auto loglik_kernel() {
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    return gradc::compile(-0.5 * (z * z) - log(sigma) - half_log_2pi, gradc::wrt(mu, sigma));
}

auto black_scholes_kernel() {
    auto [s, k, t, r, v] = gradc::variables<5>();
    const auto vs = v * sqrt(t);
    const auto d1 = (log(s / k) + (r + 0.5 * (v * v)) * t) / vs;
    const auto d2 = d1 - vs;
    constexpr double c = -0.5 * std::numbers::sqrt2;
    return gradc::compile(s * (0.5 * erfc(d1 * c)) - k * exp(-(r * t)) * (0.5 * erfc(d2 * c)));
}

template <int J, class X>
auto mlp_unit(const X& x) {
    const auto& [x0, x1, x2, x3] = x;
    return mlp_u(J) * tanh(mlp_w(0, J) * x0 + mlp_w(1, J) * x1 + mlp_w(2, J) * x2 + mlp_w(3, J) * x3);
}

auto mlp_kernel() {
    const auto x = gradc::variables<4>();
    return [&]<int... J>(std::integer_sequence<int, J...>) {
        return gradc::compile((mlp_unit<J>(x) + ...));
    }(std::make_integer_sequence<int, mlp_hidden>{});
}

/// gradient_batch over the problem's spans.
template <class Kernel>
void batch_gradient(const Kernel& k, const problem& p) {
    std::array<std::span<const double>, Kernel::arity> in;
    for (std::size_t j = 0; j < Kernel::arity; ++j) in[j] = {p.in[j], p.n};
    std::array<std::span<double>, Kernel::wrt_count> grad;
    for (std::size_t j = 0; j < Kernel::wrt_count; ++j) grad[j] = {p.out[1 + j], p.n};
    k.gradient_batch(in, std::span<double>(p.out[0], p.n), grad);
}

/// k.gradient(x) at every point, on doubles.
template <class Kernel>
void scalar_gradient(const Kernel& k, const problem& p) {
    for (std::size_t i = 0; i < p.n; ++i) {
        std::array<double, Kernel::arity> x;
        for (std::size_t j = 0; j < Kernel::arity; ++j) x[j] = p.in[j][i];
        const auto g = k.gradient(x);
        p.out[0][i] = g.value;
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j) p.out[1 + j][i] = g.gradient[j];
    }
}

}  // namespace

namespace GRADC_BENCH_ARCH {

void register_gradc(registry& r) {
    auto& batch = r["gradc-batch"];
    auto& scalar = r["gradc-scalar"];
    auto both = [&](const char* name, auto k) {
        batch[name] = [k](const problem& p) { batch_gradient(k, p); };
        scalar[name] = [k](const problem& p) { scalar_gradient(k, p); };
    };
    both("seed", seed_kernel());
    both("normal_logpdf", normal_kernel());
    both("black_scholes", black_scholes_kernel());
    both("mlp", mlp_kernel());

    const auto ll = loglik_kernel();
    batch["loglik"] = [ll](const problem& p) {
        const std::array<std::span<const double>, 1> data{std::span<const double>(p.in[0], p.n)};
        const auto s = ll.map_reduce(data, std::array{loglik_mu, loglik_sigma});
        p.out[0][0] = s.value;
        p.out[1][0] = s.gradient[0];
        p.out[2][0] = s.gradient[1];
    };
    scalar["loglik"] = [ll](const problem& p) {
        double v = 0, gm = 0, gs = 0;
        for (std::size_t i = 0; i < p.n; ++i) {
            const auto g = ll.gradient(p.in[0][i], loglik_mu, loglik_sigma);
            v += g.value;
            gm += g.gradient[0];
            gs += g.gradient[1];
        }
        p.out[0][0] = v;
        p.out[1][0] = gm;
        p.out[2][0] = gs;
    };
}

}  // namespace GRADC_BENCH_ARCH

}  // namespace bench

GRADC_SIMD_DIAGNOSTICS_POP
