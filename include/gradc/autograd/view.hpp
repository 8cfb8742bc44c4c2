#pragma once
/// \file
/// View operations: the result shares storage and version counter with its input, so
/// writing into a view writes into the base (and in-place operations on a view rewrite
/// the base's history, see docs/dynamic.md). Each view's gradient is the inverse
/// rearrangement of the incoming gradient.

#include <optional>

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// Same elements, new shape (one size may be -1); the input must be viewable (contiguous
/// along the merged dimensions). Gradient: g.reshape(input sizes).
Tensor view(const Tensor& a, const Shape& sizes);
/// `view` when possible, otherwise a contiguous copy.
Tensor reshape(const Tensor& a, const Shape& sizes);
Tensor flatten(const Tensor& a);  ///< A 1-D view (or copy) of all elements.
/// Swaps two dimensions; gradient: the same swap.
Tensor transpose(const Tensor& a, std::int64_t dim0, std::int64_t dim1);
/// Transpose of a tensor with at most 2 dimensions.
Tensor t(const Tensor& a);
/// Reorders dimensions; gradient: the inverse permutation.
Tensor permute(const Tensor& a, const Shape& dims);
/// The slice at `index` of `dim`, with `dim` removed. Gradient: g placed into zeros.
Tensor select(const Tensor& a, std::int64_t dim, std::int64_t index);
/// Elements start, start+step, ... < end of `dim` (Python slice semantics, clamped).
Tensor slice(const Tensor& a, std::int64_t dim, std::optional<std::int64_t> start = std::nullopt,
             std::optional<std::int64_t> end = std::nullopt, std::int64_t step = 1);
/// Entries [start, start + length) of `dim`, as a view.
Tensor narrow(const Tensor& a, std::int64_t dim, std::int64_t start, std::int64_t length);
/// Broadcast to `sizes` (-1 keeps a size) without copying; gradient: sum_to.
Tensor expand(const Tensor& a, const Shape& sizes);
Tensor expand_as(const Tensor& a, const Tensor& other);  ///< `a` expanded to `other`'s shape.
/// Removes dimensions of size 1 (all, or only `dim`).
Tensor squeeze(const Tensor& a);
Tensor squeeze(const Tensor& a, std::int64_t dim);  ///< Drops `dim` if its size is 1.
/// Inserts a dimension of size 1 at `dim`.
Tensor unsqueeze(const Tensor& a, std::int64_t dim);
/// The view of `a`'s storage with the given geometry (offset in elements of the storage).
Tensor as_strided(const Tensor& a, const Shape& sizes, const Shape& strides, std::int64_t storage_offset);
/// A view of all of `a` with its own geometry (a new handle on the same elements);
/// gradient and tangent pass through unchanged. make_dual and unpack_dual return aliases.
Tensor alias(const Tensor& a);

/// The broadcast shape of two shapes (NumPy rules); `op` names the operation in errors.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace gradc
