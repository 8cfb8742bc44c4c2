#pragma once
/// Compile-time helpers that instantiate no function on the types they handle.
///
/// A function template instantiated on an expression type is mangled with that type in
/// its name, and mangling deep types dominated compile time. These helpers use class
/// templates, overload resolution inside decltype (declarations only), and constexpr
/// functions templated on sizes alone.

#include <array>
#include <cstddef>
#include <utility>

namespace gradc::lower {

template <std::size_t I, class T>
struct indexed {
    using type = T;
};

template <class Seq, class... T>
struct indexer;
template <std::size_t... I, class... T>
struct indexer<std::index_sequence<I...>, T...> : indexed<I, T>... {};

template <std::size_t I, class T>
indexed<I, T> select_at(const indexed<I, T>&);  // declared only: used in decltype

/// The I-th type of the pack T..., without recursion.
template <std::size_t I, class... T>
using type_at = typename decltype(select_at<I>(indexer<std::index_sequence_for<T...>, T...>{}))::type;

/// Position of the first true entry (N if none).
template <std::size_t N>
constexpr std::size_t first_true(const std::array<bool, N>& a) {
    for (std::size_t i = 0; i < N; ++i)
        if (a[i]) return i;
    return N;
}

}  // namespace gradc::lower
