#pragma once
/// \file
/// How many threads gradc's batch calls and map-reduce use: `gradc::set_num_threads(n)`
/// for the whole program (like `torch::set_num_threads`; the default is every core), or
/// `gradc::threads{n}` as the last argument of one call. One thread runs the calls on the
/// calling thread without oneTBB. Without oneTBB (the Meson feature `tbb` disabled or not
/// found: GRADC_HAS_TBB undefined) every call runs on the calling thread.
///
/// The number of threads never changes a result: batch calls compute each point alone,
/// and map-reduce sums in a tree fixed by the number of points (parallel/reduce.hpp).

#include <atomic>
#include <string>
#include <thread>

#include <gradc/error.hpp>

#ifdef GRADC_HAS_TBB
#include <oneapi/tbb/info.h>
#endif

namespace gradc {

namespace detail {
inline std::atomic<int>& thread_setting() {
    static std::atomic<int> n{0};  // 0: every core
    return n;
}
}  // namespace detail

/// Threads for the batch calls and map-reduce from now on (n ≥ 1).
inline void set_num_threads(int n) {
    if (n < 1) throw Error("gradc::set_num_threads: got " + std::to_string(n) + ", expected at least 1");
    detail::thread_setting().store(n, std::memory_order_relaxed);
}

/// The cores this process may run on: with oneTBB, those of its CPU affinity mask (a
/// program pinned with `taskset -c 3` gets 1); without, the machine's. Read once, at the
/// first call (every batch call asks).
inline int available_cores() {
    static const int cores = [] {
#ifdef GRADC_HAS_TBB
        return oneapi::tbb::info::default_concurrency();
#else
        const unsigned n = std::thread::hardware_concurrency();
        return n == 0 ? 1 : static_cast<int>(n);
#endif
    }();
    return cores;
}

/// The threads a call uses by default: the last set_num_threads, else every core the
/// process may run on.
inline int get_num_threads() {
    const int n = detail::thread_setting().load(std::memory_order_relaxed);
    return n > 0 ? n : available_cores();
}

/// A call's own thread count, as its last argument: `k.map_reduce(data, theta,
/// gradc::threads{4})`; `gradc::threads{4, xsimd::avx2{}}` also picks the architecture.
template <class Arch = void>
struct threads {
    int count;  ///< The number of threads.
    Arch arch{};  ///< The architecture of the call.
    /// `n` threads (at least 1), architecture `a`.
    explicit threads(int n, Arch a = {}) : count(n), arch(a) {
        if (n < 1) throw Error("gradc::threads: got " + std::to_string(n) + ", expected at least 1");
    }
};
/// A thread count without an architecture (the default).
template <>
struct threads<void> {
    int count;  ///< The number of threads.
    /// `n` threads (at least 1).
    explicit threads(int n) : count(n) {
        if (n < 1) throw Error("gradc::threads: got " + std::to_string(n) + ", expected at least 1");
    }
};
threads(int) -> threads<void>;  ///< `threads{4}`.
template <class Arch>
threads(int, Arch) -> threads<Arch>;  ///< `threads{4, xsimd::avx2{}}`.

}  // namespace gradc
