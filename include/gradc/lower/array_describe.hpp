#pragma once
/// \file
/// The analyses of an array program (a kernel whose variables come from
/// `gradc::variables(shape...)`): every node's shape, where its values live, which
/// nodes carry derivatives and where those live. Plain constexpr loops over a table per
/// node, as for scalar programs (lower/describe.hpp, lower/activity.hpp); the difference
/// is that a node holds shape.size() values, so its slots are ranges.
///
/// Variables are not copied: an input node's values are read where the caller's
/// argument is, and a wrt variable's adjoint (or tangent) is written where the caller
/// wants it. Every other node's values start at `value_offset` in one array of
/// `value_size` entries, and the derivatives of live nodes at `derivative_offset`.
///
/// A node whose shape or operands' shapes have an extent known only at run time is
/// `dynamic`: its ranges come after every fixed node's, at offsets the kernel computes
/// when it is called (lower/run_time_layout.hpp). The fixed nodes keep their constant
/// offsets, so a kernel without run-time extents is what it always was.

#include <array>
#include <cstddef>

#include <gradc/expr/nodes.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/copy_plan.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/node_mask.hpp>
#include <gradc/rules/arrays/dims.hpp>
#include <gradc/rules/arrays/signature.hpp>
#include <gradc/rules/rule.hpp>

