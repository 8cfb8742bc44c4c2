#pragma once
/// \file
/// Creating tensors. Floating tensors made without a dtype in their options take the
/// default dtype (`get_default_dtype()`: float32 unless `set_default_dtype` changed it, as
/// in LibTorch), whatever the C++ type of the values.

#include <complex>
#include <concepts>
#include <functional>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include <gradc/autograd/options.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc {

namespace detail {
Tensor make_tensor(const std::vector<double>& values, const Shape& sizes, ScalarType dtype, const TensorOptions& options);
Tensor make_complex_tensor(const std::vector<std::complex<double>>& values, const TensorOptions& options);
void check_row_length(std::size_t row, std::size_t length, std::size_t expected);
}  // namespace detail

/// A 0-dim tensor holding `value`.
Tensor scalar_tensor(double value, TensorOptions options = {});
/// 1-D tensor from values: `gradc::tensor({0.5, 0.25}, gradc::requires_grad())`.
/// Floating values (float or double) make tensors of the default dtype, integers int64 (as
/// LibTorch), unless the options name a dtype. (Templates, so that `{{1.5}, {2.0}}` unambiguously means a 2×1 matrix.)
template <class T>
    requires std::is_arithmetic_v<T>
Tensor tensor(std::initializer_list<T> values, TensorOptions options = {}) {
    std::vector<double> v(values.begin(), values.end());
    return detail::make_tensor(v, {static_cast<std::int64_t>(v.size())},
                               options.dtype_or(std::is_integral_v<T> && !std::is_same_v<T, bool> ? kInt64 : get_default_dtype()), options);
}
/// 2-D tensor from rows, which must all have the same length.
template <class T>
    requires std::is_arithmetic_v<T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> rows, TensorOptions options = {}) {
    std::vector<double> v;
    const std::size_t cols = rows.size() ? rows.begin()->size() : 0;
    std::size_t r = 0;
    for (const auto& row : rows) {
        detail::check_row_length(r++, row.size(), cols);
        v.insert(v.end(), row.begin(), row.end());
    }
    return detail::make_tensor(v, {static_cast<std::int64_t>(rows.size()), static_cast<std::int64_t>(cols)},
                               options.dtype_or(std::is_integral_v<T> && !std::is_same_v<T, bool> ? kInt64 : get_default_dtype()), options);
}
/// Complex 1-D tensor (the complex counterpart of the default dtype unless the options
/// name one).
template <class T>
Tensor tensor(std::initializer_list<std::complex<T>> values, TensorOptions options = {}) {
    std::vector<std::complex<double>> v(values.begin(), values.end());
    return detail::make_complex_tensor(v, options);
}
/// Integer tensor (for indices): `gradc::tensor_i64({2, 0})`.
Tensor tensor_i64(std::initializer_list<std::int64_t> values);
Tensor tensor_i64(const std::vector<std::int64_t>& values, const Shape& sizes);  ///< With a shape.
/// A tensor of the given shape from row-major values.
Tensor from_vector(const std::vector<double>& values, const Shape& sizes, TensorOptions options = {});
/// @{
/// A tensor over `data`, which the caller owns, without a copy (LibTorch's from_blob):
/// row-major unless strides are given; `deleter(data)` runs when the last tensor or view
/// on it is gone (without one, keep the memory alive as long as the tensor). The dtype
/// is the options' (the default dtype otherwise) and must match what `data` holds.
Tensor from_blob(void* data, const Shape& sizes, TensorOptions options = {});
Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, TensorOptions options = {});
Tensor from_blob(void* data, const Shape& sizes, std::function<void(void*)> deleter, TensorOptions options = {});
Tensor from_blob(void* data, const Shape& sizes, const Shape& strides, std::function<void(void*)> deleter,
                 TensorOptions options = {});

/// @}
/// Factories as LibTorch's: uninitialised (`empty`: write every element before reading
/// one), 0, 1 or `value` everywhere.
/// @{
Tensor empty(const Shape& sizes, TensorOptions options = {});
Tensor zeros(const Shape& sizes, TensorOptions options = {});
Tensor ones(const Shape& sizes, TensorOptions options = {});
Tensor full(const Shape& sizes, double value, TensorOptions options = {});
/// @}
/// @{
/// 1-D forms with an integer size, as LibTorch code writes them: `ones(3)`, `full(1, v)`,
/// `randn(5, opts)`. Templates, so that a braced list always means sizes: `ones({})` is
/// a 0-dim tensor, never a 1-D tensor of size 0.
// clang-format off
template <std::integral I> Tensor empty(I size, TensorOptions o = {}) { return empty(Shape{std::int64_t(size)}, o); }
template <std::integral I> Tensor zeros(I size, TensorOptions o = {}) { return zeros(Shape{std::int64_t(size)}, o); }
template <std::integral I> Tensor ones(I size, TensorOptions o = {}) { return ones(Shape{std::int64_t(size)}, o); }
template <std::integral I> Tensor full(I size, double v, TensorOptions o = {}) { return full(Shape{std::int64_t(size)}, v, o); }
// clang-format on
/// @}
/// A tensor of `t`'s shape (and dtype, unless `options` give one): 0, 1 or `value`.
/// @{
Tensor zeros_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor ones_like(const Tensor& t, std::optional<TensorOptions> options = std::nullopt);
Tensor full_like(const Tensor& t, double value, std::optional<TensorOptions> options = std::nullopt);
/// @}
/// @{
/// 0, 1, ..., end-1 and start, start+step, ... (< end for step > 0).
Tensor arange(double end, TensorOptions options = {});
Tensor arange(double start, double end, double step = 1, TensorOptions options = {});
/// @}
/// `steps` points from start to end inclusive.
Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options = {});
/// @{
/// n×m identity (m = n by default).
Tensor eye(std::int64_t n, TensorOptions options = {});
Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options = {});

/// @}
/// Seeds the generator used by rand/randn/randint (a 64-bit Mersenne twister with the standard
/// library's distributions, `<random>`), so a seeded program draws the same numbers for a given standard library.
void manual_seed(std::uint64_t seed);
/// Uniform on [0, 1).
Tensor rand(const Shape& sizes, TensorOptions options = {});
/// Standard normal.
Tensor randn(const Shape& sizes, TensorOptions options = {});
// clang-format off
/// 1-D forms: `rand(3)`, `randn(5, opts)`.
/// @{
template <std::integral I> Tensor rand(I size, TensorOptions o = {}) { return rand(Shape{std::int64_t(size)}, o); }
template <std::integral I> Tensor randn(I size, TensorOptions o = {}) { return randn(Shape{std::int64_t(size)}, o); }
// clang-format on
/// @}
/// Uniform integers in [low, high), int64.
Tensor randint(std::int64_t low, std::int64_t high, const Shape& sizes);

}  // namespace gradc
