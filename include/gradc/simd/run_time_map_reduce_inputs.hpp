#pragma once
/// \file
/// The inputs of a map-reduce of a kernel with run-time extents (simd/run_time_map_reduce.hpp):
/// θ, one argument per wrt variable as the one-point calls take it, with its extents;
/// and the data, one span per entry of each data variable (those not in wrt), each
/// span one entry per point. A data variable's extents come from its spans:
///
///     k.map_reduce(xs, theta...)                          xs: one list of spans for all data
///     k.map_reduce(std::tuple{xs, gradc::per_point(ms, r, c)}, theta...)   one entry per data variable
///
/// A single list serves when at most one data variable has a run-time extent (it takes
/// the spans the fixed ones leave) and it is a vector, or a matrix with one extent
/// fixed. Otherwise the data is a std::tuple with one entry per data variable: a list of
/// spans, or `gradc::per_point(spans, rows, cols)` for a matrix (rows·cols spans,
/// row-major).

#include <array>
#include <cstddef>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <gradc/error.hpp>
#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/data_variables.hpp>
#include <gradc/lower/run_time_arguments.hpp>
#include <gradc/lower/run_time_layout.hpp>
#include <gradc/simd/arguments.hpp>

namespace gradc {

/// A per-point matrix of a map-reduce's data: rows·cols spans, row-major, each holding
/// one entry per point. Made by gradc::per_point.
template <class Spans>
struct per_point_matrix {
    const Spans& spans;  ///< rows·cols spans.
    std::size_t rows;    ///< The matrix's rows at every point.
    std::size_t cols;    ///< Its columns.
};

/// A per-point matrix of rows × cols entries given as rows·cols spans (row-major): the
/// data of a map-reduce whose data variable is a matrix with run-time extents.
template <simd::span_list Spans>
per_point_matrix<Spans> per_point(const Spans& spans, std::size_t rows, std::size_t cols) {
    return {spans, rows, cols};
}

}  // namespace gradc

namespace gradc::simd::detail {

template <class X>
struct is_per_point_matrix : std::false_type {};
template <class S>
struct is_per_point_matrix<per_point_matrix<S>> : std::true_type {};
template <class X>
struct is_std_tuple : std::false_type {};
template <class... X>
struct is_std_tuple<std::tuple<X...>> : std::true_type {};

/// The lane type of a map-reduce's data (its first span list's).
template <class Data>
struct data_lane {
    using type = span_list_value_t<Data>;
};
template <class S>
struct data_lane<per_point_matrix<S>> {
    using type = span_list_value_t<S>;
};
template <class First, class... Rest>
struct data_lane<std::tuple<First, Rest...>> : data_lane<std::remove_cvref_t<First>> {};
template <class Data>
using data_lane_t = typename data_lane<std::remove_cvref_t<Data>>::type;

/// A map-reduce call's data and θ, with every variable's extents.
template <class Kernel, class T>
struct run_time_map_reduce_inputs {
    static constexpr std::size_t arity = Kernel::arity;
    static constexpr const auto& is_parameter = lower::is_wrt_variable<Kernel>;
    static constexpr const auto& data_variables = lower::data_variables<Kernel>;
    static constexpr std::size_t data_count = data_variables.size();
    static constexpr std::size_t wrt_slots = Kernel::wrt_count == 0 ? 1 : Kernel::wrt_count;

    std::size_t n = 0;                            ///< The number of points.
    std::array<lower::dims, arity> extents{};     ///< Every variable's extents in this call.
    std::array<std::size_t, arity> offset{};      ///< Where a variable starts among the data or θ entries.
    std::vector<const T*> data;                   ///< One span per data entry.
    std::vector<T> theta;                         ///< θ's entries, in wrt order.
    std::array<std::size_t, wrt_slots> wrt_sizes{};

