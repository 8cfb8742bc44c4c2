#pragma once
// Large elementwise operations and reductions of the dynamic mode on several threads
// (gradc::set_num_threads; oneTBB when gradc is built with it: parallel/reduce.hpp).
//
//  - Elementwise: [0, n) cut into chunks of `elementwise_grain` elements, each computed
//    alone; below two chunks, or on one thread, the calling thread does it all. Below
//    2¹⁹ elements an operation's time is mostly the allocation of its result, and two
//    threads gained nothing (docs/scaling.md).
//  - Sums: a run longer than `sum_chunk` elements is summed chunk by chunk and the chunk
//    sums combined along a tree fixed by n: the same result for any number of threads
//    (and on one thread), as the static mode's map-reduce.

#include <algorithm>
#include <cstdint>

#include <gradc/parallel/reduce.hpp>
#include <gradc/parallel/threads.hpp>

namespace gradc::kernels {

inline constexpr std::int64_t elementwise_grain = std::int64_t{1} << 18;
inline constexpr std::int64_t sum_chunk = std::int64_t{1} << 14;

/// f(begin, end) over [0, n), on gradc::get_num_threads() threads for large n, in chunks
/// of `grain` elements.
template <class F>
void parallel_ranges(std::int64_t n, F&& f, std::int64_t grain = elementwise_grain) {
    const std::int64_t chunks = (n + grain - 1) / grain;
    const int threads = get_num_threads();
    if (chunks < 2 || threads < 2) {
        f(std::int64_t{0}, n);
        return;
    }
    parallel::for_each_chunk(static_cast<std::size_t>(chunks), threads, [&](std::size_t c) {
        const std::int64_t begin = static_cast<std::int64_t>(c) * grain;
        f(begin, std::min(n, begin + grain));
    });
}

/// Σ x[0..n) by `run_sum` on chunks of sum_chunk elements combined along the fixed tree.
template <class T, class RunSum>
T chunked_sum(const T* x, std::int64_t n, RunSum run_sum) {
    if (n <= sum_chunk) return run_sum(x, n);
    const std::int64_t chunks = (n + sum_chunk - 1) / sum_chunk;
    return parallel::tree_reduce<T>(
        static_cast<std::size_t>(chunks), get_num_threads(),
        [&](std::size_t c) {
            const std::int64_t begin = static_cast<std::int64_t>(c) * sum_chunk;
            return run_sum(x + begin, std::min(n, begin + sum_chunk) - begin);
        },
        [](const T& a, const T& b) { return a + b; });
}

}  // namespace gradc::kernels
