// The differential tester's comparisons and reports (harness.hpp).

#include "harness.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>

namespace gradc::difftest {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
const double nan = std::numeric_limits<double>::quiet_NaN();

/// The edge values every primitive is tried at, besides regular points.
const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, inf, -inf, nan, 1e-300, -1e-300, 1e300, -1e300,
                        1e-310, -1e-310, 700.0, -700.0, 30.0, -30.0};

/// Two double modes agree: NaN where the other is NaN, infinities equal, finite values
/// within `rtol` relative (or 1e-13 absolute, for results that cancel to about 0). A
/// derivative is relative to `terms` too when that is larger: the magnitude of the
/// products of partials it sums (term_scale.hpp), whose few-ulp roundings remain where
/// they cancel.
bool agree(double a, double b, double rtol, double atol = 1e-13, long double terms = 0) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    const long double scale = std::isnan(terms) ? 0 : terms;
    return std::fabs(a - b) <= rtol * std::max<long double>({std::fabs(a), std::fabs(b), scale}) + atol;
}

/// Float results against double ones: a few float ulps per node times the conditioning
/// that `float_ill_conditioned` lets through (up to about 650): 1e-3 relative (about
/// 17,000 float ulps), 1e-6 absolute.
constexpr double float_rtol = 1e-3, float_atol = 1e-6;

/// The `checks` flags as C++.
std::string flags(unsigned what) {
    if (what == first_order) return "gradc::difftest::first_order";
    if (what == all_checks) return "gradc::difftest::all_checks";
    return what == second_order ? "gradc::difftest::second_order" : "gradc::difftest::single_precision";
}

