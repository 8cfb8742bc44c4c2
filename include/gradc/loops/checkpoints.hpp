#pragma once
/// \file
/// Reverse mode of a chained loop by checkpoints: `gradc::loop(n, init, f,
/// gradc::checkpoints{s})` (also `scan` and `while_loop`) keeps s carries instead of n.
/// The schedule is binomial checkpointing, the one of revolve (Griewank, "Achieving
/// logarithmic growth of temporal and spatial complexity in reverse automatic
/// differentiation", Optim. Methods Softw. 1, 1992; Griewank & Walther, "Algorithm 799:
/// revolve", ACM TOMS 26(1), 2000): with c checkpoints (the init's carry and s
/// snapshots, c = s + 1) and t repetitions a loop of up to β(c, t) = C(c + t, c) steps
/// is reversed, no step run forward more than t times beyond the first sweep. To reverse steps [a, b) from the carry at a: run forward to a split
/// point, keep its carry in a snapshot, reverse [split, b) with one snapshot fewer, then
/// [a, split) with the snapshot freed (loops/chained_loop.hpp). The split is the one
/// that makes the forward steps fewest (`binomial_split`), so the schedule runs the
/// fewest steps that any schedule with that many snapshots can
/// (tests/loops/test_checkpoints.cpp counts the schedule's steps against revolve's
/// numforw and an exhaustive search). Where the count is not known in advance
/// (`gradc::while_loop`), the loop first runs forward once to count its steps.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include <gradc/error.hpp>

namespace gradc {

/// The number of carries a loop's reverse mode may keep, the init's among them (as
/// revolve counts its checkpoints): s − 1 snapshots beside the init, the steps between
/// them run forward again. s = 1 keeps none but the init: each step's carry is computed
/// again from it (n²/2 steps).
struct checkpoints {
    std::size_t count;  ///< s.
    /// s checkpoints; s < 1 throws gradc::Error.
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    constexpr checkpoints(I s) : count(std::size_t(s)) {  // NOLINT: implicit, for checkpoints{s}
        if (s < 1)
            throw Error("gradc::checkpoints{s}: got s = " + std::to_string(s) +
                        ", expected s >= 1 (the init's carry is one of them)");
    }
};

}  // namespace gradc

namespace gradc::loops {

/// \cond INTERNAL

/// β(c, t) = C(c + t, c) (the most steps that c checkpoints reverse with t
/// repetitions), 0 for t < 0, SIZE_MAX past it.
constexpr std::size_t binomial_reach(std::size_t c, std::ptrdiff_t t) {
    if (t < 0) return 0;
    std::size_t b = 1;
    for (std::size_t i = 1; i <= std::size_t(t); ++i) {
        std::size_t product = 0;  // C(c + i, i) = C(c + i − 1, i − 1)·(c + i)/i, exact
        if (__builtin_mul_overflow(b, c + i, &product)) return SIZE_MAX;
        b = product / i;
    }
    return b;
}

/// The fewest forward steps that reverse l steps with c ≥ 1 checkpoints, the start's
/// among them (a step's own run before its adjoint not counted): t·l − β(c + 1, t − 1),
/// t the fewest repetitions with β(c, t) ≥ l (Griewank & Walther, "Algorithm 799",
/// Proposition 1). For c = 1 it is l(l − 1)/2, each step run from the start.
constexpr std::size_t fewest_forward_steps(std::size_t l, std::size_t c) {
    if (l <= 1) return 0;
    std::size_t t = 0;
    for (std::size_t b = 1; b < l; ++t) {
        std::size_t product = 0;
        b = __builtin_mul_overflow(b, c + t + 1, &product) ? SIZE_MAX : product / (t + 1);
    }
    return t * l - binomial_reach(c + 1, std::ptrdiff_t(t) - 1);
}

/// Where to split l ≥ 2 steps reversed from a kept carry with `free` ≥ 1 more
/// snapshots: the steps to run before keeping one. It minimises the forward steps,
/// m + fewest(l − m, free) + fewest(m, free + 1) (the right part then has one snapshot
/// fewer, the left part its start's and the freed one), a sum of convex functions of m:
/// a ternary search finds its minimum.
constexpr std::size_t binomial_split(std::size_t l, std::size_t free) {
    const std::size_t c = free + 1;
    const auto cost = [&](std::size_t m) { return m + fewest_forward_steps(l - m, c - 1) + fewest_forward_steps(m, c); };
    std::size_t lo = 1, hi = l - 1;
    while (hi - lo > 2) {
        const std::size_t m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (cost(m1) <= cost(m2)) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    std::size_t best = lo;
    for (std::size_t m = lo + 1; m <= hi; ++m)
        if (cost(m) < cost(best)) best = m;
    return best;
}

/// Steps [a, b) still to reverse, from the carry at a in slot `from`, with the slots
/// from `first_free` on free (`free` of them).
struct pending_range {
    std::size_t a, b, from, first_free, free;
};

/// The reverse of n steps with c ≥ 1 checkpoints, as actions on slots: slot 0 holds the
/// init's carry, slots 1 … c − 1 the snapshots. It calls
///  - `keep(from, a, k, into)`: run steps [a, k) from the carry at a in slot `from`, the
///    carry at k into slot `into`;
///  - `reverse(from, a, k)`: run steps [a, k) from slot `from`, then step k, then its
///    adjoint (c̄_k from c̄_{k+1});
/// with every reverse in the order k = n − 1, …, 0. `pending` has room for c ranges
/// (each split leaves its earlier part pending with one snapshot fewer in its later
/// one: a stack, not recursion, as c may be large).
template <class Keep, class Reverse>
void binomial_reverse(std::size_t n, std::size_t c, pending_range* pending, const Keep& keep, const Reverse& reverse) {
    std::size_t top = 0;
    pending[top++] = {0, n, 0, 1, c - 1};
    while (top > 0) {
        pending_range& r = pending[top - 1];
        if (r.b - r.a > 1 && r.free > 0) {
            const std::size_t split = r.a + binomial_split(r.b - r.a, r.free);
            keep(r.from, r.a, split, r.first_free);
            const pending_range later{split, r.b, r.first_free, r.first_free + 1, r.free - 1};
            r.b = split;
            pending[top++] = later;
        } else {
            for (std::size_t k = r.b; k-- > r.a;) reverse(r.from, r.a, k);  // no snapshot left
            --top;
        }
    }
}

/// \endcond

}  // namespace gradc::loops
