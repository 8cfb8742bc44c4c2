#pragma once
/// \file
/// `gradc::compile(outputs..., [gradc::wrt(variables...)])`: lower expressions into a
/// kernel. Wrong use is a compile-time error that names the mistake.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/expr/nodes.hpp>
#include <gradc/expr/variable_sets.hpp>
#include <gradc/array_kernel.hpp>
#include <gradc/kernel.hpp>
#include <gradc/lower/array_set.hpp>
#include <gradc/lower/merge_outputs.hpp>
#include <gradc/lower/program.hpp>

namespace gradc {

/// The variables a kernel differentiates with respect to, in the order of its gradient.
template <std::size_t SetSize, class Set, std::size_t... I>
struct wrt_spec {
    static constexpr std::size_t set_size = SetSize;  ///< The size of the variable set.
    /// The `variables` call the variables come from (expr/nodes.hpp, key_set).
    using set = Set;
    using indices = std::index_sequence<I...>;  ///< The variables' positions.
};

namespace detail {

template <class T>
inline constexpr bool is_wrt_spec = false;
template <std::size_t N, class Set, std::size_t... I>
inline constexpr bool is_wrt_spec<wrt_spec<N, Set, I...>> = true;

template <std::size_t... I>
constexpr bool all_distinct() {
    constexpr std::size_t v[] = {I...};
    for (std::size_t a = 0; a < sizeof...(I); ++a)
        for (std::size_t b = a + 1; b < sizeof...(I); ++b)
            if (v[a] == v[b]) return false;
    return true;
}

}  // namespace detail

/// `wrt(x2, x1)`: differentiate with respect to x2 and x1, in that order.
template <class... V>
constexpr auto wrt(const V&...) {
    static_assert(sizeof...(V) >= 1, "gradc::wrt(): name at least one variable");
    static_assert((expr::is_variable<V> && ...),
                  "gradc::wrt(): every argument must be a variable from gradc::variables<N>(), "
                  "not an expression or a number");
    if constexpr ((expr::is_variable<V> && ...)) {
        using first_set = typename std::tuple_element_t<0, std::tuple<V...>>::set;
        constexpr std::size_t n = std::get<0>(std::tuple{V::set_size...});
        static_assert(((V::set_size == n && std::is_same_v<typename V::set, first_set>) && ...),
                      "gradc::wrt(): the variables come from different gradc::variables calls; make all "
                      "variables of one kernel with one call");
        static_assert(detail::all_distinct<V::index...>(), "gradc::wrt(): a variable is named twice");
        return wrt_spec<n, expr::key_set_t<std::tuple_element_t<0, std::tuple<V...>>>, V::index...>{};
    }
}

namespace detail {

template <class Wrt, std::size_t N>
struct wrt_indices {
    using type = typename Wrt::indices;
};
template <std::size_t N>
struct wrt_indices<void, N> {
    using type = std::make_index_sequence<N>;
};

template <class Wrt, class... Outs>
constexpr auto compile_outputs(const Outs&... outs) {
    static_assert(sizeof...(Outs) >= 1, "gradc::compile(): give at least one output expression");
    static_assert((expr::Expression<Outs> && ...),
                  "gradc::compile(): every output must be a gradc expression built from "
                  "gradc::variables (a condition such as x < y is not a value; use where)");
    if constexpr ((expr::Expression<Outs> && ...)) {
        constexpr std::size_t n = [] {
            std::size_t s = 0;
            ((s = expr::merge_set_size(s, expr::set_size_of<Outs>)), ...);
            return s;
        }();
        static_assert(n != expr::mixed_sets,
                      "gradc::compile(): the outputs use variables from different gradc::variables "
                      "calls; make all variables of one kernel with one call");
        static_assert(n != 0, "gradc::compile(): the outputs use no variable");
        constexpr bool wrt_matches = [] {
            if constexpr (std::is_void_v<Wrt>) {
                return true;
            } else {
                // The outputs' set: the first one that has variables (n says they share it).
                using outputs_set = expr::first_set_t<expr::set_of<Outs>...>;
                return Wrt::set_size == n && (n == expr::mixed_sets || std::is_same_v<typename Wrt::set, outputs_set>);
            }
        }();
        static_assert(wrt_matches,
                      "gradc::compile(): the wrt() variables come from another gradc::variables call "
                      "than the outputs'");
        // Lower only valid input: after a failed assertion some compilers go on
        // instantiating, and a set size of -1 would make them build index sequences of
        // that length.
        if constexpr (n != expr::mixed_sets && n != 0 && wrt_matches) {
            using WrtIndices = typename wrt_indices<Wrt, n>::type;
            using L = lower::lowered<Outs...>;
            using Set = typename lower::array_set_of<typename L::merged::graph>::type;
            if constexpr (std::is_void_v<Set>) {
                using Program = lower::program<typename L::flat_type, typename L::output_nodes, WrtIndices>;
                return kernel<Program, n, L::literal_count>(outs...);
            } else {
                using Program = lower::array_program<Set, typename L::flat_type, typename L::output_nodes, WrtIndices>;
                return array_kernel<Program, L::literal_count>(outs...);
            }
        }
    }
}

template <class Tuple, std::size_t... I>
constexpr auto compile_with_wrt(const Tuple& args, std::index_sequence<I...>) {
    using Wrt = std::remove_cvref_t<std::tuple_element_t<sizeof...(I), Tuple>>;
    return compile_outputs<Wrt>(std::get<I>(args)...);
}

}  // namespace detail

/// Compile one or more output expressions into a kernel; an optional last argument
/// `gradc::wrt(...)` restricts derivatives to some variables (default: all, in order).
template <class... Args>
constexpr auto compile(const Args&... args) {
    static_assert(sizeof...(Args) >= 1, "gradc::compile(): give at least one output expression");
    using Last = std::tuple_element_t<sizeof...(Args) - 1, std::tuple<Args...>>;
    if constexpr (detail::is_wrt_spec<Last>) {
        return detail::compile_with_wrt(std::tuple<const Args&...>(args...),
                                        std::make_index_sequence<sizeof...(Args) - 1>{});
    } else {
        return detail::compile_outputs<void>(args...);
    }
}

}  // namespace gradc
