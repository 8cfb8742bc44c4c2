#pragma once
/// Which kernels the Ceres adapters take: those `gradc::compile` makes over scalar
/// variables (`gradc::variables<N>()`), whose arguments are numbers.

#include <cstddef>

#include <gradc/kernel.hpp>

namespace gradc::ceres::detail {

template <class T>
inline constexpr bool is_scalar_kernel = false;
template <class Program, std::size_t Arity, std::size_t LiteralCount>
inline constexpr bool is_scalar_kernel<gradc::kernel<Program, Arity, LiteralCount>> = true;

}  // namespace gradc::ceres::detail
