#pragma once
/// \file
/// Step 4 of lowering: the straight-line programs, generic in the value type T.
///
///  - `primal`: every node's value, in order, into a fixed array (one slot per node);
///  - `linearize`: the primal of a derivative program, which also stores the partials of
///    the nodes whose rule computes value and partials together (sin/cos, erf/erfc);
///  - `tangent`: forward sweep over the edges (JVP), from input tangents to outputs;
///  - `adjoint`: backward sweep over the edges (VJP), from output weights to inputs.
/// The map-reduce programs are in map_reduce_split.hpp. A sweep may carry several
/// directions at once (a Jacobian is one sweep).
///
/// Every index is a compile-time constant: each program is one pack expansion of the
/// steps (steps.hpp) over the node list, with no loop, branch on structure, tape, heap
/// or virtual call left at run time. What the steps need of the analyses is passed to
/// them as small constant values (a `node_sweep` per node), never as this class: a
/// function per node named with the program's type would cost compile time per node
/// proportional to the kernel's size.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <tuple>
#include <utility>

#include <gradc/lower/activity.hpp>
#include <gradc/lower/describe.hpp>
#include <gradc/lower/copy_plan.hpp>
#include <gradc/lower/flat.hpp>
#include <gradc/lower/hessian_structure.hpp>
#include <gradc/lower/node_runs.hpp>
#include <gradc/lower/program_pieces.hpp>
#include <gradc/lower/steps.hpp>
#include <gradc/lower/sweep_tables.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc::lower {

/// A program of more nodes than `piece_threshold` runs as out-of-line pieces of
/// `piece_nodes` nodes each, one function per piece and program (lower/program_pieces.hpp).
/// Why: g++ spends time superlinear in a function's size on inlining its calls and on
/// expanding it to machine code, and one function holding every node of a 1,000-node
/// kernel made its optimiser take much of its compile time; clang kept a third more
/// memory for one body (the 2,049-node tree: 1,437 MB against 838 MB with pieces;
/// docs/architecture.md, "Compile time"). A kernel that large keeps its values in memory
/// anyway, so the calls cost nothing measurable; a smaller one stays one straight-line
/// body. Each piece expands over its own run of the node list (lower/node_runs.hpp):
/// a piece that named its nodes by position in the whole list (`__type_pack_element`)
/// made clang keep the whole list per use.
inline constexpr std::size_t piece_threshold = 256;

/// Pieces of a program of N nodes (1 at or below the threshold).
constexpr std::size_t piece_count(std::size_t n) {
    return n <= piece_threshold ? 1 : (n + piece_nodes - 1) / piece_nodes;
}

/// The numbers of an index sequence, as an array.
template <std::size_t... I>
constexpr std::array<std::size_t, sizeof...(I)> numbers_of(std::index_sequence<I...>) {
    return {I...};
}

/// Which nodes of a flat program have a fused rule on T.
template <class T, class... Nodes>
constexpr std::array<bool, sizeof...(Nodes)> fusable_nodes(flat<Nodes...>) {
    return {step::fusable<Nodes, T>...};
}

