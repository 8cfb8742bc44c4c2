#pragma once
/// \file
/// Factorisations and solves of square real matrices (float32 or float64; complex and
/// integer matrices are refused), as `torch.linalg`: one matrix (n×n) or a batch
/// (…×n×n, batch dimensions broadcast between A and B). Every operation is
/// differentiable in reverse and forward mode, with formulas written in differentiable
/// operations, so they differentiate again (create_graph, forward over reverse).
/// With X the result and gX, Ẋ its gradient and tangent (ᵀ: transpose of the last two
/// dimensions); references: Giles, "An extended collection of matrix derivative results
/// for forward and reverse mode algorithmic differentiation" (2008), §2.2 "Elementary
/// results" (inverse, determinant, and the solve as an inverse product); Murray,
/// "Differentiation of the Cholesky decomposition" (2016) for Cholesky.

#include <gradc/autograd/tensor.hpp>

namespace gradc {

namespace linalg {

/// L, lower triangular with a positive diagonal, with A = L·Lᵀ. Reads only the lower
/// triangle of A (as LAPACK's potrf); a matrix that is not positive-definite throws
/// gradc::Error ("the leading minor of order k is not positive-definite"). With
/// Φ(X) = the lower triangle of X with its diagonal halved, the gradient is symmetric, as
/// PyTorch's: gA = sym(L⁻ᵀ Φ(Lᵀ gL) L⁻¹), sym(Y) = (Y + Yᵀ)/2; the tangent is
/// L̇ = L Φ(L⁻¹ sym(Ȧ) L⁻ᵀ). Both treat A as symmetric: check them on functions of a
/// symmetric input (such as X Xᵀ + n·I), not of A's entries one by one.
Tensor cholesky(const Tensor& A);

/// X with A X = B (`left`) or X A = B, A (…, n, n) triangular: only its upper (`upper`)
/// or lower triangle is read, and its diagonal is taken as ones when `unitriangular`.
/// B (…, n, k), or (…, k, n) when not `left`. A zero on the diagonal gives infinities,
/// not an error (as torch). Gradients (left): gB = A⁻ᵀ gX, gA = −gB Xᵀ restricted to
/// A's triangle (without the diagonal when unitriangular); tangent Ẋ = A⁻¹ (Ḃ − Ȧ X),
/// Ȧ restricted likewise.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);

/// X with A X = B by LU with partial pivoting; B is a vector (n), a batch of vectors
/// (A's shape without its last dimension) or matrices (…, n, k). A singular A throws
/// gradc::Error. Gradients: gB = A⁻ᵀ gX, gA = −gB Xᵀ (−outer(gB, X) for a vector);
/// tangent Ẋ = A⁻¹ (Ḃ − Ȧ X).
Tensor solve(const Tensor& A, const Tensor& B);

/// A⁻¹ by LU with partial pivoting; a singular A throws gradc::Error. Gradient
/// gA = −Xᵀ gX Xᵀ; tangent Ẋ = −X Ȧ X.
Tensor inv(const Tensor& A);

}  // namespace linalg

/// LibTorch's names for the functions of gradc::linalg (`torch::linalg_cholesky`, ...).
/// @{
Tensor linalg_cholesky(const Tensor& A);
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);
Tensor linalg_solve(const Tensor& A, const Tensor& B);
Tensor linalg_inv(const Tensor& A);
/// @}

/// log det A of a square matrix (…, n, n), by LU with partial pivoting: −inf for a
/// singular A and NaN for a negative determinant, as torch.logdet. Gradient g·A⁻ᵀ,
/// tangent trace(A⁻¹ Ȧ); where the result is NaN both are 0, as PyTorch 1.13's (its
/// logdet is where(sign = −1, NaN, log|det A|)).
Tensor logdet(const Tensor& A);

}  // namespace gradc
