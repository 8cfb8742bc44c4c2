#pragma once
/// \file
/// Joining and indexing. Index tensors are int64; out-of-range indices throw.

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// Concatenation along `dim`; gradient: the matching slices of g.
Tensor cat(const tensor_list& tensors, std::int64_t dim = 0);
/// Stacks equal-shaped tensors along a new dimension `dim`.
Tensor stack(const tensor_list& tensors, std::int64_t dim = 0);
/// The entries `index` (1-D int64) of `dim`; gradient: index_add of g into zeros.
Tensor index_select(const Tensor& a, std::int64_t dim, const Tensor& index);
/// out[i][j] = a[index[i][j]][j] (for dim 0; likewise for other dims); gradient:
/// scatter_add of g into zeros.
Tensor gather(const Tensor& a, std::int64_t dim, const Tensor& index);
/// zeros_like(self) with out[index[i][j]][j] += src[i][j] (dim 0); differentiable in src
/// and self.
Tensor scatter_add(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src);
/// self with self.index_select(dim, index) += src; differentiable in self and src.
Tensor index_add(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src);

}  // namespace gradc
