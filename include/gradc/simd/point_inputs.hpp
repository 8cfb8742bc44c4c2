#pragma once
/// \file
/// The read arguments of a scalar kernel's batch calls (`in`, `tangents_in`, `weights`,
/// `v_in`), each in one of two forms:
///  - a list of spans, one per slot (variable, wrt variable or output): every slot is
///    given per point (simd/arguments.hpp);
///  - a std::tuple with one entry per slot, in slot order: a span of the slot's values,
///    one per point (a `std::span`, a `std::vector`, ...), or `gradc::broadcast(x)`, one
///    number for every point (simd/broadcast.hpp).
///
/// The number of points N is the length of the first span among the call's read
/// arguments, in argument order; every other span must have N entries. A call whose
/// read arguments are all broadcast does not compile (each call's static_assert says
/// so). A broadcast value is converted to the lane type, read before anything is
/// written, and splatted into a batch once per call; the loop over points loads only
/// the spans (`run_points`).

#include <algorithm>
#include <array>
#include <cstddef>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/lower/node_mask.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/broadcast.hpp>
#include <gradc/simd/config.hpp>
#include <gradc/simd/tail.hpp>

namespace gradc::simd::detail {

/// A read argument of a scalar kernel's batch call: a span list or a tuple.
template <class Arg>
concept read_argument = span_list<Arg> || is_tuple_input<Arg>;

/// One slot's values at every point: a contiguous sized range of numbers.
template <class X>
concept point_span = std::ranges::contiguous_range<const X> && std::ranges::sized_range<const X> &&
                     std::is_arithmetic_v<std::remove_cv_t<std::ranges::range_value_t<const X>>>;

/// What a read argument's slots are, for the messages.
enum class slots_of { variables, wrt_variables, outputs };

/// The lane type an argument's spans hold (void if it has none: all broadcast).
template <class Arg>
struct spans_lane {
    using type = void;
};
template <span_list Arg>
struct spans_lane<Arg> {
    using type = span_list_value_t<Arg>;
};
template <class X>
struct span_values {
    using type = std::remove_cv_t<std::ranges::range_value_t<const X>>;
};
template <class X0, class... X>
struct spans_lane<std::tuple<X0, X...>> {
    using E = std::remove_cvref_t<X0>;
    using type = typename std::conditional_t<!is_broadcast<E> && point_span<E>, span_values<E>,
                                             spans_lane<std::tuple<X...>>>::type;
};

/// Whether a read argument gives some slot per point (not all broadcast).
template <class Arg>
inline constexpr bool any_per_point = true;
template <class... X>
inline constexpr bool any_per_point<std::tuple<X...>> = (!is_broadcast<std::remove_cvref_t<X>> || ...);

/// Whether the read arguments Args give at least one span (the number of points).
template <class... Args>
inline constexpr bool has_point_span = (any_per_point<Args> || ...);

/// The lane type of a call: that of the first span among its read arguments (double
/// when there is none, a call that does not compile).
template <class... Args>
struct call_lane {
    using type = double;
};
template <class Arg, class... Args>
struct call_lane<Arg, Args...> {
    using own = typename spans_lane<Arg>::type;
    using type = std::remove_cv_t<
        typename std::conditional_t<std::is_void_v<own>, call_lane<Args...>, std::type_identity<own>>::type>;
};
template <class... Args>
using call_lane_t = typename call_lane<Args...>::type;

/// A read argument as a call names it: K slots, what they are, the argument's name.
template <std::size_t K, slots_of Role, class Arg>
struct read_arg {
    static constexpr std::size_t slots = K;
    static constexpr std::array<bool, K> mask = per_point_slots<Arg, K>();
    const char* name;
    const Arg& value;
};
/// `per_variable<K>("in", in)`: the read argument `in`, one slot per variable (K).
template <std::size_t K, class Arg>
read_arg<K, slots_of::variables, Arg> per_variable(const char* name, const Arg& value) {
    return {name, value};
}
/// A read argument with one slot per wrt variable (`tangents_in`, `v_in`).
template <std::size_t K, class Arg>
read_arg<K, slots_of::wrt_variables, Arg> per_wrt_variable(const char* name, const Arg& value) {
    return {name, value};
}
/// A read argument with one slot per output (`weights`).
template <std::size_t K, class Arg>
read_arg<K, slots_of::outputs, Arg> per_output(const char* name, const Arg& value) {
    return {name, value};
}

/// The slots of several read arguments one after the other: which are given per point.
template <class... R>
constexpr auto joined_mask() {
    std::array<bool, (R::slots + ... + 0)> m{};
    std::size_t at = 0;
    ((std::copy(R::mask.begin(), R::mask.end(), m.begin() + static_cast<std::ptrdiff_t>(at)), at += R::slots), ...);
    return m;
}

/// The read arguments of one call, checked: K slots (the arguments' slots in order), of
/// which Mask says which are spans; the spans' data and the broadcast values.
template <class T, std::size_t K, lower::node_mask<K> Mask>
struct point_inputs {
    static constexpr std::size_t per_point_count = static_cast<std::size_t>(std::ranges::count(Mask, true));
    static constexpr std::size_t fixed_count = K - per_point_count;
    /// Where slot k is among the spans, or among the broadcast values.
    static constexpr std::array<std::size_t, K> index = [] {
        std::array<std::size_t, K> o{};
        std::size_t p = 0, f = 0;
        for (std::size_t k = 0; k < K; ++k) o[k] = Mask[k] ? p++ : f++;
        return o;
    }();

