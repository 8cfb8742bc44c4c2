#pragma once
/// \file
/// The inputs of an array kernel's batch calls. Points are structure of arrays: a
/// variable of shape S given per point is S.size() spans (its entries, row-major), each
/// with one value per point. The inputs are either
///  - one list of spans for all variables, in variable order (every variable per point);
///  - or a std::tuple with one entry per variable: a list of spans (per point), or
///    `gradc::broadcast(x)`, one value of the variable for every point (x any argument
///    the one-point calls take: a number, a std::array, a span, an Eigen matrix), so that
///    parameters are not copied into N-element arrays.

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>

#include <gradc/lower/array_arguments.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/broadcast.hpp>

namespace gradc::simd::detail {

/// Which variables are given per point (the others are broadcast), for inputs In.
template <class Kernel, class In>
constexpr std::array<bool, Kernel::arity> per_point_variables() {
    if constexpr (is_tuple_input<In>)
        static_assert(std::tuple_size_v<In> == Kernel::arity,
                      "gradc batch call: the tuple of inputs needs one entry per variable");
    return per_point_slots<In, Kernel::arity>();
}

/// The lane type of inputs In: the spans' element type, or a broadcast value's.
template <class X>
struct entry_lane {
    using type = span_list_value_t<X>;
};
template <class X>
struct entry_lane<broadcast_argument<X>> {
    using type = lower::argument_lane_t<X>;
};
template <class In>
struct input_lane {
    using type = span_list_value_t<In>;
};
/// For a tuple: the first per-point entry's element type, so that a broadcast value of
/// another type (a double parameter beside float data) is converted to the data's lanes;
/// the first entry's when every entry is broadcast (which the calls refuse).
template <class... X>
struct input_lane<std::tuple<X...>> {
    static constexpr std::size_t first_per_point = [] {
        constexpr bool broadcast[] = {is_broadcast<std::remove_cvref_t<X>>...};
        for (std::size_t j = 0; j < sizeof...(X); ++j)
            if (!broadcast[j]) return j;
        return std::size_t{0};
    }();
    using type = typename entry_lane<std::remove_cvref_t<std::tuple_element_t<first_per_point, std::tuple<X...>>>>::type;
};

/// Number of spans of the per-point variables.
template <class Kernel, std::array<bool, Kernel::arity> PerPoint>
constexpr std::size_t per_point_entries() {
    std::size_t n = 0;
    for (std::size_t j = 0; j < Kernel::arity; ++j)
        if (PerPoint[j]) n += Kernel::shapes[j].size();
    return n;
}

/// The inputs of one batch call, checked: the per-point spans in one list, the
/// broadcast variables' entries, and the number of points. Built in place (it holds the
/// buffers its pointers may point into).
template <class Kernel, class T, std::array<bool, Kernel::arity> PerPoint>
struct batch_input_set {
    static constexpr std::size_t per_point_count = per_point_entries<Kernel, PerPoint>();
    static constexpr std::size_t fixed_count = [] {
        std::size_t n = 0;
        for (std::size_t j = 0; j < Kernel::arity; ++j)
            if (!PerPoint[j]) n += Kernel::shapes[j].size();
        return n;
    }();
    /// Where variable j starts among the per-point spans or among the broadcast entries.
    static constexpr std::array<std::size_t, Kernel::arity> offset = [] {
        std::array<std::size_t, Kernel::arity> o{};
        std::size_t p = 0, f = 0;
        for (std::size_t j = 0; j < Kernel::arity; ++j) {
            o[j] = PerPoint[j] ? p : f;
            (PerPoint[j] ? p : f) += Kernel::shapes[j].size();
        }
        return o;
    }();

    std::size_t n = 0;
    std::array<const T*, per_point_count> per_point{};
    std::array<T, fixed_count == 0 ? 1 : fixed_count> fixed{};

