#pragma once
/// \file
/// Loops whose steps chain: `gradc::loop(n, init, f)` is c_n, where c₀ = init and
/// c_{k+1} = f(c_k, k). n is as for `gradc::sum_over` (loops/sum_over.hpp): an integer
/// fixed when the expression is built, or `gradc::rows(M)`, `gradc::cols(M)`,
/// `gradc::size(v)` read when the kernel runs. init is an expression (a scalar, vector
/// or matrix, fixed or run-time extents) and f returns one of the same shape. f is
/// called once, with the carry (expr/loop_carry.hpp) and the counter, and what it
/// returns is lowered once as the loop's body, whatever n is (loops/chained_loop.hpp):
/// a 1,000-step RK4 compiles like one step. `gradc::scan(init, xs, f)` is the loop over
/// xs's entries (or rows), f(carry, x) taking the step's entry (or row); its count is
/// `gradc::size(xs)` (`gradc::rows(xs)`).

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/error.hpp>
#include <gradc/expr/loop_carry.hpp>
#include <gradc/expr/loop_counter.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/loops/chained_loop.hpp>
#include <gradc/loops/checkpoints.hpp>
#include <gradc/loops/emit.hpp>
#include <gradc/loops/loop_states.hpp>
#include <gradc/rules/arrays/last_part.hpp>
#include <gradc/loops/sum_over.hpp>

