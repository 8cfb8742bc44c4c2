#pragma once
/// \file
/// Elementwise operations. Every function of the rule table (include/gradc/rules/) has a
/// tensor version here; its forward kernel instantiates `Rule::eval` on the element type
/// (and on SIMD batches) and its backward instantiates `Rule::partial` on Tensor, so the
/// derivative is written once, in the table. Binary operations broadcast as NumPy does;
/// the gradient is summed back to each input's shape. Scalars (`double`) may appear on
/// either side and take the dtype of the tensor.

#include <optional>
#include <type_traits>

#include <gradc/autograd/tensor.hpp>
#include <gradc/rules/list.hpp>

namespace gradc {

/// `rule_tensor_op<R>::apply(x...)`: the tensor operation of rule R of the rule table
/// (`rule_tensor_op<rules::max>::apply(a, b)` is `maximum(a, b)`), for code that goes
/// from a rule to its tensor function, such as check/static.hpp and the table-driven tests.
template <class R>
struct rule_tensor_op {
    static_assert(!std::is_same_v<R, R>, "gradc: this rule has no tensor operation; list it in GRADC_UNARY_PRIMITIVES or "
                                         "GRADC_BINARY_PRIMITIVES (include/gradc/rules/list.hpp)");
};

// ---- arithmetic: a ⊕ b with d/da, d/db from the rule table ---------------------------
/// a + alpha·b and a - alpha·b, broadcasting (torch::add, torch::sub); d/da = 1, d/db = ±alpha.
/// @{
Tensor add(const Tensor& a, const Tensor& b, double alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, double alpha = 1);
/// @}
/// a·b and a/b, broadcasting; partials from rules::mul and rules::div.
/// @{
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
/// @}
/// -a.
Tensor neg(const Tensor& a);
/// pow with a C++ number for the exponent or the base (the tensor pow is below).
Tensor pow(const Tensor& a, double b);
/// a^b with a number for the base; d/db = y·log(a) (rules::pow).
Tensor pow(double a, const Tensor& b);

// ---- the functions of the rule table: one per entry of rules/list.hpp ----------------
// The math, the derivative and the conventions at edge points are documented with each
// rule in include/gradc/rules/. Binary functions broadcast; `maximum`/`minimum` propagate
// NaN and split the gradient at ties, as PyTorch. Complex tensors are accepted by the
// rules with a complex form; `abs` of a complex tensor is the modulus (real), with
// gradient a/|a| (conjugate Wirtinger convention) and 0 at 0.
#define GRADC_TENSOR_UNARY(rule, op) \
    Tensor op(const Tensor& a);      \
    template <> struct rule_tensor_op<rules::rule> { static Tensor apply(const Tensor& a) { return gradc::op(a); } };
#define GRADC_TENSOR_BINARY(rule, op)              \
    Tensor op(const Tensor& a, const Tensor& b);   \
    template <> struct rule_tensor_op<rules::rule> { \
        static Tensor apply(const Tensor& a, const Tensor& b) { return gradc::op(a, b); } };
GRADC_UNARY_PRIMITIVES(GRADC_TENSOR_UNARY)
GRADC_BINARY_PRIMITIVES(GRADC_TENSOR_BINARY)
#undef GRADC_TENSOR_UNARY
#undef GRADC_TENSOR_BINARY

/// The arithmetic operators: add, sub, mul, div and neg, with a C++ number on either side
/// (a 0-dim wrapped number: the tensor's dtype wins).
/// @{
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

// ---- further unary functions -----------------------------------------------------------
/// min(max(a, lo), hi); d = 1 where lo ≤ a ≤ hi (bounds included, as PyTorch), else 0.
/// @}
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi = std::nullopt);
/// clamp(a, lo) and clamp(a, nullopt, hi): one bound only.
/// @{
Tensor clamp_min(const Tensor& a, double lo);
Tensor clamp_max(const Tensor& a, double hi);
/// @}
/// a·a; d/da = 2a.
Tensor square(const Tensor& a);

// ---- conditions ----------------------------------------------------------------------
/// cond ? a : b, broadcast; cond is a bool tensor. d/da = [cond], d/db = [!cond].
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// `value` where the bool `mask` (broadcastable to `a`'s shape) is true, `a` elsewhere;
/// the gradient reaches `a` where the mask is false.
Tensor masked_fill(const Tensor& a, const Tensor& mask, double value);
/// The same as `where`, under the name the rule table finds by argument-dependent lookup.
Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b);

// The tensor operations of the rules written by hand (operators and `where`).
// The specialisations for the hand-written rules only connect a rule to its function
// above; the reference documents the primary template.
/// \cond INTERNAL
// clang-format off
template <> struct rule_tensor_op<rules::add> { static Tensor apply(const Tensor& a, const Tensor& b) { return add(a, b); } };
template <> struct rule_tensor_op<rules::sub> { static Tensor apply(const Tensor& a, const Tensor& b) { return sub(a, b); } };
template <> struct rule_tensor_op<rules::mul> { static Tensor apply(const Tensor& a, const Tensor& b) { return mul(a, b); } };
template <> struct rule_tensor_op<rules::div> { static Tensor apply(const Tensor& a, const Tensor& b) { return div(a, b); } };
template <> struct rule_tensor_op<rules::neg> { static Tensor apply(const Tensor& a) { return neg(a); } };
template <> struct rule_tensor_op<rules::where> { static Tensor apply(const Tensor& c, const Tensor& a, const Tensor& b) { return where(c, a, b); } };
/// \endcond
// clang-format on
/// Elementwise comparisons, broadcasting, with a tensor or a number on the right: bool
/// tensors, no gradient (NaN compares unequal to everything, as in C).
/// @{
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
/// @}
/// Logical and, or and not of bool tensors, elementwise.
/// @{
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);
/// @}
/// A bool tensor: true where `a` is NaN.
Tensor isnan(const Tensor& a);
/// @{
/// True when every element of a bool tensor is true / some element is.
bool all(const Tensor& a);
bool any(const Tensor& a);
/// @}
/// Same shape and |a - b| ≤ atol + rtol·|b| everywhere.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
/// Same shape and the same values everywhere (torch::equal).
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