std::string number(double x) {
    char buf[64];
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

/// The point as C++ arguments: `0.5, -inf, NaN` spelled so that it compiles.
std::string arguments(const results& r, std::size_t p) {
    std::string s;
    for (std::size_t j = 0; j < r.arity; ++j) {
        const double x = r.inputs[p * r.arity + j];
        if (j) s += ", ";
        if (std::isnan(x)) s += "std::numeric_limits<double>::quiet_NaN()";
        else if (std::isinf(x)) s += x > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
        else s += number(x);
    }
    return s;
}

/// A change of 2^-40 ≈ 1e-12 in the inputs moves the value or a derivative by more than
/// 1e-6 relative (a condition number above 10⁶, so that rounding differences of a few
/// ulps between the modes would exceed 1e-9), or changes which results are finite: in the
/// static scalar kernel or in its batch call. Or a branch, or the side of a kink, is
/// decided by rounding (`closest_call` within the tolerance 1e-9), which no change of
/// the inputs shows where the compared values do not depend on them (atan2(x, x)).
bool ill_conditioned(const results& r, std::size_t p) {
    if (r.closest_call[p] < 1e-9L) return true;
    const auto moves = [](double a, double b) {
        if (std::isfinite(a) != std::isfinite(b) || std::isnan(a) != std::isnan(b)) return true;
        return std::isfinite(a) && std::fabs(a - b) > 1e-6 * std::fabs(a) + 1e-12;
    };
    if (moves(r.scalar_value[p], r.nearby_value[p])) return true;
    for (std::size_t j = 0; j < r.arity; ++j)
        if (moves(r.scalar_grad[p * r.arity + j], r.nearby_grad[p * r.arity + j])) return true;
    // The batch path the same way: one mode may be NaN at both points where the other is
    // finite at the point and moves with the inputs.
    if (moves(r.batch_value[p], r.batch_nearby_value[p])) return true;
    for (std::size_t j = 0; j < r.arity; ++j)
        if (moves(r.batch_grad[p * r.arity + j], r.batch_nearby_grad[p * r.arity + j])) return true;
    return false;
}

/// The same at float's precision: the double kernel at the float inputs moved by a relative
/// 2^-16 (about 256 float ulps) changes by more than 1e-2 relative, or changes which
/// results are finite; or a result of the double kernel is beyond float's range (above
/// 1e30 or below 1e-30 in magnitude, 0 excepted), where float overflows or underflows,
/// or so is a value, tangent or partial computed on the way (term_scale.hpp: cosh(700)
/// overflows a float kernel whose inputs and result are in float's range); or a relative
/// 2^-16 in every operation's result (rather than in the inputs) would move the value by
/// more than 1e-2 relative (`value_error`: acos(erf(4.3)), where erf rounds to 1 in
/// float and acos is 4e-5 in double).
bool float_ill_conditioned(const results& r, std::size_t p) {
    if (r.closest_call[p] < float_rtol) return true;  // a branch decided by float's rounding
    if (r.float_largest[p] > 1e30L || r.float_smallest[p] < 1e-30L) return true;
    if (std::isfinite(r.at_float_value[p]) &&
        r.float_value_error[p] * 0x1p-16L > 1e-2L * std::fabs(r.at_float_value[p]) + 1e-6L)
        return true;
    const auto moves = [](double a, double b) {
        if (std::isfinite(a) != std::isfinite(b) || std::isnan(a) != std::isnan(b)) return true;
        return std::isfinite(a) && std::fabs(a - b) > 1e-2 * std::fabs(a) + 1e-6;
    };
    const auto outside = [](double a) {
        return std::isfinite(a) && (std::fabs(a) > 1e30 || (a != 0 && std::fabs(a) < 1e-30));
    };
    if (moves(r.at_float_value[p], r.at_float_nearby_value[p]) || outside(r.at_float_value[p])) return true;
    for (std::size_t j = 0; j < r.arity; ++j) {
        const std::size_t i = p * r.arity + j;
        if (moves(r.at_float_grad[i], r.at_float_nearby_grad[i]) || outside(r.at_float_grad[i])) return true;
    }
    return false;
}

/// float_ill_conditioned for the Hessian: an entry of the double kernel's Hessian at the
/// float inputs moves by more than 1e-2 relative 2^-16 away, or is beyond float's range.
bool float_hessian_ill_conditioned(const results& r, std::size_t p) {
    const std::size_t M = r.arity * r.arity;
    for (std::size_t e = p * M; e < (p + 1) * M; ++e) {
        const double a = r.at_float_hess[e], b = r.at_float_nearby_hess[e];
        if (std::isfinite(a) != std::isfinite(b) || std::isnan(a) != std::isnan(b)) return true;
        if (std::isfinite(a) && (std::fabs(a - b) > 1e-2 * std::fabs(a) + 1e-6 || std::fabs(a) > 1e30 ||
                                 (a != 0 && std::fabs(a) < 1e-30)))
            return true;
    }
    return false;
}

/// The second derivatives move by more than 1e-6 relative a relative 2^-40 away.
bool hessian_ill_conditioned(const results& r, std::size_t p) {
    const std::size_t N = r.arity;
    for (std::size_t i = 0; i < N * N; ++i) {
        const double a = r.scalar_hess[p * N * N + i], b = r.nearby_hess[p * N * N + i];
        if (std::isfinite(a) != std::isfinite(b) || std::isnan(a) != std::isnan(b)) return true;
        if (std::isfinite(a) && std::fabs(a - b) > 1e-6 * std::fabs(a) + 1e-12) return true;
    }
    return false;
}

/// Inputs whose squares and cubes stay normal doubles: 0, non-finite, or magnitudes
/// between 1e-100 and 1e100. Beyond, the second-order terms (1/x², x³) underflow or
/// overflow part way, and the Hessian's unit directions and the HVP's direction, or the
/// two modes' orders of evaluation, round them differently (hypot(x, x) at 1e-300: H·v
/// and hvp 40 % apart, both about 1e284).
bool second_order_range(const results& r, std::size_t p) {
    for (std::size_t j = 0; j < r.arity; ++j) {
        const double x = std::fabs(r.inputs[p * r.arity + j]);
        if (std::isfinite(x) && x != 0 && (x < 1e-100 || x > 1e100)) return false;
    }
    return true;
}

/// The modes disagree on the value, and long double disagrees with every one of them: the
/// computation amplifies rounding at this point through a value that the input
/// perturbation of `ill_conditioned` does not move (tan at the double nearest π/2, then
/// cos of the result, 1.6e16: a one-ulp difference in tan changes the cosine entirely).
bool unstable(const results& r, std::size_t p) {
    const long double ref = r.reference_value[p];
    if (!std::isfinite(ref)) return false;
    const auto far = [&](double v) { return !std::isfinite(v) || std::fabs(v - ref) > 1e-6L * (1 + std::fabs(ref)); };
    return far(r.scalar_value[p]) && far(r.batch_value[p]) && far(r.dynamic_value[p]) &&
           !agree(r.batch_value[p], r.scalar_value[p], 1e-9);
}

/// Inputs at which long double stands in for exact arithmetic: finite, no larger than 1e6
/// and no smaller than 1e-100 (or 0). Beyond, double overflows or underflows where long
/// double does not, and finite-difference steps no longer fit the function.
bool regular_point(const results& r, std::size_t p) {
    for (std::size_t j = 0; j < r.arity; ++j) {
        const double x = std::fabs(r.inputs[p * r.arity + j]);
        if (!std::isfinite(x) || x > 1e6 || (x != 0 && x < 1e-100)) return false;
    }
    return true;
}

}  // namespace

