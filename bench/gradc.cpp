/// gradc: the six kernels as gradc expressions, compiled once, run by the batch calls
/// (gradc-batch) and by the scalar gradient per point (gradc-scalar).

#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <tuple>
#include <utility>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "bench.hpp"
#include "gradc_kernels.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace bench {
namespace {

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

    // μ and σ broadcast: log σ and its partial computed once per call.
    const auto nb = normal_kernel();
    batch["normal_broadcast"] = [nb](const problem& p) {
        const std::tuple in{std::span<const double>(p.in[0], p.n), gradc::broadcast(broadcast_mu),
                            gradc::broadcast(broadcast_sigma)};
        const std::array<std::span<double>, 3> grad{std::span<double>(p.out[1], p.n), std::span<double>(p.out[2], p.n),
                                                    std::span<double>(p.out[3], p.n)};
        nb.gradient_batch(in, std::span<double>(p.out[0], p.n), grad);
    };
    scalar["normal_broadcast"] = [nb](const problem& p) {
        for (std::size_t i = 0; i < p.n; ++i) {
            const auto g = nb.gradient(p.in[0][i], broadcast_mu, broadcast_sigma);
            p.out[0][i] = g.value;
            for (std::size_t j = 0; j < 3; ++j) p.out[1 + j][i] = g.gradient[j];
        }
    };

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
