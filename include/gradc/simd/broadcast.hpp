#pragma once
/// \file
/// `gradc::broadcast(x)`: one value of a variable for every point of a batch call, given
/// in place of its spans. Both kinds of kernel take it in the std::tuple form of their
/// read arguments: array kernels (simd/array_arguments.hpp) for `in`, scalar kernels
/// (simd/point_inputs.hpp) for `in`, `tangents_in`, `weights` and `v_in`. The value is
/// read once, before anything is written, and splatted into batches once per call.

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace gradc {

/// One value of a variable for every point of a batch call. It refers to the value:
/// build it in the call (`std::tuple{gradc::broadcast(theta), xs}`) or keep x alive.
template <class X>
struct broadcast_argument {
    const X& value;  ///< The value.
};
/// `gradc::broadcast(x)`: the same value of a variable at every point of a batch call.
template <class X>
broadcast_argument<X> broadcast(const X& x) {
    return {x};
}

}  // namespace gradc

namespace gradc::simd::detail {

/// Whether X (without cv or reference) is a `gradc::broadcast(x)`.
template <class X>
inline constexpr bool is_broadcast = false;
template <class X>
inline constexpr bool is_broadcast<broadcast_argument<X>> = true;

/// Whether a read argument is given in the tuple form (one entry per variable).
template <class In>
inline constexpr bool is_tuple_input = false;
template <class... X>
inline constexpr bool is_tuple_input<std::tuple<X...>> = true;

/// The entry type of a tuple's j-th element, without cv or reference.
template <class Arg, std::size_t J>
using tuple_entry_t = std::remove_cvref_t<std::tuple_element_t<J, Arg>>;

/// Which of an argument's K slots are given per point (all of them for a span list).
template <class Arg, std::size_t K>
constexpr std::array<bool, K> per_point_slots() {
    std::array<bool, K> p{};
    p.fill(true);
    if constexpr (is_tuple_input<Arg>) {
        if constexpr (std::tuple_size_v<Arg> == K)  // else the call's static_assert says so
            [&]<std::size_t... j>(std::index_sequence<j...>) {
                ((p[j] = !is_broadcast<tuple_entry_t<Arg, j>>), ...);
            }(std::make_index_sequence<K>{});
    }
    return p;
}

}  // namespace gradc::simd::detail
