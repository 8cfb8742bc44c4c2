#pragma once
/// \file
/// Variance and standard deviation, as LibTorch's `torch::var` / `torch::std`: over every
/// element or over `dims`, divided by N - 1 (`unbiased`, Bessel's correction) or N. One
/// element with `unbiased` gives NaN, as in PyTorch. Complex inputs give the real
/// variance of |x - mean|.

#include <gradc/autograd/tensor.hpp>

namespace gradc {

Tensor var(const Tensor& a, bool unbiased = true);  ///< Variance of all elements (Bessel's correction with `unbiased`).
Tensor var(const Tensor& a, const Shape& dims, bool unbiased = true, bool keepdim = false);  ///< Variance over `dims`.
/// The gradient where the result is 0 (all elements equal) is 0, as PyTorch's
/// std_backward, not the NaN of 0/0.
Tensor std(const Tensor& a, bool unbiased = true);
/// Standard deviation over `dims`.
Tensor std(const Tensor& a, const Shape& dims, bool unbiased = true, bool keepdim = false);

}  // namespace gradc
