#pragma once
// Sums of contiguous runs: SIMD partial sums in two accumulators, and for long runs the
// chunked, thread-count-independent tree of kernels/parallel.hpp.

#include <cstdint>

#include "parallel.hpp"
#include "simd.hpp"

namespace gradc::kernels {

template <class T>
T sum_run_serial(const T* x, std::int64_t n) {
    std::int64_t i = 0;
    T acc{};
    if constexpr (has_batch<T>) {
        using B = batch<T>;
        constexpr std::int64_t W = B::size;
        B b0(T(0)), b1(T(0));
        for (; i + 2 * W <= n; i += 2 * W) {
            b0 += B::load_unaligned(x + i);
            b1 += B::load_unaligned(x + i + W);
        }
        acc = xsimd::hadd(b0 + b1);
    }
    for (; i < n; ++i) acc += x[i];
    return acc;
}

// Σ x[0..n): long runs in chunks combined along a tree fixed by n, on several threads
// with the same result for any number of them (kernels/parallel.hpp).
template <class T>
T sum_run(const T* x, std::int64_t n) {
    return chunked_sum(x, n, [](const T* c, std::int64_t m) { return sum_run_serial(c, m); });
}

}  // namespace gradc::kernels
