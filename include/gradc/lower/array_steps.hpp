#pragma once
/// \file
/// One step per node of an array program, generic in the value type T: where a node's
/// values and derivatives are (the frames), a node's primal step, and one edge of its
/// adjoint and of its tangent. An array operation (rules/arrays/) runs its loops, with
/// its extents as constants or, for a node with a run-time extent, read from the
/// call's layout (lower/run_time_layout.hpp); a scalar rule runs over the node's
/// entries with scalar operands broadcast. lower/array_program.hpp sequences the steps.

#include <array>
#include <cstddef>
#include <utility>

#include <gradc/expr/loop_counter.hpp>
#include <gradc/lower/array_describe.hpp>
#include <gradc/lower/run_time_layout.hpp>
#include <gradc/lower/steps.hpp>
#include <gradc/rules/partial.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

/// Where a program finds values: the arguments (one pointer per variable), the values
/// of the other nodes, the literals, and the kernel's forward table (per copy of an equal
/// subexpression, the node computing the same whose value it takes and to whose adjoint
/// it adds, lower/equal_copies.hpp; read only by copies, and null where no copy takes one).
/// With extents known only at run time, `run` holds the shapes and the dynamic nodes'
/// offsets (lower/run_time_layout.hpp); null otherwise. In a loop's body
/// (loops/loop_rule.hpp), `counters` holds, per node, the value of the loop counter
/// that node is (the step's k, or an enclosing loop's).
template <class T, std::size_t Arity>
struct array_frame {
    const T* const* arguments;
    T* values;
    const double* literals;
    const std::size_t* forward = nullptr;
    const run_time_view* run = nullptr;
    const std::size_t* counters = nullptr;
};

/// Where a sweep finds derivatives: the caller's arrays for the wrt variables (adjoints
/// written or tangents read there), and the derivatives of the other live nodes.
template <class T>
struct derivative_frame {
    T* const* wrt;
    T* nodes;
    const run_time_view* run = nullptr;
};

/// An operation whose derivative steps take every operand at once
/// (`derivatives_together`: a loop, whose one body sweep serves all its operands).
template <class Node>
inline constexpr bool derives_together = false;
template <class R, class... O>
inline constexpr bool derives_together<apply<R, O...>> = requires { requires R::derivatives_together; };

/// Whether a node reads consecutive entries of its first operand (an entry, a row, a
/// segment at indices known when the kernel runs): its value is a view into the
/// operand's (rules/arrays/indexed_access.hpp, `view`), never copied.
template <class Node>
inline constexpr bool is_view_node = false;
template <class R, class... O>
inline constexpr bool is_view_node<apply<R, O...>> = requires { requires R::contiguous; };

template <class Analysis>
struct array_steps {
    static constexpr auto& L = Analysis::layout;

    template <std::size_t I, class T, std::size_t A>
    static const T* value_of(const array_frame<T, A>& f) {
        if constexpr (L.is_input[I]) {
            return f.arguments[L.variable[I]];
        } else if constexpr (is_view_node<typename Analysis::template node<I>>) {
            return view_of<I>(typename Analysis::template node<I>{}, f);
        } else if constexpr (L.dynamic[I]) {
            return f.values + f.run->value_offset[I];
        } else {
            return f.values + L.value_offset[I];
        }
    }
    template <std::size_t I, class R, class... O, class T, std::size_t A>
    static const T* view_of(apply<R, O...>, const array_frame<T, A>& f) {
        return R::view(extents_of<I, operand_node<O>...>(f), value_of<operand_node<O>>(f)...);
    }
    template <std::size_t I, class T, std::size_t A>
    static T* result_of(const array_frame<T, A>& f) {
        if constexpr (L.dynamic[I]) {
            return f.values + f.run->value_offset[I];
        } else {
            return f.values + L.value_offset[I];
        }
    }
    template <std::size_t I, class T>
    static T* derivative_of(const derivative_frame<T>& d) {
        if constexpr (L.is_input[I]) {
            return d.wrt[Analysis::wrt_position(L.variable[I])];
        } else if constexpr (L.dynamic[I]) {
            return d.nodes + d.run->derivative_offset[I];
        } else {
            return d.nodes + L.derivative_offset[I];
        }
    }

