#pragma once
/// \file
/// The inputs of every map-reduce of an array kernel (simd/array_map_reduce.hpp, and the
/// second-order sums of simd/array_second_order_map_reduce.hpp): the data as one span per
/// entry of each variable not in wrt(...), checked; θ, one argument per wrt variable as
/// the one-point calls take it, checked and broadcast to batches once; and where each
/// variable's entries are among the data or among θ.

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>

#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/data_variables.hpp>
#include <gradc/simd/arguments.hpp>
#include <gradc/simd/config.hpp>

namespace gradc::simd::detail {

/// A map-reduce call's data and θ on batches B of lane type T.
template <class Kernel, class T, class B>
struct array_map_reduce_inputs {
    static constexpr std::size_t arity = Kernel::arity;
    static constexpr std::size_t W = Kernel::wrt_entries;
    static constexpr const auto& is_parameter = lower::is_wrt_variable<Kernel>;
    /// Where variable v starts among the data entries (for a data variable).
    static constexpr std::array<std::size_t, arity> data_offset = [] {
        std::array<std::size_t, arity> o{};
        std::size_t at = 0;
        for (std::size_t v = 0; v < arity; ++v) {
            o[v] = at;
            if (!is_parameter[v]) at += Kernel::shapes[v].size();
        }
        return o;
    }();
    /// The number of data entries (spans).
    static constexpr std::size_t D = [] {
        std::size_t n = 0;
        for (std::size_t v = 0; v < arity; ++v)
            if (!is_parameter[v]) n += Kernel::shapes[v].size();
        return n;
    }();
    /// Where variable v starts among θ's entries (for a wrt variable).
    static constexpr std::array<std::size_t, arity> parameter_offset = [] {
        std::array<std::size_t, arity> o{};
        std::size_t at = 0;
        for (std::size_t j = 0; j < Kernel::wrt_count; ++j) {
            o[Kernel::wrt_variables[j]] = at;
            at += Kernel::wrt_shape(j).size();
        }
        return o;
    }();

    std::size_t n = 0;                                ///< The number of points.
    std::array<const T*, D == 0 ? 1 : D> data{};      ///< One span per data entry.
    std::array<B, W == 0 ? 1 : W> parameters{};       ///< θ's entries, broadcast, in wrt order.

    template <class Data, class Theta>
    array_map_reduce_inputs(const char* call, const Data& data_spans, const Theta& theta) {
        n = point_count(data_spans);
        data = checked_pointers<T, D>(call, "data", "one per entry of each variable not in wrt(...)", data_spans, n,
                                      "data[0]");
        [&]<std::size_t... j>(std::index_sequence<j...>) {
            std::size_t at = 0;
            auto take = [&]<std::size_t J>(std::integral_constant<std::size_t, J>, const auto& x) {
                constexpr lower::dims S = Kernel::wrt_shape(J);
                static_assert(lower::argument_fits<decltype(x), S>(),
                              "gradc kernel: map_reduce(): a parameter does not fit its wrt variable's shape");
                std::array<T, S.size()> buffer;
                const T* v = lower::argument_pointer<T, S>(call, J, x, buffer);
                for (std::size_t e = 0; e < S.size(); ++e) parameters[at + e] = B(v[e]);
                at += S.size();
            };
            (take(std::integral_constant<std::size_t, j>{}, std::get<j>(theta)), ...);
        }(std::make_index_sequence<Kernel::wrt_count>{});
    }

    /// One pointer per variable: into θ's batches, or into the data batches x.
    template <std::size_t N>
    std::array<const B*, arity> arguments(const std::array<B, N>& x) const {
        std::array<const B*, arity> a;
        for (std::size_t v = 0; v < arity; ++v)
            a[v] = is_parameter[v] ? parameters.data() + parameter_offset[v] : x.data() + data_offset[v];
        return a;
    }
};

}  // namespace gradc::simd::detail