    std::size_t n = 0;                                   ///< The number of points.
    span_name first{"in", 0};                            ///< The span that gave n, for messages.
    std::array<const T*, K> slots{};                     ///< Each slot's span (null if broadcast).
    std::array<const T*, per_point_count> per_point{};  ///< The spans alone, in slot order.
    std::array<T, fixed_count> fixed{};                  ///< The broadcast values, in slot order.

    /// Slots [Offset, Offset + C) as one argument of the overlap check.
    template <std::size_t Offset, std::size_t C>
    span_group<T, C> group(const char* name) const {
        span_group<T, C> g{name, {}, false};
        for (std::size_t j = 0; j < C; ++j) g.data[j] = slots[Offset + j];
        return g;
    }
};

/// The number of points and the span that gives it: the first span of the first
/// argument that has one (a span list's first entry, even when the list is empty).
template <std::size_t K, slots_of Role, class Arg>
void find_point_count(const read_arg<K, Role, Arg>& r, std::size_t& n, span_name& first, bool& found) {
    if (found) return;
    if constexpr (span_list<Arg>) {
        n = point_count(r.value);
        first = span_name(r.name, 0);
        found = true;
    } else if constexpr (is_tuple_input<Arg> && std::tuple_size_v<Arg> == K) {
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            const auto look = [&](const auto& x, std::size_t at) {
                using X = std::remove_cvref_t<decltype(x)>;
                if constexpr (!is_broadcast<X> && point_span<X>) {
                    if (!found) {
                        n = std::ranges::size(x);
                        first = span_name(r.name, at);
                        found = true;
                    }
                }
            };
            (look(std::get<j>(r.value), j), ...);
        }(std::make_index_sequence<K>{});
    }
}

/// Checks one read argument and puts it at slots [at, at + K) of `in`.
template <class T, class Inputs, std::size_t K, slots_of Role, class Arg>
void take_argument(const char* call, const read_arg<K, Role, Arg>& r, Inputs& in, std::size_t& at,
                   const span_name& first) {
    constexpr const char* per_span = Role == slots_of::variables       ? "one per variable"
                                     : Role == slots_of::wrt_variables ? "one per wrt variable"
                                                                       : "one per output";
    if constexpr (span_list<Arg>) {
        static_assert(std::is_same_v<span_list_value_t<Arg>, T>,
                      "gradc batch call: every span of the inputs must hold the same lane type (float or double)");
        const auto p = checked_pointers<T, K>(call, r.name, per_span, r.value, in.n, first);
        for (std::size_t j = 0; j < K; ++j) in.slots[at + j] = p[j];
    } else {
        constexpr std::size_t size = std::tuple_size_v<Arg>;
        static_assert(size == K || Role != slots_of::variables,
                      "gradc batch call: the tuple of inputs needs one entry per variable, in variable order");
        static_assert(size == K || Role != slots_of::wrt_variables,
                      "gradc batch call: the tuple of tangents or directions needs one entry per wrt variable, "
                      "in wrt order");
        static_assert(size == K || Role != slots_of::outputs,
                      "gradc batch call: the tuple of weights needs one entry per output");
        if constexpr (size == K) {
            [&]<std::size_t... j>(std::index_sequence<j...>) {
                const auto one = [&](const auto& x, std::size_t slot) {
                    using X = std::remove_cvref_t<decltype(x)>;
                    if constexpr (is_broadcast<X>) {
                        static_assert(std::is_arithmetic_v<std::remove_cvref_t<decltype(x.value)>>,
                                      "gradc batch call: gradc::broadcast(x) for a scalar kernel's variable takes "
                                      "a number");
                        in.fixed[Inputs::index[slot]] = static_cast<T>(x.value);
                    } else {
                        static_assert(point_span<X>,
                                      "gradc batch call: a tuple entry must be a span of the values at every "
                                      "point (std::span, std::vector of float or double) or gradc::broadcast(x)");
                        static_assert(std::is_same_v<std::remove_cv_t<std::ranges::range_value_t<const X>>, T>,
                                      "gradc batch call: every span of the inputs must hold the same lane type "
                                      "(float or double)");
                        if (std::ranges::size(x) != in.n)
                            bad_length(call, span_name(r.name, slot - at), std::ranges::size(x), in.n, first);
                        in.slots[slot] = std::ranges::data(x);
                    }
                };
                (one(std::get<j>(r.value), at + j), ...);
            }(std::make_index_sequence<K>{});
        }
    }
    at += K;
}