namespace gradc::loops {

/// \cond INTERNAL

/// The carry of the loop whose body has tag Tag, of Init's shape.
template <class Tag, class Init>
using carry_of = expr::loop_carry<Tag, Init::shape.rows, Init::shape.cols, Init::shape.kind>;

/// The chained loop node of Kind whose steps run `body` (built with carry_of<Tag, Init>)
/// from init; `trailing` holds the snapshots of a checkpointed loop, then the count's
/// source (none for a while loop).
template <count_kind Kind, class Tag, bool Checkpointed, bool KeepStates = false, class Init, class Body,
          class Trailing>
auto chained_loop_node(const Init& init, const Body& body, const Trailing& trailing) {
    using carry = carry_of<Tag, Init>;
    using init_set = typename lower::array_set_of<typename Init::graph>::type;
    using body_type = body_program<Body, Tag, carry, init_set>;
    static_assert(!std::is_void_v<typename body_type::set>,
                  "gradc::loop / scan / while_loop: init or the body must use a variable of "
                  "gradc::variables(shape...) (a loop over scalar kernels' variables is not there)");
    using rule = std::conditional_t<KeepStates, loop_states<Body, Tag, carry, init_set, Kind>,
                                    chained_loop<Body, Tag, carry, init_set, Kind, Checkpointed>>;
    using nodes = typename body_type::nodes;
    // The operands, in the order of loops/body_call.hpp and loops/chained_loop.hpp.
    // (Not structured bindings: clang 14 cannot capture those in the lambda below.)
    const auto leading = body_variables_and_literals<body_type>(body);
    const auto& variables = leading.first;
    const auto& literals = leading.second;
    const auto parts = [&]<std::size_t... h>(std::index_sequence<h...>) {
        return std::tuple{hoisted_part<Body, Tag, nodes::hoisted_nodes[h], carry, init_set>(variables, literals,
                                                                                            std::tuple{init})...};
    }(std::make_index_sequence<nodes::hoisted_count>{});
    return std::apply([](const auto&... operands) { return expr::make_node<rule>(operands...); },
                      std::tuple_cat(variables, typename nodes::template counters_of<nodes::step_reads>{},
                                     literals, std::tuple{init}, typename nodes::outer_carries{}, parts, trailing));
}

/// A checkpointed loop's checkpoints operand (none for a loop that stores every step).
template <class... Checkpoints>
auto checkpoints_operand(const Checkpoints&... s) {
    return std::tuple{expr::literal<std::size_t>{s.count}...};
}

/// The tag of the leaf through which an emitting loop's ys loop reads its states.
template <class Tag>
struct states_of {};

/// `std::tuple{final_carry, ys}` of the loop of n steps (n as for `gradc::loop`) whose
/// step(carry, k) returns `gradc::emit(next, y)` (loops/emit.hpp).
template <class Count, class Init, class Step>
auto make_emitting_loop(const char* call, const Count& n, const Init& init, Step& step) {
    using Tag = std::remove_cvref_t<Step>;
    using Body = std::remove_cvref_t<decltype(step(carry_of<Tag, Init>{}, expr::loop_counter<Tag>{}))>;
    using Next = decltype(Body::next);
    using Y = decltype(Body::y);
    static_assert(!Init::shape.is_matrix(),
                  "gradc::emit(next, y): the loop's carry must be a scalar or a vector (a loop keeps the states "
                  "of those only)");
    static_assert(!emits_matrix<Body>(),
                  "gradc::emit(next, y): y must be a scalar or a vector (ys stacks them: a vector of scalars, a "
                  "matrix with a row per vector)");
    static_assert(carry_fits(Next::shape, Init::shape),
                  "gradc::emit(next, y): next must have the carry's shape (init's): a scalar for a scalar, a "
                  "vector of the same length for a vector");
    if constexpr (emits_fitting<Body>(Init::shape)) {
        const auto body = step(carry_of<Tag, Init>{}, expr::loop_counter<Tag>{});
        const auto states =
            chained_loop_node<count_kind_of<Count>(), Tag, false, true>(init, body.next, count_source(call, n));
        const auto final_carry = expr::make_node<rules::arrays::last_row_of>(states);
        if constexpr (std::is_same_v<Y, emitted_carry>) {
            return std::tuple{final_carry, expr::make_node<rules::arrays::rows_after_first>(states)};
        } else {
            // The ys loop reads the states through a leaf bound to them (an outer carry of
            // its body), so it reads them where they are, with nothing computed again.
            using states_type = std::remove_cvref_t<decltype(states)>;
            using states_leaf = expr::loop_carry<states_of<Tag>, states_type::shape.rows, states_type::shape.cols,
                                                 states_type::shape.kind>;
            auto output = [&step](auto k) { return step(state_at(states_leaf{}, k), k).y; };
            return std::tuple{final_carry, make_loop<loop_kind::stack>("gradc::emit(next, y)", n, output,
                                                                       std::tuple{binding<states_leaf, states_type>{states}})};
        }
    }
}

/// The loop of n steps of step(carry, k) from init, once the caller has checked what
/// step returns: a chained loop node (reversed by `s` checkpoints if given), or for a
/// step that emits, `std::tuple{final_carry, ys}`. `call` names the loop in errors.
template <class Count, class Init, class Step, class... Checkpoints>
auto chained_or_emitting(const char* call, const Count& n, const Init& init, Step& step, const Checkpoints&... s) {
    using Tag = std::remove_cvref_t<Step>;
    using Body = std::remove_cvref_t<std::invoke_result_t<Step&, carry_of<Tag, Init>, expr::loop_counter<Tag>>>;
    if constexpr (is_emitted<Body>) {
        static_assert(sizeof...(s) == 0,
                      "gradc::loop / scan with gradc::checkpoints{s}: a loop whose body emits keeps its states "
                      "(its ys are computed from them): checkpoints do not apply");
        return make_emitting_loop(call, n, init, step);
    } else {
        return chained_loop_node<count_kind_of<Count>(), Tag, sizeof...(s) != 0>(
            init, step(carry_of<Tag, Init>{}, expr::loop_counter<Tag>{}),
            std::tuple_cat(checkpoints_operand(s...), count_source(call, n)));
    }
}

/// Whether a step's result is a next carry of the carry's shape c (an expression).
template <class Body>
constexpr bool next_fits(const dims& c) {
    if constexpr (expr::Expression<Body>) {
        return carry_fits(Body::shape, c);
    } else {
        return false;
    }
}

template <class Count>
inline constexpr bool is_count = is_extent_count<Count> || (std::is_integral_v<Count> && !std::is_same_v<Count, bool>);

/// The chained loop node of n steps of body f from init (reversed by `s` checkpoints if given).
template <class Count, class Init, class F, class... Checkpoints>
auto make_chained_loop(const Count& n, const Init& init, F& f, const Checkpoints&... s) {
    static_assert(is_count<Count>, "gradc::loop(n, init, f): n must be an integer or gradc::rows(M), "
                                   "gradc::cols(M), gradc::size(v) of an array expression");
    static_assert(expr::Expression<Init>,
                  "gradc::loop(n, init, f): init must be a gradc expression (a scalar, vector or matrix of "
                  "gradc::variables(shape...))");
    using Tag = std::remove_cvref_t<F>;
    using carry = carry_of<Tag, Init>;
    static_assert(std::is_invocable_v<F&, carry, expr::loop_counter<Tag>>,
                  "gradc::loop(n, init, f): f must take the carry and the step's counter (write "
                  "[&](auto carry, auto k))");
    using Body = std::remove_cvref_t<std::invoke_result_t<F&, carry, expr::loop_counter<Tag>>>;
    static_assert(is_emitted<Body> || expr::Expression<Body>,
                  "gradc::loop(n, init, f): f(carry, k) must return a gradc expression, the next carry, or "
                  "gradc::emit(next, y)");
    static_assert(!expr::Expression<Body> || next_fits<Body>(Init::shape),
                  "gradc::loop(n, init, f): f(carry, k) must return the carry's shape (init's): a scalar "
                  "for a scalar, a vector of the same length for a vector, a matrix of the same extents "
                  "for a matrix");
    if constexpr (is_emitted<Body> || next_fits<Body>(Init::shape)) {
        return chained_or_emitting("gradc::loop(n, init, f)", n, init, f, s...);
    }
}

/// Step k of a scan over xs: entry k of a vector, row k of a matrix.
template <class Xs, class Tag>
auto scanned_at(const Xs& xs, const expr::loop_counter<Tag>& k) {
    if constexpr (Xs::shape.is_matrix()) {
        return row(xs, k);
    } else {
        return xs[k];
    }
}

/// The chained loop node of a scan: a loop over xs's entries (or rows) whose step k
/// calls f with the carry and xs's entry (or row) k.
template <class Init, class Xs, class F, class... Checkpoints>
auto make_scan(const Init& init, const Xs& xs, F& f, const Checkpoints&... s) {
    static_assert(expr::Expression<Init>,
                  "gradc::scan(init, xs, f): init must be a gradc expression (a scalar, vector or matrix of "
                  "gradc::variables(shape...))");
    static_assert(expr::Expression<Xs> && (Xs::shape.is_vector() || Xs::shape.is_matrix()),
                  "gradc::scan(init, xs, f): xs must be a vector expression (one step per entry) or a matrix "
                  "expression (one step per row)");
    if constexpr (expr::Expression<Init> && expr::Expression<Xs> && !Xs::shape.is_scalar()) {
        auto step = [&xs, &f](auto carry, auto k) { return f(carry, scanned_at(xs, k)); };
        using Tag = decltype(step);
        using carry = carry_of<Tag, Init>;
        using element = decltype(scanned_at(xs, expr::loop_counter<Tag>{}));
        static_assert(std::is_invocable_v<F&, carry, element>,
                      "gradc::scan(init, xs, f): f must take the carry and xs's entry (a vector's) or row (a "
                      "matrix's) of the step (write [&](auto carry, auto x))");
        if constexpr (std::is_invocable_v<F&, carry, element>) {
            using Body = std::remove_cvref_t<std::invoke_result_t<F&, carry, element>>;
            static_assert(is_emitted<Body> || expr::Expression<Body>,
                          "gradc::scan(init, xs, f): f(carry, x) must return a gradc expression, the next carry, or "
                          "gradc::emit(next, y)");
            static_assert(!expr::Expression<Body> || next_fits<Body>(Init::shape),
                          "gradc::scan(init, xs, f): f(carry, x) must return the carry's shape (init's): a scalar "
                          "for a scalar, a vector of the same length for a vector, a matrix of the same extents "
                          "for a matrix");
            if constexpr (is_emitted<Body> || next_fits<Body>(Init::shape)) {
                constexpr count_kind kind = Xs::shape.is_matrix() ? count_kind::rows : count_kind::size;
                return chained_or_emitting("gradc::scan(init, xs, f)", extent_count<kind, Xs>{xs}, init, step, s...);
            }
        }
    }
}

/// \endcond

}  // namespace gradc::loops

