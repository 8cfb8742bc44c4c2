#pragma once
/// Step 4 of lowering: the straight-line programs, generic in the value type T.
///
///  - `primal`: every node's value, in order, into a fixed array (one slot per node);
///  - `linearize`: every live edge's local partial, computed once from the values;
///  - `tangent`: forward sweep over the edges (JVP), from input tangents to outputs;
///  - `adjoint`: backward sweep over the edges (VJP), from output weights to inputs.
/// Every index is a compile-time constant: the code is a fold expression over the node
/// and edge lists, with no loop, branch on structure, tape, heap or virtual call left
/// at run time. Run on double, float, xsimd batches or any type the rules accept.

#include <array>
#include <cstddef>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/tuple.hpp>

#include <gradc/lower/activity.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

/// The sub-expression of a tuple of outputs at a path (output index, operand, ...).
template <class Outputs, std::size_t M, std::size_t... P>
constexpr const auto& at_path(const Outputs& outputs, std::index_sequence<M, P...>) {
    const auto& root = hana::at_c<M>(outputs);
    if constexpr (sizeof...(P) == 0) {
        return root;
    } else {
        return at_path(root.args, std::index_sequence<P...>{});
    }
}

template <class Order, class OutputNodes, class Wrt>
struct program;

template <class Order, std::size_t... O, std::size_t... J>
struct program<Order, std::index_sequence<O...>, std::index_sequence<J...>> {
    using order = Order;
    static constexpr std::size_t size = Order::size;
    static constexpr std::size_t output_count = sizeof...(O);
    static constexpr std::size_t wrt_count = sizeof...(J);
    static constexpr auto desc = descriptions<Order>;
    static constexpr std::array<std::size_t, output_count> output_nodes{O...};
    static constexpr std::array<std::size_t, wrt_count> wrt_variables{J...};
    static constexpr auto live = find_live(desc, output_nodes, wrt_variables);
    static constexpr std::size_t edge_count = live.edge_count;
    static constexpr auto plan = plan_sweeps<edge_count>(desc, live, output_nodes);

    /// Node of each wrt variable, or no_node when the outputs do not use it.
    static constexpr std::array<std::size_t, wrt_count> wrt_nodes = [] {
        std::array<std::size_t, wrt_count> n{};
        for (std::size_t j = 0; j < wrt_count; ++j) {
            n[j] = no_node;
            for (std::size_t i = 0; i < size; ++i)
                if (desc[i].kind == node_kind::variable && desc[i].variable == wrt_variables[j]) n[j] = i;
        }
        return n;
    }();

    template <class T>
    using values = std::array<T, size>;
    template <class T>
    using derivatives = std::array<T, live.live_count>;

    // ---- primal ------------------------------------------------------------------

