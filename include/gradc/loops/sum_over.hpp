#pragma once
/// \file
/// Loops whose count is known when the kernel runs: `gradc::sum_over(n, f)`,
/// `gradc::concat_over(n, f)` and `gradc::stack_over(n, f)`. n is a plain integer (fixed when the expression is
/// built, read by the kernel when it runs: one compiled kernel for every n) or an extent
/// of an array, `gradc::rows(M)`, `gradc::cols(M)`, `gradc::size(v)`, read from the
/// arguments at each call. f is called once, with the loop's counter k (a scalar that
/// indexes: `x[k]`, `row(M, k)`, `col(M, k)`, `M(k, j)`, `segment(v, k, m)`), and what
/// it returns is lowered once as the loop's body (loops/body.hpp, loops/loop_rule.hpp),
/// whatever n is. Loops nest: an inner body may use an enclosing loop's counter.
/// (`gradc::sum_over<K>(f)`, with K in the type, builds K terms instead:
/// expr/array_functions.hpp.)

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/error.hpp>
#include <gradc/expr/array_functions.hpp>
#include <gradc/expr/loop_counter.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/loops/body_part.hpp>
#include <gradc/loops/loop_rule.hpp>

namespace gradc::loops {

/// A loop's count read from an extent of an array expression when the kernel runs.
template <count_kind Kind, class E>
struct extent_count {
    E array;  ///< The array whose extent it is.
};

/// \cond INTERNAL
template <class C>
inline constexpr bool is_extent_count = false;
template <count_kind Kind, class E>
inline constexpr bool is_extent_count<extent_count<Kind, E>> = true;

template <class C>
constexpr count_kind count_kind_of() {
    if constexpr (is_extent_count<C>) {
        return []<count_kind K, class E>(std::type_identity<extent_count<K, E>>) { return K; }(std::type_identity<C>{});
    } else {
        return count_kind::literal;
    }
}

/// An expression bound to a carry leaf of type Leaf that a loop's body reads: the
/// operand its value comes from, where an outer carry's is the leaf itself (an emitting
/// loop's ys loop reads the loop's states so: loops/loop.hpp).
template <class Leaf, class E>
struct binding {
    E value;  ///< The expression.
};

/// The operand of the outer carry leaf Leaf: its binding's expression, or the leaf.
template <class Leaf, class... B>
auto carry_operand(const std::tuple<B...>& bindings) {
    auto bound = std::tuple_cat([&](const auto& b) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(b)>, binding<Leaf, decltype(b.value)>>) {
            return std::tuple{b.value};
        } else {
            return std::tuple{};
        }
    }(std::get<B>(bindings))...);
    if constexpr (std::tuple_size_v<decltype(bound)> == 0) {
        return Leaf{};
    } else {
        return std::get<0>(bound);
    }
}
/// The operands of the outer carries `Leaves`.
template <class... Leaves, class Bindings>
auto carry_operands(std::tuple<Leaves...>*, const Bindings& bindings) {
    return std::tuple{carry_operand<Leaves>(bindings)...};
}

/// Node H of a loop's body, hoisted out of the loop (loops/body_part.hpp); a chained
/// loop's (Carry not void) also takes its init (`tail`); then the outer carries.
template <class Body, class Tag, std::size_t H, class Carry = void, class FallbackSet = void, class Variables,
          class Literals, class Tail = std::tuple<>, class Bindings = std::tuple<>>
auto hoisted_part(const Variables& variables, const Literals& literals, const Tail& tail = {},
                  const Bindings& bindings = {}) {
    using nodes = typename body_program<Body, Tag, Carry, FallbackSet>::nodes;
    return std::apply(
        [](const auto&... operands) { return expr::make_node<body_part<Body, Tag, H, Carry, FallbackSet>>(operands...); },
        std::tuple_cat(variables, typename nodes::template counters_of<nodes::template subtree<H>>{}, literals, tail,
                       carry_operands(static_cast<typename nodes::outer_carries*>(nullptr), bindings)));
}

/// The operands every loop node begins with (loops/body_call.hpp): the body's variables
/// (empty expressions) and its literals, of the body program BodyType.
template <class BodyType, class Body>
auto body_variables_and_literals(const Body& body) {
    using nodes = typename BodyType::nodes;
    using set = typename BodyType::set;
    auto variables = []<std::size_t... i>(std::index_sequence<i...>) {
        return std::tuple<expr::array_variable<nodes::variables[i], set>...>{};
    }(std::make_index_sequence<nodes::variable_count>{});
    auto literals = [&]<std::size_t... i>(std::index_sequence<i...>) {
        return std::tuple{expr::literal<double>{expr::literal_values(body)[i]}...};
    }(std::make_index_sequence<BodyType::literal_count>{});
    return std::pair{variables, literals};
}

/// A loop's last operand, where its count comes from: the array whose extent it is, or a
/// literal n (checked: `call` names the loop in the error).
template <class Count>
auto count_source(const char* call, const Count& n) {
    if constexpr (is_extent_count<Count>) {
        return std::tuple{n.array};
    } else {
        if (n < 0) throw Error(std::string(call) + ": got n = " + std::to_string(n) + ", expected n >= 0");
        return std::tuple{expr::literal<std::size_t>{std::size_t(n)}};
    }
}

