#pragma once
/// \file
/// Scans: running results along one dimension.

#include <cstdint>

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// yᵢ = Σ_{j≤i} aⱼ along `dim` (negative counts from the end; a 0-dim tensor takes 0 or
/// −1 and is returned as is), accumulated in double precision for float32 and complex64
/// as PyTorch's CPU kernel does. Bool and int64 tensors give int64, as torch.cumsum.
/// Gradient: the reversed cumulative sum of g (gᵢ summed over j ≥ i); tangent: cumsum of
/// the tangent.
Tensor cumsum(const Tensor& a, std::int64_t dim);

}  // namespace gradc
