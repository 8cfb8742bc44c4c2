#pragma once
// The strided embedding used by gradients of views, and the bookkeeping that keeps the
// histories of a base and its views consistent across in-place operations.

#include <gradc/autograd/tensor.hpp>

namespace gradc::detail {

/// zeros(base_sizes) with the region (sizes, strides, offset) of its contiguous layout
/// set to g (accumulating where the region overlaps itself); differentiable in g.
Tensor embed_strided(const Tensor& g, const Shape& base_sizes, const Shape& sizes, const Shape& strides, std::int64_t offset);

}  // namespace gradc::detail