/// The loop node of Kind over n steps of body f (`bindings`: the operands of outer carry
/// leaves bound to expressions).
template <loop_kind Kind, class Count, class F, class Bindings = std::tuple<>>
auto make_loop(const char* call, const Count& n, F& f, const Bindings& bindings = {}) {
    static_assert(is_extent_count<Count> || (std::is_integral_v<Count> && !std::is_same_v<Count, bool>),
                  "gradc::sum_over(n, f) / concat_over(n, f) / stack_over(n, f): n must be an integer or "
                  "gradc::rows(M), gradc::cols(M), gradc::size(v) of an array expression");
    using Tag = std::remove_cvref_t<F>;
    using counter = expr::loop_counter<Tag>;
    static_assert(std::is_invocable_v<F&, counter>,
                  "gradc::sum_over(n, f) / concat_over(n, f): f must take the loop's counter (write [&](auto k))");
    const auto body = f(counter{});
    using Body = std::remove_cvref_t<decltype(body)>;
    static_assert(expr::Expression<Body>,
                  "gradc::sum_over(n, f) / concat_over(n, f): f(k) must return a gradc expression of array "
                  "variables (gradc::variables(shape...))");
    if constexpr (expr::Expression<Body>) {
        using body_type = body_program<Body, Tag>;
        static_assert(!std::is_void_v<typename body_type::set>,
                      "gradc::sum_over(n, f) / concat_over(n, f): f(k) must use a variable of "
                      "gradc::variables(shape...) (a loop over scalar kernels' variables is not there)");
        static_assert(Kind == loop_kind::sum || !Body::shape.is_matrix(),
                      "gradc::concat_over(n, f) / stack_over(n, f): f(k) must be a scalar or a vector (the parts are "
                      "put end to end, or stacked as rows)");
        using rule = loop_over<Kind, Body, Tag, count_kind_of<Count>()>;
        using nodes = typename body_type::nodes;
        // The operands, in the order of loops/body_call.hpp and loops/loop_rule.hpp.
        // (Not structured bindings: clang 14 cannot capture those in the lambda below.)
        const auto leading = body_variables_and_literals<body_type>(body);
        const auto& variables = leading.first;
        const auto& literals = leading.second;
        const auto parts = [&]<std::size_t... h>(std::index_sequence<h...>) {
            return std::tuple{
                hoisted_part<Body, Tag, nodes::hoisted_nodes[h]>(variables, literals, std::tuple<>{}, bindings)...};
        }(std::make_index_sequence<nodes::hoisted_count>{});
        const auto source = count_source(call, n);
        return std::apply([](const auto&... operands) { return expr::make_node<rule>(operands...); },
                          std::tuple_cat(variables, typename nodes::template counters_of<nodes::step_reads>{},
                                         literals,
                                         carry_operands(static_cast<typename nodes::outer_carries*>(nullptr), bindings),
                                         parts, source));
    }
}
/// \endcond

}  // namespace gradc::loops

namespace gradc {

/// The number of rows of a matrix expression, read when the kernel runs: a loop's count.
template <expr::Expression M>
constexpr auto rows(const M& m) {
    static_assert(M::shape.is_matrix(), "gradc::rows(M): M must be a matrix (a vector's length is gradc::size(v))");
    return loops::extent_count<loops::count_kind::rows, M>{m};
}
/// The number of columns of a matrix expression, read when the kernel runs: a loop's count.
template <expr::Expression M>
constexpr auto cols(const M& m) {
    static_assert(M::shape.is_matrix(), "gradc::cols(M): M must be a matrix");
    return loops::extent_count<loops::count_kind::cols, M>{m};
}
/// The number of entries of a vector (or matrix) expression, read when the kernel runs.
template <expr::Expression V>
constexpr auto size(const V& v) {
    static_assert(!V::shape.is_scalar(), "gradc::size(v): v must be a vector or a matrix");
    return loops::extent_count<loops::count_kind::size, V>{v};
}

/// Σₖ f(k) for k = 0, …, n-1 (0 for n = 0), n an integer or `gradc::rows(M)`,
/// `gradc::cols(M)`, `gradc::size(v)`: the body f(k) is lowered once, whatever n is.
template <class Count, class F>
    requires(!std::is_invocable_v<Count>)
auto sum_over(const Count& n, F&& f) {
    return loops::make_loop<loops::loop_kind::sum>("gradc::sum_over(n, f)", n, f);
}

/// f(0), …, f(n-1) end to end (scalars or vectors of one length; empty for n = 0), n as
/// for sum_over: a vector whose length is known when the kernel runs.
template <class Count, class F>
    requires(!std::is_invocable_v<Count>)
auto concat_over(const Count& n, F&& f) {
    return loops::make_loop<loops::loop_kind::concat>("gradc::concat_over(n, f)", n, f);
}

/// f(0), …, f(n-1) as the rows of a matrix of n rows (vectors of one length; for
/// scalars, a vector of n), n as for sum_over: known when the kernel runs.
template <class Count, class F>
    requires(!std::is_invocable_v<Count>)
auto stack_over(const Count& n, F&& f) {
    return loops::make_loop<loops::loop_kind::stack>("gradc::stack_over(n, f)", n, f);
}

}  // namespace gradc
