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
#include <gradc/lower/run_time_derivatives.hpp>
#include <gradc/simd/array_batch_interface.hpp>
#include <gradc/simd/array_second_order_batch.hpp>
#include <gradc/simd/run_time_map_reduce.hpp>

namespace gradc {

/// \cond INTERNAL
/// The calls beyond one point's value, gradient, jvp and vjp; a kernel with run-time
/// extents has the one-point ones (lower/run_time_derivatives.hpp), the first-order
/// map-reduces (simd/run_time_map_reduce.hpp) and, for now, only the names of the batch
/// calls and the second-order map-reduces, each failing to compile with a message.
template <class Self, bool RunTimeExtents>
struct array_kernel_calls : lower::array_jacobian<Self>,
                            simd::array_batch_interface<Self>,
                            lower::array_second_order<Self>,
                            simd::array_second_order_batch<Self> {};
template <class Self>
struct array_kernel_calls<Self, true> : lower::run_time_derivatives<Self>,
                                        simd::run_time_map_reduce_calls<Self>,
                                        lower::run_time_pending_calls {};
/// \endcond

template <class Program, std::size_t LiteralCount>
class array_kernel : public lower::array_kernel<Program, LiteralCount>,
                     public array_kernel_calls<array_kernel<Program, LiteralCount>, Program::L.has_dynamic> {
public:
    using lower::array_kernel<Program, LiteralCount>::array_kernel;
};

}  // namespace gradc
