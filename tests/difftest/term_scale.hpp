#pragma once
/// How large the terms are that a derivative sums, so that the differential tester can
/// tell rounding from a wrong derivative.
///
/// Reverse mode (`gradient`) and forward mode (`jvp`) form the same sum of products of
/// partials along every path from a variable to the result, in different orders; the
/// SIMD and scalar code paths round each partial differently by a few ulps. Where the sum
/// cancels — `(x / x) * (x - 0.5)` at x = 1e-300 adds terms of about 1e300 that cancel to
/// 1 — the modes' results differ by a few ulps of the largest term, not of the result,
/// and no fixed relative tolerance on the result separates that from a bug. The bound
/// of that rounding is the sum of the terms' magnitudes: forward mode in long double on
/// |partial| · |tangent| (the "absolute" JVP), which this file computes by running the
/// expression's generic lambda on `term_scale<N>`: a long-double value with, for every
/// variable j, Σ over paths of |∏ partials| from x_j (seeded 1 at x_j).
///
/// The same for second order (`hess`): a Hessian entry sums products of first and second
/// partials (y = f(a): y_jk = f''·a_j·a_k + f'·a_jk), which forward over reverse (the
/// static mode) and reverse over reverse (the dynamic mode) add in other orders, so they
/// round apart by a few ulps of the largest term: `atan2(x, x)` is constant, and its
/// Hessian 0 a difference of terms near 1/x². The bound is that sum on magnitudes,
/// |f''|·s_j·s_k + |f'|·S_jk.
///
/// The partials here are written from the closed forms, independently of gradc's rule
/// table; they only need to be right in magnitude. At ties and kinks (relu at 0, abs at
/// 0, max of equal operands) they take the larger side, an upper bound.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>

#include "reference.hpp"

namespace gradc::difftest::reference {

/// The closest call of one evaluation: the smallest |a − b| / (error(a) + error(b)) of a
/// comparison, of max/min's operands, or of abs's and relu's operand and 0, over those
/// whose operands carry rounding (`term_scale::error`). Below the modes' tolerance the
/// branch, or the side a derivative takes, is decided by rounding, and two modes may take
/// two: log2(tan(atan2(x, x))) >= 0 holds in one mode and not in another, since the exact
/// value 0 is computed as ±1e-16 or 0. The harness resets it before each evaluation.
inline thread_local long double closest_call = std::numeric_limits<long double>::infinity();

/// One evaluation met abs or relu at exactly 0, or maximum or minimum at a tie, of operands
/// that carry derivatives. There the derivative is a convention of docs/static.md
/// (abs'(0) = 0), which a smooth function of it does not share: hypot(abs(x), y) is smooth
/// in x, with ∂²/∂x² = 1/|y| at 0, where every mode gives 0. Differences do not stand for
/// the derivative there. The harness resets it before each evaluation.
inline thread_local bool at_kink = false;

template <std::size_t N>
struct term_scale {
    using real = long double;
    real value = 0;
    std::array<real, N> scale{};  // Σ |path products| from each variable; 0 for literals
    /// The largest quantity forward mode forms on the way for each variable: any node's
    /// scale, and any partial it multiplies by. Beyond double's range a double forward
    /// sweep overflows there, however small the result's terms are.
    std::array<real, N> peak{};
    /// First-order bound of the value's error when every operation errs by a relative 1
    /// (multiply by the modes' per-operation tolerance): Σ over operations k of
    /// |∂y/∂t_k|·|t_k|, propagated forward as |∂y/∂a|·error(a) + |y| per operation.
    /// Where an operation's result is amplified (log of a value near 1, a difference of
    /// near-equal terms), the modes' few-ulp differences in it are amplified as much.
    real error = 0;
    /// The largest and the smallest nonzero magnitude of every value computed on the way
    /// (operands included): where they leave float's range, a float kernel overflows or
    /// underflows inside, whatever its inputs and result are.
    real largest = 0, smallest = std::numeric_limits<real>::infinity();
    /// Σ |second-order terms| of ∂²y/∂x_j∂x_k at [j * N + k]; 0 for literals and variables.
    std::array<real, N * N> hess{};

