#pragma once
/// \file
/// Which adjoint writes of an array program's reverse sweep can assign instead of add,
/// so that the adjoints they start need not be cleared first (the scalar programs'
/// first writes, lower/activity.hpp, for ranges of entries).
///
/// A reverse sweep over the nodes of a part (all nodes, or the nodes that vary with the
/// data in map-reduce) writes each adjoint first by the outputs' seeds, then by the
/// edges from last node to first, operands last to first. The first write to an
/// adjoint assigns when it covers every entry once: a seed, or the edge of a scalar rule
/// applied elementwise to an operand of the node's own shape (not a broadcast scalar).
/// Array operations always add, so an adjoint they write first is cleared before the
/// sweep; so are the wrt variables' (the caller's, accumulated), the adjoints of nodes
/// outside the part (summed across sweeps in map-reduce), and those a copy of an equal
/// subexpression may or may not write or take (lower/equal_copies.hpp: known at run time).

#include <array>
#include <cstddef>

#include <gradc/lower/array_describe.hpp>

namespace gradc::lower {

template <std::size_t Operands, std::size_t N, std::size_t M>
struct first_write_plan {
    std::array<bool, Operands> assign{};  // per operand slot (operand_begin[n] + k)
    std::array<bool, N> clear{};          // clear before the sweep
    std::array<bool, M> seed_assigns{};   // output m's seed is its adjoint's first write
};

template <class Analysis, class Flat>
struct array_first_writes;

template <class Analysis, class... Nodes>
struct array_first_writes<Analysis, flat<Nodes...>> {
    static constexpr std::size_t size = sizeof...(Nodes);

    template <class Node>
    static constexpr bool is_elementwise() {
        if constexpr (requires { array_node_traits<Node>::elementwise; }) {
            return array_node_traits<Node>::elementwise;
        } else {
            return false;
        }
    }

    static constexpr std::array<std::size_t, size> arity{array_node_traits<Nodes>::arity...};
    static constexpr std::array<std::size_t, size> operand_begin = [] {
        std::array<std::size_t, size> b{};
        std::size_t at = 0;
        for (std::size_t n = 0; n < size; ++n) {
            b[n] = at;
            at += arity[n];
        }
        return b;
    }();
    static constexpr std::size_t operand_count = [] {
        std::size_t c = 0;
        for (std::size_t a : arity) c += a;
        return c == 0 ? 1 : c;
    }();

    /// The plan of a sweep over the edges in Edges (one flag per operand slot) of the
    /// nodes in Part.
    template <node_mask Part, node_mask Edges>
    static constexpr auto plan = [] {
        constexpr auto& L = Analysis::layout;
        constexpr auto outputs = Analysis::output_nodes;
        constexpr std::array<const std::size_t*, size> operands{array_node_traits<Nodes>::operands.data()...};
        constexpr std::array<const bool*, size> differentiable{array_node_traits<Nodes>::differentiable.data()...};
        constexpr std::array<bool, size> elementwise{is_elementwise<Nodes>()...};
        first_write_plan<operand_count, size, outputs.size()> p;
        std::array<bool, size> written{}, assigned{};
        constexpr auto& zeroed = Analysis::copies.zeroed;
        for (std::size_t m = 0; m < outputs.size(); ++m) {
            const std::size_t o = outputs[m];
            if (!Part[o] || !L.live[o] || written[o]) continue;
            written[o] = true;
            p.seed_assigns[m] = !L.is_input[o] && !zeroed[o];
            assigned[o] = p.seed_assigns[m];
        }
        for (std::size_t n = size; n-- > 0;) {
            if (!Part[n] || !L.live[n] || arity[n] == 0) continue;
            for (std::size_t k = arity[n]; k-- > 0;) {
                const std::size_t c = operands[n][k];
                if (!differentiable[n][k] || !L.live[c] || !Edges[operand_begin[n] + k]) continue;
                // With a run-time extent, an operand of the node's kind has its extents (checked
                // when called); a scalar beside it is broadcast.
                const bool whole = elementwise[n] && (L.shape[c].is_dynamic() || L.shape[n].is_dynamic()
                                                          ? rules::arrays::shapes_fit(L.shape[c], L.shape[n])
                                                          : L.shape[c].size() == L.shape[n].size());
                if (!written[c] && whole && Part[c] && !L.is_input[c] && !zeroed[c]) {
                    p.assign[operand_begin[n] + k] = true;
                    assigned[c] = true;
                }
                written[c] = true;
            }
        }
        for (std::size_t n = 0; n < size; ++n) p.clear[n] = Part[n] && L.live[n] && !L.is_input[n] && !assigned[n];
        return p;
    }();

};

}  // namespace gradc::lower