    /// Node I's number of entries: a constant (fixed_extent) for a fixed shape, else read
    /// from the frame's run-time layout (`Frame` an array_frame or a derivative_frame).
    template <std::size_t I, class Frame>
    static auto size_of(const Frame& f) {
        if constexpr (L.shape[I].is_dynamic()) {
            return f.run->shape[I].size();
        } else {
            return rules::arrays::fixed_extent<L.shape[I].size()>{};
        }
    }

    /// The extents an array operation of node I with operand nodes C... receives: constant
    /// for a node whose shapes are all fixed, read from the run-time layout otherwise.
    template <std::size_t I, std::size_t... C, class Frame>
    static auto extents_of(const Frame& f) {
        using rules::arrays::shapes;
        if constexpr (L.dynamic[I]) {
            using E = rules::arrays::run_time_extents;
            const dims* s = f.run->shape;
            return shapes<E, decltype(C, E{})...>{{E{s[I].rows, s[I].cols}, E{s[C].rows, s[C].cols}...}};
        } else {
            using rules::arrays::fixed_extents;
            return shapes<fixed_extents<L.shape[I].rows, L.shape[I].cols>, fixed_extents<L.shape[C].rows, L.shape[C].cols>...>{};
        }
    }

    /// Whether array operation R runs at node I: with run-time extents only if it takes them.
    template <class R, std::size_t I>
    static constexpr bool runs_with_its_extents() {
        static_assert(rules::arrays::takes_run_time_extents<R> || !L.dynamic[I],
                      "gradc: this array operation does not take extents known only at run time yet (R names it "
                      "below); docs/static.md, \"Extents known at run time\", lists those that do");
        return rules::arrays::takes_run_time_extents<R>;
    }

    /// Entry e of an operand, a scalar operand broadcast: a node's value, or a
    /// condition evaluated entry by entry.
    template <class Operand>
    struct entry;
    template <std::size_t I>
    struct entry<ref<I>> {
        template <class T, std::size_t A>
        static const T& at(const array_frame<T, A>& f, std::size_t e) {
            return value_of<I>(f)[operand_index<I>(e)];
        }
    };
    template <class Op, class... O>
    struct entry<test<Op, O...>> {
        template <class T, std::size_t A>
        static auto at(const array_frame<T, A>& f, std::size_t e) {
            return Op::eval(entry<O>::at(f, e)...);
        }
    };

    template <std::size_t I>
    static constexpr std::size_t operand_index(std::size_t e) {
        return !L.shape[I].is_dynamic() && L.shape[I].size() == 1 ? 0 : e;
    }

    // ---- primal ----------------------------------------------------------------------

    template <std::size_t I, bool TakesCopy = false, std::size_t J, class T, std::size_t A>
    static void evaluate(input<J>, const array_frame<T, A>&) {}

    template <std::size_t I, bool TakesCopy = false, std::size_t Lit, class T, std::size_t A>
    static void evaluate(constant<Lit>, const array_frame<T, A>& f) {
        result_of<I>(f)[0] = T(rules::scalar_t<T>(f.literals[Lit]));
    }

    template <std::size_t I, bool TakesCopy = false, class Tag, class T, std::size_t A>
    static void evaluate(named<Tag>, const array_frame<T, A>& f) {
        if constexpr (expr::is_counter_node<named<Tag>>) {
            // A loop's counter: only in a loop's body, whose frame holds it.
            result_of<I>(f)[0] = T(rules::scalar_t<T>(double(f.counters[I])));
        } else {
            result_of<I>(f)[0] = T(rules::scalar_t<T>(graphs::named_value<Tag>()));
        }
    }