    term_scale() = default;
    /// Literals of the generated expressions (3.0, -2, 1e-3): no terms.
    term_scale(real v) : value(v) { note(v); }  // NOLINT: implicit on purpose
    static term_scale variable(real v, std::size_t j) {
        term_scale s(v);
        s.scale[j] = s.peak[j] = 1;
        return s;
    }

private:
    void note(real v) {
        if (std::isnan(v)) return;
        largest = std::max(largest, std::fabs(v));
        if (v != 0) smallest = std::min(smallest, std::fabs(v));
    }
    /// |partial| times each operand's scales, skipping operands without terms (a literal
    /// exponent of pow at a zero base must not give 0 · inf); `second` is |f''|.
    static term_scale from(real y, real partial, const term_scale& a, real second = 0) {
        term_scale out(y);
        out.largest = std::max(out.largest, a.largest);
        out.smallest = std::min(out.smallest, a.smallest);
        out.error = (a.error == 0 ? 0 : std::fabs(partial) * a.error) + std::fabs(y);
        for (std::size_t j = 0; j < N; ++j) {
            if (a.scale[j] == 0) continue;
            out.scale[j] = std::fabs(partial) * a.scale[j];
            out.peak[j] = std::max({a.peak[j], std::fabs(partial), out.scale[j]});
        }
        out.hess = second_terms(std::fabs(second), a, a, std::fabs(partial), a);
        return out;
    }
    /// Σ c·s_j(u)·s_k(v) + p·S_jk(w), over the variables with terms (no 0 · inf).
    static std::array<real, N * N> second_terms(real c, const term_scale& u, const term_scale& v, real p,
                                                const term_scale& w) {
        std::array<real, N * N> h{};
        for (std::size_t j = 0; j < N; ++j)
            for (std::size_t k = 0; k < N; ++k) {
                if (c != 0 && u.scale[j] != 0 && v.scale[k] != 0) h[j * N + k] += c * u.scale[j] * v.scale[k];
                if (w.hess[j * N + k] != 0) h[j * N + k] += p * w.hess[j * N + k];
            }
        return h;
    }
    /// Two operands: pa, pb the first partials, paa, pab, pbb the second ones.
    static term_scale from(real y, real pa, const term_scale& a, real pb, const term_scale& b, real paa = 0,
                           real pab = 0, real pbb = 0) {
        term_scale out = from(y, pa, a, paa);
        out.largest = std::max(out.largest, b.largest);
        out.smallest = std::min(out.smallest, b.smallest);
        if (b.error != 0) out.error += std::fabs(pb) * b.error;
        for (std::size_t j = 0; j < N; ++j) {
            if (b.scale[j] == 0) continue;
            out.scale[j] += std::fabs(pb) * b.scale[j];
            out.peak[j] = std::max({out.peak[j], b.peak[j], std::fabs(pb), out.scale[j]});
        }
        const auto ab = second_terms(std::fabs(pab), a, b, 0, b), ba = second_terms(std::fabs(pab), b, a, 0, b),
                   bb = second_terms(std::fabs(pbb), b, b, std::fabs(pb), b);
        for (std::size_t e = 0; e < N * N; ++e) out.hess[e] += ab[e] + ba[e] + bb[e];
        return out;
    }
    static constexpr real two_over_sqrt_pi = 2 * std::numbers::inv_sqrtpi_v<real>;

    // Hidden friends: found by argument-dependent lookup from the generated lambda, beside
    // reference.hpp's floating-point templates (which do not accept this type).
    friend term_scale operator-(const term_scale& a) { return from(-a.value, 1, a); }
    friend term_scale operator+(const term_scale& a, const term_scale& b) { return from(a.value + b.value, 1, a, 1, b); }
    friend term_scale operator-(const term_scale& a, const term_scale& b) { return from(a.value - b.value, 1, a, 1, b); }
    friend term_scale operator*(const term_scale& a, const term_scale& b) {
        return from(a.value * b.value, b.value, a, a.value, b, 0, 1, 0);
    }
    friend term_scale operator/(const term_scale& a, const term_scale& b) {
        const real b2 = b.value * b.value;
        return from(a.value / b.value, 1 / b.value, a, a.value / b2, b, 0, 1 / b2, 2 * a.value / (b2 * b.value));
    }
    /// Notes how close a and b are for their rounding (`closest_call`).
    static void note_call(real a, real b, real error) {
        const real margin = std::fabs(a - b) / error;
        if (error > 0 && std::isfinite(error) && margin < closest_call) closest_call = margin;
    }
    static void note_call(const term_scale& a, const term_scale& b) { note_call(a.value, b.value, a.error + b.error); }
    bool has_terms() const {
        for (const real t : scale)
            if (t != 0) return true;
        return false;
    }
    static void note_kink(bool kink, const term_scale& a, const term_scale& b) {
        if (kink && (a.has_terms() || b.has_terms())) at_kink = true;
    }

