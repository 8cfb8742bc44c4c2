#pragma once
/// \file
/// Comparisons and logical connectives. They produce conditions (for `where`), not
/// values, and carry no derivative.

#include <string_view>

#include <gradc/rules/value_traits.hpp>

namespace gradc::rules {

// The comparison tags are named only by the lowering and the printer (expressions write
// `a < b`, `a && b`), so the API reference leaves them out.
/// \cond INTERNAL
// clang-format off
struct less          { static constexpr std::string_view symbol = "<";  template <class T> static auto eval(const T& a, const T& b) { return a < b; } };
struct less_equal    { static constexpr std::string_view symbol = "<="; template <class T> static auto eval(const T& a, const T& b) { return a <= b; } };
struct greater       { static constexpr std::string_view symbol = ">";  template <class T> static auto eval(const T& a, const T& b) { return a > b; } };
struct greater_equal { static constexpr std::string_view symbol = ">="; template <class T> static auto eval(const T& a, const T& b) { return a >= b; } };
struct equal_to      { static constexpr std::string_view symbol = "=="; template <class T> static auto eval(const T& a, const T& b) { return a == b; } };
/// a != b is true where either is NaN (as C's); xsimd's batch != is ordered (false with NaN), so batches take logical_not(a == b).
struct not_equal_to  { static constexpr std::string_view symbol = "!="; template <class T> static auto eval(const T& a, const T& b) { if constexpr (simd_batch<T>) return logical_not(a == b); else return a != b; } };
struct logical_and_op { static constexpr std::string_view symbol = "&&"; template <class C> static C eval(const C& a, const C& b) { return logical_and(a, b); } };
struct logical_or_op  { static constexpr std::string_view symbol = "||"; template <class C> static C eval(const C& a, const C& b) { return logical_or(a, b); } };
struct logical_not_op { static constexpr std::string_view symbol = "!"; template <class C> static C eval(const C& a) { return logical_not(a); } };
/// \endcond
// clang-format on

}  // namespace gradc::rules
