#pragma once
/// \file
/// The arguments of an array kernel's calls. A variable of shape S takes
///  - a number, for a scalar;
///  - a `std::array<U, S.size()>` or `std::span<const U, S.size()>` of its entries,
///    row-major;
///  - a `std::vector<U>` or a `std::span<const U>` whose length is checked when called;
///  - an Eigen fixed-size matrix or vector, or an `Eigen::Map` of one, in either storage
///    order (recognised by its members, so gradc does not include Eigen).
/// Row-major storage of the call's lane type is read in place; anything else is copied
/// once into a buffer of the call (a column-major matrix, floats for a double call).
/// A wrong size that is known at compile time does not compile; one known only at run
/// time throws `gradc::Error` naming the call and the argument, before anything is done.

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <gradc/error.hpp>
#include <gradc/rules/arrays/dims.hpp>

namespace gradc::lower {

using rules::arrays::dims;

/// An Eigen dense object of fixed size (a Matrix, an Array, a Map of one).
template <class X>
concept eigen_fixed = requires(const X& x) {
    x.data();
    x.rows();
    x.cols();
    X::RowsAtCompileTime;
    X::ColsAtCompileTime;
    X::IsRowMajor;
    typename X::Scalar;
} && (X::RowsAtCompileTime > 0) && (X::ColsAtCompileTime > 0);

template <class X>
struct argument_kind {
    static constexpr bool known = false;
};
template <class U>
    requires std::is_arithmetic_v<U>
struct argument_kind<U> {
    static constexpr bool known = true;
    using lane = std::conditional_t<std::is_integral_v<U>, double, U>;
    static constexpr std::size_t fixed_size = 1;
};
template <class U, std::size_t N>
struct argument_kind<std::array<U, N>> {
    static constexpr bool known = std::is_arithmetic_v<U>;
    using lane = std::conditional_t<std::is_integral_v<U>, double, U>;
    static constexpr std::size_t fixed_size = N;
};
template <class U, std::size_t N>
struct argument_kind<std::span<U, N>> {
    static constexpr bool known = std::is_arithmetic_v<std::remove_cv_t<U>>;
    using lane = std::remove_cv_t<U>;
    static constexpr std::size_t fixed_size = N;  // dynamic_extent: checked at run time
};
template <class U, class Alloc>
struct argument_kind<std::vector<U, Alloc>> {
    static constexpr bool known = std::is_arithmetic_v<U>;
    using lane = U;
    static constexpr std::size_t fixed_size = std::dynamic_extent;
};
template <eigen_fixed X>
struct argument_kind<X> {
    static constexpr bool known = std::is_arithmetic_v<typename X::Scalar>;
    using lane = typename X::Scalar;
    static constexpr std::size_t fixed_size = std::size_t(X::RowsAtCompileTime) * std::size_t(X::ColsAtCompileTime);
};

template <class X>
using argument_lane_t = typename argument_kind<std::remove_cvref_t<X>>::lane;

/// Whether X is accepted for a variable of shape S (sizes known at compile time only).
template <class X, dims S>
constexpr bool argument_fits() {
    using K = argument_kind<std::remove_cvref_t<X>>;
    if constexpr (!K::known) {
        return false;
    } else if constexpr (eigen_fixed<std::remove_cvref_t<X>>) {
        using E = std::remove_cvref_t<X>;
        if (S.is_matrix()) return E::RowsAtCompileTime == int(S.rows) && E::ColsAtCompileTime == int(S.cols);
        return K::fixed_size == S.size();
    } else {
        return K::fixed_size == std::dynamic_extent || K::fixed_size == S.size();
    }
}

[[noreturn]] inline void bad_array_argument(const char* call, std::size_t j, std::size_t got, std::size_t expected) {
    throw Error(std::string("gradc kernel ") + call + ": argument " + std::to_string(j) + " has " + std::to_string(got) +
                " entries, expected " + std::to_string(expected) + " (the size of its variable's shape)");
}

/// A pointer to the entries of argument x (variable j, shape S) as T, row-major: x's own
/// storage when it is that already, else `buffer` filled from x.
template <class T, dims S, class X>
const T* argument_pointer(const char* call, std::size_t j, const X& x, std::array<T, S.size()>& buffer) {
    using U = std::remove_cvref_t<X>;
    if constexpr (std::is_arithmetic_v<U>) {
        buffer[0] = T(x);
        return buffer.data();
    } else if constexpr (eigen_fixed<U>) {
        // Eigen's storage: row-major with unit strides is our order and is read in place;
        // anything else (column-major, strided maps, another scalar type) is copied.
        using E = typename U::Scalar;
        using index = std::ptrdiff_t;
        // (Eigen's constants are enumerators of different enumerations: compared as ints.)
        constexpr int inner = int(U::InnerStrideAtCompileTime), outer = int(U::OuterStrideAtCompileTime);
        constexpr int rows = int(U::RowsAtCompileTime), cols = int(U::ColsAtCompileTime);
        constexpr bool contiguous = (inner == 1 || inner == 0) && (outer == 0 || outer == (U::IsRowMajor ? cols : rows));
        constexpr bool row_order = U::IsRowMajor || rows == 1 || cols == 1;
        if constexpr (std::is_same_v<E, T> && contiguous && row_order) {
            return x.data();
        } else {
            for (std::size_t r = 0; r < std::size_t(U::RowsAtCompileTime); ++r)
                for (std::size_t c = 0; c < std::size_t(U::ColsAtCompileTime); ++c)
                    buffer[r * std::size_t(U::ColsAtCompileTime) + c] = T(x(index(r), index(c)));
            return buffer.data();
        }
    } else {
        const std::size_t n = std::size(x);
        if (n != S.size()) bad_array_argument(call, j, n, S.size());
        using E = std::remove_cv_t<std::remove_reference_t<decltype(*std::data(x))>>;
        if constexpr (std::is_same_v<E, T>) {
            return std::data(x);
        } else {
            for (std::size_t k = 0; k < S.size(); ++k) buffer[k] = T(std::data(x)[k]);
            return buffer.data();
        }
    }
}

}  // namespace gradc::lower
