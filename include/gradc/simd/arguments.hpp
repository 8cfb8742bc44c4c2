#pragma once
/// The arguments of the batch calls: structure-of-arrays spans, one per variable (or per
/// output, or per wrt variable), and the checks made before anything is written.
///
/// A list of spans is any sized random-access range of `std::span` (a std::array, a
/// std::vector, a span of spans). Its length is checked at run time, so a wrong count is
/// a `std::invalid_argument` naming the argument, like a wrong span length.

#include <array>
#include <cstddef>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <gradc/simd/config.hpp>

namespace gradc::simd {

namespace detail {

template <class S>
struct span_traits {
    static constexpr bool is_span = false;
};
template <class E, std::size_t X>
struct span_traits<std::span<E, X>> {
    static constexpr bool is_span = true;
    using element = E;
};

}  // namespace detail

/// A sized random-access range of std::span: `std::array<std::span<const double>, 2>`.
template <class R>
concept span_list = std::ranges::random_access_range<const R> && std::ranges::sized_range<const R> &&
                    detail::span_traits<std::remove_cv_t<std::ranges::range_value_t<const R>>>::is_span;

/// The lane type of a span list: `double` for a list of `span<const double>`.
template <span_list R>
using span_list_value_t = std::remove_cv_t<
    typename detail::span_traits<std::remove_cv_t<std::ranges::range_value_t<const R>>>::element>;

/// A span list whose spans can be written.
template <class R>
concept mutable_span_list =
    span_list<R> &&
    !std::is_const_v<typename detail::span_traits<std::remove_cv_t<std::ranges::range_value_t<const R>>>::element>;

namespace detail {

[[noreturn]] inline void bad_argument(const char* call, const std::string& what) {
    throw std::invalid_argument(std::string("gradc ") + call + ": " + what);
}

/// Pointers to the data of a span list after checking its count and every length.
/// `what` names the argument and what one span holds, for the message.
template <class T, std::size_t K, span_list R>
std::array<std::conditional_t<std::is_const_v<typename span_traits<std::ranges::range_value_t<const R>>::element>,
                              const T*, T*>,
           K>
checked_pointers(const char* call, const char* name, const char* per_span, const R& list, std::size_t n,
                 const char* first = "in[0]") {
    using ptr = std::conditional_t<
        std::is_const_v<typename span_traits<std::ranges::range_value_t<const R>>::element>, const T*, T*>;
    const std::size_t count = std::ranges::size(list);
    if (count != K) {
        bad_argument(call, "argument `" + std::string(name) + "` has " + std::to_string(count) +
                               " spans, expected " + std::to_string(K) + " (" + per_span + ")");
    }
    std::array<ptr, K> p{};
    for (std::size_t j = 0; j < K; ++j) {
        const auto& s = std::ranges::begin(list)[static_cast<std::ptrdiff_t>(j)];
        if (s.size() != n) {
            bad_argument(call, "`" + std::string(name) + "[" + std::to_string(j) + "]` has " +
                                   std::to_string(s.size()) + " entries, expected " + std::to_string(n) + " (one per point, as many as `" +
                                   first + "`); every span must have the same length");
        }
        p[j] = s.data();
    }
    return p;
}

/// The number of points: the length of the first span (0 for a kernel call with no spans).
template <span_list R>
std::size_t point_count(const R& list) {
    return std::ranges::size(list) == 0 ? 0 : std::ranges::begin(list)[0].size();
}

/// Pointers to the outputs: a span (a kernel with one output) or a span list (one span
/// per output), every span one entry per point.
template <class T, std::size_t M, class V>
std::array<T*, M> output_pointers(const char* call, const char* name, const char* per_span, V&& out,
                                  std::size_t n) {
    if constexpr (std::is_convertible_v<V&&, std::span<T>>) {
        static_assert(M == 1, "gradc batch call: this kernel has several outputs; pass one span per "
                              "output (a std::array of std::span) instead of a single span");
        const std::span<T> s(out);
        if (s.size() != n) {
            bad_argument(call, "argument `" + std::string(name) + "` has " + std::to_string(s.size()) +
                                   " entries, expected " + std::to_string(n) +
                                   " (one per point, as many as `in[0]`)");
        }
        return {s.data()};
    } else {
        static_assert(mutable_span_list<std::remove_cvref_t<V>>,
                      "gradc batch call: an output must be a std::span<T> of one entry per point, or "
                      "a list of such spans (one per output), with T the lane type of `in`");
        static_assert(std::is_same_v<span_list_value_t<std::remove_cvref_t<V>>, T>,
                      "gradc batch call: outputs and inputs must have the same lane type (float or double)");
        return checked_pointers<T, M>(call, name, per_span, out, n);
    }
}

}  // namespace detail

}  // namespace gradc::simd