namespace gradc {

/// c_n, where c₀ = init and c_{k+1} = f(c_k, k) for k = 0, …, n-1 (init for n = 0); n
/// an integer or `gradc::rows(M)`, `gradc::cols(M)`, `gradc::size(v)`. f(carry, k)
/// returns the next carry, of init's shape; it is lowered once, whatever n is.
template <class Count, class Init, class F>
    requires(!std::is_invocable_v<Count>)
auto loop(const Count& n, const Init& init, F&& f) {
    return loops::make_chained_loop(n, expr::expression_of_t<Init>{init}, f);
}
/// The same loop, its reverse mode keeping at most s carries, the init's among them
/// (binomial checkpoints, loops/checkpoints.hpp), instead of n.
template <class Count, class Init, class F>
    requires(!std::is_invocable_v<Count>)
auto loop(const Count& n, const Init& init, F&& f, checkpoints s) {
    return loops::make_chained_loop(n, expr::expression_of_t<Init>{init}, f, s);
}

/// The last carry of a loop with one step per entry of the vector xs (per row of the
/// matrix xs): c₀ = init, c_{k+1} = f(c_k, x_k) where x_k is xs[k] (`row(xs, k)`); init
/// for an empty xs. xs has fixed or run-time extents; f is lowered once.
template <class Init, class Xs, class F>
auto scan(const Init& init, const Xs& xs, F&& f) {
    return loops::make_scan(expr::expression_of_t<Init>{init}, expr::expression_of_t<Xs>{xs}, f);
}
/// The same scan, its reverse mode keeping at most s carries (loops/checkpoints.hpp).
template <class Init, class Xs, class F>
auto scan(const Init& init, const Xs& xs, F&& f, checkpoints s) {
    return loops::make_scan(expr::expression_of_t<Init>{init}, expr::expression_of_t<Xs>{xs}, f, s);
}

}  // namespace gradc