/// The program of the flat nodes Flat for the outputs OutputNodes and the wrt variables
/// Wrt (index sequences).
///
/// The primary template, not a partial specialization that deduces the nodes, and the
/// member functions deduce them where they expand over them: each time a constant
/// expression reads a static member (`desc`, `live`, `plan`, `fused<T>`, the sweeps),
/// g++ 12 checks whether the arguments of the member's class are dependent, in time
/// proportional to their number. A partial specialization's arguments are its deduced
/// parameters, here one per node, and the members are read at every node: time grew
/// with the square of the nodes (docs/architecture.md, "Compile time"). The primary's
/// arguments are three types, whose dependence g++ remembers.
template <class Flat, class OutputNodes, class Wrt>
struct program {
    using nodes = Flat;
    using output_node_sequence = OutputNodes;
    static constexpr std::size_t size = Flat::size;
    static constexpr std::size_t output_count = OutputNodes::size();
    static constexpr std::size_t wrt_count = Wrt::size();
    static constexpr std::size_t pieces = piece_count(size);
    /// The first node of piece P, and its number of nodes.
    static constexpr std::size_t piece_begin(std::size_t p) { return p * piece_nodes; }
    static constexpr std::size_t piece_size(std::size_t p) {
        return p + 1 < pieces ? piece_nodes : size - piece_begin(p);
    }
    /// The nodes of piece P (lower/node_runs.hpp says why not looked up among all).
    template <std::size_t P>
    using piece_run = typename runs_of<nodes>::type::template at<P>;
    static constexpr auto desc = descriptions<nodes>;
    static constexpr std::array<std::size_t, output_count> output_nodes = numbers_of(OutputNodes{});
    static constexpr std::array<std::size_t, wrt_count> wrt_variables = numbers_of(Wrt{});
    static constexpr auto live = find_live(desc, output_nodes, wrt_variables);
    static constexpr std::size_t edge_count = live.edge_count;
    static constexpr auto plan = plan_sweeps<edge_count>(desc, live, output_nodes);
    static constexpr auto activity = operand_activities(desc, live.active);

    /// Whether the Hessian over the wrt variables is diagonal by structure
    /// (lower/hessian_structure.hpp), for `hessian_diagonal`. A function, so that only the
    /// kernels that call it pay for the analysis when compiled.
    static constexpr bool hessian_is_diagonal() { return hessian_diagonal_by_structure(desc, live, wrt_variables); }

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

    static constexpr bool is_live(std::size_t node) { return node != no_node && live.live[node]; }

    // ---- fused partials ------------------------------------------------------------
    // A live node whose rule has `eval_with_partials` on T is evaluated by it in the
    // primal of a derivative program: the partials of its swept edges are stored after
    // the node values (one slot each) and the sweeps read them there instead of
    // computing them again (sin and cos share one sincos; rules/rule.hpp).

    struct fused_plan {
        std::array<std::size_t, edge_count> slot{};         // per edge, or no_node
        std::array<step::partial_slots, size> node_slots{};  // per node
        std::array<bool, size> fused{};                      // evaluated fused
        std::size_t count = 0;
    };

    template <class T>
    static constexpr fused_plan fused = [] {
        constexpr std::array<bool, size> can = fusable_nodes<T>(nodes{});
        fused_plan p;
        // Every entry written: node_slots[I] is a template argument (lower/steps.hpp,
        // `edge_step`, says why).
        for (step::partial_slots& n : p.node_slots) n.slot = {no_node, no_node, no_node};
        for (std::size_t e = 0; e < edge_count; ++e) {
            const edge& ed = plan.edges[e];
            p.slot[e] = no_node;
            if (!can[ed.node]) continue;
            p.slot[e] = size + p.count++;
            p.node_slots[ed.node].slot[ed.operand] = p.slot[e];
            p.fused[ed.node] = true;
        }
        return p;
    }();

    /// Node values, then the fused partials (none for a type without fused rules).
    template <class T>
    using values = std::array<T, size + fused<T>.count>;
    template <class T>
    using derivatives = std::array<T, live.live_count>;

    static constexpr auto all_edges = [] {
        std::array<bool, edge_count> on{};
        on.fill(true);
        return on;
    }();
    static constexpr auto edge_tangent_first = [] {
        std::array<bool, edge_count> f{};
        for (std::size_t e = 0; e < edge_count; ++e) f[e] = plan.edges[e].tangent_first;
        return f;
    }();
    static constexpr auto edge_adjoint_first = [] {
        std::array<bool, edge_count> f{};
        for (std::size_t e = 0; e < edge_count; ++e) f[e] = plan.edges[e].adjoint_first;
        return f;
    }();

