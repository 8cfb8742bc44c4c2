#pragma once
/// \file
/// A call's arguments as the programs read them: one pointer per variable to its
/// entries, row-major, with each argument's extents (the shape's, or, for a run-time
/// extent, the argument's), and the buffers of the arguments that had to be copied
/// (lower/array_arguments.hpp and lower/run_time_arguments.hpp say which).

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/array_shapes.hpp>
#include <gradc/lower/run_time_arguments.hpp>

namespace gradc::lower {

/// \cond INTERNAL

/// The arguments of a call of Program's kernel, on lane type T.
template <class Program, class T>
struct call_arguments {
    static constexpr std::size_t arity = Program::arity;
    static constexpr auto& shapes = Program::set::shapes;
    using argument_shapes_t = typename argument_shapes<Program, std::make_index_sequence<arity>>::type;

    std::array<const T*, arity> pointers;
    std::array<dims, arity> extents;
    typename buffer_tuple<T, argument_shapes_t>::type buffers;

    template <class... X>
    call_arguments(const char* call, const X&... x) {
        static_assert(sizeof...(X) == arity,
                      "gradc kernel: wrong number of arguments; an array kernel takes one argument per "
                      "variable of the gradc::variables(shape...) call, in order");
        if constexpr (sizeof...(X) == arity) {
            [&]<std::size_t... j>(std::index_sequence<j...>) {
                static_assert((fits<X, shapes[j]>() && ...),
                              "gradc kernel: an argument does not fit its variable: give a number for a "
                              "scalar, and for a vec<N> or mat<R, C> a std::array or std::span of N or R·C "
                              "values (row-major), or an Eigen matrix of that size; for a run-time extent, a "
                              "std::vector, std::span or Eigen vector for a vector, gradc::mat_view or an Eigen "
                              "matrix for a matrix");
                (read<j>(call, x), ...);
            }(std::index_sequence_for<X...>{});
        }
    }

    template <class X, dims S>
    static constexpr bool fits() {
        if constexpr (S.is_dynamic()) {
            return run_time_argument_fits<X, S>();
        } else {
            return argument_fits<X, S>();
        }
    }

private:
    template <std::size_t j, class X>
    void read(const char* call, const X& x) {
        constexpr dims S = shapes[j];
        if constexpr (S.is_dynamic()) {
            pointers[j] = run_time_argument_pointer<T, S>(call, j, x, std::get<j>(buffers), extents[j]);
        } else {
            pointers[j] = argument_pointer<T, S>(call, j, x, std::get<j>(buffers));
            extents[j] = S;
        }
    }
};

/// Values given per wrt variable (jvp's tangents), as pointers, each checked against
/// its variable's extents in the call (`extents`, one per variable of the set).
template <class Program, class T, class WrtShapes>
struct wrt_values {
    static constexpr std::size_t count = Program::wrt_count;
    std::array<const T*, count == 0 ? 1 : count> pointers{};
    typename buffer_tuple<T, WrtShapes>::type buffers;

    template <class Values, std::size_t A>
    wrt_values(const char* call, const Values& values, const std::array<dims, A>& extents) {
        [&]<std::size_t... j>(std::index_sequence<j...>) { (read<j>(call, std::get<j>(values), extents), ...); }(
            std::make_index_sequence<count>{});
    }

private:
    template <std::size_t j, class X, std::size_t A>
    void read(const char* call, const X& x, const std::array<dims, A>& extents) {
        constexpr std::size_t v = Program::wrt_variables[j];
        constexpr dims S = Program::set::shapes[v];
        if constexpr (S.is_dynamic()) {
            static_assert(run_time_argument_fits<X, S>(), "gradc kernel: a tangent does not fit its wrt variable");
            dims got;
            pointers[j] = run_time_argument_pointer<T, S>(call, j, x, std::get<j>(buffers), got);
            if (!(got == extents[v])) bad_run_time_argument(call, j, got, extents[v]);
        } else {
            pointers[j] = argument_pointer<T, S>(call, j, x, std::get<j>(buffers));
        }
    }
};

/// \endcond

}  // namespace gradc::lower
