#pragma once
// What the factorisations (linalg_decompositions.cpp, linalg_lu.cpp) share: the checks of
// a batch of square real matrices with PyTorch's wording, the batch loop over contiguous
// copies, the transpose of the last two dimensions and the constant triangular masks
// their formulas multiply by (a product with a constant is differentiable, so the
// formulas stay differentiable without a tril operation).

#include <cstdint>
#include <string>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"

namespace gradc::detail {

/// The batch size (product of the leading dimensions) and the order n of a (…, n, n)
/// tensor that passed check_square.
struct SquareBatch {
    std::int64_t count;
    std::int64_t n;
};

/// Checks that `t` (named `name` in messages, as PyTorch's "A") is a batch of square
/// float32 or float64 matrices, or throws naming `op`, what it got and what it expects.
inline SquareBatch check_square(const Tensor& t, const char* op, const char* name = "A") {
    check_defined(t, op);
    const std::string prefix = std::string("gradc: ") + op + ": ";
    if (t.dim() < 2)
        throw Error(prefix + "The input tensor " + name + " must have at least 2 dimensions, got " + describe(t));
    if (t.size(-1) != t.size(-2))
        throw Error(prefix + name + " must be batches of square matrices, but they are " + std::to_string(t.size(-2)) +
                    " by " + std::to_string(t.size(-1)) + " matrices (got " + describe(t) + ")");
    if (t.dtype() != kFloat32 && t.dtype() != kFloat64)
        throw Error(prefix + "expected " + name + " to be a Float or Double tensor, got " + describe(t) +
                    " (complex and integer matrices are not supported)");
    return {shape_numel(Shape(t.sizes().begin(), t.sizes().end() - 2)), t.size(-1)};
}

/// Throws unless `b` is defined, has at least `min_dims` dimensions and `a`'s dtype.
inline void check_operand(const Tensor& a, const Tensor& b, const char* op, std::int64_t min_dims) {
    check_defined(b, op);
    const std::string prefix = std::string("gradc: ") + op + ": ";
    if (b.dim() < min_dims)
        throw Error(prefix + "The input tensor B must have at least " + std::to_string(min_dims) + " dimension" +
                    (min_dims == 1 ? "" : "s") + ", got " + describe(b));
    if (b.dtype() != a.dtype())
        throw Error(prefix + "expected A and B to have the same dtype, but got " + describe(a) + " and " + describe(b));
}

/// "(Batch element 3): " for a batched input, as PyTorch starts its messages; "" for one matrix.
inline std::string batch_element(const Tensor& t, std::int64_t s) {
    return t.dim() > 2 ? "(Batch element " + std::to_string(s) + "): " : std::string();
}

/// The leading (batch) dimensions of a matrix or batch of matrices.
inline Shape batch_shape(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }

/// `batch` followed by rows, cols.
inline Shape with_matrix(Shape batch, std::int64_t rows, std::int64_t cols) {
    batch.push_back(rows);
    batch.push_back(cols);
    return batch;
}

/// Calls f(type_tag<float>) or f(type_tag<double>) for a dtype check_square accepted.
template <class F>
void dispatch_real(ScalarType t, F&& f) {
    if (t == kFloat32)
        f(type_tag<float>{});
    else
        f(type_tag<double>{});
}

/// The transpose of the last two dimensions (PyTorch's `mT`), differentiable.
inline Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

/// n×n ones on one triangle (the upper one with the diagonal when `upper`) with
/// `diagonal_value` on the diagonal, zeros elsewhere: tril/triu as a product with a
/// constant, and Φ of the Cholesky formulas (diagonal 1/2).
inline Tensor triangle_mask(std::int64_t n, bool upper, double diagonal_value, ScalarType dtype) {
    std::vector<double> m(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j)
            m[static_cast<std::size_t>(i * n + j)] = i == j ? diagonal_value : ((upper ? j > i : j < i) ? 1.0 : 0.0);
    return from_vector(m, {n, n}, gradc::dtype(dtype));
}

}  // namespace gradc::detail
