#pragma once
/// \file
/// Which entries of a one-output program's Hessian can be nonzero, read off its graph at
/// compile time: `hessian_diagonal` takes one Hessian-vector product (v = 1) instead of
/// the whole Hessian when no entry off the diagonal can be.
///
/// Forward over reverse differentiates each adjoint edge ā_k += ā_n·∂n/∂a_k of the
/// gradient program; the Hessian is the sum, over the nodes n the output depends on, of
/// ā_n·(∂²n/∂a_k∂a_l)·(∂a_k/∂w_i)·(∂a_l/∂w_j). So entry (i, j) can be nonzero only where
/// some such n has operands k and l with w_i in the wrt variables a_k depends on, w_j in
/// those of a_l, and a partial ∂n/∂a_k that reads a_l (or n's own value y). What a
/// partial reads is the rule's `reads`, narrowed by `affine_in` (a partial with respect
/// to an operand the rule is affine in reads neither that operand nor y) and by
/// `piecewise_constant_partials` (abs, relu, min, max: partials whose own derivative is
/// 0 wherever it exists, as their dual numbers compute it). The answer is conservative:
/// "diagonal" is exact, "not diagonal" may be a diagonal Hessian the graph cannot show.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

#include <gradc/lower/activity.hpp>
#include <gradc/lower/describe.hpp>

namespace gradc::lower {

/// The wrt variables a node depends on, as a set of bits (W ≤ 64·words).
template <std::size_t Words>
struct wrt_set {
    std::array<std::uint64_t, Words> bits{};  ///< Bit j: wrt variable j.
    /// Adds wrt variable j.
    constexpr void add(std::size_t j) { bits[j / 64] |= std::uint64_t(1) << (j % 64); }
    /// Adds the variables of `o`.
    constexpr void join(const wrt_set& o) {
        for (std::size_t w = 0; w < Words; ++w) bits[w] |= o.bits[w];
    }
    /// No variable.
    constexpr bool empty() const {
        for (const auto b : bits)
            if (b != 0) return false;
        return true;
    }
    /// The one variable of a set of one, or no_node.
    constexpr std::size_t single() const {
        std::size_t found = no_node;
        for (std::size_t w = 0; w < Words; ++w) {
            if (bits[w] == 0) continue;
            if (found != no_node || (bits[w] & (bits[w] - 1)) != 0) return no_node;
            found = w * 64 + static_cast<std::size_t>(std::countr_zero(bits[w]));
        }
        return found;
    }
};

/// Whether the Hessian over the W wrt variables (`wrt`, their variable numbers) of the
/// program described by `d`, with liveness `l`, is diagonal by structure (the file
/// comment says how, and why the answer is conservative).
template <std::size_t N, std::size_t W>
constexpr bool hessian_diagonal_by_structure(const std::array<node_desc, N>& d, const liveness<N>& l,
                                             const std::array<std::size_t, W>& wrt) {
    constexpr std::size_t words = W == 0 ? 1 : (W + 63) / 64;
    std::array<wrt_set<words>, N> depends{};
    for (std::size_t i = 0; i < N; ++i) {
        if (d[i].kind == node_kind::variable) {
            for (std::size_t j = 0; j < W; ++j)
                if (wrt[j] == d[i].variable) depends[i].add(j);
        } else if (d[i].kind == node_kind::primitive) {
            for (std::size_t k = 0; k < d[i].arity; ++k)
                if (d[i].differentiable[k]) depends[i].join(depends[d[i].operand[k]]);
        }
    }
    for (std::size_t i = 0; i < N; ++i) {
        if (!l.live[i] || d[i].kind != node_kind::primitive || d[i].piecewise_constant) continue;
        for (std::size_t k = 0; k < d[i].arity; ++k) {
            if (!d[i].differentiable[k] || depends[d[i].operand[k]].empty()) continue;
            // What the partial with respect to operand k reads, as wrt variables.
            wrt_set<words> read{};
            for (std::size_t m = 0; m < d[i].arity; ++m) {
                if (!d[i].differentiable[m] || (m == k && d[i].affine[k])) continue;
                if (d[i].reads.operand(static_cast<int>(m)) || (d[i].reads.y && !d[i].affine[k]))
                    read.join(depends[d[i].operand[m]]);
            }
            if (read.empty()) continue;
            // dependence(a_k) × read has an entry off the diagonal unless both are one
            // and the same variable.
            const std::size_t one = depends[d[i].operand[k]].single();
            if (one == no_node || read.single() != one) return false;
        }
    }
    return true;
}

}  // namespace gradc::lower