    /// Node I's value. A copy of an equal subexpression (lower/equal_copies.hpp) whose
    /// forward table names a node computing the same (`TakesCopy`: one that has run
    /// before it) takes that node's value instead of computing it again.
    template <std::size_t I, bool TakesCopy = false, class R, class... O, class T, std::size_t A>
    static void evaluate(apply<R, O...>, const array_frame<T, A>& f) {
        if constexpr (is_view_node<apply<R, O...>>) {
            R::check_view(extents_of<I, operand_node<O>...>(f), value_of<operand_node<O>>(f)...);
            return;
        }
        T* __restrict y = result_of<I>(f);
        if constexpr (TakesCopy) {
            if (f.forward != nullptr) {
                if (const std::size_t from = f.forward[Analysis::copies.copy[I]]; from != no_node) {
                    const T* v = f.values + (L.dynamic[from] ? f.run->value_offset[from] : L.value_offset[from]);
                    for (std::size_t e = 0, entries = size_of<I>(f); e < entries; ++e) y[e] = v[e];
                    return;
                }
            }
        }
        if constexpr (array_node_traits<apply<R, O...>>::elementwise) {
            for (std::size_t e = 0, entries = size_of<I>(f); e < entries; ++e) y[e] = R::eval(entry<O>::at(f, e)...);
        } else if constexpr (runs_with_its_extents<R, I>()) {
            R::value(extents_of<I, operand_node<O>...>(f), y, value_of<operand_node<O>>(f)...);
        } else {
            R::value(rules::arrays::sig<L.shape[I], L.shape[operand_node<O>]...>{}, y, value_of<operand_node<O>>(f)...);
        }
    }

    // ---- one edge of the adjoint and of the tangent sweep ------------------------------

    /// Operand K of node I (an apply) adds its share of ȳ to its adjoint.
    template <std::size_t I, int K, bool Assign, class R, class... O, class T, std::size_t A>
    static void adjoint_edge(apply<R, O...>, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        constexpr std::size_t c = pack_element<K, std::integral_constant<std::size_t, operand_node<O>>...>::value;
        const T* yb = derivative_of<I>(d);
        T* __restrict cb = derivative_of<c>(d);
        const T* y = value_of<I>(f);
        if constexpr (array_node_traits<apply<R, O...>>::elementwise) {
            for (std::size_t e = 0, entries = size_of<I>(f); e < entries; ++e) {
                const T term = rules::scale(R::partial(rules::arg<K>, entry<O>::at(f, e)..., y[e]), yb[e]);
                if constexpr (Assign) {
                    cb[e] = term;  // the first write, covering every entry (lower/array_first_writes.hpp)
                } else {
                    cb[operand_index<c>(e)] += term;
                }
            }
        } else if constexpr (runs_with_its_extents<R, I>()) {
            R::adjoint(rules::arg<K>, extents_of<I, operand_node<O>...>(f), yb, cb, y, value_of<operand_node<O>>(f)...);
        } else {
            R::adjoint(rules::arg<K>, rules::arrays::sig<L.shape[I], L.shape[operand_node<O>]...>{}, yb, cb, y,
                       value_of<operand_node<O>>(f)...);
        }
    }

    /// Operand K of node I adds its tangent's contribution to ẏ.
    template <std::size_t I, int K, class R, class... O, class T, std::size_t A>
    static void tangent_edge(apply<R, O...>, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        constexpr std::size_t c = pack_element<K, std::integral_constant<std::size_t, operand_node<O>>...>::value;
        T* __restrict yd = derivative_of<I>(d);
        const T* cd = derivative_of<c>(d);
        const T* y = value_of<I>(f);
        if constexpr (array_node_traits<apply<R, O...>>::elementwise) {
            for (std::size_t e = 0, entries = size_of<I>(f); e < entries; ++e)
                yd[e] += rules::scale(R::partial(rules::arg<K>, entry<O>::at(f, e)..., y[e]), cd[operand_index<c>(e)]);
        } else if constexpr (runs_with_its_extents<R, I>()) {
            R::tangent(rules::arg<K>, extents_of<I, operand_node<O>...>(f), yd, cd, y, value_of<operand_node<O>>(f)...);
        } else {
            R::tangent(rules::arg<K>, rules::arrays::sig<L.shape[I], L.shape[operand_node<O>]...>{}, yd, cd, y,
                       value_of<operand_node<O>>(f)...);
        }
    }

