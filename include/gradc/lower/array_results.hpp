#pragma once
/// \file
/// What an array kernel's calls return. A value of shape S is a T for a scalar, a
/// `std::array<T, S.size()>` (row-major) for a vector or a matrix of fixed extents, a
/// `std::vector<T>` for a vector of run-time length and a `gradc::matrix_value<T>` (its
/// extents and its row-major entries) for a matrix with a run-time extent.

#include <array>
#include <cstddef>
#include <span>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gradc/rules/arrays/dims.hpp>
#include <gradc/rules/value_traits.hpp>

namespace gradc {

/// A matrix whose extents were known only when the kernel was called: rows × cols
/// entries, row-major, in `data`.
template <class T>
struct matrix_value {
    std::size_t rows = 0;  ///< Rows.
    std::size_t cols = 0;  ///< Columns.
    std::vector<T> data;   ///< rows·cols entries, row-major.
    /// Entry (r, c).
    T& operator()(std::size_t r, std::size_t c) { return data[r * cols + c]; }
    /// Entry (r, c).
    const T& operator()(std::size_t r, std::size_t c) const { return data[r * cols + c]; }
    /// Row r, so that entries read as m[r][c] too (a Jacobian's or a Hessian's, as a fixed kernel's).
    std::span<T> operator[](std::size_t r) { return {data.data() + r * cols, cols}; }
    /// Row r.
    std::span<const T> operator[](std::size_t r) const { return {data.data() + r * cols, cols}; }
};

// The value type of a shape: T for a scalar, std::array<T, size> otherwise.
/// \cond INTERNAL
template <class T, std::size_t Size, bool Scalar>
struct array_value {
    using type = std::array<T, Size>;
};
template <class T, std::size_t Size>
struct array_value<T, Size, true> {
    using type = T;
};
template <class T, rules::arrays::dims S, bool Dynamic = S.is_dynamic()>
struct shaped_value {
    using type = typename array_value<T, S.rows * S.cols, S.kind == rules::arrays::shape_kind::scalar>::type;
};
template <class T, rules::arrays::dims S>
struct shaped_value<T, S, true> {
    using type = std::conditional_t<S.is_vector(), std::vector<T>, matrix_value<T>>;
};
/// \endcond
/// The value of shape S with entries of type T: T for a scalar, std::array<T, S.size()>
/// for fixed extents, std::vector<T> or gradc::matrix_value<T> for run-time ones.
template <class T, rules::arrays::dims S>
using array_value_t = typename shaped_value<T, S>::type;

/// `k.gradient(args...)` of an array kernel: the value, and a std::tuple with one entry
/// per wrt variable (T for a scalar, std::array<T, size> for an array).
template <class T, class Gradient>
struct array_gradient_result {
    T value;  ///< The value.
    Gradient gradient;  ///< One entry per wrt variable.
};

/// `k.jvp(args, tangents)` and `k.vjp(args, weights)` of an array kernel with one output
/// of value type V.
template <class V>
struct array_jvp_result {
    V value;  ///< The value.
    V tangent;  ///< J·tangents.
};
/// `k.vjp(args, weights)`: the value and the weighted gradient.
template <class V, class Gradient>
struct array_vjp_result {
    V value;  ///< The value.
    Gradient gradient;  ///< wᵀJ, one entry per wrt variable.
};

// Access to values of any shape, for the calls: left out of the API reference.
/// \cond INTERNAL
namespace lower {

/// Pointer to the entries of a value: the number itself, or the array's data.
template <class T>
T* entries_of(T& v) {
    return &v;
}
template <class T, std::size_t N>
T* entries_of(std::array<T, N>& v) {
    return v.data();
}
template <class T>
const T* entries_of(const T& v) {
    return &v;
}
template <class T, std::size_t N>
const T* entries_of(const std::array<T, N>& v) {
    return v.data();
}
template <class T>
T* entries_of(std::vector<T>& v) {
    return v.data();
}
template <class T>
T* entries_of(matrix_value<T>& v) {
    return v.data.data();
}
template <class T>
const T* entries_of(const std::vector<T>& v) {
    return v.data();
}
template <class T>
const T* entries_of(const matrix_value<T>& v) {
    return v.data.data();
}

/// Gives a value of run-time extents its shape s (a fixed one has it already).
template <class T>
void shape_to(T&, const rules::arrays::dims&) {}
template <class T>
void shape_to(std::vector<T>& v, const rules::arrays::dims& s) {
    v.assign(s.size(), T(rules::scalar_t<T>(0)));
}
template <class T>
void shape_to(matrix_value<T>& v, const rules::arrays::dims& s) {
    v.rows = s.rows;
    v.cols = s.cols;
    v.data.assign(s.size(), T(rules::scalar_t<T>(0)));
}

/// Copies the first entries of `flat` into v; returns how many.
template <class T, class V>
std::size_t copy_flat(const T* flat, V& v) {
    T* p = entries_of(v);
    for (std::size_t e = 0; e < sizeof(V) / sizeof(T); ++e) p[e] = flat[e];
    return sizeof(V) / sizeof(T);
}
/// Flat entries into a tuple of values in order (a gradient tuple: T or std::array each).
template <class T, class Tuple>
void scatter_flat(const T* flat, Tuple& t) {
    std::size_t at = 0;
    std::apply([&](auto&... v) { ((at += copy_flat(flat + at, v)), ...); }, t);
}

/// Sets every entry of a value to zero.
template <class T>
void clear(T& v) {
    v = T(rules::scalar_t<T>(0));
}
template <class T, std::size_t N>
void clear(std::array<T, N>& v) {
    v.fill(T(rules::scalar_t<T>(0)));
}

/// \endcond
}  // namespace lower
}  // namespace gradc
