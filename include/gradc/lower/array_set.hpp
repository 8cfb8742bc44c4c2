#pragma once
/// \file
/// Which lowering a kernel takes: the array programs when its variables come from
/// `gradc::variables(shape...)`, the scalar programs when they come from
/// `gradc::variables<N>()`. `array_set_of<Graph>::type` is the variable set of the
/// graph's array variables, or void. (compile() has already refused graphs that mix
/// the variables of two calls.)

#include <array>
#include <cstddef>

#include <gradc/expr/graph.hpp>
#include <gradc/expr/nodes.hpp>
#include <gradc/expr/variable_sets.hpp>
#include <gradc/expr/pack.hpp>

namespace gradc::lower {

template <class Key>
struct set_of_key {
    using type = void;
};
template <std::size_t I, class Set>
struct set_of_key<expr::array_variable<I, Set>> {
    using type = Set;
};

template <class Entries>
struct array_set_of_entries;
template <class... E>
struct array_set_of_entries<graphs::entry_list<E...>> {
    static constexpr std::size_t at =
        expr::first_true<sizeof...(E)>({!__is_same(typename set_of_key<typename E::key>::type, void)...});
    using type = typename expr::pack_element<at < sizeof...(E) ? at : 0, set_of_key<typename E::key>...>::type;
};
template <>
struct array_set_of_entries<graphs::entry_list<>> {
    using type = void;
};
template <class Graph>
struct array_set_of : array_set_of_entries<graphs::entries_t<Graph>> {};

}  // namespace gradc::lower
