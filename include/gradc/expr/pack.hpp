#pragma once
/// \file
/// Compile-time helpers on type packs that instantiate no function and no variable on
/// the types they handle.
///
/// A function or variable whose template arguments name a long type is mangled with that
/// type in its name, and g++ mangles every such entity it meets, needed or not: a static
/// data member per node of a large expression cost minutes (docs/static.md, "Compile
/// time"). These helpers are class templates, aliases, declarations used only inside
/// decltype, and consteval functions templated on numbers.

#include <array>
#include <cstddef>
#include <utility>

namespace gradc::expr {

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

/// The I-th type of the pack T..., without recursion (clang's builtin where it has one).
#if defined(__has_builtin)
#if __has_builtin(__type_pack_element)
#define GRADC_HAS_TYPE_PACK_ELEMENT 1
#endif
#endif
#ifdef GRADC_HAS_TYPE_PACK_ELEMENT
template <std::size_t I, class... T>
using pack_element = __type_pack_element<I, T...>;
#else
template <std::size_t I, class... T>
using pack_element = typename decltype(select_at<I>(indexer<std::index_sequence_for<T...>, T...>{}))::type;
#endif

/// Position of the first true entry (N if none).
template <std::size_t N>
consteval std::size_t first_true(const std::array<bool, N>& a) {
    for (std::size_t i = 0; i < N; ++i)
        if (a[i]) return i;
    return N;
}

/// A list of numbers as a type: `numbers<V>::at<I>` is V[I] (a class-type template
/// argument, so a table computed once is read without recomputing it).
template <auto Values>
struct numbers {
    template <std::size_t I>
    static consteval std::size_t at() {
        return Values[I];
    }
    /// The same entry, at a position known inside a constant evaluation.
    static consteval std::size_t value(std::size_t i) { return Values[i]; }
};

}  // namespace gradc::expr
