#pragma once
/// \file
/// Which `variables` call an expression's variables come from, and how many variables
/// that call made: what the kernels check to refuse expressions that mix the variables
/// of two calls (compile.hpp, the checkers).

#include <array>
#include <cstddef>
#include <type_traits>

#include <gradc/expr/graph.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/expr/pack.hpp>

namespace gradc::expr {

/// Size of the variable set the expression's variables come from (0 if it has none);
/// `mixed_sets` when variables of different `variables<N>()` sets meet.
inline constexpr std::size_t mixed_sets = static_cast<std::size_t>(-1);

constexpr std::size_t merge_set_size(std::size_t a, std::size_t b) {
    if (a == 0) return b;
    if (b == 0 || a == b) return a;
    return mixed_sets;
}

// Which variable set an expression's variables come from: machinery of the checks that
// refuse mixed sets, left out of the API reference.
/// \cond INTERNAL
/// The set size of the variables a graph's input nodes stand for (their keys), merged.
/// A class template per key and one function per graph: nothing per node is named with
/// a long type (expr/pack.hpp says why).
template <class Key>
struct key_set_size : std::integral_constant<std::size_t, 0> {};
template <std::size_t I, std::size_t N, class Set>
struct key_set_size<variable<I, N, Set>> : std::integral_constant<std::size_t, N> {};
template <std::size_t I, class Set>
struct key_set_size<array_variable<I, Set>> : std::integral_constant<std::size_t, Set::size> {};

/// The set (the `variables` call) a key's variable comes from, a type; void for a key
/// that is not a variable. A type and not the address of an object per set: g++'s
/// sanitizers (-fsanitize=address, undefined) make a comparison of two addresses no
/// constant expression, so kernels did not compile in sanitized builds.
template <class Key>
struct key_set {
    using type = void;
};
template <std::size_t I, std::size_t N, class Set>
struct key_set<variable<I, N, Set>> {
    using type = variable_set<Set>;
};
template <std::size_t I, class Set>
struct key_set<array_variable<I, Set>> {
    using type = Set;
};
template <class Key>
using key_set_t = typename key_set<Key>::type;

/// The first of Sets that is not void, or void (a trailing void stands for "none").
template <class... Sets>
using first_set_t = pack_element<first_true(std::array<bool, sizeof...(Sets)>{!std::is_void_v<Sets>...}), Sets..., void>;

template <class Entries>
struct entries_set_size;
template <class... E>
struct entries_set_size<graphs::entry_list<E...>> {
    /// The set of the graph's first variable (void if none).
    using set = first_set_t<key_set_t<typename E::key>...>;
    static consteval std::size_t get() {
        std::size_t n = 0;
        for (std::size_t s : {key_set_size<typename E::key>::value..., std::size_t{0}}) n = merge_set_size(n, s);
        for (bool same : {(std::is_void_v<key_set_t<typename E::key>> || std::is_same_v<key_set_t<typename E::key>, set>)...})
            if (!same) return mixed_sets;
        return n;
    }
};

/// 0 for anything that is not an expression (so that overloads taking expressions can
/// name it in their signatures and still be set aside for other arguments).
template <class E>
inline constexpr std::size_t set_size_of = 0;
template <class E>
    requires requires { typename E::graph; }
inline constexpr std::size_t set_size_of<E> = entries_set_size<graphs::entries_t<typename E::graph>>::get();

/// The set (the `variables` call) an expression's variables come from; void if none.
template <class E>
using set_of = typename entries_set_size<graphs::entries_t<typename E::graph>>::set;

/// \endcond
}  // namespace gradc::expr