    /// Every swept edge of node I that is on (`On`, one flag per operand): operands in
    /// reverse order for the adjoint. A copy of an equal subexpression whose forward table
    /// entry names a target sweeps none: it adds its adjoint there instead, if this sweep
    /// `Forwards` (where a map-reduce has its adjoint whole).
    template <std::size_t I, bool Swept, auto Assign, auto On, bool Forwards, class Node, class T, std::size_t A>
    static step::in_reverse adjoint_node(Node node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        if constexpr (Swept && array_node_traits<Node>::kind == node_kind::primitive && L.live[I]) {
            if constexpr (Analysis::copies.copy[I] != no_node) {
                if (const std::size_t to = f.forward[Analysis::copies.copy[I]]; to != no_node) {
                    if constexpr (Forwards) {
                        const T* own = derivative_of<I>(d);
                        T* target = d.nodes + (L.dynamic[to] ? d.run->derivative_offset[to] : L.derivative_offset[to]);
                        for (std::size_t e = 0, entries = size_of<I>(d); e < entries; ++e) target[e] += own[e];
                    }
                    return {};
                }
            }
            constexpr std::size_t n = array_node_traits<Node>::arity;
            if constexpr (derives_together<Node>) {
                adjoint_together<I, On>(node, f, d);
            } else {
                [&]<int... K>(std::integer_sequence<int, K...>) {
                    (void)std::initializer_list<int>{
                        (adjoint_edge_if<I, int(n) - 1 - K, Assign[int(n) - 1 - K], On[int(n) - 1 - K]>(node, f, d),
                         0)...};
                }(std::make_integer_sequence<int, int(n)>{});
            }
        }
        return {};
    }
    template <std::size_t I, int K, bool Assign, bool On, class Node, class T, std::size_t A>
    static void adjoint_edge_if(Node node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        if constexpr (On && Analysis::template swept<I, Node>(K)) adjoint_edge<I, K, Assign>(node, f, d);
    }

    template <std::size_t I, class Node, class T, std::size_t A>
    static void tangent_node(Node node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        if constexpr (derives_together<Node>) {
            if constexpr (L.live[I]) tangent_together<I>(node, f, d);
        } else if constexpr (array_node_traits<Node>::kind == node_kind::primitive && L.live[I]) {
            constexpr std::size_t n = array_node_traits<Node>::arity;
            [&]<int... K>(std::integer_sequence<int, K...>) {
                (void)std::initializer_list<int>{(tangent_edge_if<I, K>(node, f, d), 0)...};
            }(std::make_integer_sequence<int, int(n)>{});
        }
    }
    /// Node I's adjoint for every swept operand at once: null for an operand not swept.
    template <std::size_t I, auto On, class R, class... O, class T, std::size_t A>
    static void adjoint_together(apply<R, O...> node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        std::array<T*, sizeof...(O)> cb{};
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((cb[K] = On[K] && Analysis::template swept<I, apply<R, O...>>(K)
                          ? derivative_of_swept<I, K, operand_node<O>>(node, d)
                          : nullptr),
             ...);
        }(std::make_integer_sequence<int, int(sizeof...(O))>{});
        R::adjoint_all(extents_of<I, operand_node<O>...>(f), derivative_of<I>(d), cb, value_of<I>(f),
                       value_of<operand_node<O>>(f)...);
    }
    /// Node I's tangent from every swept operand at once.
    template <std::size_t I, class R, class... O, class T, std::size_t A>
    static void tangent_together(apply<R, O...> node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        std::array<const T*, sizeof...(O)> cd{};
        [&]<int... K>(std::integer_sequence<int, K...>) {
            ((cd[K] = Analysis::template swept<I, apply<R, O...>>(K) ? derivative_of_swept<I, K, operand_node<O>>(node, d)
                                                                      : nullptr),
             ...);
        }(std::make_integer_sequence<int, int(sizeof...(O))>{});
        R::tangent_all(extents_of<I, operand_node<O>...>(f), derivative_of<I>(d), cd, value_of<I>(f),
                       value_of<operand_node<O>>(f)...);
    }
    /// The derivative array of operand K (node C) of node I, if the sweep reaches it;
    /// null otherwise (a node that is not live has none).
    template <std::size_t I, int K, std::size_t C, class Node, class T>
    static T* derivative_of_swept(Node, const derivative_frame<T>& d) {
        if constexpr (C != no_node && Analysis::template swept<I, Node>(K)) {
            return derivative_of<C>(d);
        } else {
            return nullptr;
        }
    }

    template <std::size_t I, int K, class Node, class T, std::size_t A>
    static void tangent_edge_if(Node node, const array_frame<T, A>& f, const derivative_frame<T>& d) {
        if constexpr (Analysis::template swept<I, Node>(K)) tangent_edge<I, K>(node, f, d);
    }
};

}  // namespace gradc::lower
