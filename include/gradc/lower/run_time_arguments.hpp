#pragma once
/// \file
/// The arguments of a variable whose shape has an extent known only at run time
/// (`gradc::vec<gradc::dynamic_extent>`, `gradc::mat<gradc::dynamic_extent, 3>`, …):
///  - a vector takes a `std::vector<U>`, a `std::span<U>` or `std::array<U, N>`, or an
///    Eigen vector (any size, a Map of one included);
///  - a matrix takes `gradc::mat_view(data, rows, cols)` (contiguous, row-major) or an
///    Eigen matrix (any size, either storage order, a Map of one included).
/// The argument gives the extents; an extent the shape fixes is checked against it.
/// Row-major storage of the call's lane type is read in place, anything else copied once
/// into a buffer of the call. A mismatch throws `gradc::Error` naming the call and the
/// argument, before anything is done.

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gradc/error.hpp>
#include <gradc/lower/array_arguments.hpp>
#include <gradc/lower/array_results.hpp>
#include <gradc/lower/run_time_layout.hpp>

namespace gradc {

/// A contiguous row-major matrix of rows × cols values: the argument of a matrix
/// variable with a run-time extent. Made by `gradc::mat_view`.
template <class U>
struct matrix_view {
    std::span<const U> data;  ///< rows·cols values, row-major.
    std::size_t rows;         ///< Rows.
    std::size_t cols;         ///< Columns.
};

/// A view of `data` as a rows × cols row-major matrix; throws gradc::Error when data
/// does not hold rows·cols values.
template <class U>
matrix_view<U> mat_view(std::span<const U> data, std::size_t rows, std::size_t cols) {
    if (data.size() != rows * cols)
        throw Error("gradc::mat_view(data, rows, cols): data has " + std::to_string(data.size()) + " values, a " +
                    std::to_string(rows) + "×" + std::to_string(cols) + " matrix needs " + std::to_string(rows * cols));
    return {data, rows, cols};
}
/// The same for a std::vector (or anything contiguous with data() and size()).
template <class C>
    requires requires(const C& c) { std::span(c.data(), c.size()); }
auto mat_view(const C& data, std::size_t rows, std::size_t cols) {
    using U = std::remove_cv_t<std::remove_reference_t<decltype(*data.data())>>;
    return mat_view(std::span<const U>(data.data(), data.size()), rows, cols);
}

}  // namespace gradc

namespace gradc::lower {

// How arguments with run-time extents are read: left out of the API reference.
/// \cond INTERNAL

/// An Eigen dense object of any size (a Matrix, an Array, a Map of one).
template <class X>
concept eigen_dense = requires(const X& x) {
    x.data();
    x.rows();
    x.cols();
    x.innerStride();
    x.outerStride();
    X::IsRowMajor;
    typename X::Scalar;
};

/// A matrix with its extents: gradc::mat_view, or a gradc::matrix_value (a result of a
/// kernel with run-time extents, taken back as an argument or a tangent).
template <class X>
struct is_matrix_view : std::false_type {};
template <class U>
struct is_matrix_view<matrix_view<U>> : std::true_type {};
template <class U>
struct is_matrix_view<matrix_value<U>> : std::true_type {};

template <class U>
struct argument_kind<matrix_view<U>> {
    static constexpr bool known = std::is_arithmetic_v<U>;
    using lane = U;
    static constexpr std::size_t fixed_size = std::dynamic_extent;
};
template <class U>
struct argument_kind<matrix_value<U>> : argument_kind<matrix_view<U>> {};
template <eigen_dense X>
    requires(!eigen_fixed<X>)
struct argument_kind<X> {
    static constexpr bool known = std::is_arithmetic_v<typename X::Scalar>;
    using lane = typename X::Scalar;
    static constexpr std::size_t fixed_size = std::dynamic_extent;
};

template <class T, class C>
const T* contiguous_entries(const C& x, std::vector<T>& buffer) {
    using E = std::remove_cv_t<std::remove_reference_t<decltype(*std::data(x))>>;
    if constexpr (std::is_same_v<E, T>) {
        return std::data(x);
    } else {
        buffer.resize(std::size(x));
        for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = T(std::data(x)[k]);
        return buffer.data();
    }
}

/// Whether X is accepted for a variable of shape S, which has a run-time extent.
template <class X, dims S>
constexpr bool run_time_argument_fits() {
    using U = std::remove_cvref_t<X>;
    if constexpr (eigen_dense<U>) {
        return std::is_arithmetic_v<typename U::Scalar>;
    } else if constexpr (is_matrix_view<U>::value) {
        return S.is_matrix();
    } else if constexpr (argument_kind<U>::known) {
        return S.is_vector() && !std::is_arithmetic_v<U>;
    } else {
        return false;
    }
}

[[noreturn]] inline void bad_run_time_argument(const char* call, std::size_t j, const dims& got, const dims& shape) {
    auto extent = [](std::size_t e) { return e == rules::arrays::dynamic_extent ? std::string("any") : std::to_string(e); };
    throw Error(std::string("gradc kernel ") + call + ": argument " + std::to_string(j) + " is " +
                shape_in_words(got) + ", its variable is " +
                (shape.is_vector() ? "a vector of " + extent(shape.rows)
                                   : "a matrix of " + extent(shape.rows) + " rows and " + extent(shape.cols) + " columns"));
}

/// A pointer to the entries of argument x (variable j, shape S with a run-time extent)
/// as T, row-major, and its extents in `extents`: x's own storage when it is that
/// already, else `buffer` filled from x.
template <class T, dims S, class X>
const T* run_time_argument_pointer(const char* call, std::size_t j, const X& x, std::vector<T>& buffer, dims& extents) {
    using U = std::remove_cvref_t<X>;
    if constexpr (eigen_dense<U>) {
        const auto rows = std::size_t(x.rows()), cols = std::size_t(x.cols());
        const bool vector_like = rows == 1 || cols == 1;
        extents = S.is_vector() ? rules::arrays::vector_dims(rows * cols) : rules::arrays::matrix_dims(rows, cols);
        if (S.is_vector() && !vector_like) bad_run_time_argument(call, j, rules::arrays::matrix_dims(rows, cols), S);
        if (!rules::arrays::shapes_fit(extents, S)) bad_run_time_argument(call, j, extents, S);
        using E = typename U::Scalar;
        const bool contiguous = x.innerStride() == 1 && (vector_like || std::size_t(x.outerStride()) == (U::IsRowMajor ? cols : rows));
        if constexpr (std::is_same_v<E, T>) {
            if (contiguous && (U::IsRowMajor || vector_like)) return x.data();
        }
        buffer.resize(rows * cols);
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) buffer[r * cols + c] = T(x(std::ptrdiff_t(r), std::ptrdiff_t(c)));
        return buffer.data();
    } else if constexpr (is_matrix_view<U>::value) {
        extents = rules::arrays::matrix_dims(x.rows, x.cols);
        if (!rules::arrays::shapes_fit(extents, S)) bad_run_time_argument(call, j, extents, S);
        return contiguous_entries<T>(x.data, buffer);
    } else {
        extents = rules::arrays::vector_dims(std::size(x));
        if (!rules::arrays::shapes_fit(extents, S)) bad_run_time_argument(call, j, extents, S);
        return contiguous_entries<T>(x, buffer);
    }
}


/// \endcond

}  // namespace gradc::lower