namespace gradc::lower {

using rules::arrays::dims;

/// The shape of an operand, from the shapes of the nodes before it: a node's, or the
/// broadcast shape of a condition's operands.
template <class Operand>
struct operand_shape;
template <std::size_t I>
struct operand_shape<ref<I>> {
    template <std::size_t N>
    static constexpr dims of(const std::array<dims, N>& s) {
        return s[I];
    }
};
template <class Op, class... O>
struct operand_shape<test<Op, O...>> {
    template <std::size_t N>
    static constexpr dims of(const std::array<dims, N>& s) {
        const dims parts[] = {operand_shape<O>::of(s)...};
        return rules::arrays::broadcast(parts);
    }
};

/// A node's shape given the shapes before it, and its operands as positions (no_node
/// for a condition) with whether each carries a derivative.
template <class Node>
struct array_node_traits;

template <std::size_t J>
struct array_node_traits<input<J>> {
    static constexpr node_kind kind = node_kind::variable;
    static constexpr std::size_t variable = J;
    static constexpr std::size_t arity = 0;
    template <class Set, std::size_t N>
    static constexpr dims shape(const std::array<dims, N>&) {
        return Set::shapes[J];
    }
    template <class Set, std::size_t N>
    static constexpr std::size_t saved(const std::array<dims, N>&) {
        return 0;
    }
    static constexpr std::array<std::size_t, 1> operands{no_node};
    static constexpr std::array<bool, 1> differentiable{false};
};

template <std::size_t L>
struct array_node_traits<constant<L>> {
    static constexpr node_kind kind = node_kind::literal;
    static constexpr std::size_t variable = 0;
    static constexpr std::size_t arity = 0;
    template <class Set, std::size_t N>
    static constexpr dims shape(const std::array<dims, N>&) {
        return rules::arrays::scalar_dims;
    }
    template <class Set, std::size_t N>
    static constexpr std::size_t saved(const std::array<dims, N>&) {
        return 0;
    }
    static constexpr std::array<std::size_t, 1> operands{no_node};
    static constexpr std::array<bool, 1> differentiable{false};
};

template <class Tag>
struct array_node_traits<named<Tag>> : array_node_traits<constant<0>> {};

template <class R, class... O>
struct array_node_traits<apply<R, O...>> {
    static constexpr node_kind kind = node_kind::primitive;
    static constexpr std::size_t variable = 0;
    static constexpr std::size_t arity = sizeof...(O);
    static constexpr bool elementwise = !rules::arrays::array_operation<R>;
    /// The result's shape from the operands' shapes (also at run time, from the
    /// arguments' extents: lower/run_time_layout.hpp).
    template <std::size_t N>
    static constexpr dims shape_from(const std::array<dims, N>& s) {
        return shape<void>(s);
    }
    template <class Set, std::size_t N>
    static constexpr dims shape(const std::array<dims, N>& s) {
        const std::array<dims, sizeof...(O)> in{operand_shape<O>::of(s)...};
        if constexpr (elementwise) {
            const dims parts[] = {operand_shape<O>::of(s)...};
            return rules::arrays::broadcast(parts);
        } else {
            return R::template result_shape<sizeof...(O)>(in);
        }
    }
    /// The values the operation keeps after its result for its derivatives.
    template <class Set, std::size_t N>
    static constexpr std::size_t saved(const std::array<dims, N>& s) {
        if constexpr (elementwise) {
            return 0;
        } else {
            return rules::arrays::saved_size_of<R>(std::array<dims, sizeof...(O)>{operand_shape<O>::of(s)...});
        }
    }
    static constexpr std::array<std::size_t, sizeof...(O)> operands{operand_node<O>...};
    static constexpr std::array<bool, sizeof...(O)> differentiable = [] {
        std::array<bool, sizeof...(O)> d{};
        [&]<int... K>(std::integer_sequence<int, K...>) {
            if constexpr (elementwise) {
                ((d[K] = rules::is_differentiable_operand<R, K> && operand_node<O> != no_node), ...);
            } else {
                ((d[K] = operand_node<O> != no_node), ...);
            }
        }(std::make_integer_sequence<int, sizeof...(O)>{});
        return d;
    }();
};

/// Everything the array sweeps need to know, per node.
template <std::size_t N>
struct array_layout {
    std::array<dims, N> shape{};
    std::array<bool, N> is_input{};
    std::array<std::size_t, N> variable{};      // for an input
    std::array<std::size_t, N> value_offset{};  // for any other node
    std::array<std::size_t, N> saved{};         // values kept after the result (saved_size)
    std::size_t value_size = 0;                 // of the fixed nodes; the dynamic ones follow
    std::array<bool, N> dynamic{};              // its shape or an operand's has a run-time extent
    bool has_dynamic = false;                   // some node is dynamic
    /// The values node n holds: its result, then what its operation saved.
    constexpr std::size_t stored(std::size_t n) const { return shape[n].size() + saved[n]; }
    std::array<bool, N> active{};  // depends on a wrt variable
    std::array<bool, N> live{};    // active, and an output depends on it
    std::array<std::size_t, N> derivative_offset{};  // for a live node that is not an input
    std::size_t derivative_size = 0;            // of the fixed nodes; the dynamic ones follow
};

/// Whether an operand depends on a set of nodes (`dep`): a node's flag, or any of a
/// condition's operands'.
template <class Operand>
struct operand_depends;
template <std::size_t I>
struct operand_depends<ref<I>> {
    template <std::size_t N>
    static constexpr bool on(const std::array<bool, N>& dep) {
        return dep[I];
    }
};
template <class Op, class... O>
struct operand_depends<test<Op, O...>> {
    template <std::size_t N>
    static constexpr bool on(const std::array<bool, N>& dep) {
        return (operand_depends<O>::on(dep) || ...);
    }
};

template <class Node>
struct node_depends {
    template <std::size_t A, std::size_t N>
    static constexpr bool on(const std::array<bool, A>&, const std::array<bool, N>&) {
        return false;  // a literal
    }
};
template <std::size_t J>
struct node_depends<input<J>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool on(const std::array<bool, A>& variables, const std::array<bool, N>&) {
        return variables[J];
    }
};
/// Whether an operation's value reads its operand K: every operand, unless the operation
/// says otherwise (`reads_operand(k)`: a loop's hoisted part, loops/body_part.hpp, takes
/// every variable of the loop's body and reads those of its subtree).
template <class R, std::size_t K>
constexpr bool reads_operand() {
    if constexpr (requires { R::reads_operand(K); }) {
        return R::reads_operand(K);
    } else {
        return true;
    }
}
template <class R, class... O>
struct node_depends<apply<R, O...>> {
    template <std::size_t A, std::size_t N>
    static constexpr bool on(const std::array<bool, A>&, const std::array<bool, N>& dep) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return ((reads_operand<R, K>() && operand_depends<O>::on(dep)) || ...);
        }(std::index_sequence_for<O...>{});
    }
};

template <class Set, class Flat, class Outputs, class Wrt>
struct array_analysis;

template <class Set, class... Nodes, std::size_t... O, std::size_t... J>
struct array_analysis<Set, flat<Nodes...>, std::index_sequence<O...>, std::index_sequence<J...>> {
    static constexpr std::size_t size = sizeof...(Nodes);
    /// Node I's type.
    template <std::size_t I>
    using node = pack_element<I, Nodes...>;

