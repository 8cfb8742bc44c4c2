#pragma once
/// The definition of run_batch_calls (kernels.hpp): included only by the per-architecture
/// files kernels_<arch>.cpp, each compiled with its architecture's flags.

#include "kernels_impl.hpp"

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace gradc_dispatch_test {

template <class A, class T>
void run_batch_calls(A arch, const inputs<T>& in, outputs<T>& out) {
    using cspan = std::span<const T>;
    const std::array<cspan, 2> seed_in{cspan(in.x[0]), cspan(in.x[1])};
    const std::array<cspan, 5> bs_in{cspan(in.x[0]), cspan(in.x[1]), cspan(in.x[2]), cspan(in.x[3]),
                                     cspan(in.x[4])};
    const std::array<std::span<T>, 2> seed_grad{out.seed_grad[0], out.seed_grad[1]};
    std::array<std::span<T>, 5> bs_grad;
    for (std::size_t j = 0; j < 5; ++j) bs_grad[j] = out.bs_grad[j];
    const std::array<cspan, 2> tangents{cspan(in.x[2]), cspan(in.x[3])};

    seed_kernel().gradient_batch(seed_in, std::span<T>(out.seed_value), seed_grad, arch);
    seed_kernel().jvp_batch(seed_in, tangents, std::span<T>(out.seed_value), std::span<T>(out.seed_jvp), arch);
    black_scholes_kernel().gradient_batch(bs_in, std::span<T>(out.bs_value), bs_grad, arch);
    black_scholes_kernel().value_batch(bs_in, std::span<T>(out.bs_value_only), arch);
    const std::array<cspan, 1> data{cspan(in.x[0])};
    const auto r = loglik_kernel().map_reduce(data, std::array<T, 2>{T(1.25), T(0.75)}, arch);
    out.loglik = r.value;
    out.loglik_grad = {r.gradient[0], r.gradient[1]};
    out.arch = A::name();
}

}  // namespace gradc_dispatch_test

GRADC_SIMD_DIAGNOSTICS_POP