/// The read arguments of a call, checked in order (spans' counts and lengths, before
/// anything is written), with the broadcast values converted to T.
template <class T, class... R>
point_inputs<T, (R::slots + ... + 0), joined_mask<R...>()> read_inputs(const char* call, const R&... r) {
    point_inputs<T, (R::slots + ... + 0), joined_mask<R...>()> in;
    bool found = false;
    (find_point_count(r, in.n, in.first, found), ...);
    std::size_t at = 0;
    (take_argument<T>(call, r, in, at, in.first), ...);
    constexpr auto mask = joined_mask<R...>();
    for (std::size_t k = 0; k < in.slots.size(); ++k)
        if (mask[k]) in.per_point[in.index[k]] = in.slots[k];
    return in;
}

/// Runs `f` (std::array of K batches to std::array of M batches) over the n points of
/// `in` and stores the results into `out`, as run_batches (simd/tail.hpp): the spans are
/// loaded per batch of points; the broadcast values were splatted once, before the loop.
/// A `with_state` f keeps its state: its body is given the whole inputs and the state.
template <class A, class T, std::size_t K, lower::node_mask<K> Mask, std::size_t M, class F>
void run_points(std::size_t n, const point_inputs<T, K, Mask>& in, const std::array<T*, M>& out, F&& f,
                int threads) {
    using I = point_inputs<T, K, Mask>;
    if constexpr (I::fixed_count == 0) {
        run_batches<A>(n, in.per_point, out, std::forward<F>(f), threads);
    } else {
        using B = xsimd::batch<T, A>;
        std::array<B, I::fixed_count> fixed;
        for (std::size_t e = 0; e < I::fixed_count; ++e) fixed[e] = B(in.fixed[e]);
        // The whole inputs of one batch: the loaded spans and the splatted values.
        const auto whole = [&fixed](const std::array<B, I::per_point_count>& p) {
            const auto slot = [&]<std::size_t k>(std::integral_constant<std::size_t, k>) -> const B& {
                if constexpr (Mask[k]) return p[I::index[k]];
                else return fixed[I::index[k]];
            };
            return [&]<std::size_t... k>(std::index_sequence<k...>) {
                return std::array<B, K>{slot(std::integral_constant<std::size_t, k>{})...};
            }(std::make_index_sequence<K>{});
        };
        // f is held by value, as run_batches holds it: a copy per chunk of points.
        if constexpr (has_state<std::remove_cvref_t<F>>) {
            run_batches<A>(n, in.per_point, out,
                           make_with_state(f.start, [whole, body = f.body](const std::array<B, I::per_point_count>& p,
                                                                      const auto& state) mutable {
                                          return body(whole(p), state);
                                      }),
                           threads);
        } else {
            run_batches<A>(n, in.per_point, out, [whole, f](const std::array<B, I::per_point_count>& p) mutable {
                return f(whole(p));
            }, threads);
        }
    }
}

/// The same for K spans given as pointers (every slot per point).
template <class A, class T, std::size_t K, std::size_t M, class F>
void run_points(std::size_t n, const std::array<const T*, K>& in, const std::array<T*, M>& out, F&& f, int threads) {
    run_batches<A>(n, in, out, std::forward<F>(f), threads);
}

}  // namespace gradc::simd::detail
