#pragma once
// Sums of contiguous runs: SIMD partial sums in two accumulators, and for long runs the
// chunked, thread-count-independent tree of kernels/parallel.hpp; sums of many short rows
// (a sum over a short last dimension) eight rows at a time.

#include <cstdint>
#include <limits>

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

/// The row length below which sum_run_serial adds one element after another: shorter than
/// its two-batch SIMD loop (without a batch type, every length).
template <class T>
constexpr std::int64_t serial_row_limit() {
    if constexpr (has_batch<T>) {
        return 2 * static_cast<std::int64_t>(batch<T>::size);
    } else {
        return std::numeric_limits<std::int64_t>::max();
    }
}

/// dst[r] = finish(Σ row r) for `rows` contiguous rows of `length` elements. A short row's
/// sum is one chain of dependent additions, so one row at a time waits on the adder's
/// latency (a [K, n, 10] tensor summed over its last dimension: 3.8 ns a row). Here eight
/// rows are summed side by side, each in its own accumulator and in the same order as
/// sum_run: the same results, bit for bit, with eight chains in flight.
template <class T, class Finish>
void sum_rows(const T* x, std::int64_t rows, std::int64_t length, Finish finish) {
    constexpr std::int64_t side_by_side = 8;
    std::int64_t r = 0;
    if (length < serial_row_limit<T>()) {
        for (; r + side_by_side <= rows; r += side_by_side) {
            const T* row = x + r * length;
            T acc[side_by_side] = {};
            for (std::int64_t j = 0; j < length; ++j)
                for (std::int64_t k = 0; k < side_by_side; ++k) acc[k] += row[k * length + j];
            for (std::int64_t k = 0; k < side_by_side; ++k) finish(r + k, acc[k]);
        }
    }
    for (; r < rows; ++r) finish(r, sum_run(x + r * length, length));
}

}  // namespace gradc::kernels