void draw_points(std::uint64_t seed, results& r) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const std::size_t n = point_count * r.arity;
    r.inputs.resize(n);
    r.tangent.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double c = u(rng);
        if (c < 0.65) r.inputs[i] = -3 + 6 * u(rng);
        else if (c < 0.8) r.inputs[i] = 0.1 * u(rng);
        else r.inputs[i] = edges[std::size_t(u(rng) * std::size(edges)) % std::size(edges)];
        r.tangent[i] = -1 + 2 * u(rng);
    }
}

template <class Report>
void runner::compare_hessian(const results& r, std::size_t p, bool reference_applies, const Report& report) {
    const std::size_t N = r.arity;
    const double rtol = 1e-9;
    ++hessian_points_compared_;
    // Where the value or a partial is already NaN or infinite, the modes' second-order
    // NaNs differ by construction: forward over reverse multiplies the NaN by the zero
    // tangents of other directions (0·NaN, also for a variable the expression does not use,
    // whose entries are exactly 0), reverse over reverse never forms those products. And
    // where an entry overflows, the same products by zero tangents turn exact zeros into
    // NaN, and the other mode may form inf - inf or 0·inf instead: at such points only
    // entries finite in both modes are compared. Nothing is compared across modes outside
    // second_order_range.
    bool first_order_finite = std::isfinite(r.scalar_value[p]) && second_order_range(r, p), hessian_finite = true;
    for (std::size_t i = 0; i < N; ++i) first_order_finite = first_order_finite && std::isfinite(r.scalar_grad[p * N + i]);
    for (std::size_t e = 0; e < N * N; ++e)
        hessian_finite = hessian_finite && std::isfinite(r.scalar_hess[p * N * N + e]) && std::isfinite(r.dynamic_hess[p * N * N + e]);
    if (!agree(r.hess_value[p], r.scalar_value[p], rtol))
        report("hessian's value vs gradient's", p, "hessian " + number(r.hess_value[p]) + ", gradient " + number(r.scalar_value[p]));
    for (std::size_t i = 0; i < N; ++i) {
        const std::size_t gi = p * N + i;
        if (!agree(r.hess_grad[gi], r.scalar_grad[gi], rtol) || !agree(r.hvp_grad[gi], r.scalar_grad[gi], rtol))
            report("d/dx" + std::to_string(i) + ": hessian's or hvp's gradient vs gradient's", p,
                   "gradient " + number(r.scalar_grad[gi]) + ", hessian " + number(r.hess_grad[gi]) + ", hvp " +
                       number(r.hvp_grad[gi]));
        long double contracted = 0, magnitude = 0, term_magnitude = 0;
        for (std::size_t j = 0; j < N; ++j) {
            const std::size_t e = p * N * N + i * N + j, et = p * N * N + j * N + i;
            const double sh = r.scalar_hess[e], bh = r.batch_hess[e], dh = r.dynamic_hess[e];
            // Relative to the entry's terms too (term_scale.hpp): the modes add them in
            // other orders, and where they cancel (atan2(x, x), constant) only their roundings remain.
            const long double terms = r.hess_scale[e];
            const std::string wrt = "d2/dx" + std::to_string(i) + "dx" + std::to_string(j);
            if (!(sh == r.scalar_hess[et] || (std::isnan(sh) && std::isnan(r.scalar_hess[et]))))
                report(wrt + ": static scalar not symmetric", p, number(sh) + " vs " + number(r.scalar_hess[et]));
            if (!agree(bh, sh, rtol, 1e-13, terms))
                report(wrt + ": static batch vs static scalar", p, "scalar " + number(sh) + ", batch " + number(bh));
            // Static against dynamic where the first order is finite: every entry where the
            // Hessians are finite, else the entries finite in both (see first_order_finite).
            if (first_order_finite && (hessian_finite || (std::isfinite(sh) && std::isfinite(dh))) &&
                !agree(dh, sh, rtol, 1e-13, terms))
                report(wrt + ": dynamic vs static scalar", p, "static " + number(sh) + ", dynamic " + number(dh));
            if (first_order_finite && hessian_finite && i < j && !agree(dh, r.dynamic_hess[et], rtol, 1e-13, terms))
                report(wrt + ": dynamic not symmetric", p, number(dh) + " vs " + number(r.dynamic_hess[et]));
            const long double fd = r.reference_hess[e];
            if (i <= j && reference_applies && !std::isnan(fd) && std::isfinite(sh)) {
                ++hessian_fd_entries_;
                if (std::fabs(sh - fd) > 1e-5L + 1e-3L * std::fabs(fd))
                    report(wrt + ": static scalar vs second differences", p,
                           "static " + number(sh) + ", second differences (long double) " + number(double(fd)));
            }
            contracted += sh * r.tangent[p * N + j];
            magnitude += std::fabs(sh * r.tangent[p * N + j]);
            term_magnitude += (std::isnan(terms) ? 0 : terms) * std::fabs(r.tangent[p * N + j]);
        }
        const double hv = r.hvp[p * N + i];
        const long double hvp_scale = std::max(magnitude, term_magnitude);
        if (!agree(r.batch_hvp[p * N + i], hv, rtol, 1e-13, hvp_scale))
            report("(H·v)" + std::to_string(i) + ": static batch vs static scalar", p,
                   "scalar " + number(hv) + ", batch " + number(r.batch_hvp[p * N + i]));
        if (second_order_range(r, p) && std::isfinite(magnitude) &&
            (std::isinf(hv) || (std::isfinite(hv) && std::fabs(hv - contracted) > rtol * hvp_scale + 1e-13)))
            report("(H·v)" + std::to_string(i) + ": hvp vs hessian·tangent", p,
                   "hvp " + number(hv) + ", hessian·tangent " + number(contracted));
    }
}

