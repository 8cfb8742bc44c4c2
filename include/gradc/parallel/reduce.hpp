#pragma once
/// \file
/// Splitting work over threads (oneTBB) so that the number of threads never changes a
/// result:
///  - `for_each_chunk(count, threads, f)`: f(c) for c in [0, count), chunks of points
///    written independently (batch calls);
///  - `tree_reduce(count, threads, leaf, combine)`: combine over leaf(b), b in [0,
///    count), along a tree fixed by `count` alone: [lo, hi) is split at its midpoint
///    until one leaf is left, and the two halves are combined left then right. With one
///    thread the same tree is walked on the calling thread, so map-reduce results are
///    bitwise identical for any thread count and any scheduling. Pairwise combination
///    also keeps the rounding error of a long sum near O(log n).
/// Both run on the calling thread for one thread, for little work, or without oneTBB.

#include <algorithm>
#include <cstddef>
#include <utility>

#include <gradc/parallel/threads.hpp>

#ifdef GRADC_HAS_TBB
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>
#endif

namespace gradc::parallel {

/// Runs f with `threads` threads (the calling thread included), at most as many as the
/// process's cores: more would only wait for each other (and oneTBB warns about it on
/// standard error). All cores run in oneTBB's own arena; a smaller count gets an arena of
/// its own for the call (making one costs a few microseconds).
template <class F>
void in_arena(int threads, F&& f) {
#ifdef GRADC_HAS_TBB
    if (threads >= available_cores()) {
        f();  // the default arena has every core (or there is one core: no task is spawned)
        return;
    }
    if (threads > 1) {
        oneapi::tbb::task_arena arena(threads);
        arena.execute(std::forward<F>(f));
        return;
    }
#else
    (void)threads;
#endif
    f();
}

/// Calls `f(begin, end)` for `count` items split over `threads` threads (oneTBB; serial without it).
template <class F>
void for_each_chunk(std::size_t count, int threads, F&& f) {
#ifdef GRADC_HAS_TBB
    if (threads > 1 && count > 1 && available_cores() > 1) {
        in_arena(threads, [&] {
            oneapi::tbb::parallel_for(
                oneapi::tbb::blocked_range<std::size_t>(0, count, 1),
                [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                    for (std::size_t c = r.begin(); c != r.end(); ++c) f(c);
                },
                oneapi::tbb::simple_partitioner{});
        });
        return;
    }
#endif
    (void)threads;
    for (std::size_t c = 0; c < count; ++c) f(c);
}

namespace detail {

/// Ranges of at most this many leaves are walked without spawning tasks: a leaf is a few
/// microseconds of work, a task about one (where tasks are spawned never changes the
/// tree, only who walks it).
inline constexpr std::size_t serial_leaves = 16;

template <class Result, class Leaf, class Combine>
Result tree(std::size_t lo, std::size_t hi, bool spawn, const Leaf& leaf, const Combine& combine) {
    if (hi - lo == 1) return leaf(lo);
    const std::size_t mid = lo + (hi - lo) / 2;
    Result left, right;
#ifdef GRADC_HAS_TBB
    if (spawn && hi - lo > serial_leaves) {
        oneapi::tbb::parallel_invoke([&] { left = tree<Result>(lo, mid, spawn, leaf, combine); },
                                     [&] { right = tree<Result>(mid, hi, spawn, leaf, combine); });
        return combine(left, right);
    }
#endif
    left = tree<Result>(lo, mid, spawn, leaf, combine);
    right = tree<Result>(mid, hi, spawn, leaf, combine);
    return combine(left, right);
}

}  // namespace detail

/// combine over leaf(0..count-1) along the midpoint tree (count ≥ 1).
template <class Result, class Leaf, class Combine>
Result tree_reduce(std::size_t count, int threads, const Leaf& leaf, const Combine& combine) {
    Result r;
    const bool spawn = threads > 1 && count > 1 && available_cores() > 1;
    in_arena(threads, [&] { r = detail::tree<Result>(0, count, spawn, leaf, combine); });
    return r;
}

/// The leaves of a sum over n points in SIMD batches of `lanes` points: blocks of at
/// most `batches_per_leaf` full batches, then, if n is not a multiple of `lanes`, one
/// leaf for the last n mod lanes points (padded and masked by the caller). Every
/// map-reduce sums its points in these blocks, whatever the number of threads.
struct point_leaves {
    std::size_t n;                 ///< The number of points.
    std::size_t lanes;             ///< Points per batch.
    std::size_t batches_per_leaf;  ///< Full batches per leaf, at most.
    /// The points in full batches.
    std::size_t full() const { return n - n % lanes; }
    /// The leaves of full batches (the last partial batch is one more).
    std::size_t full_leaves() const {
        const std::size_t per = batches_per_leaf * lanes;
        return (full() + per - 1) / per;
    }
    /// Every leaf, the partial batch included: 0 for no points.
    std::size_t count() const { return full_leaves() + (full() < n ? 1 : 0); }
};

/// combine over the leaves of p along tree_reduce's tree (p.count() ≥ 1):
/// `full_batches(begin, end)` sums the full batches of points [begin, end),
/// `last_batch(begin, m)` the last m < lanes points.
template <class Result, class FullBatches, class LastBatch, class Combine>
Result reduce_points(const point_leaves& p, int threads, const FullBatches& full_batches, const LastBatch& last_batch,
                     const Combine& combine) {
    const std::size_t per = p.batches_per_leaf * p.lanes;
    return tree_reduce<Result>(
        p.count(), threads,
        [&](std::size_t b) {
            if (b == p.full_leaves()) return last_batch(p.full(), p.n - p.full());
            return full_batches(b * per, std::min(p.full(), (b + 1) * per));
        },
        combine);
}

}  // namespace gradc::parallel
