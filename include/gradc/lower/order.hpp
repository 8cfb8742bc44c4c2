#pragma once
/// Step 1 of lowering: the topological order of the unique nodes of an expression.
///
/// A depth-first walk lists every node after its operands. Each node is identified by
/// a key: a payload-free subtree by its type alone, so that equal subtrees are merged
/// (common-subexpression elimination by type), and a subtree that carries a literal by
/// its type and its path from the root, so that `x*2.0 + x*3.0` keeps two products.
/// A payload-free subtree already listed is not walked again, which keeps the walk
/// linear in the number of unique nodes even when a subtree is shared many times.
/// Conditions (the first operand of `where`) are walked for their operands but are not
/// nodes themselves: they have no value slot and no derivative.

#include <cstddef>
#include <utility>

#include <boost/hana/append.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/contains.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <gradc/expr/nodes.hpp>

namespace gradc::lower {

namespace hana = boost::hana;

/// Path of a payload-free occurrence: its position does not matter.
struct anywhere {};

template <class Path, std::size_t K>
struct child_path {
    using type = anywhere;
};
template <std::size_t... P, std::size_t K>
struct child_path<std::index_sequence<P...>, K> {
    using type = std::index_sequence<P..., K>;
};

/// The key that identifies an occurrence of expression E at Path.
template <class E, class Path>
struct occurrence {
    using expr = E;
    using path = Path;
};

template <class E, class Path>
using key_t = occurrence<E, std::conditional_t<expr::is_payload_free<E>, anywhere, Path>>;

template <class E>
struct operands_of {
    static constexpr std::size_t count = 0;
};
template <template <class, class...> class Kind, class Head, class... A>
    requires(expr::is_node<Kind<Head, A...>> || expr::is_condition<Kind<Head, A...>>)
struct operands_of<Kind<Head, A...>> {
    static constexpr std::size_t count = sizeof...(A);
    template <std::size_t K>
    using at = typename decltype(+hana::at_c<K>(hana::tuple_t<A...>))::type;
};

template <class E, class Path, class List>
constexpr auto walk(List list);

template <class E, class Path, std::size_t K, class List>
constexpr auto walk_operands(List list) {
    if constexpr (K == operands_of<E>::count) {
        return list;
    } else {
        using Operand = typename operands_of<E>::template at<K>;
        using OperandPath = typename child_path<Path, K>::type;
        return walk_operands<E, Path, K + 1>(walk<Operand, OperandPath>(list));
    }
}

template <class E, class Path, class List>
constexpr auto walk(List list) {
    using Key = key_t<E, Path>;
    using KeyPath = typename Key::path;
    if constexpr (expr::is_condition<E>) {
        return walk_operands<E, KeyPath, 0>(list);
    } else if constexpr (decltype(hana::contains(list, hana::type_c<Key>))::value) {
        return list;
    } else {
        return hana::append(walk_operands<E, KeyPath, 0>(list), hana::type_c<Key>);
    }
}

template <std::size_t M, class List>
constexpr auto walk_outputs(List list) {
    return list;
}

template <std::size_t M, class Out, class... Rest, class List>
constexpr auto walk_outputs(List list) {
    return walk_outputs<M + 1, Rest...>(walk<Out, std::index_sequence<M>>(list));
}

/// The unique nodes of the outputs Outs..., operands first, as a pack of occurrences.
template <class... Occ>
struct node_order {
    static constexpr std::size_t size = sizeof...(Occ);

    template <std::size_t I>
    using at = typename decltype(+hana::at_c<I>(hana::tuple_t<Occ...>))::type;

    /// Position of the occurrence Key in the order (`size` if absent).
    template <class Key>
    static constexpr std::size_t index_of = [] {
        constexpr bool match[] = {std::is_same_v<Key, Occ>..., false};
        std::size_t i = 0;
        while (i < size && !match[i]) ++i;
        return i;
    }();
};

template <class List>
struct to_node_order;
template <class... T>
struct to_node_order<hana::tuple<T...>> {
    using type = node_order<typename T::type...>;
};

template <class... Outs>
using order_t = typename to_node_order<decltype(walk_outputs<0, Outs...>(hana::tuple<>{}))>::type;

}  // namespace gradc::lower