    friend bool operator<(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value < b.value; }
    friend bool operator<=(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value <= b.value; }
    friend bool operator>(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value > b.value; }
    friend bool operator>=(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value >= b.value; }
    friend bool operator==(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value == b.value; }
    friend bool operator!=(const term_scale& a, const term_scale& b) { return note_call(a, b), a.value != b.value; }

    friend term_scale exp(const term_scale& a) { const real y = std::exp(a.value); return from(y, y, a, y); }
    friend term_scale exp2(const term_scale& a) {
        const real y = std::exp2(a.value), l = std::numbers::ln2_v<real>;
        return from(y, y * l, a, y * l * l);
    }
    friend term_scale expm1(const term_scale& a) { return from(std::expm1(a.value), std::exp(a.value), a, std::exp(a.value)); }
    friend term_scale log(const term_scale& a) { return from(std::log(a.value), 1 / a.value, a, 1 / (a.value * a.value)); }
    friend term_scale log2(const term_scale& a) {
        const real d = a.value * std::numbers::ln2_v<real>;
        return from(std::log2(a.value), 1 / d, a, 1 / (d * a.value));
    }
    friend term_scale log10(const term_scale& a) {
        const real d = a.value * std::numbers::ln10_v<real>;
        return from(std::log10(a.value), 1 / d, a, 1 / (d * a.value));
    }
    friend term_scale log1p(const term_scale& a) { return from(std::log1p(a.value), 1 / (1 + a.value), a, 1 / ((1 + a.value) * (1 + a.value))); }
    friend term_scale sqrt(const term_scale& a) { const real y = std::sqrt(a.value); return from(y, 1 / (2 * y), a, 1 / (4 * y * y * y)); }
    friend term_scale cbrt(const term_scale& a) {
        const real y = std::cbrt(a.value);
        return from(y, 1 / (3 * y * y), a, 2 / (9 * y * y * y * y * y));
    }
    friend term_scale sin(const term_scale& a) { return from(std::sin(a.value), std::cos(a.value), a, std::sin(a.value)); }
    friend term_scale cos(const term_scale& a) { return from(std::cos(a.value), std::sin(a.value), a, std::cos(a.value)); }
    friend term_scale tan(const term_scale& a) { const real y = std::tan(a.value); return from(y, 1 + y * y, a, 2 * y * (1 + y * y)); }
    friend term_scale asin(const term_scale& a) {
        const real q = 1 - a.value * a.value;
        return from(std::asin(a.value), 1 / std::sqrt(q), a, a.value / (q * std::sqrt(q)));
    }
    friend term_scale acos(const term_scale& a) {
        const real q = 1 - a.value * a.value;
        return from(std::acos(a.value), 1 / std::sqrt(q), a, a.value / (q * std::sqrt(q)));
    }
    friend term_scale atan(const term_scale& a) {
        const real q = 1 + a.value * a.value;
        return from(std::atan(a.value), 1 / q, a, 2 * a.value / (q * q));
    }
    friend term_scale sinh(const term_scale& a) { return from(std::sinh(a.value), std::cosh(a.value), a, std::sinh(a.value)); }
    friend term_scale cosh(const term_scale& a) { return from(std::cosh(a.value), std::sinh(a.value), a, std::cosh(a.value)); }
    friend term_scale tanh(const term_scale& a) { const real y = std::tanh(a.value); return from(y, 1 - y * y, a, 2 * y * (1 - y * y)); }
    friend term_scale asinh(const term_scale& a) {
        const real r = std::hypot(a.value, real(1));
        return from(std::asinh(a.value), 1 / r, a, a.value / (r * r * r));
    }
    friend term_scale acosh(const term_scale& a) {
        const real q = (a.value - 1) * (a.value + 1);
        return from(std::acosh(a.value), 1 / std::sqrt(q), a, a.value / (q * std::sqrt(q)));
    }
    friend term_scale atanh(const term_scale& a) {
        const real q = (1 - a.value) * (1 + a.value);
        return from(std::atanh(a.value), 1 / q, a, 2 * a.value / (q * q));
    }
    friend term_scale erf(const term_scale& a) {
        const real d = two_over_sqrt_pi * std::exp(-a.value * a.value);
        return from(std::erf(a.value), d, a, 2 * a.value * d);
    }
    friend term_scale erfc(const term_scale& a) {
        const real d = two_over_sqrt_pi * std::exp(-a.value * a.value);
        return from(std::erfc(a.value), d, a, 2 * a.value * d);
    }
    friend term_scale erfinv(const term_scale& a) {
        // y' = √π/2·e^(y²) = 1/erf'(y), y'' = 2y·y'².
        const real y = reference::erfinv(a.value), d = 1 / (two_over_sqrt_pi * std::exp(-y * y));
        return from(y, d, a, 2 * y * d * d);
    }
    friend term_scale abs(const term_scale& a) {
        note_call(a.value, 0, a.error);
        note_kink(a.value == 0, a, a);
        return from(std::fabs(a.value), 1, a);
    }
    friend term_scale sigmoid(const term_scale& a) {
        const real y = reference::sigmoid(a.value);
        return from(y, y * (1 - y), a, y * (1 - y) * (1 - 2 * y));
    }
    friend term_scale softplus(const term_scale& a) {
        const real s = reference::sigmoid(a.value);
        return from(reference::softplus(a.value), s, a, s * (1 - s));
    }
    friend term_scale logit(const term_scale& a) {
        const real q = a.value * (1 - a.value);
        return from(reference::logit(a.value), 1 / q, a, (2 * a.value - 1) / (q * q));
    }
    friend term_scale relu(const term_scale& a) {
        note_call(a.value, 0, a.error);
        note_kink(a.value == 0, a, a);
        return from(reference::relu(a.value), a.value >= 0 ? 1 : 0, a);
    }
    friend term_scale pow(const term_scale& a, const term_scale& b) {
        const real y = std::pow(a.value, b.value), l = std::log(a.value);
        return from(y, b.value * std::pow(a.value, b.value - 1), a, y * l, b, b.value * (b.value - 1) * std::pow(a.value, b.value - 2),
                    std::pow(a.value, b.value - 1) * (1 + b.value * l), y * l * l);
    }
    friend term_scale atan2(const term_scale& a, const term_scale& b) {
        const real d = a.value * a.value + b.value * b.value, c = 2 * a.value * b.value / (d * d);
        return from(std::atan2(a.value, b.value), b.value / d, a, a.value / d, b, c,
                    (b.value * b.value - a.value * a.value) / (d * d), c);
    }
    friend term_scale hypot(const term_scale& a, const term_scale& b) {
        const real y = std::hypot(a.value, b.value), y3 = y * y * y;
        return from(y, a.value / y, a, b.value / y, b, b.value * b.value / y3, a.value * b.value / y3, a.value * a.value / y3);
    }
    /// The selected operand's terms; both at a tie or a NaN, where the modes' conventions
    /// differ in which side they credit.
    static term_scale select(real y, bool first, bool second, const term_scale& a, const term_scale& b) {
        return from(y, first ? 1 : 0, a, second ? 1 : 0, b);
    }
    friend term_scale maximum(const term_scale& a, const term_scale& b) {
        note_call(a, b);
        note_kink(a.value == b.value, a, b);
        const bool open = !(a.value < b.value) && !(b.value < a.value);  // equal, or a NaN
        return select(reference::maximum(a.value, b.value), open || a.value > b.value, open || b.value > a.value, a, b);
    }
    friend term_scale minimum(const term_scale& a, const term_scale& b) {
        note_call(a, b);
        note_kink(a.value == b.value, a, b);
        const bool open = !(a.value < b.value) && !(b.value < a.value);
        return select(reference::minimum(a.value, b.value), open || a.value < b.value, open || b.value < a.value, a, b);
    }
    /// The selected operand; the values of both, which every mode computes.
    friend term_scale where(bool c, const term_scale& a, const term_scale& b) {
        term_scale out = c ? a : b;
        out.largest = std::max(a.largest, b.largest);
        out.smallest = std::min(a.smallest, b.smallest);
        return out;
    }
};

}  // namespace gradc::difftest::reference