void runner::compare(const char* text, int depth, std::uint64_t seed, const results& r, unsigned what) {
    ++expressions_;
    if (what & second_order) ++hessian_expressions_;
    if (what & single_precision) ++float_expressions_;
    if (!r.narrow_arch.empty()) ++narrow_expressions_;
    const std::size_t N = r.arity;
    // A few ulps per node: the SIMD functions differ from libm's by up to 4 ulps, and a
    // difference grows with the nodes it passes through; 1e-9 leaves room for the
    // conditioning of random expressions.
    const double rtol = 1e-9;
    std::vector<std::string> found;  // kinds already reported for this expression
    std::ostringstream lines;
    const auto report = [&](const std::string& kind, std::size_t p, const std::string& detail) {
        for (const auto& f : found)
            if (f == kind) return;
        found.push_back(kind);
        lines << "  " << kind << " at (" << arguments(r, p) << "): " << detail << "\n";
    };
    for (std::size_t p = 0; p < point_count; ++p) {
        if ((what & single_precision) && !float_ill_conditioned(r, p)) {
            ++float_points_compared_;
            // Float against double only where both are finite: float's rounding may reach a
            // singularity double does not (tanh(10.3) is 1 in float, and acos' infinite
            // there) or overflow. The float batch equals the float scalar NaN for NaN.
            // Relative to the terms too, as in double (term_scale.hpp): where they cancel,
            // float leaves a few float ulps of them (x·√2/(√2·x) is 1, ∂/∂x is 0).
            const auto both = [&](const std::string& what_, double fs, double fb, double d, long double terms) {
                if (std::isfinite(fs) && std::isfinite(d) && !agree(fs, d, float_rtol, float_atol, terms))
                    report(what_ + ": float scalar vs double", p, "float " + number(fs) + ", double " + number(d));
                if (!agree(fb, fs, float_rtol, float_atol, terms))
                    report(what_ + ": float batch vs float scalar", p, "scalar " + number(fs) + ", batch " + number(fb));
            };
            both("value", r.float_scalar_value[p], r.float_batch_value[p], r.at_float_value[p], r.float_value_error[p]);
            for (std::size_t j = 0; j < N; ++j)
                both("d/dx" + std::to_string(j), r.float_scalar_grad[p * N + j], r.float_batch_grad[p * N + j],
                     r.at_float_grad[p * N + j], r.grad_scale[p * N + j]);
            // The float dynamic mode against the float static kernel, where both are finite
            // (each may round onto a singularity the other does not).
            const auto dynamic = [&](const std::string& what_, double fs, double fd, long double terms) {
                if (std::isfinite(fs) && std::isfinite(fd) && !agree(fd, fs, float_rtol, float_atol, terms))
                    report(what_ + ": float dynamic vs float static", p, "static " + number(fs) + ", dynamic " + number(fd));
            };
            dynamic("value", r.float_scalar_value[p], r.float_dynamic_value[p], r.float_value_error[p]);
            for (std::size_t j = 0; j < N; ++j)
                dynamic("d/dx" + std::to_string(j), r.float_scalar_grad[p * N + j], r.float_dynamic_grad[p * N + j],
                        r.grad_scale[p * N + j]);
            if ((what & second_order) != 0 && !float_hessian_ill_conditioned(r, p)) {
                for (std::size_t e = 0; e < N * N; ++e) {
                    const double fh = r.float_hess[p * N * N + e], dh = r.at_float_hess[p * N * N + e];
                    if (std::isfinite(fh) && std::isfinite(dh) &&
                        !agree(fh, dh, float_rtol, float_atol, r.hess_scale[p * N * N + e]))
                        report("d2/dx" + std::to_string(e / N) + "dx" + std::to_string(e % N) + ": float hessian vs double", p,
                               "float " + number(fh) + ", double " + number(dh));
                }
            }
        }
        if (ill_conditioned(r, p) || unstable(r, p)) {
            ++points_ill_conditioned_;
            continue;
        }
        ++points_compared_;
        const double sv = r.scalar_value[p], bv = r.batch_value[p], dv = r.dynamic_value[p];
        if (!agree(bv, sv, rtol, 1e-13, r.value_error[p]))
            report("value: static batch vs static scalar", p, "scalar " + number(sv) + ", batch " + number(bv));
        for (std::size_t a = 0; a < r.narrow_arch.size(); ++a) {
            const std::string batch = "static batch (" + r.narrow_arch[a] + ")";
            const double nv = r.narrow_value[a][p];
            if (!agree(nv, sv, rtol, 1e-13, r.value_error[p]))
                report("value: " + batch + " vs static scalar", p, "scalar " + number(sv) + ", batch " + number(nv));
            for (std::size_t j = 0; j < N; ++j) {
                const double sg = r.scalar_grad[p * N + j], ng = r.narrow_grad[a][p * N + j];
                if (!agree(ng, sg, rtol, 1e-13, r.grad_scale[p * N + j]))
                    report("d/dx" + std::to_string(j) + ": " + batch + " vs static scalar", p,
                           "scalar " + number(sg) + ", batch " + number(ng));
            }
        }
        if (!agree(dv, sv, rtol, 1e-13, r.value_error[p]))
            report("value: dynamic vs static scalar", p, "static " + number(sv) + ", dynamic " + number(dv));
        // Against long double only where the function is smooth in every variable (every
        // finite difference exists), with a tolerance that grows with its condition
        // Σ|∂f/∂x_j·x_j|: a double evaluation is exact only for inputs perturbed by an ulp.
        const long double ref = r.reference_value[p];
        long double condition = std::fabs(ref);
        bool smooth = regular_point(r, p) && std::isfinite(ref) && std::isfinite(sv);
        for (std::size_t j = 0; j < N; ++j) {
            const long double fd = r.reference_grad[p * N + j];
            smooth = smooth && !std::isnan(fd);
            condition += std::fabs(fd * r.inputs[p * N + j]);
        }
        // Where plain double evaluation with the C library is as far from long double, the
        // difference is double rounding amplified, not gradc's.
        const double plain = r.plain_value[p];
        if (!agree(sv, plain, rtol))
            report("value: static scalar vs C library (double)", p, "static " + number(sv) + ", C " + number(plain));
        const long double tolerance = 1e-6L * condition + 1e-9L;
        if (smooth && std::fabs(sv - ref) > tolerance && std::fabs(plain - ref) <= tolerance)
            report("value: static scalar vs long double", p, "static " + number(sv) + ", long double " + number(double(ref)));
        // Central differences stand for the derivative only where double evaluation with the
        // C library agrees with long double: elsewhere a comparison of computed values took
        // another branch in long double (sigmoid(30) == 1 holds in one and not the other).
        const bool reference_applies = smooth && std::fabs(plain - ref) <= tolerance && !r.at_kink[p];
        double contracted = 0, magnitude = 0;
        long double terms = 0, peak = 0;
        for (std::size_t j = 0; j < N; ++j) {
            const std::size_t i = p * N + j;
            const double sg = r.scalar_grad[i], bg = r.batch_grad[i], dg = r.dynamic_grad[i];
            const std::string wrt = "d/dx" + std::to_string(j);
            if (!agree(bg, sg, rtol, 1e-13, r.grad_scale[i]))
                report(wrt + ": static batch vs static scalar", p, "scalar " + number(sg) + ", batch " + number(bg));
            if (!agree(dg, sg, rtol, 1e-13, r.grad_scale[i]))
                report(wrt + ": dynamic vs static scalar", p, "static " + number(sg) + ", dynamic " + number(dg));
            const long double fd = r.reference_grad[i];
            // Only finite gradients: an infinite one where the differences are finite is a
            // partial at its singularity reached by a rounded value (asin'(-1) after
            // expm1(-700) rounds to -1), which long double rounds the same way.
            if (reference_applies && !std::isnan(fd) && std::isfinite(sg) &&
                std::fabs(sg - fd) > 1e-5L + 1e-3L * std::fabs(fd))
                report(wrt + ": static scalar vs finite differences", p,
                       "static " + number(sg) + ", finite differences (long double) " + number(double(fd)));
            contracted += sg * r.tangent[i];
            magnitude += std::fabs(sg * r.tangent[i]);
            terms += r.grad_scale[i] * std::fabs(r.tangent[i]);
            peak += r.tangent_peak[i] * std::fabs(r.tangent[i]);
        }
        // Forward and reverse mode sum the same products of partials in other orders: they
        // differ by roundings of the largest product (`terms`), not of the result. Where
        // forward mode forms a tangent or multiplies by a partial beyond double's range
        // (`peak`, exact in long double), it overflows where reverse mode need not: an
        // infinite JVP there is the order's, and not compared.
        const bool forward_overflows = peak > std::numeric_limits<double>::max() && !std::isinf(peak);
        if (std::isfinite(magnitude) && std::isfinite(r.jvp[p]) &&
            std::fabs(r.jvp[p] - contracted) > rtol * std::max<long double>(magnitude, std::isnan(terms) ? 0 : terms) + 1e-13)
            report("jvp vs gradient·tangent", p, "jvp " + number(r.jvp[p]) + ", gradient·tangent " + number(contracted) + ", terms up to " + number(double(terms)) + ", forward mode's largest " + number(double(peak)));
        // A NaN JVP with a finite gradient is not compared: forward mode multiplies a zero
        // tangent by an infinite partial behind a closed gate (relu, where) where reverse
        // mode selects, as PyTorch's forward and backward modes do (docs/reliability.md).
        if (std::isfinite(magnitude) && std::isinf(r.jvp[p]) && std::isfinite(sv) && !forward_overflows)
            report("jvp vs gradient·tangent", p, "jvp " + number(r.jvp[p]) + ", gradient·tangent " + number(contracted) + ", terms up to " + number(double(terms)) + ", forward mode's largest " + number(double(peak)));
        if ((what & second_order) && !hessian_ill_conditioned(r, p))
            compare_hessian(r, p, reference_applies, report);
    }
    if (found.empty()) return;
    ++mismatching_expressions_;
    std::ostringstream s;
    s << "mismatch (depth " << depth << ", " << N << " variables):\n" << lines.str()
      << "  reproduce: gradc::difftest::check<" << N << ", " << flags(what) << ">(r, \"" << text << "\", " << depth << ", " << seed << "ULL, [](";
    for (std::size_t j = 0; j < N; ++j) s << (j ? ", " : "") << "[[maybe_unused]] const auto& x" << j;
    s << ") { using namespace gradc::difftest::reference; " << text << " });\n";
    reports_.push_back(s.str());
}

}  // namespace gradc::difftest
