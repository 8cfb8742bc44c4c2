#pragma once
/// The differential tester's references: every primitive of the rule table on long double
/// (and, through the same templates, on double with the C library's functions), under the
/// names a generated expression uses in all three modes, so that one generic
/// lambda is the static expression (gradc::expr types, found by argument-dependent
/// lookup), the dynamic program (gradc::Tensor, likewise) and the reference (these
/// functions, brought in by a using-directive). `maximum`/`minimum` are the tensor names;
/// for static expressions they forward to `max`/`min`.

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

namespace gradc::difftest::reference {

/// The branches every `where` of one evaluation took, and the side of its kink at which
/// every relu, maximum and minimum was evaluated. Differences stand for the derivative at
/// a point only where the program takes the same branches at the point and at every point
/// the differences use: a condition that holds at the point alone (x == -x at x = ±0;
/// x/x < 2 fails only at 0, where x/x is NaN) gives the point the derivative of a branch
/// that no neighbour takes, which the differences never see. (A point exactly at a kink
/// is told by term_scale.hpp's `at_kink`: a lambda's `abs` of a floating-point number
/// calls the C library's, not the template here.) The harness resets it before each
/// evaluation and compares.
struct branch_trace {
    std::uint64_t bits = 0;
    std::uint32_t count = 0;
    void take(bool c) { bits = bits * 1099511628211ull + (c ? 2 : 1), ++count; }
    bool operator==(const branch_trace&) const = default;
};
inline thread_local branch_trace branches;

// clang-format off
template <std::floating_point T> T exp(T a) { return std::exp(a); }
template <std::floating_point T> T exp2(T a) { return std::exp2(a); }
template <std::floating_point T> T expm1(T a) { return std::expm1(a); }
template <std::floating_point T> T log(T a) { return std::log(a); }
template <std::floating_point T> T log2(T a) { return std::log2(a); }
template <std::floating_point T> T log10(T a) { return std::log10(a); }
template <std::floating_point T> T log1p(T a) { return std::log1p(a); }
template <std::floating_point T> T sqrt(T a) { return std::sqrt(a); }
template <std::floating_point T> T cbrt(T a) { return std::cbrt(a); }
template <std::floating_point T> T sin(T a) { return std::sin(a); }
template <std::floating_point T> T cos(T a) { return std::cos(a); }
template <std::floating_point T> T tan(T a) { return std::tan(a); }
template <std::floating_point T> T asin(T a) { return std::asin(a); }
template <std::floating_point T> T acos(T a) { return std::acos(a); }
template <std::floating_point T> T atan(T a) { return std::atan(a); }
template <std::floating_point T> T sinh(T a) { return std::sinh(a); }
template <std::floating_point T> T cosh(T a) { return std::cosh(a); }
template <std::floating_point T> T tanh(T a) { return std::tanh(a); }
template <std::floating_point T> T asinh(T a) { return std::asinh(a); }
template <std::floating_point T> T acosh(T a) { return std::acosh(a); }
template <std::floating_point T> T atanh(T a) { return std::atanh(a); }
template <std::floating_point T> T erf(T a) { return std::erf(a); }
template <std::floating_point T> T erfc(T a) { return std::erfc(a); }
// No C library has erfinv: see `erfinv` below the list.
template <std::floating_point T> T erfinv(T a);
template <std::floating_point T> T abs(T a) { return std::fabs(a); }
template <std::floating_point T> T sigmoid(T a) { return 1 / (1 + std::exp(-a)); }
template <std::floating_point T> T softplus(T a) { return (a > 0 ? a : T(0)) + std::log1p(std::exp(-std::fabs(a))); }
template <std::floating_point T> T logit(T a) { return std::log(a / (1 - a)); }
template <std::floating_point T> T relu(T a) { branches.take(a > 0), branches.take(a == 0); return a > 0 ? a : (std::isnan(a) ? a : T(0)); }
template <std::floating_point T, std::floating_point U> auto pow(T a, U b) { return std::pow(a, b); }
template <std::floating_point T, std::floating_point U> auto atan2(T a, U b) { return std::atan2(a, b); }
template <std::floating_point T, std::floating_point U> auto hypot(T a, U b) { return std::hypot(a, b); }
// A tie gives the first operand (maximum(0.0, -0.0) is 0.0), as gradc's rules and std::max/std::min.
template <std::floating_point T, std::floating_point U> auto maximum(T a, U b) { branches.take(a > b), branches.take(a == b); return std::isnan(a) || std::isnan(b) ? a + b : (a >= b ? a : b); }
template <std::floating_point T, std::floating_point U> auto minimum(T a, U b) { branches.take(a > b), branches.take(a == b); return std::isnan(a) || std::isnan(b) ? a + b : (a <= b ? a : b); }
template <std::floating_point T> T where(bool c, T a, T b) { branches.take(c); return c ? a : b; }
// clang-format on

/// erfinv(a) in T, written without gradc's approximation: bisection of erf(y) = a on
/// [0, 7] (erfc(7) ≈ 4e-23 lies below 1 - a for every long double a < 1) with the
/// residual computed as erf(y) - |a| up to |a| = ½ and as (1 - |a|) - erfc(y) beyond (1 - |a|
/// is exact there; erf(y) - |a| would cancel), until the bracket's ends are adjacent
/// numbers: within about an ulp of T, as accurate as T's erf and erfc. Below 2⁻⁴⁰ the
/// series √π/2·a·(1 + π/12·a²) (its next term 2⁻¹⁶⁰ relative), where bisection would take
/// a thousand steps; ±1 → ±inf, beyond and NaN → NaN.
template <std::floating_point T>
T erfinv(T a) {
    const T m = std::fabs(a);
    if (!(m < 1)) return m == 1 ? std::copysign(std::numeric_limits<T>::infinity(), a) : std::numeric_limits<T>::quiet_NaN();
    const long double pi = 3.141592653589793238462643383279502884L, root_pi = 1.772453850905516027298167483341145182L;
    if (m < T(0x1p-40)) return std::copysign(T(m * (root_pi / 2) * (1 + pi / 12 * m * m)), a);
    T lo = 0, hi = 7;
    for (;;) {
        const T mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        const T f = m <= T(0.5) ? std::erf(mid) - m : (1 - m) - std::erfc(mid);
        (f < 0 ? lo : hi) = mid;
    }
    const T f_lo = m <= T(0.5) ? std::erf(lo) - m : (1 - m) - std::erfc(lo);
    const T f_hi = m <= T(0.5) ? std::erf(hi) - m : (1 - m) - std::erfc(hi);
    return std::copysign(-f_lo <= f_hi ? lo : hi, a);
}

/// Static expressions call the rule `max`/`min` (their only name in that mode).
template <class A, class B>
auto maximum(const A& a, const B& b) -> decltype(max(a, b)) {
    return max(a, b);
}
template <class A, class B>
auto minimum(const A& a, const B& b) -> decltype(min(a, b)) {
    return min(a, b);
}

}  // namespace gradc::difftest::reference
