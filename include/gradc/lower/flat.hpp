#pragma once
/// \file
/// The flat program: the nodes of the outputs' graphs (expr/graph.hpp), merged.
///
/// An expression type names its whole subtree; a flat node names only its rule and the
/// positions of its operands. Everything after this point (the analyses, the programs,
/// the printer) is templated on the flat list alone. Literal values live in an array
/// held by the kernel: `constant<L>` is entry L.

#include <cstddef>
#include <utility>

#include <gradc/expr/graph.hpp>
#include <gradc/expr/pack.hpp>

namespace gradc::lower {

using expr::pack_element;
using graphs::apply;
using graphs::constant;
using graphs::input;
using graphs::named;
using graphs::ref;
using graphs::test;

template <class... Nodes>
struct flat {
    enum : std::size_t { size = sizeof...(Nodes) };
};

template <class Entries>
struct flat_of_entries;
template <class... E>
struct flat_of_entries<graphs::entry_list<E...>> {
    using type = flat<typename E::node...>;
};
template <class Graph>
struct flat_of : flat_of_entries<graphs::entries_t<Graph>> {};

}  // namespace gradc::lower