    template <class Data, class Theta>
    run_time_map_reduce_inputs(const char* call, const Data& d, const Theta& th) : call_(call) {
        [&]<std::size_t... j>(std::index_sequence<j...>) { (read_theta<j>(std::get<j>(th)), ...); }(
            std::make_index_sequence<Kernel::wrt_count>{});
        using D = std::remove_cvref_t<Data>;
        if constexpr (is_std_tuple<D>::value) {
            static_assert(std::tuple_size_v<D> == data_count,
                          "gradc kernel: map_reduce(): data given as a std::tuple has one entry per variable not "
                          "in wrt(...), in variable order");
            [&]<std::size_t... q>(std::index_sequence<q...>) { (read_one<q>(std::get<q>(d)), ...); }(
                std::make_index_sequence<data_count>{});
        } else if constexpr (is_per_point_matrix<D>::value) {
            static_assert(data_count == 1, "gradc kernel: map_reduce(): one gradc::per_point matrix is the data of a "
                                           "kernel with one data variable; give a std::tuple, one entry per data variable");
            read_one<0>(d);
        } else {
            static_assert(span_list<D>, "gradc kernel: map_reduce(): the data is a list of spans, a "
                                        "gradc::per_point matrix, or a std::tuple of them, one per data variable");
            read_flat(d);
        }
    }

private:
    const char* call_;

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(std::string("gradc kernel ") + call_ + ": " + what);
    }

    template <std::size_t j, class X>
    void read_theta(const X& x) {
        constexpr std::size_t v = Kernel::wrt_variables[j];
        constexpr lower::dims S = Kernel::shapes[v];
        const T* p;
        if constexpr (S.is_dynamic()) {
            static_assert(lower::run_time_argument_fits<X, S>(),
                          "gradc kernel: map_reduce(): a parameter does not fit its wrt variable's shape");
            std::vector<T> buffer;
            p = lower::run_time_argument_pointer<T, S>(call_, j, x, buffer, extents[v]);
            append_theta(j, v, p);
        } else {
            static_assert(lower::argument_fits<X, S>(),
                          "gradc kernel: map_reduce(): a parameter does not fit its wrt variable's shape");
            std::array<T, S.size() == 0 ? 1 : S.size()> buffer;
            p = lower::argument_pointer<T, S>(call_, j, x, buffer);
            extents[v] = S;
            append_theta(j, v, p);
        }
    }
    void append_theta(std::size_t j, std::size_t v, const T* p) {
        offset[v] = theta.size();
        wrt_sizes[j] = extents[v].size();
        theta.insert(theta.end(), p, p + wrt_sizes[j]);
    }

    /// Data variable q from its own entry of a tuple: a span list or a per-point matrix.
    template <std::size_t q, class E>
    void read_one(const E& e) {
        constexpr std::size_t v = data_variables[q];
        constexpr lower::dims S = Kernel::shapes[v];
        if constexpr (is_per_point_matrix<E>::value) {
            static_assert(S.is_matrix(), "gradc kernel: map_reduce(): gradc::per_point(spans, rows, cols) is for a "
                                         "matrix data variable");
            const lower::dims got = rules::arrays::matrix_dims(e.rows, e.cols);
            if (!rules::arrays::shapes_fit(got, S)) lower::bad_run_time_argument(call_, v, got, S);
            if (std::ranges::size(e.spans) != got.size())
                fail("data variable " + std::to_string(v) + ": gradc::per_point(spans, " + std::to_string(e.rows) +
                     ", " + std::to_string(e.cols) + ") has " + std::to_string(std::ranges::size(e.spans)) +
                     " spans, expected rows·cols = " + std::to_string(got.size()));
            take<v>(got, e.spans, 0);
        } else {
            static_assert(span_list<E>, "gradc kernel: map_reduce(): a data entry is a list of spans or a "
                                        "gradc::per_point matrix");
            static_assert(!(S.is_matrix() && S.rows == rules::arrays::dynamic_extent &&
                            S.cols == rules::arrays::dynamic_extent),
                          "gradc kernel: map_reduce(): a matrix data variable with both extents known only at run "
                          "time is given as gradc::per_point(spans, rows, cols)");
            take<v>(deduced(v, std::ranges::size(e)), e, 0);
        }
    }

