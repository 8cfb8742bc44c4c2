#pragma once
// Declarations shared by the dynamic mode's source files (not installed). They need only
// the Tensor handle, so that the files that define tensors themselves (tensor.cpp) can
// use them too; a file that reads a TensorImpl includes tensor_impl.hpp itself.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::detail {

/// `*impl`, or throws "METHOD called on an undefined tensor" (the check of Tensor's methods).
TensorImpl& defined_impl(const std::shared_ptr<TensorImpl>& impl, const char* method);

/// Normalises a possibly negative dimension against `ndim`, or throws naming `op`.
std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op);
/// Which dimensions of `a` a reduction over `dims` reduces (every one for an empty list);
/// throws naming `op` for a dimension out of range or given twice.
std::vector<bool> reduced_dimensions(const Tensor& a, const Shape& dims, const char* op);
/// "[Double [2, 3]]" for error messages.
std::string describe(const Tensor& t);
void check_defined(const Tensor& t, const char* op);
/// Throws, naming `what`, unless `t` is defined and requires grad (hooks need both).
void check_hookable(const Tensor& t, const char* what);

// ---- raw kernels: no autograd, no grad-mode checks --------------------------------
/// A contiguous copy in dtype `dtype` (a fresh storage).
Tensor copy_as(const Tensor& t, ScalarType dtype);
/// `t` itself when it is contiguous with the given dtype, else `copy_as`.
Tensor contiguous_as(const Tensor& t, ScalarType dtype);
/// Writes `src` (broadcast to dst's shape, converted to dst's dtype) into dst's elements.
void copy_into(const Tensor& dst, const Tensor& src);
/// Fills dst's elements with `value`.
void fill_raw(const Tensor& dst, double value);
/// dst[i] += src[i] elementwise, sequentially (so overlapping destinations accumulate).
void add_into(const Tensor& dst, const Tensor& src);

// ---- views --------------------------------------------------------------------------
/// The permutation q with q[p[i]] = i: permute(permute(t, p), q) is t.
Shape inverse_permutation(const Shape& p);
/// A view of `input` with the given geometry over its storage; records the root base.
Tensor make_view(const Tensor& input, Shape sizes, Shape strides, std::int64_t offset);
/// For a view whose base's history changed since its grad_fn was made (an in-place
/// operation on the base or another view), regenerates grad_fn from the base.
void refresh_view_history(TensorImpl& impl);
/// After an in-place operation produced `result` for the view `self`: the base's new
/// history is "base with the view region replaced by result" (PyTorch's CopySlices).
void rebase_view_history(const Tensor& self, const Tensor& result);

}  // namespace gradc::detail

namespace gradc::kernels {
/// The dtype of an elementwise result: the promotion of the operands, where a wrapped
/// number only decides the category (real or complex), and integers become float64.
ScalarType result_type(const Tensor& a, const Tensor& b);
/// Floating dtype of a unary result (integers become float64).
ScalarType float_type(ScalarType t);
}  // namespace gradc::kernels
