#pragma once
/// The run-time dispatch test's kernels and the batch calls it runs per architecture.
/// `run_batch_calls<A, T>` is only declared here: its definition (kernels_impl.hpp) is
/// compiled once per architecture, in kernels_<arch>.cpp with that architecture's flags,
/// and the portable test (test_dispatch.cpp, baseline flags) only calls it.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <gradc/simd/dispatch.hpp>

namespace gradc_dispatch_test {

/// The kernels' inputs: x[0..4] one span each, all N long.
template <class T>
struct inputs {
    std::array<std::vector<T>, 5> x;
    std::size_t n = 0;
};

/// What every architecture computes: value and gradient of the seed kernel (x0, x1) and
/// of the Black-Scholes kernel (x0..x4), value_batch of Black-Scholes, a jvp of the seed
/// kernel, and the map-reduce normal log-likelihood of data x0 at θ = (mu, sigma).
template <class T>
struct outputs {
    std::vector<T> seed_value, seed_jvp, bs_value, bs_value_only;
    std::array<std::vector<T>, 2> seed_grad;
    std::array<std::vector<T>, 5> bs_grad;
    T loglik = 0;
    std::array<T, 2> loglik_grad{};
    const char* arch = "";
};

template <class A, class T>
void run_batch_calls(A, const inputs<T>& in, outputs<T>& out);

/// The scalar reference, on the same kernels (kernels_impl.hpp, compiled by the test).
template <class T>
outputs<T> run_scalar(const inputs<T>& in);

}  // namespace gradc_dispatch_test
