#pragma once
/// \file
/// Which kernels the Ceres adapters take: those `gradc::compile` makes over scalar
/// variables (`gradc::variables<N>()`), whose arguments are numbers.

#include <cstddef>
#include <type_traits>

#include <gradc/kernel.hpp>

namespace gradc::ceres::detail {

template <class T>
inline constexpr bool is_scalar_kernel_type = false;
template <class Program, std::size_t Arity, std::size_t LiteralCount>
inline constexpr bool is_scalar_kernel_type<gradc::kernel<Program, Arity, LiteralCount>> = true;

/// Also for a const kernel: `cost_function<decltype(k), ...>` with `const auto k`.
template <class T>
inline constexpr bool is_scalar_kernel = is_scalar_kernel_type<std::remove_cv_t<T>>;

}  // namespace gradc::ceres::detail
