#pragma once
/// \file
/// The arguments of the batch calls: structure-of-arrays spans, one per variable (or per
/// output, or per wrt variable), and the checks made before anything is written.
///
/// A list of spans is any sized random-access range (a std::array, a std::vector, a span)
/// whose entries are contiguous sized ranges of float or double: `std::span`s, or the
/// `std::vector`s and `std::array`s that users hold their points in. Its length is checked
/// at run time, so a wrong count is a `gradc::Error` naming the argument, like a
/// wrong span length. An output list is written through its entries: a list of spans of
/// non-const values, or a non-const list of vectors. The read arguments may also be
/// tuples of spans and `gradc::broadcast(x)` (simd/point_inputs.hpp).

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>

#include <gradc/error.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::simd {

namespace detail {

/// What an entry of the list R refers to, as R is accessed (R may be const or a
/// reference): `const double` for a `std::span<const double>` or, through a const list,
/// a `std::vector<double>`; `double` for a `std::span<double>` or a non-const list's vector.
template <class R>
using entry_element_t = std::remove_reference_t<std::ranges::range_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
concept list_of_arrays = std::ranges::random_access_range<R> && std::ranges::sized_range<R> &&
                         std::ranges::contiguous_range<std::ranges::range_reference_t<R>> &&
                         std::ranges::sized_range<std::ranges::range_reference_t<R>> &&
                         std::is_arithmetic_v<std::remove_cv_t<entry_element_t<R>>>;

}  // namespace detail

/// A list of arrays of points, read: `std::array<std::span<const double>, 2>`,
/// `std::vector<std::vector<float>>`, ...
template <class R>
concept span_list = detail::list_of_arrays<const R>;

/// The lane type of a span list: `double` for a list of `span<const double>`.
template <class R>
using span_list_value_t = std::remove_cv_t<detail::entry_element_t<R>>;

/// A list whose arrays can be written, as passed (R may be a reference type).
template <class R>
concept mutable_span_list = detail::list_of_arrays<R> && !std::is_const_v<detail::entry_element_t<R>>;