    template <class T, class Outputs>
    static void primal(const Outputs& outputs, const T* x, values<T>& v) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (evaluate<I>(outputs, x, v), ...);
        }(std::make_index_sequence<size>{});
    }

    template <std::size_t I, class T, class Outputs>
    static void evaluate(const Outputs& outputs, const T* x, values<T>& v) {
        using Occ = typename Order::template at<I>;
        using E = typename Occ::expr;
        if constexpr (expr::is_variable<E>) {
            v[I] = x[E::index];
        } else if constexpr (expr::is_literal<E>) {
            v[I] = T(rules::scalar_t<T>(at_path(outputs, typename Occ::path{}).value));
        } else {
            using R = typename rule_of<E>::type;
            v[I] = with_operands<I>(v, [](const auto&... a) { return R::eval(a...); });
        }
    }

    /// Calls f with the operand values of node I: node values, or evaluated conditions.
    template <std::size_t I, class T, class F>
    static decltype(auto) with_operands(const values<T>& v, F&& f) {
        using Occ = typename Order::template at<I>;
        return [&]<std::size_t... K>(std::index_sequence<K...>) -> decltype(auto) {
            return f(operand<Occ, K>(v)...);
        }(std::make_index_sequence<desc[I].arity>{});
    }

    template <class Occ, std::size_t K, class T>
    static decltype(auto) operand(const values<T>& v) {
        using Operand = typename operands_of<typename Occ::expr>::template at<K>;
        using Path = typename child_path<typename Occ::path, K>::type;
        if constexpr (expr::is_condition<Operand>) {
            return test<Operand, Path>(v);
        } else {
            return static_cast<const T&>(v[Order::template index_of<key_t<Operand, Path>>]);
        }
    }

    /// Value of a condition (bool, or a batch of bools) from the values of its operands.
    template <class C, class Path, class T>
    static auto test(const values<T>& v) {
        using Op = typename rule_of_condition<C>::type;
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return Op::eval(operand<occurrence<C, Path>, K>(v)...);
        }(std::make_index_sequence<operands_of<C>::count>{});
    }

    template <class C>
    struct rule_of_condition;
    template <class Op, class... A>
    struct rule_of_condition<expr::condition<Op, A...>> {
        using type = Op;
    };

    // ---- linearize -----------------------------------------------------------------

    /// The local partial of every live edge, in edge order.
    template <class T>
    static auto linearize(const values<T>& v) {
        return [&]<std::size_t... e>(std::index_sequence<e...>) {
            return hana::make_tuple(edge_partial<e>(v)...);
        }(std::make_index_sequence<edge_count>{});
    }

    template <std::size_t e, class T>
    static auto edge_partial(const values<T>& v) {
        constexpr edge ed = plan.edges[e];
        using R = typename rule_of<typename Order::template at<ed.node>::expr>::type;
        return with_operands<ed.node>(v, [&](const auto&... a) {
            return R::partial(rules::arg<static_cast<int>(ed.operand)>, a..., v[ed.node]);
        });
    }

    // ---- tangent (forward) sweep -----------------------------------------------------

    /// Output tangents `out[m]` for input tangents `dx[j]` (one per wrt variable).
    template <class T, class Linear>
    static void tangent(const Linear& lin, const T* dx, T* out) {
        derivatives<T> t;
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            (load_tangent<j>(dx, t), ...);
        }(std::make_index_sequence<wrt_count>{});
        [&]<std::size_t... e>(std::index_sequence<e...>) {
            (tangent_step<e>(lin, t), ...);
        }(std::make_index_sequence<edge_count>{});
        [&]<std::size_t... m>(std::index_sequence<m...>) {
            ((out[m] = derivative_or_zero<output_nodes[m]>(t)), ...);
        }(std::make_index_sequence<output_count>{});
    }

    template <std::size_t j, class T>
    static void load_tangent(const T* dx, derivatives<T>& t) {
        if constexpr (is_live(wrt_nodes[j])) t[live.slot[wrt_nodes[j]]] = dx[j];
    }

    static constexpr bool is_live(std::size_t node) { return node != no_node && live.live[node]; }

    /// The tangent or adjoint of a node, or 0 for a node that carries none.
    template <std::size_t node, class T>
    static T derivative_or_zero(const derivatives<T>& d) {
        if constexpr (is_live(node)) {
            return d[live.slot[node]];
        } else {
            return T(rules::scalar_t<T>(0));
        }
    }

    template <std::size_t e, class T, class Linear>
    static void tangent_step(const Linear& lin, derivatives<T>& t) {
        constexpr edge ed = plan.edges[e];
        const T term = rules::scale(hana::at_c<e>(lin), t[live.slot[ed.child]]);
        if constexpr (ed.tangent_first) {
            t[live.slot[ed.node]] = term;
        } else {
            t[live.slot[ed.node]] += term;
        }
    }

    // ---- adjoint (reverse) sweep -----------------------------------------------------

    /// Input adjoints `grad[j]` (one per wrt variable) for output weights `w[m]`.
    template <class T, class Linear>
    static void adjoint(const Linear& lin, const T* w, T* grad) {
        derivatives<T> a;
        [&]<std::size_t... m>(std::index_sequence<m...>) {
            (seed<m>(w, a), ...);
        }(std::make_index_sequence<output_count>{});
        [&]<std::size_t... e>(std::index_sequence<e...>) {
            (adjoint_step<edge_count - 1 - e>(lin, a), ...);
        }(std::make_index_sequence<edge_count>{});
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            ((grad[j] = derivative_or_zero<wrt_nodes[j]>(a)), ...);
        }(std::make_index_sequence<wrt_count>{});
    }

    template <std::size_t m, class T>
    static void seed(const T* w, derivatives<T>& a) {
        constexpr std::size_t node = output_nodes[m];
        if constexpr (live.live[node]) {
            if constexpr (plan.seed_first[m]) {
                a[live.slot[node]] = w[m];
            } else {
                a[live.slot[node]] += w[m];
            }
        }
    }

    template <std::size_t e, class T, class Linear>
    static void adjoint_step(const Linear& lin, derivatives<T>& a) {
        constexpr edge ed = plan.edges[e];
        const T term = rules::scale(hana::at_c<e>(lin), a[live.slot[ed.node]]);
        if constexpr (ed.adjoint_first) {
            a[live.slot[ed.child]] = term;
        } else {
            a[live.slot[ed.child]] += term;
        }
    }
};

}  // namespace gradc::lower
