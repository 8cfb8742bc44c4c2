#pragma once
/// \file
/// The pieces of a large program (lower/program.hpp): one out-of-line function per run
/// of `piece_nodes` nodes and per program (primal, linearize, tangent, adjoint).
///
/// They are free functions named with their own run and their own slice of the sweep
/// tables, not members of the program: a member's name holds the program's type, which
/// lists every node of the kernel, so the names of all pieces together grew with the
/// square of the nodes, and both compilers mangle every name they emit (g++ in time
/// that grows faster than the name's length). A piece's name now holds 128 nodes and
/// 128 table entries whatever the kernel's size (docs/architecture.md, "Compile time").

#include <array>
#include <cstddef>
#include <initializer_list>
#include <utility>

#include <gradc/lower/node_runs.hpp>
#include <gradc/lower/steps.hpp>

namespace gradc::lower::piece_programs {

/// Entries B … B + C − 1 of a table, every one written (a template argument must be:
/// lower/steps.hpp, `edge_step`, says why).
template <std::size_t B, std::size_t C, class E, std::size_t N>
constexpr std::array<E, C> slice(const std::array<E, N>& table) {
    std::array<E, C> s{};
    for (std::size_t k = 0; k < C; ++k) s[k] = table[B + k];
    return s;
}

/// How linearize evaluates one node: plainly or fused, where its fused partials go, and
/// which of its operands carry tangents.
struct linearize_step {
    std::size_t node = no_node;
    step::evaluation how = step::evaluation::plain;
    step::partial_slots slots{};
    step::operand_activity active{};
};

/// Linearize's steps for nodes B … B + C − 1, every entry written.
template <std::size_t B, std::size_t C, std::size_t N>
constexpr std::array<linearize_step, C> linearize_steps(const std::array<bool, N>& fused,
                                                        const std::array<step::partial_slots, N>& slots,
                                                        const std::array<step::operand_activity, N>& active) {
    std::array<linearize_step, C> s{};
    for (std::size_t k = 0; k < C; ++k) {
        s[k].node = B + k;
        s[k].how = fused[B + k] ? step::evaluation::fused : step::evaluation::plain;
        s[k].slots = slots[B + k];
        s[k].active = active[B + k];
    }
    return s;
}

/// The values of nodes B, B + 1, … of a primal.
template <std::size_t B, class... Nodes, class Literals, class T, std::size_t N>
[[gnu::noinline]] void primal(node_run<Nodes...>, const Literals& literals, const T* x, std::array<T, N>& v) {
    [&]<std::size_t... K>(std::index_sequence<K...>) GRADC_ALWAYS_INLINE {
        (void)std::initializer_list<int>{
            (step::evaluate<B + K, step::evaluation::plain, step::partial_slots{}>(Nodes{}, literals, x, v), 0)...};
    }(std::make_index_sequence<sizeof...(Nodes)>{});
}

/// The values of a run's nodes and their fused partials.
template <auto Steps, class... Nodes, class Literals, class T, std::size_t N>
[[gnu::noinline]] void linearize(node_run<Nodes...>, const Literals& literals, const T* x, std::array<T, N>& v) {
    [&]<std::size_t... K>(std::index_sequence<K...>) GRADC_ALWAYS_INLINE {
        (void)std::initializer_list<int>{
            (step::evaluate<Steps[K].node, Steps[K].how, Steps[K].slots, Steps[K].active>(Nodes{}, literals, x, v),
             0)...};
    }(std::make_index_sequence<sizeof...(Nodes)>{});
}

/// The tangent sweep over a run's nodes, first to last.
template <auto Sweep, class... Nodes, class V, class D, std::size_t S>
[[gnu::noinline]] void tangent(node_run<Nodes...>, const V& v, std::array<D, S>& t) {
    [&]<std::size_t... K>(std::index_sequence<K...>) GRADC_ALWAYS_INLINE {
        (void)std::initializer_list<int>{(step::sweep_node<Sweep[K].node, Sweep[K]>(Nodes{}, v, t, nullptr), 0)...};
    }(std::make_index_sequence<sizeof...(Nodes)>{});
}

/// The adjoint sweep over a run's nodes, last first (a right fold over `=`, whose right
/// operand is evaluated first, as steps.hpp's `sweep_in_reverse` on g++; at most 128
/// terms, within clang's limit on a fold).
template <auto Sweep, class... Nodes, class V, class D, std::size_t S>
[[gnu::noinline]] void adjoint(node_run<Nodes...>, const V& v, std::array<D, S>& a, const std::size_t* forward) {
    [&]<std::size_t... K>(std::index_sequence<K...>) GRADC_ALWAYS_INLINE {
        (step::sweep_node<Sweep[K].node, Sweep[K]>(Nodes{}, v, a, forward) = ... = step::in_reverse{});
    }(std::make_index_sequence<sizeof...(Nodes)>{});
}

}  // namespace gradc::lower::piece_programs
