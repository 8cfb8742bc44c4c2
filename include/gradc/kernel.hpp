#pragma once
/// \file
/// `gradc::kernel`: what `gradc::compile` returns. The lowered programs with their calls
/// on one point (lower/kernel.hpp), and the same programs over arrays of points with
/// SIMD batches (simd/batch_interface.hpp, and simd/second_order_interface.hpp for
/// Hessians). The two halves know nothing of each other:
/// this class is where the pipeline's last stage meets the first.

#include <cstddef>

#include <gradc/lower/kernel.hpp>
#include <gradc/simd/batch_interface.hpp>
#include <gradc/simd/second_order_interface.hpp>

namespace gradc {

template <class Program, std::size_t Arity, std::size_t LiteralCount>
class kernel : public lower::kernel<Program, Arity, LiteralCount>,
               public simd::batch_interface<kernel<Program, Arity, LiteralCount>>,
               public simd::second_order_interface<kernel<Program, Arity, LiteralCount>> {
public:
    using lower::kernel<Program, Arity, LiteralCount>::kernel;
};

}  // namespace gradc
