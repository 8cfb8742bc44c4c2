#pragma once
/// \file
/// Loops whose steps chain: `gradc::loop(n, init, f)` is c_n, where c₀ = init and
/// c_{k+1} = f(c_k, k). n is as for `gradc::sum_over` (loops/sum_over.hpp): an integer
/// fixed when the expression is built, or `gradc::rows(M)`, `gradc::cols(M)`,
/// `gradc::size(v)` read when the kernel runs. init is an expression (a scalar, vector
/// or matrix, fixed or run-time extents) and f returns one of the same shape. f is
/// called once, with the carry (expr/loop_carry.hpp) and the counter, and what it
/// returns is lowered once as the loop's body, whatever n is (loops/chained_loop.hpp):
/// a 1,000-step RK4 compiles like one step.

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
#include <gradc/loops/sum_over.hpp>

namespace gradc::loops {

/// \cond INTERNAL

/// The chained loop node of n steps of body f from init.
template <class Count, class Init, class F>
auto make_chained_loop(const Count& n, const Init& init, F& f) {
    constexpr const char* call = "gradc::loop(n, init, f)";
    static_assert(is_extent_count<Count> || (std::is_integral_v<Count> && !std::is_same_v<Count, bool>),
                  "gradc::loop(n, init, f): n must be an integer or gradc::rows(M), gradc::cols(M), "
                  "gradc::size(v) of an array expression");
    static_assert(expr::Expression<Init>,
                  "gradc::loop(n, init, f): init must be a gradc expression (a scalar, vector or matrix of "
                  "gradc::variables(shape...))");
    using Tag = std::remove_cvref_t<F>;
    using counter = expr::loop_counter<Tag>;
    using carry = expr::loop_carry<Tag, Init::shape.rows, Init::shape.cols, Init::shape.kind>;
    static_assert(std::is_invocable_v<F&, carry, counter>,
                  "gradc::loop(n, init, f): f must take the carry and the step's counter (write "
                  "[&](auto carry, auto k))");
    const auto body = f(carry{}, counter{});
    using Body = std::remove_cvref_t<decltype(body)>;
    static_assert(expr::Expression<Body>,
                  "gradc::loop(n, init, f): f(carry, k) must return a gradc expression, the next carry");
    static_assert(!expr::Expression<Body> || carry_fits(Body::shape, Init::shape),
                  "gradc::loop(n, init, f): f(carry, k) must return the carry's shape (init's): a scalar "
                  "for a scalar, a vector of the same length for a vector, a matrix of the same extents "
                  "for a matrix");
    if constexpr (expr::Expression<Body> && carry_fits(Body::shape, Init::shape)) {
        using init_set = typename lower::array_set_of<typename Init::graph>::type;
        using body_type = body_program<Body, Tag, carry, init_set>;
        static_assert(!std::is_void_v<typename body_type::set>,
                      "gradc::loop(n, init, f): init or f(carry, k) must use a variable of "
                      "gradc::variables(shape...) (a loop over scalar kernels' variables is not there)");
        using rule = chained_loop<Body, Tag, carry, init_set, count_kind_of<Count>()>;
        using nodes = typename body_type::nodes;
        // The operands, in the order of loops/body_call.hpp and loops/chained_loop.hpp.
        // (Not structured bindings: clang 14 cannot capture those in the lambda below.)
        const auto leading = body_variables_and_literals<body_type>(body);
        const auto& variables = leading.first;
        const auto& literals = leading.second;
        const auto parts = [&]<std::size_t... h>(std::index_sequence<h...>) {
            return std::tuple{hoisted_part<Body, Tag, nodes::hoisted_nodes[h], carry, init_set>(
                variables, literals, std::tuple{init})...};
        }(std::make_index_sequence<nodes::hoisted_count>{});
        const auto source = count_source(call, n);
        return std::apply([](const auto&... operands) { return expr::make_node<rule>(operands...); },
                          std::tuple_cat(variables, typename nodes::template counters_of<nodes::step_reads>{},
                                         literals, std::tuple{init}, parts, source));
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
    return loops::make_chained_loop(n, expr::expression_of_t<Init>(init), f);
}

}  // namespace gradc
