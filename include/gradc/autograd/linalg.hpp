#pragma once
/// \file
/// Matrix products, with a blocked and vectorised kernel. Gradients:
/// C = A·B  ⇒  dA = dC·Bᴴ, dB = Aᴴ·dC  (ᴴ: conjugate transpose, for complex tensors).

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// (n×k)·(k×m).
Tensor mm(const Tensor& a, const Tensor& b);
/// (n×k)·(k).
Tensor mv(const Tensor& a, const Tensor& v);
/// Σ aᵢbᵢ of two vectors (no conjugation, as torch.dot).
Tensor dot(const Tensor& a, const Tensor& b);
/// aᵢbⱼ.
Tensor outer(const Tensor& a, const Tensor& b);
/// Batched (b×n×k)·(b×k×m).
Tensor bmm(const Tensor& a, const Tensor& b);
/// NumPy matmul: dot, mv, mm, or batched with broadcast batch dimensions.
Tensor matmul(const Tensor& a, const Tensor& b);

}  // namespace gradc