    template <class In>
    batch_input_set(const char* call, const In& in) {
        static_assert(per_point_count > 0, "gradc batch call: give at least one variable per point (not all broadcast)");
        if constexpr (is_tuple_input<In>) {
            bool first = true;
            [&]<std::size_t... j>(std::index_sequence<j...>) {
                (take<j>(call, std::get<j>(in), first), ...);
            }(std::make_index_sequence<Kernel::arity>{});
        } else {
            n = point_count(in);
            per_point = checked_pointers<T, per_point_count>(call, "in", "one per entry of each variable", in, n);
        }
    }

    /// Every variable's spans in variable order, null for a broadcast variable's entries:
    /// the overlap check numbers them as the one-list form of `in` would, whether or not
    /// some variables are broadcast.
    std::array<const T*, Kernel::argument_entries> spans_in_order() const {
        std::array<const T*, Kernel::argument_entries> all{};
        std::size_t at = 0;
        for (std::size_t j = 0; j < Kernel::arity; ++j)
            for (std::size_t e = 0; e < Kernel::shapes[j].size(); ++e, ++at)
                all[at] = PerPoint[j] ? per_point[offset[j] + e] : nullptr;
        return all;
    }

    /// The broadcast entries as batches (every lane the same value), once per call.
    template <class B>
    std::array<B, fixed_count == 0 ? 1 : fixed_count> broadcast_batches() const {
        std::array<B, fixed_count == 0 ? 1 : fixed_count> b;
        for (std::size_t e = 0; e < b.size(); ++e) b[e] = B(fixed[e]);
        return b;
    }

    /// One pointer per variable, into the loaded per-point batches or the broadcast ones.
    template <class B, std::size_t P, std::size_t F>
    std::array<const B*, Kernel::arity> arguments(const std::array<B, P>& p, const std::array<B, F>& f) const {
        std::array<const B*, Kernel::arity> a;
        for (std::size_t j = 0; j < Kernel::arity; ++j) a[j] = PerPoint[j] ? p.data() + offset[j] : f.data() + offset[j];
        return a;
    }

private:
    template <std::size_t J, class X>
    void take(const char* call, const X& x, bool& first) {
        constexpr lower::dims S = Kernel::shapes[J];
        if constexpr (PerPoint[J]) {
            static_assert(span_list<X>, "gradc batch call: a variable given per point must be a list of spans "
                                        "(one per entry), or wrap it in gradc::broadcast(x)");
            if (first) {
                n = point_count(x);
                first = false;
            }
            const std::string name = "in<" + std::to_string(J) + ">";
            const auto p = checked_pointers<T, S.size()>(call, name.c_str(), "one per entry of the variable", x, n,
                                                         "the first per-point span");
            for (std::size_t e = 0; e < S.size(); ++e) per_point[offset[J] + e] = p[e];
        } else {
            static_assert(lower::argument_fits<decltype(x.value), S>(),
                          "gradc batch call: gradc::broadcast(x) does not fit its variable's shape");
            std::array<T, S.size()> buffer;
            const T* v = lower::argument_pointer<T, S>(call, J, x.value, buffer);
            for (std::size_t e = 0; e < S.size(); ++e) fixed[offset[J] + e] = v[e];
        }
    }
};

template <class Kernel, class T, std::array<bool, Kernel::arity> PerPoint, class In>
batch_input_set<Kernel, T, PerPoint> batch_inputs(const char* call, const In& in) {
    return batch_input_set<Kernel, T, PerPoint>(call, in);
}

/// Pointers to each wrt variable's entries inside a flat array of gradient entries.
template <class Kernel, class B>
std::array<B*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> wrt_pointers(B* g) {
    std::array<B*, Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count> p{};
    std::size_t at = 0;
    for (std::size_t j = 0; j < Kernel::wrt_count; ++j) {
        p[j] = g + at;
        at += Kernel::wrt_shape(j).size();
    }
    return p;
}

}  // namespace gradc::simd::detail