    static constexpr array_layout<size> layout = [] {
        array_layout<size> l;
        std::size_t i = 0;
        ((l.shape[i] = array_node_traits<Nodes>::template shape<Set>(l.shape),
          l.saved[i] = array_node_traits<Nodes>::template saved<Set>(l.shape), ++i),
         ...);
        i = 0;
        ((l.is_input[i] = array_node_traits<Nodes>::kind == node_kind::variable,
          l.variable[i] = array_node_traits<Nodes>::variable, ++i),
         ...);
        {
            constexpr std::array<std::size_t, size> arity_of{array_node_traits<Nodes>::arity...};
            constexpr std::array<const std::size_t*, size> operands_of{array_node_traits<Nodes>::operands.data()...};
            for (std::size_t n = 0; n < size; ++n) {
                bool d = l.shape[n].is_dynamic();
                for (std::size_t k = 0; k < arity_of[n]; ++k)
                    d = d || (operands_of[n][k] != no_node && l.shape[operands_of[n][k]].is_dynamic());
                l.dynamic[n] = d;
                l.has_dynamic = l.has_dynamic || d;
            }
        }
        // A variable of run-time extent that no node reads still takes its extents from
        // the arguments (its gradient is a zero of that size).
        for (const dims& s : Set::shapes) l.has_dynamic = l.has_dynamic || s.is_dynamic();
        for (std::size_t n = 0; n < size; ++n) {
            if (l.is_input[n] || l.dynamic[n]) continue;
            l.value_offset[n] = l.value_size;
            l.value_size += l.stored(n);
        }
        // Active: a wrt variable, or a primitive with an active differentiable operand.
        constexpr std::size_t wrt[] = {J..., no_node};
        i = 0;
        auto mark_active = [&]<class Node>(Node*) {
            using tr = array_node_traits<Node>;
            bool a = false;
            if constexpr (tr::kind == node_kind::variable) {
                for (std::size_t w : wrt) a = a || w == tr::variable;
            } else if constexpr (tr::kind == node_kind::primitive) {
                for (std::size_t k = 0; k < tr::arity; ++k)
                    a = a || (tr::differentiable[k] && l.active[tr::operands[k]]);
            }
            l.active[i++] = a;
        };
        (mark_active(static_cast<Nodes*>(nullptr)), ...);
        // Reaches: an output, or a differentiable operand of a node that reaches one.
        std::array<bool, size> reaches{};
        for (std::size_t out : {O...}) reaches[out] = true;
        constexpr std::array<std::size_t, size> arity{array_node_traits<Nodes>::arity...};
        constexpr std::array<const std::size_t*, size> operands{array_node_traits<Nodes>::operands.data()...};
        constexpr std::array<const bool*, size> differentiable{array_node_traits<Nodes>::differentiable.data()...};
        for (std::size_t n = size; n-- > 0;) {
            if (!reaches[n]) continue;
            for (std::size_t k = 0; k < arity[n]; ++k)
                if (differentiable[n][k]) reaches[operands[n][k]] = true;
        }
        for (std::size_t n = 0; n < size; ++n) {
            l.live[n] = l.active[n] && reaches[n];
            if (!l.live[n] || l.is_input[n] || l.dynamic[n]) continue;
            l.derivative_offset[n] = l.derivative_size;
            l.derivative_size += l.shape[n].size();
        }
        return l;
    }();

    static constexpr std::array<std::size_t, sizeof...(O)> output_nodes{O...};
    static constexpr std::array<std::size_t, sizeof...(J)> wrt_variables{J...};

    /// The live copies of a subexpression that holds literals (lower/equal_copies.hpp).
    static constexpr auto copies = plan_copies(
        structural_copies<flat<Nodes...>>::classes,
        std::array<operand_view, size>{operand_view{array_node_traits<Nodes>::kind == node_kind::primitive,
                                                    array_node_traits<Nodes>::arity,
                                                    array_node_traits<Nodes>::operands.data(),
                                                    array_node_traits<Nodes>::differentiable.data()}...},
        layout.live);

    /// The nodes that depend on the variables flagged in `variables` (conditions included):
    /// in map-reduce, the nodes that vary with the data; the others are computed once.
    template <node_mask<Set::size> Variables>
    static constexpr std::array<bool, size> depending_on = [] {
        std::array<bool, size> dep{};
        std::size_t i = 0;
        ((dep[i] = node_depends<Nodes>::on(Variables.bits, dep), ++i), ...);
        return dep;
    }();

    /// Position in the wrt list of variable v, or no_node.
    static constexpr std::size_t wrt_position(std::size_t v) {
        std::size_t p = 0;
        for (std::size_t w : {J..., no_node}) {
            if (w == v) return p;
            ++p;
        }
        return no_node;
    }

    /// Whether node n's operand k carries a derivative to sweep.
    template <std::size_t n, class Node>
    static constexpr bool swept(std::size_t k) {
        using tr = array_node_traits<Node>;
        return layout.live[n] && tr::differentiable[k] && layout.live[tr::operands[k]];
    }
};

}  // namespace gradc::lower
