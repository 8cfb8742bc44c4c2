#pragma once
/// \file
/// The shapes of an array program's arguments, wrt variables and outputs as type lists,
/// and the tuples of values and buffers built from them: the type computations behind
/// array_kernel's result types (lower/array_kernel.hpp), never named in user code.

#include <array>
#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include <gradc/lower/array_results.hpp>
#include <gradc/rules/arrays/dims.hpp>

namespace gradc::lower {

using rules::arrays::dims;

/// \cond INTERNAL
template <dims... S>
struct shape_list {};

/// A std::tuple of one value per shape (T or std::array<T, size>), and of one buffer
/// per shape (std::array<T, size>).
template <class T, class Shapes>
struct value_tuple;
template <class T, dims... S>
struct value_tuple<T, shape_list<S...>> {
    using type = std::tuple<array_value_t<T, S>...>;
};
/// A call's buffer for a value of shape S: an array of its entries, or a vector sized at
/// run time for run-time extents.
template <class T, dims S, bool = S.is_dynamic()>
struct buffer_of {
    using type = std::array<T, S.size()>;
};
template <class T, dims S>
struct buffer_of<T, S, true> {
    using type = std::vector<T>;
};
template <class T, class Shapes>
struct buffer_tuple;
template <class T, dims... S>
struct buffer_tuple<T, shape_list<S...>> {
    using type = std::tuple<typename buffer_of<T, S>::type...>;
};

/// The shapes of a program's arguments, wrt variables and outputs, as shape lists.
template <class Program, class Seq>
struct argument_shapes;
template <class Program, std::size_t... j>
struct argument_shapes<Program, std::index_sequence<j...>> {
    using type = shape_list<Program::set::shapes[j]...>;
};
template <class Program, class Seq>
struct wrt_shapes;
template <class Program, std::size_t... j>
struct wrt_shapes<Program, std::index_sequence<j...>> {
    using type = shape_list<Program::set::shapes[Program::wrt_variables[j]]...>;
};
template <class Program, class Seq>
struct output_shapes;
template <class Program, std::size_t... m>
struct output_shapes<Program, std::index_sequence<m...>> {
    using type = shape_list<Program::L.shape[Program::output_node(m)]...>;
};

/// \endcond

}  // namespace gradc::lower
