#pragma once
/// Elementwise operations. Every function of the rule table (include/gradc/rules/) has a
/// tensor version here; its forward kernel instantiates `Rule::eval` on the element type
/// (and on SIMD batches) and its backward instantiates `Rule::partial` on Tensor, so the
/// derivative is written once, in the table. Binary operations broadcast as NumPy does;
/// the gradient is summed back to each input's shape. Scalars (`double`) may appear on
/// either side and take the dtype of the tensor.

#include <optional>

#include <gradc/autograd/tensor.hpp>

namespace gradc {

// ---- arithmetic: a ⊕ b with d/da, d/db from the rule table ---------------------------
Tensor add(const Tensor& a, const Tensor& b, double alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& a);
/// pow(a, b) = a^b; d/da = b·a^(b-1) (0 where b = 0), d/db = a^b·log a (0 where a = 0, b ≥ 0).
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double b);
Tensor pow(double a, const Tensor& b);
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
/// maximum(a, b), NaN-propagating; at ties each side gets half the gradient.
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);

// ---- unary functions of the rule table ------------------------------------------------
Tensor exp(const Tensor& a);    ///< d = exp(a)
Tensor exp2(const Tensor& a);   ///< d = 2^a·ln 2
Tensor expm1(const Tensor& a);  ///< d = exp(a)
Tensor log(const Tensor& a);    ///< d = 1/a
Tensor log2(const Tensor& a);   ///< d = 1/(a ln 2)
Tensor log10(const Tensor& a);  ///< d = 1/(a ln 10)
Tensor log1p(const Tensor& a);  ///< d = 1/(1+a)
Tensor sqrt(const Tensor& a);   ///< d = 1/(2 sqrt a); +inf at 0
Tensor cbrt(const Tensor& a);   ///< d = 1/(3 cbrt(a)²)
Tensor sin(const Tensor& a);    ///< d = cos a
Tensor cos(const Tensor& a);    ///< d = -sin a
Tensor tan(const Tensor& a);    ///< d = 1 + tan² a
Tensor asin(const Tensor& a);   ///< d = 1/sqrt(1-a²)
Tensor acos(const Tensor& a);   ///< d = -1/sqrt(1-a²)
Tensor atan(const Tensor& a);   ///< d = 1/(1+a²)
Tensor sinh(const Tensor& a);   ///< d = cosh a
Tensor cosh(const Tensor& a);   ///< d = sinh a
Tensor tanh(const Tensor& a);   ///< d = 1 - tanh² a
Tensor sigmoid(const Tensor& a);   ///< d = σ(a)(1-σ(a))
Tensor softplus(const Tensor& a);  ///< d = σ(a)
Tensor erf(const Tensor& a);    ///< d = 2/√π e^(-a²)
Tensor erfc(const Tensor& a);   ///< d = -2/√π e^(-a²)
/// |a|; d = sign(a), 0 at 0. For complex a: the modulus (real), d = a/|a| (conjugate
/// Wirtinger convention), 0 at 0.
Tensor abs(const Tensor& a);
/// max(a, 0); d = [a > 0], 0 at 0.
Tensor relu(const Tensor& a);
/// min(max(a, lo), hi); d = 1 where lo ≤ a ≤ hi (bounds included, as PyTorch), else 0.
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi = std::nullopt);
Tensor clamp_min(const Tensor& a, double lo);
Tensor clamp_max(const Tensor& a, double hi);
Tensor square(const Tensor& a);

// ---- conditions ----------------------------------------------------------------------
/// cond ? a : b, broadcast; cond is a bool tensor. d/da = [cond], d/db = [!cond].
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// The same as `where`, under the name the rule table finds by argument-dependent lookup.
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, double b);
Tensor operator<=(const Tensor& a, double b);
Tensor operator>(const Tensor& a, double b);
Tensor operator>=(const Tensor& a, double b);
Tensor operator==(const Tensor& a, double b);
Tensor operator!=(const Tensor& a, double b);
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);
Tensor isnan(const Tensor& a);
/// True when every element of a bool tensor is true / some element is.
bool all(const Tensor& a);
bool any(const Tensor& a);
/// Same shape and |a - b| ≤ atol + rtol·|b| everywhere.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
bool equal(const Tensor& a, const Tensor& b);

// ---- complex -------------------------------------------------------------------------
/// Real part (the tensor itself for real tensors). Gradient: the real gradient, as a complex number.
Tensor real(const Tensor& a);
/// Imaginary part; gradient g ↦ i·g.
Tensor imag(const Tensor& a);
/// Complex conjugate; gradient g ↦ conj(g).
Tensor conj(const Tensor& a);
/// Argument of a complex number (0 or π for reals); d/da = i·a/|a|² in the conjugate
/// Wirtinger convention; gradient 0 for real inputs.
Tensor angle(const Tensor& a);
/// re + i·im, both real of the same shape.
Tensor complex(const Tensor& re, const Tensor& im);

}  // namespace gradc