    template <class T>
    static constexpr auto tangent_sweep = describe_sweep<size>(false, plan.edges, all_edges, edge_tangent_first,
                                                               fused<T>.slot, live.slot, desc, activity);
    template <class T>
    static constexpr auto adjoint_sweep = describe_sweep<size>(true, plan.edges, all_edges, edge_adjoint_first,
                                                               fused<T>.slot, live.slot, desc, activity);

    // ---- copies of equal subexpressions ------------------------------------------------
    // A kernel whose literals make some copies of a subexpression equal (lower/equal_copies.hpp)
    // runs a second adjoint sweep, where each copy passes its adjoint on or sweeps its
    // edges as its forward table entry says, and whose zeroed slots are only added to. It
    // is chosen when the kernel is built: a kernel whose copies all differ (the units of a
    // network, x·c₁ + y and x·c₂ + y) keeps the sweep it had, without the table's lookups.

    /// The live copies of equal subexpressions; none without literals.
    static constexpr auto copies = plan_copies(structural_copies<nodes>::classes, operand_views(desc), live.live);
    static constexpr auto copy_writes = find_first_writes(plan.edges, all_edges, live, output_nodes, copies.zeroed);
    template <class T>
    static constexpr auto copy_adjoint_sweep = with_copies(describe_sweep<size>(true, plan.edges, all_edges, copy_writes.edge_first,
                                                                                fused<T>.slot, live.slot, desc, activity),
                                                           copies, live.slot, copies.member);

    /// Per node, the node a copy passes its adjoint to given these literal values, or
    /// no_node (lower/equal_copies.hpp).
    template <class Literals>
    static constexpr std::array<std::size_t, size> copy_targets(const Literals& literals) {
        return lower::copy_targets<nodes>(copies, live.live, literals);
    }
    /// The forward table of these literal values: per copy, its target's adjoint slot.
    template <class Literals>
    static constexpr std::array<std::size_t, copies.count> forward_slots(const Literals& literals) {
        return forward_table<copies.count>(copies, copy_targets(literals), live.slot);
    }

    /// Where the sweeps find the forward table: in the kernel's bound literals; null when
    /// no copy passes its adjoint on (then the sweeps are the plain ones). A program of
    /// several pieces has only the sweep with copies: its adjoints are in memory anyway,
    /// and a second sweep doubled the compile time of a 2,049-node kernel whose 512
    /// leaves all have one structure (docs/benchmarks.md, "Compile time").
    template <class Literals>
    static const std::size_t* forward_of(const Literals& literals) {
        if constexpr (copies.count == 0) {
            return nullptr;
        } else {
            return literals.forwards || pieces > 1 ? literals.forward.data() : nullptr;
        }
    }

    static constexpr auto copy_zeroed_slots = zeroed_slots<copies.zeroed_count>(copies.zeroed, live.slot);

    /// Zeroes the adjoint slots a sweep only adds to (lower/activity.hpp, `find_first_writes`).
    template <class D>
    GRADC_ALWAYS_INLINE inline static void zero_copy_slots(derivatives<D>& a) {
        [&]<std::size_t... k>(std::index_sequence<k...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{((a[copy_zeroed_slots[k]] = step::zero<D>()), 0)...};
        }(std::make_index_sequence<copies.zeroed_count>{});
    }

    // ---- primal ------------------------------------------------------------------

