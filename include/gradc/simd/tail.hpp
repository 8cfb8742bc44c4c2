#pragma once
/// \file
/// Running a per-batch function over N points held as structure of arrays: full batches
/// by unaligned loads and stores straight from the caller's spans, then one partial batch
/// for the N mod lanes remaining points; on several threads, in chunks of points.
///
/// The partial batch goes through a small stack buffer. xsimd 8.1 has no masked load or
/// store for every architecture (AVX-512 has them as instructions, SSE2/AVX2 do not), and
/// reading past the end of a span is not allowed. The buffer costs one copy of at most
/// lanes-1 values per span, once per call: a few nanoseconds against N × (nanoseconds per
/// point), and it is the same code on every architecture. Unused lanes repeat the last
/// real point, so they compute on real data: no spurious NaN, infinity, or slow
/// denormal path, and nothing from them is stored or summed.

#include <array>
#include <cstddef>
#include <algorithm>
#include <cstring>
#include <utility>

#include <gradc/parallel/reduce.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::simd::detail {

/// The m < lanes points from src as one batch, the last repeated in the lanes past m (a
/// value the kernel already computes on, so the padding lanes raise nothing new; callers
/// mask them out of sums with first_lanes).
template <class A, class T>
xsimd::batch<T, A> load_padded(const T* src, std::size_t m) {
    using B = xsimd::batch<T, A>;
    alignas(A::alignment()) T buffer[B::size];
    for (std::size_t l = 0; l < B::size; ++l) buffer[l] = src[std::min(l, m - 1)];
    return B::load_aligned(buffer);
}

/// The partial batch of run_batch_range: the m < lanes points from `i` through padded
/// buffers. Out of line, so that flattening run_batch_range inlines the kernel once.
template <class A, class T, std::size_t K, std::size_t M, class F>
[[gnu::noinline]] void run_partial_batch(std::size_t i, std::size_t m, const std::array<const T*, K>& in,
                                         const std::array<T*, M>& out, F& f) {
    using B = xsimd::batch<T, A>;
    std::array<B, K> x;
    for (std::size_t j = 0; j < K; ++j) x[j] = load_padded<A>(in[j] + i, m);
    alignas(A::alignment()) T buffer[B::size];
    const std::array<B, M> y = f(x);
    for (std::size_t k = 0; k < M; ++k) {
        y[k].store_aligned(buffer);
        std::memcpy(out[k] + i, buffer, m * sizeof(T));
    }
}

/// A per-batch function with values made once per range of points, before its loop:
/// `body(x, state)` with `state = start()`. The state lives in the loop's own frame, so
/// the compiler knows the output stores cannot change it, keeps it in registers and
/// hoists what is computed from it alone (a reciprocal 1/σ); read through a reference
/// to the caller's frame, it was loaded again, and its reciprocal divided again, after
/// every store (lower/hoisted_program.hpp, Note [Hoisted broadcast work]).
template <class Start, class Body>
struct with_state {
    Start start;
    Body body;
};
/// A with_state of these two (a function: clang 14 deduces no aggregate's arguments).
template <class Start, class Body>
with_state<Start, Body> make_with_state(Start start, Body body) {
    return {std::move(start), std::move(body)};
}
template <class F>
inline constexpr bool has_state = false;
template <class Start, class Body>
inline constexpr bool has_state<with_state<Start, Body>> = true;

/// Calls `f(x)` (x: std::array of K batches, one per input span) for every batch of
/// points in [begin, end) and stores what it returns (std::array of M batches) into the
/// output spans; a partial batch only at the end. For a `with_state` f, its state is made
/// first and passed to every call.
///
/// Flattened: the kernel's program is inlined into the loop over full batches, whatever
/// its size (the partial batch is out of line, so it is inlined once). Left to its
/// limits, g++ 12 kept the largest rules (tanh, erfc) of a big kernel out of line, one
/// call per node and batch, or, once those were forced inline (lower/steps.hpp,
/// `evaluate`), kept f itself out of the loop. Measured at 10⁴ points
/// (docs/benchmark-history.md, "Batch calls flattened"): the mlp kernel's HVP 46.6 → 21.4 ns per point.
template <class A, class T, std::size_t K, std::size_t M, class F>
[[gnu::flatten]] void run_batch_range(std::size_t begin, std::size_t end, const std::array<const T*, K>& in,
                                      const std::array<T*, M>& out, F& f) {
    using B = xsimd::batch<T, A>;
    constexpr std::size_t L = B::size;
    std::size_t i = begin;
    if constexpr (has_state<F>) {
        // The state's address must not escape: the partial batch (out of line) gets a copy.
        const auto state = f.start();
        for (; i + L <= end; i += L) {
            std::array<B, K> x;
            for (std::size_t j = 0; j < K; ++j) x[j] = B::load_unaligned(in[j] + i);
            const std::array<B, M> y = f.body(x, state);
            for (std::size_t k = 0; k < M; ++k) y[k].store_unaligned(out[k] + i);
        }
        if (i < end) {
            auto last = [&f, copy = state](const std::array<B, K>& x) { return f.body(x, copy); };
            run_partial_batch<A>(i, end - i, in, out, last);
        }
    } else {
        for (; i + L <= end; i += L) {
            std::array<B, K> x;
            for (std::size_t j = 0; j < K; ++j) x[j] = B::load_unaligned(in[j] + i);
            const std::array<B, M> y = f(x);
            for (std::size_t k = 0; k < M; ++k) y[k].store_unaligned(out[k] + i);
        }
        if (i < end) run_partial_batch<A>(i, end - i, in, out, f);
    }
}

/// Points per chunk when a batch call runs on several threads: a multiple of every
/// batch width, large enough that a chunk costs far more than scheduling it.
inline constexpr std::size_t points_per_chunk = 8192;

/// All n points, on `threads` threads in chunks of `points_per_chunk` (each point is
/// computed alone, so the result does not depend on the split).
template <class A, class T, std::size_t K, std::size_t M, class F>
void run_batches(std::size_t n, const std::array<const T*, K>& in, const std::array<T*, M>& out, F&& f,
                 int threads = 1) {
    const std::size_t chunks = (n + points_per_chunk - 1) / points_per_chunk;
    if (threads <= 1 || chunks <= 1 || available_cores() <= 1) {
        run_batch_range<A>(0, n, in, out, f);
        return;
    }
    parallel::for_each_chunk(chunks, threads, [&](std::size_t c) {
        auto local = f;  // a copy per chunk: f may keep state between batches
        run_batch_range<A>(c * points_per_chunk, std::min(n, (c + 1) * points_per_chunk), in, out, local);
    });
}

/// A mask with the first m lanes set: the real points of a partial batch.
template <class A, class T>
xsimd::batch_bool<T, A> first_lanes(std::size_t m) {
    using B = xsimd::batch<T, A>;
    alignas(A::alignment()) T index[B::size];
    for (std::size_t l = 0; l < B::size; ++l) index[l] = static_cast<T>(l);
    return B::load_aligned(index) < B(static_cast<T>(m));
}

}  // namespace gradc::simd::detail
