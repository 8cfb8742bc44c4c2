#pragma once
/// \file
/// `gradc::array_kernel`: what `gradc::compile` returns for expressions over variables
/// from `gradc::variables(shape...)`. The array programs with their calls on one point
/// (lower/array_kernel.hpp) and their Jacobian (lower/array_jacobian.hpp), the same
/// programs over arrays of points with SIMD batches (simd/array_batch_interface.hpp), and
/// Hessians and Hessian-vector products on dual numbers (lower/array_second_order.hpp),
/// at one point and at every point of a batch (simd/array_second_order_batch.hpp).

#include <cstddef>

#include <gradc/lower/array_jacobian.hpp>
#include <gradc/lower/array_kernel.hpp>
#include <gradc/lower/array_second_order.hpp>
#include <gradc/simd/array_batch_interface.hpp>
#include <gradc/simd/array_second_order_batch.hpp>

namespace gradc {

template <class Program, std::size_t LiteralCount>
class array_kernel : public lower::array_kernel<Program, LiteralCount>,
                     public lower::array_jacobian<array_kernel<Program, LiteralCount>>,
                     public simd::array_batch_interface<array_kernel<Program, LiteralCount>>,
                     public lower::array_second_order<array_kernel<Program, LiteralCount>>,
                     public simd::array_second_order_batch<array_kernel<Program, LiteralCount>> {
public:
    using lower::array_kernel<Program, LiteralCount>::array_kernel;
};

}  // namespace gradc