    /// Values of all nodes at x, given the kernel's literal values.
    template <class T, class Literals>
    GRADC_ALWAYS_INLINE inline static void primal(const Literals& literals, const T* x, values<T>& v) {
        if constexpr (pieces == 1) {
            [&]<class... N, std::size_t... I>(flat<N...>, std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (step::evaluate<I, step::evaluation::plain, step::partial_slots{}>(N{}, literals, x, v), 0)...};
            }(nodes{}, std::make_index_sequence<size>{});
        } else {
            [&]<std::size_t... P>(std::index_sequence<P...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (piece_programs::primal<piece_begin(P)>(piece_run<P>{}, literals, x, v), 0)...};
            }(std::make_index_sequence<pieces>{});
        }
    }

    /// The nodes' values by the table How, one `step::evaluation` per node (plain, fused,
    /// fixed or skip): how the split programs evaluate part of this program, the rest
    /// once per call (lower/map_reduce_split.hpp, lower/hoisted_program.hpp). The table is
    /// a reference, as for `tangent_by`.
    template <const auto& How, class T, class Literals, class V>
    GRADC_ALWAYS_INLINE inline static void evaluate_by(const Literals& literals, const T* x, V& v) {
        [&]<class... N, std::size_t... I>(flat<N...>, std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{
                (step::evaluate<I, How[I],
                                How[I] == step::evaluation::fused ? fused<T>.node_slots[I] : step::partial_slots{},
                                activity[I]>(N{}, literals, x, v),
                 0)...};
        }(nodes{}, std::make_index_sequence<size>{});
    }

    /// What the sweeps need from the primal: the values and the fused partials (each
    /// sweep computes every other edge's partial once from the values), and the forward
    /// table of the copies of equal subexpressions (null when there are none).
    template <class T>
    struct linearization {
        const values<T>& v;
        const std::size_t* forward = nullptr;
    };

    /// The primal of a derivative program: values at x, and the fused partials.
    template <class T, class Literals>
    GRADC_ALWAYS_INLINE inline static linearization<T> linearize(const Literals& literals, const T* x, values<T>& v) {
        if constexpr (pieces == 1) {
            [&]<class... N, std::size_t... I>(flat<N...>, std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (step::evaluate<I, fused<T>.fused[I] ? step::evaluation::fused : step::evaluation::plain,
                                    fused<T>.node_slots[I], activity[I]>(N{}, literals, x, v),
                     0)...};
            }(nodes{}, std::make_index_sequence<size>{});
        } else {
            [&]<std::size_t... P>(std::index_sequence<P...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (piece_programs::linearize<piece_programs::linearize_steps<piece_begin(P), piece_size(P)>(
                         fused<T>.fused, fused<T>.node_slots, activity)>(piece_run<P>{}, literals, x, v),
                     0)...};
            }(std::make_index_sequence<pieces>{});
        }
        return {v, forward_of(literals)};
    }

    // ---- tangent (forward) sweep -----------------------------------------------------

    /// Output tangents `out[m]` for input tangents `dx[j]` (one per wrt variable).
    /// D is T, or std::array<T, K> to sweep K directions at once.
    template <class T, class D>
    GRADC_ALWAYS_INLINE inline static void tangent(const linearization<T>& lin, const D* dx, D* out) {
        tangent_by<tangent_sweep<T>>(lin.v, dx, out);
    }

    /// The tangent sweep over the table Sweep at the values v: this program's, or one
    /// whose edges read their partials from other slots (lower/hoisted_program.hpp). The
    /// table is a reference, so the function is named by the table's name, not its entries.
    template <const auto& Sweep, class V, class D>
    GRADC_ALWAYS_INLINE inline static void tangent_by(const V& v, const D* dx, D* out) {
        std::array<D, live.live_count> t;
        [&]<std::size_t... j>(std::index_sequence<j...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(step::load<slot_or_none(wrt_nodes[j])>(dx[j], t), 0)...};
        }(std::make_index_sequence<wrt_count>{});
        if constexpr (pieces == 1) {
            [&]<class... N, std::size_t... I>(flat<N...>, std::index_sequence<I...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{(step::sweep_node<I, Sweep[I]>(N{}, v, t, nullptr), 0)...};
            }(nodes{}, std::make_index_sequence<size>{});
        } else {
            [&]<std::size_t... P>(std::index_sequence<P...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (piece_programs::tangent<piece_programs::slice<piece_begin(P), piece_size(P)>(Sweep)>(piece_run<P>{},
                                                                                                           v, t),
                     0)...};
            }(std::make_index_sequence<pieces>{});
        }
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{((out[m] = step::derivative_or_zero<slot_or_none(output_nodes[m])>(t)), 0)...};
        }(std::make_index_sequence<output_count>{});
    }

    // ---- adjoint (reverse) sweep -----------------------------------------------------

    /// Input adjoints `grad[j]` (one per wrt variable) for output weights `w[m]`.
    /// D is T, or std::array<T, K> to sweep K weight vectors at once.
    template <class T, class D>
    GRADC_ALWAYS_INLINE inline static void adjoint(const linearization<T>& lin, const D* w, D* grad) {
        if constexpr (copies.count > 0 && pieces > 1) {
            sweep_back<true>(lin, w, grad);
        } else {
            if constexpr (copies.count > 0) {
                if (lin.forward != nullptr) return sweep_back<true>(lin, w, grad);
            }
            sweep_back<false>(lin, w, grad);
        }
    }

    /// The adjoint sweep's table: the plain one, or where copies pass adjoints on.
    template <bool Copies, class T>
    static constexpr const auto& adjoint_table() {
        if constexpr (Copies) {
            return copy_adjoint_sweep<T>;
        } else {
            return adjoint_sweep<T>;
        }
    }

    /// The adjoint sweep, plain or where copies pass adjoints on (then its zeroed slots
    /// are zeroed first). Named with a flag, not with its table: a function named with a
    /// program's whole table costs the compilers time in proportion to it (the pieces are
    /// named with their slices only).
    template <bool Copies, class T, class D>
    GRADC_ALWAYS_INLINE inline static void sweep_back(const linearization<T>& lin, const D* w, D* grad) {
        sweep_back_by<adjoint_table<Copies, T>(), Copies>(lin.v, lin.forward, w, grad);
    }

    /// The adjoint sweep over the table Sweep at the values v (a reference, as for
    /// `tangent_by`); Copies: Sweep is one where copies pass adjoints on (`forward`).
    template <const auto& Sweep, bool Copies, class V, class D>
    GRADC_ALWAYS_INLINE inline static void sweep_back_by(const V& v, const std::size_t* forward, const D* w, D* grad) {
        constexpr auto& seed_first = Copies ? copy_writes.seed_first : plan.seed_first;
        std::array<D, live.live_count> a;
        if constexpr (Copies) zero_copy_slots(a);
        [&]<std::size_t... m>(std::index_sequence<m...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{(step::seed<slot_or_none(output_nodes[m]), seed_first[m]>(w[m], a), 0)...};
        }(std::make_index_sequence<output_count>{});
        if constexpr (pieces == 1) {
            [&]<class... N>(flat<N...>) GRADC_ALWAYS_INLINE {
                step::sweep_in_reverse<Sweep, N...>(v, a, forward);
            }(nodes{});
        } else {
            [&]<std::size_t... R>(std::index_sequence<R...>) GRADC_ALWAYS_INLINE {
                (void)std::initializer_list<int>{
                    (piece_programs::adjoint<piece_programs::slice<piece_begin(pieces - 1 - R), piece_size(pieces - 1 - R)>(
                         Sweep)>(piece_run<pieces - 1 - R>{}, v, a, forward),
                     0)...};
            }(std::make_index_sequence<pieces>{});
        }
        [&]<std::size_t... j>(std::index_sequence<j...>) GRADC_ALWAYS_INLINE {
            (void)std::initializer_list<int>{((grad[j] = step::derivative_or_zero<slot_or_none(wrt_nodes[j])>(a)), 0)...};
        }(std::make_index_sequence<wrt_count>{});
    }

    /// The derivative slot of a live node, or no_node.
    static constexpr std::size_t slot_or_none(std::size_t node) { return is_live(node) ? live.slot[node] : no_node; }
};

}  // namespace gradc::lower
