#pragma once
/// \file
/// Reductions. `dims` empty means all dimensions; negative dims count from the end;
/// `keepdim` keeps reduced dimensions with size 1.

#include <tuple>

#include <gradc/autograd/tensor.hpp>

namespace gradc {

/// Σ a over dims; gradient: g broadcast back to a's shape.
Tensor sum(const Tensor& a, const Shape& dims = {}, bool keepdim = false);
/// Σ a / n over dims; gradient: g/n broadcast.
Tensor mean(const Tensor& a, const Shape& dims = {}, bool keepdim = false);
/// Π a over all elements or one dim; gradient: Π_{j≠i} a_j (exact with zeros in a).
Tensor prod(const Tensor& a);
Tensor prod(const Tensor& a, std::int64_t dim, bool keepdim = false);  ///< The product along `dim`.
/// Largest value over dims; the gradient is shared evenly among tied maxima.
Tensor amax(const Tensor& a, const Shape& dims = {}, bool keepdim = false);
/// The minimum over `dims` (all for {}); the gradient is shared among ties.
Tensor amin(const Tensor& a, const Shape& dims = {}, bool keepdim = false);
/// max over all elements (ties share the gradient, like amax).
Tensor max(const Tensor& a);
Tensor min(const Tensor& a);  ///< The smallest element.
/// (values, indices) along `dim`; the gradient goes to the first maximum's index only.
std::tuple<Tensor, Tensor> max(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// {values, indices} of the minimum along `dim`.
std::tuple<Tensor, Tensor> min(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Index of the maximum along `dim` (int64, no gradient).
Tensor argmax(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// Index of the minimum along `dim` (int64, no gradient).
Tensor argmin(const Tensor& a, std::int64_t dim, bool keepdim = false);
/// p-norm over all elements, (Σ|a|^p)^(1/p); for p = 2 the gradient is a/‖a‖ and 0 at
/// a = 0 (the minimum-norm subgradient: "Autograd mechanics" notes, "Gradients for
/// non-differentiable functions", second rule).
Tensor norm(const Tensor& a, double p = 2);
Tensor norm(const Tensor& a, double p, const Shape& dims, bool keepdim = false);  ///< The p-norm over `dims`.
/// log Σ exp(a), computed with the maximum subtracted; gradient softmax(a)·g.
Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim = false);
/// exp(a) / Σ exp(a) along dim.
Tensor softmax(const Tensor& a, std::int64_t dim);
/// a - logsumexp(a) along dim.
Tensor log_softmax(const Tensor& a, std::int64_t dim);
/// Sums `a` down to `sizes` (the inverse of broadcasting), for gradients of broadcasts.
Tensor sum_to(const Tensor& a, const Shape& sizes);

}  // namespace gradc