namespace detail {

[[noreturn]] inline void bad_argument(const char* call, const std::string& what) {
    throw Error(std::string("gradc ") + call + ": " + what);
}

/// A span as a message names it: `in[0]`, or a name alone (`data[0]`, `values`).
struct span_name {
    static constexpr std::size_t no_index = static_cast<std::size_t>(-1);
    const char* name;
    std::size_t index = no_index;
    span_name(const char* n) : name(n) {}  // NOLINT: a name alone converts
    span_name(const char* n, std::size_t i) : name(n), index(i) {}
    std::string str() const { return std::string(name) + (index == no_index ? "" : "[" + std::to_string(index) + "]"); }
};

/// A span of `got` entries where every span must have n, as many as the span `first`
/// (the one that gave the number of points).
[[noreturn]] inline void bad_length(const char* call, const span_name& span, std::size_t got, std::size_t n,
                                    const span_name& first) {
    bad_argument(call, "`" + span.str() + "` has " + std::to_string(got) + " entries, expected " + std::to_string(n) +
                           " (one per point, as many as `" + first.str() + "`); every span must have the same length");
}

/// Pointers to the data of a span list after checking its count and every length.
/// `what` names the argument and what one span holds, for the message.
template <class T, std::size_t K, class R>
auto checked_pointers(const char* call, const char* name, const char* per_span, R&& list, std::size_t n,
                      const span_name& first = "in[0]") {
    using ptr = std::conditional_t<std::is_const_v<entry_element_t<R>>, const T*, T*>;
    const std::size_t count = std::ranges::size(list);
    if (count != K) {
        bad_argument(call, "argument `" + std::string(name) + "` has " + std::to_string(count) +
                               " spans, expected " + std::to_string(K) + " (" + per_span + ")");
    }
    std::array<ptr, K> p{};
    for (std::size_t j = 0; j < K; ++j) {
        auto&& s = std::ranges::begin(list)[static_cast<std::ptrdiff_t>(j)];
        if (std::ranges::size(s) != n) bad_length(call, span_name(name, j), std::ranges::size(s), n, first);
        p[j] = std::ranges::data(s);
    }
    return p;
}

/// The number of points: the length of the first span (0 for a kernel call with no spans).
template <span_list R>
std::size_t point_count(const R& list) {
    return std::ranges::size(list) == 0 ? 0 : std::ranges::size(std::ranges::begin(list)[0]);
}

/// Pointers to the outputs: a span (a kernel with one output) or a span list (one span
/// per output), every span one entry per point.
template <class T, std::size_t M, class V>
std::array<T*, M> output_pointers(const char* call, const char* name, const char* per_span, V&& out,
                                  std::size_t n, const span_name& first = "in[0]") {
    if constexpr (std::is_convertible_v<V&&, std::span<T>>) {
        static_assert(M == 1, "gradc batch call: this kernel has several outputs; pass one span per "
                              "output (a std::array of std::span) instead of a single span");
        const std::span<T> s(out);
        if (s.size() != n) {
            bad_argument(call, "argument `" + std::string(name) + "` has " + std::to_string(s.size()) +
                                   " entries, expected " + std::to_string(n) + " (one per point, as many as `" +
                                   first.str() + "`)");
        }
        return {s.data()};
    } else {
        static_assert(mutable_span_list<V>,
                      "gradc batch call: an output must be a std::span<T> of one entry per point, or "
                      "a list of such spans or of vectors (one per output, not const), with T the "
                      "lane type of `in`");
        static_assert(std::is_same_v<span_list_value_t<V>, T>,
                      "gradc batch call: outputs and inputs must have the same lane type (float or double)");
        return checked_pointers<T, M>(call, name, per_span, std::forward<V>(out), n, first);
    }
}

/// The spans of one argument of a batch call, for the overlap check: its name, its
/// pointers (one span of n entries each; a null pointer for a variable given by
/// `gradc::broadcast`, which has no span) and whether the call writes them.
template <class T, std::size_t K>
struct span_group {
    const char* name;
    std::array<const T*, K> data;
    bool output;
    bool single = false;  // a lone span (`values`), named without an index
};

template <class T, std::size_t K, class P>
span_group<T, K> read_group(const char* name, const std::array<P, K>& p) {
    span_group<T, K> g{name, {}, false};
    for (std::size_t j = 0; j < K; ++j) g.data[j] = p[j];
    return g;
}

template <class T, std::size_t K>
span_group<T, K> written_group(const char* name, const std::array<T*, K>& p, bool single = false) {
    span_group<T, K> g{name, {}, true, single};
    for (std::size_t j = 0; j < K; ++j) g.data[j] = p[j];
    return g;
}

/// Outputs are written batch by batch (and by several threads at once), after the batch's
/// inputs were read: an output may be exactly an input (in-place), but an output that
/// overlaps an input shifted, or another output, would give results that depend on the
/// order of the stores. Throws before anything is written.
template <class T, std::size_t... K>
void check_no_overlap(const char* call, std::size_t n, const span_group<T, K>&... groups) {
    if (n == 0) return;
    struct entry {
        const char* name;
        std::size_t index;
        bool single;
        const T* data;
        bool output;
    };
    std::array<entry, (K + ... + 0)> all{};
    std::size_t count = 0;
    const auto add = [&](const auto& g) {
        for (std::size_t j = 0; j < g.data.size(); ++j) all[count++] = entry{g.name, j, g.single, g.data[j], g.output};
    };
    (add(groups), ...);
    const auto name_of = [](const entry& e) {
        return "`" + std::string(e.name) + (e.single ? "" : "[" + std::to_string(e.index) + "]") + "`";
    };
    const std::less<const T*> before;
    for (std::size_t a = 0; a < count; ++a) {
        if (!all[a].output || all[a].data == nullptr) continue;
        for (std::size_t b = 0; b < count; ++b) {
            if (a == b || (all[b].output && b < a) || all[b].data == nullptr) continue;  // each pair of outputs once
            const T* p = all[a].data;
            const T* q = all[b].data;
            const bool disjoint = !before(p, q + n) || !before(q, p + n);
            if (disjoint || (!all[b].output && p == q)) continue;
            bad_argument(call, name_of(all[a]) + " overlaps " + name_of(all[b]) + " (" + std::to_string(n) +
                                   " entries each); expected an output to share no memory with another output, "
                                   "and with an input none or exactly the same span (in place)");
        }
    }
}

/// The pointers of several arguments as one list, in order: what a batch call reads or
/// writes per point, for run_batches.
template <class P, std::size_t... K>
std::array<P, (K + ...)> joined(const std::array<P, K>&... parts) {
    std::array<P, (K + ...)> all{};
    std::size_t at = 0;
    ((std::copy(parts.begin(), parts.end(), all.begin() + static_cast<std::ptrdiff_t>(at)), at += K), ...);
    return all;
}

}  // namespace detail

}  // namespace gradc::simd
