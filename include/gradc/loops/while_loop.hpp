#pragma once
/// \file
/// Loops that step while a condition holds: `gradc::while_loop(init, cond, f)` is the
/// first c_k with cond(c_k) false, where c₀ = init and c_{k+1} = f(c_k). It is a chained
/// loop (loops/chained_loop.hpp) whose body is where(cond(c), f(c), c), stepping while
/// the condition holds on some lane: each lane of a batch stops with its own carry (the
/// where keeps it), so values and derivatives are those of each point's own trip count.
/// The condition is piecewise constant, so the derivatives are those of the steps taken
/// (as JAX's and PyTorch's: the trip count is not differentiated). Reverse mode stores
/// the steps' carries, grown as the loop finds how many there are, or keeps
/// `gradc::checkpoints{s}`. `gradc::max_steps{m}` bounds the steps: a call whose
/// condition still holds after m steps throws gradc::Error; without it a loop whose
/// condition never fails does not end.

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>

#include <gradc/error.hpp>
#include <gradc/expr/functions.hpp>
#include <gradc/loops/loop.hpp>

namespace gradc {

/// The most steps a `gradc::while_loop` may take: a call whose condition still holds
/// after m steps throws gradc::Error (on a batch, when it holds on some lane).
struct max_steps {
    std::size_t count;  ///< m.
    /// m steps at most; m < 0 throws gradc::Error.
    template <std::integral I>
        requires(!std::same_as<I, bool>)
    constexpr max_steps(I m) : count(std::size_t(m)) {  // NOLINT: implicit, for max_steps{m}
        if constexpr (std::signed_integral<I>) {
            if (m < 0) throw Error("gradc::max_steps{m}: got m = " + std::to_string(m) + ", expected m >= 0");
        }
    }
};

}  // namespace gradc

namespace gradc::loops {

/// \cond INTERNAL

template <class Option>
inline constexpr bool is_while_option = std::is_same_v<Option, checkpoints> || std::is_same_v<Option, max_steps>;

/// The options of that type among a while loop's (none or one).
template <class Option, class... Options>
auto options_of(const Options&... options) {
    return std::tuple_cat([](const auto& o) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(o)>, Option>) {
            return std::tuple{o};
        } else {
            return std::tuple{};
        }
    }(options)...);
}

/// A while loop's most steps as its count operand: m, or −1 for none.
template <class... Bound>
auto bound_operand(const std::tuple<Bound...>& bound) {
    if constexpr (sizeof...(Bound) == 0) {
        return expr::literal<double>{-1.0};
    } else {
        return expr::literal<double>{double(std::get<0>(bound).count)};
    }
}

/// Whether a condition reads the loop's carry: a node that depends on it.
template <class Body, class Tag, class Carry, class FallbackSet>
constexpr bool condition_reads_carry() {
    using nodes = typename body_program<Body, Tag, Carry, FallbackSet>::nodes;
    using flat = typename body_program<Body, Tag, Carry, FallbackSet>::flat_type;
    using condition = typename step_condition<typename last_node<flat>::type>::type;
    typename nodes::mask read{};
    operand_reads<condition>::into(read);
    for (std::size_t n = 0; n < nodes::size; ++n)
        if (read[n] && nodes::depends[n]) return true;
    return false;
}

/// The chained loop node of a while loop from init, stepping by f while cond holds.
template <class Init, class Cond, class F, class... Options>
auto make_while_loop(const Init& init, Cond& cond, F& f, const Options&... options) {
    static_assert((is_while_option<Options> && ...),
                  "gradc::while_loop(init, cond, f, options...): the options are gradc::checkpoints{s} and "
                  "gradc::max_steps{m}");
    static_assert((std::is_same_v<Options, checkpoints> + ... + 0) <= 1 &&
                      (std::is_same_v<Options, max_steps> + ... + 0) <= 1,
                  "gradc::while_loop(init, cond, f, options...): give gradc::checkpoints{s} and gradc::max_steps{m} "
                  "once each at most");
    static_assert(expr::Expression<Init>,
                  "gradc::while_loop(init, cond, f): init must be a gradc expression (a scalar, vector or "
                  "matrix of gradc::variables(shape...))");
    using Tag = std::remove_cvref_t<F>;
    using carry = carry_of<Tag, Init>;
    static_assert(std::is_invocable_v<Cond&, carry>,
                  "gradc::while_loop(init, cond, f): cond must take the carry (write [&](auto carry))");
    static_assert(std::is_invocable_v<F&, carry>,
                  "gradc::while_loop(init, cond, f): f must take the carry (write [&](auto carry))");
    if constexpr (std::is_invocable_v<Cond&, carry> && std::is_invocable_v<F&, carry>) {
        const auto test = cond(carry{});
        const auto next = f(carry{});
        using Test = std::remove_cvref_t<decltype(test)>;
        using Next = std::remove_cvref_t<decltype(next)>;
        static_assert(expr::Condition<Test>,
                      "gradc::while_loop(init, cond, f): cond(carry) must be a comparison of gradc expressions "
                      "(such as norm(carry) > tol), combined with &&, || or !");
        static_assert(expr::Expression<Next>,
                      "gradc::while_loop(init, cond, f): f(carry) must return a gradc expression, the next carry");
        if constexpr (expr::Condition<Test> && expr::Expression<Next>) {
            static_assert(Test::shape.is_scalar(),
                          "gradc::while_loop(init, cond, f): cond(carry) must be one condition (compare scalars: "
                          "a sum, a norm, an entry), not one per entry of an array");
            static_assert(carry_fits(Next::shape, Init::shape),
                          "gradc::while_loop(init, cond, f): f(carry) must return the carry's shape (init's): a "
                          "scalar for a scalar, a vector of the same length for a vector, a matrix of the same "
                          "extents for a matrix");
            if constexpr (Test::shape.is_scalar() && carry_fits(Next::shape, Init::shape)) {
                const auto body = expr::where(test, next, carry{});
                using Body = std::remove_cvref_t<decltype(body)>;
                using init_set = typename lower::array_set_of<typename Init::graph>::type;
                static_assert(condition_reads_carry<Body, Tag, carry, init_set>(),
                              "gradc::while_loop(init, cond, f): cond(carry) must read the carry (a condition "
                              "that does not would stop at once or never)");
                const auto kept = options_of<checkpoints>(options...);
                const auto bound = options_of<max_steps>(options...);
                return chained_loop_node<count_kind::condition, Tag, std::tuple_size_v<decltype(kept)> != 0>(
                    init, body,
                    std::tuple_cat(std::apply([](const auto&... s) { return checkpoints_operand(s...); }, kept),
                                   std::tuple{bound_operand(bound)}));
            }
        }
    }
}

/// \endcond

}  // namespace gradc::loops

namespace gradc {

/// The first c_k for which cond(c_k) fails, where c₀ = init and c_{k+1} = f(c_k): init
/// when cond(init) fails. cond(carry) is one comparison (as `where` takes); f(carry)
/// returns the next carry, of init's shape. Both are lowered once. Options:
/// `gradc::max_steps{m}` (at most m steps, else gradc::Error), `gradc::checkpoints{s}`
/// (reverse mode keeping at most s carries; it first runs forward once to count its
/// steps).
template <class Init, class Cond, class F, class... Options>
auto while_loop(const Init& init, Cond&& cond, F&& f, const Options&... options) {
    return loops::make_while_loop(expr::expression_of_t<Init>{init}, cond, f, options...);
}

}  // namespace gradc