    /// Every data variable from one list: the fixed ones take their entries, the one
    /// with a run-time extent (if any) the rest.
    template <class L>
    void read_flat(const L& list) {
        constexpr std::size_t dynamic_count = [] {
            std::size_t c = 0;
            for (std::size_t v : data_variables) c += Kernel::shapes[v].is_dynamic() ? 1 : 0;
            return c;
        }();
        constexpr bool matrix_of_two_run_time_extents = [] {
            for (std::size_t v : data_variables)
                if (Kernel::shapes[v].is_matrix() && Kernel::shapes[v].rows == rules::arrays::dynamic_extent &&
                    Kernel::shapes[v].cols == rules::arrays::dynamic_extent)
                    return true;
            return false;
        }();
        static_assert(!matrix_of_two_run_time_extents,
                      "gradc kernel: map_reduce(): a matrix data variable with both extents known only at run time "
                      "is given as gradc::per_point(spans, rows, cols), in a std::tuple with one entry per data "
                      "variable");
        static_assert(dynamic_count <= 1,
                      "gradc kernel: map_reduce(): with several data variables of run-time extents, give the data "
                      "as a std::tuple, one entry per data variable (a list of spans, or gradc::per_point(spans, "
                      "rows, cols) for a matrix)");
        constexpr std::size_t fixed_entries = [] {
            std::size_t c = 0;
            for (std::size_t v : data_variables)
                if (!Kernel::shapes[v].is_dynamic()) c += Kernel::shapes[v].size();
            return c;
        }();
        const std::size_t count = std::ranges::size(list);
        if (count < fixed_entries || (dynamic_count == 0 && count != fixed_entries))
            fail("argument `data` has " + std::to_string(count) + " spans, expected " +
                 (dynamic_count == 0 ? "" : "at least ") + std::to_string(fixed_entries) +
                 " (one per entry of each variable not in wrt(...))");
        std::size_t at = 0;
        [&]<std::size_t... q>(std::index_sequence<q...>) {
            (from_flat<data_variables[q]>(list, count - fixed_entries, at), ...);
        }(std::make_index_sequence<data_count>{});
    }
    /// Data variable v from a single list: its entries start at `at`, which moves past them.
    template <std::size_t v, class L>
    void from_flat(const L& list, std::size_t rest, std::size_t& at) {
        constexpr lower::dims S = Kernel::shapes[v];
        const lower::dims got = S.is_dynamic() ? deduced(v, rest) : S;
        take<v>(got, list, at);
        at += got.size();
    }

    /// The extents of data variable v from its number of spans.
    lower::dims deduced(std::size_t v, std::size_t spans) const {
        const lower::dims S = Kernel::shapes[v];
        lower::dims got = S;
        if (S.is_vector()) {
            got = rules::arrays::vector_dims(spans);
        } else if (S.is_matrix() && S.rows == rules::arrays::dynamic_extent && S.cols != 0 && spans % S.cols == 0) {
            got = rules::arrays::matrix_dims(spans / S.cols, S.cols);
        } else if (S.is_matrix() && S.cols == rules::arrays::dynamic_extent && S.rows != 0 && spans % S.rows == 0) {
            got = rules::arrays::matrix_dims(S.rows, spans / S.rows);
        } else if (S.is_scalar()) {
            got = rules::arrays::scalar_dims;
        }
        if (got.size() != spans || !rules::arrays::shapes_fit(got, S))
            fail("data variable " + std::to_string(v) + " was given " + std::to_string(spans) +
                 " spans, which no extents of its shape fill");
        return got;
    }

    /// Records variable v's extents and its spans' pointers (list[first], ...), checking
    /// that every span holds one entry per point.
    template <std::size_t v, class L>
    void take(const lower::dims& got, const L& list, std::size_t first) {
        extents[v] = got;
        offset[v] = data.size();
        for (std::size_t e = 0; e < got.size(); ++e) {
            auto&& s = std::ranges::begin(list)[static_cast<std::ptrdiff_t>(first + e)];
            const std::size_t size = std::ranges::size(s);
            if (data.empty() && e == 0) n = size;
            if (size != n)
                fail("data span " + std::to_string(data.size()) + " has " + std::to_string(size) +
                     " entries, the first has " + std::to_string(n) + ": every span holds one entry per point");
            data.push_back(std::ranges::data(s));
        }
    }
};

}  // namespace gradc::simd::detail
