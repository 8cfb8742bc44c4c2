#pragma once
/// The differential tester: one random expression, written once as a generic lambda
/// (tools/difftest/generate.py writes them), run by four independent implementations of
/// its value and derivative at the same points:
///  - the static kernel on one point at a time (`gradient`, `jvp`, double),
///  - the static kernel's batch call over all points (`gradient_batch`, SIMD lanes),
///  - the dynamic mode (tensors of all points, `backward()`; SIMD kernels on full
///    batches, scalar code on the tail),
///  - long double: the value, and central differences where the function is smooth;
///    and the same lambda on plain double with the C library's functions (`plain`).
/// The double modes must agree with each other to a few ulps per node (NaN where one
/// gives NaN, infinities equal); the gradient must agree with the finite differences to
/// gradcheck's tolerances (atol 1e-5, rtol 1e-3) where those are reliable; the JVP must
/// equal the gradient contracted with the tangent. Each disagreement is reported once
/// per expression and kind, with the expression and the point, in a form that can be
/// pasted into a test.
///
/// Two more groups of checks, chosen per expression by `check`'s second template
/// argument (they cost compile time: each is the kernel's program instantiated again):
///  - `second_order`: the static kernel's `hessian` and `hvp` on one point,
///    `hessian_batch` and `hvp_batch`, against each other, against the dynamic mode's Hessian (double
///    backward: `autograd::grad` with `create_graph`, then the gradient of each entry's
///    sum) and against long-double second differences where f is smooth to second
///    order (second_order.hpp);
///  - `single_precision`: the static kernel's `gradient` and `gradient_batch` on float and
///    the dynamic mode on float32 tensors, against each other and against the double kernel
///    at the same (float) inputs; with `second_order` too, the float kernel's `hessian`
///    against the double kernel's;
///  - `narrow_simd`: `gradient_batch` again on each narrower architecture this build has
///    (AVX2 and SSE2 beside AVX-512: 4 and 2 double lanes, so other points fall in the
///    scalar tail), against the one-point kernel like the default batch call.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "reference.hpp"
#include "second_order.hpp"
#include "term_scale.hpp"
#include "coverage.hpp"

namespace gradc::difftest {

/// Points per expression: two AVX-512 batches of doubles and a tail of 3 (the dynamic
/// mode's kernels run 16 elements in SIMD and 3 in scalar code).
inline constexpr std::size_t point_count = 19;

/// What the four modes gave at every point, for variables x_0 … x_{N-1}.
struct results {
    std::size_t arity = 0;
    std::vector<double> inputs;          // [point * arity + j]
    std::vector<double> tangent;         // [point * arity + j], the JVP's direction
    std::vector<double> scalar_value, batch_value, dynamic_value;
    std::vector<double> scalar_grad, batch_grad, dynamic_grad;  // [point * arity + j]
    std::vector<double> jvp;             // static scalar J·v
    std::vector<double> nearby_value, nearby_grad;  // static scalar at x·(1 ± 2^-40)
    std::vector<double> batch_nearby_value, batch_nearby_grad;  // static batch there
    std::vector<double> plain_value;     // the lambda on double: the C library's functions
    std::vector<long double> reference_value;
    std::vector<long double> reference_grad;  // central differences; NaN where not reliable
    std::vector<long double> grad_scale;      // Σ |path products| per variable (term_scale.hpp)
    std::vector<long double> hess_scale;      // Σ |second-order terms| per entry, [point * arity² + i * arity + j]
    std::vector<long double> closest_call;    // the closest call of the evaluation (term_scale.hpp)
    std::vector<bool> at_kink;                 // an abs, relu, max or min at its kink (term_scale.hpp)
    std::vector<long double> tangent_peak;    // the largest of them on the way, and of the partials
    std::vector<long double> value_error;     // the value's first-order error per relative 1 per operation
    // At the float inputs (with `single_precision`): the largest magnitude of any value,
    // tangent or partial computed on the way, and the smallest nonzero value.
    std::vector<long double> float_largest, float_smallest;
    std::vector<long double> float_value_error;  // value_error at the float inputs

    // Second order (empty unless checked): [point * arity * arity + i * arity + j].
    std::vector<double> scalar_hess, batch_hess, dynamic_hess, nearby_hess;
    std::vector<double> hess_value, hess_grad;  // the value and gradient `hessian` returned
    std::vector<double> hvp, hvp_grad;          // static scalar H·tangent, and its gradient
    std::vector<double> batch_hvp;              // static batch H·tangent (`hvp_batch`), [point * arity + i]
    std::vector<long double> reference_hess;    // second differences; NaN where not reliable

    // Float (empty unless checked): the kernel on float, and the double kernel at the
    // same inputs rounded to float, and a relative 2^-16 away from them.
    std::vector<double> float_scalar_value, float_batch_value, float_scalar_grad, float_batch_grad;
    std::vector<double> at_float_value, at_float_grad, at_float_nearby_value, at_float_nearby_grad;
    std::vector<double> float_dynamic_value, float_dynamic_grad;  // float32 tensors, backward()
    // With second order too: the float kernel's Hessian, and the double kernel's at the
    // float inputs and a relative 2^-16 away, [point * arity² + i * arity + j].
    std::vector<double> float_hess, at_float_hess, at_float_nearby_hess;

    // Narrow SIMD (empty unless checked): per architecture, its name and what
    // `gradient_batch` gave on it, as batch_value and batch_grad.
    std::vector<std::string> narrow_arch;
    std::vector<std::vector<double>> narrow_value, narrow_grad;
};

/// What `check` runs besides value, gradient and JVP in every mode.
enum checks : unsigned { first_order = 0, second_order = 1, single_precision = 2, narrow_simd = 4, all_checks = 7 };

/// Counts and reports of a run.
class runner {
public:
    /// Compares the modes' results of one expression and records what disagrees.
    void compare(const char* text, int depth, std::uint64_t seed, const results& r, unsigned what = first_order);
    std::size_t expressions() const { return expressions_; }
    /// Points compared, and points skipped as ill-conditioned (see `compare`).
    std::size_t points_compared() const { return points_compared_; }
    std::size_t points_ill_conditioned() const { return points_ill_conditioned_; }
    /// Expressions whose Hessians, and whose float kernels, were compared; points at which
    /// the float kernel was compared (the others are outside float's range or
    /// ill-conditioned at float's precision).
    std::size_t hessian_expressions() const { return hessian_expressions_; }
    std::size_t float_expressions() const { return float_expressions_; }
    std::size_t float_points_compared() const { return float_points_compared_; }
    /// Expressions whose batch calls ran on the narrower architectures too.
    std::size_t narrow_expressions() const { return narrow_expressions_; }
    std::size_t hessian_entries_against_differences() const { return hessian_fd_entries_; }
    std::size_t mismatches() const { return mismatching_expressions_; }
    const std::vector<std::string>& reports() const { return reports_; }

    std::size_t hessian_points_compared() const { return hessian_points_compared_; }

private:
    template <class Report>
    void compare_hessian(const results& r, std::size_t p, bool reference_applies, const Report& report);

    std::size_t hessian_points_compared_ = 0;
    std::size_t expressions_ = 0;
    std::size_t mismatching_expressions_ = 0;
    std::size_t points_compared_ = 0;
    std::size_t points_ill_conditioned_ = 0;
    std::size_t hessian_expressions_ = 0, float_expressions_ = 0, float_points_compared_ = 0, narrow_expressions_ = 0;
    std::size_t hessian_fd_entries_ = 0;
    std::vector<std::string> reports_;
};

/// Inputs of one expression: regular values, values near 0, and the edge values
/// (±0, ±1, ±inf, NaN, 1e±300, subnormals, ±700), drawn from `seed`.
void draw_points(std::uint64_t seed, results& r);

/// Central differences of the long-double reference in every variable at every point,
/// where the function is finite and smooth there (one-sided and central differences with
/// two steps agree); NaN elsewhere.
template <std::size_t N, class F>
void reference_derivatives(const F& f, results& r) {
    using real = long double;
    r.reference_value.assign(point_count, 0);
    r.reference_grad.assign(point_count * N, std::numeric_limits<real>::quiet_NaN());
    for (std::size_t p = 0; p < point_count; ++p) {
        std::array<real, N> x;
        for (std::size_t j = 0; j < N; ++j) x[j] = r.inputs[p * N + j];
        // Every evaluation's branches must be the point's (reference::branch_trace).
        bool same_branches = true;
        reference::branches = {};
        const real fx = std::apply(f, x);
        const reference::branch_trace at_x = reference::branches;
        const auto at = [&](const std::array<real, N>& y) {
            reference::branches = {};
            const real v = std::apply(f, y);
            same_branches = same_branches && reference::branches == at_x;
            return v;
        };
        r.reference_value[p] = fx;
        if (!std::isfinite(fx)) continue;
        for (std::size_t j = 0; j < N; ++j) {
            if (!std::isfinite(x[j]) || std::fabs(x[j]) > 1e6) continue;
            const real h = 1e-6L * std::max<real>(1, std::fabs(x[j]));
            const auto shifted = [&](real s) {
                auto y = x;
                y[j] += s;
                return at(y);
            };
            same_branches = true;
            const real fp = shifted(h), fm = shifted(-h), fp2 = shifted(h / 2), fm2 = shifted(-h / 2);
            const real central = (fp - fm) / (2 * h), central2 = (fp2 - fm2) / h;
            const real forward = (fp - fx) / h, backward = (fx - fm) / h;
            // Trusted to a tenth of the tolerance the harness compares with (1e-5 + 1e-3·|fd|):
            // central and central2 differ by about 3/4 of central's truncation error.
            const real tol = 1e-6L + 1e-4L * std::fabs(central2);
            // The rounding of f itself, divided by the step: beyond gradcheck's tolerance the
            // differences say nothing (f = 1e16 + g(x) loses g's change entirely).
            const real noise = 4 * std::numeric_limits<real>::epsilon() * std::max({std::fabs(fx), std::fabs(fp), std::fabs(fm)}) / h;
            if (!same_branches || !std::isfinite(central) || !std::isfinite(central2) || std::fabs(central - central2) > tol ||
                std::fabs(forward - central2) > tol || std::fabs(backward - central2) > tol ||
                noise > 1e-7L + 1e-5L * std::fabs(central2))
                continue;
            r.reference_grad[p * N + j] = central2;
        }
    }
}

/// The magnitude of the terms each derivative sums, at every point (term_scale.hpp).
template <std::size_t N, class F>
void term_scales(const F& f, results& r) {
    using scaled = reference::term_scale<N>;
    r.grad_scale.assign(point_count * N, 0);
    r.hess_scale.assign(point_count * N * N, 0);
    r.closest_call.assign(point_count, 0);
    r.at_kink.assign(point_count, false);
    r.tangent_peak.assign(point_count * N, 0);
    r.value_error.assign(point_count, 0);
    for (std::size_t p = 0; p < point_count; ++p) {
        std::array<scaled, N> x;
        for (std::size_t j = 0; j < N; ++j) x[j] = scaled::variable(r.inputs[p * N + j], j);
        reference::closest_call = std::numeric_limits<long double>::infinity();
        reference::at_kink = false;
        const scaled y = std::apply(f, x);
        r.closest_call[p] = reference::closest_call;
        r.at_kink[p] = reference::at_kink;
        r.value_error[p] = y.error;
        for (std::size_t j = 0; j < N; ++j) {
            r.grad_scale[p * N + j] = y.scale[j];
            r.tangent_peak[p * N + j] = y.peak[j];
        }
        for (std::size_t e = 0; e < N * N; ++e) r.hess_scale[p * N * N + e] = y.hess[e];
    }
}

/// The batch calls of kernel `k` on the inputs `in` on every architecture narrower than
/// the default one that this build can run (the compiler's flags, -march=native in the
/// suite, decide which xsimd has), each appended to r's narrow_* lists.
template <class Kernel>
void narrow_batches(const Kernel& k, const std::vector<std::vector<double>>& in, results& r) {
    const auto run = [&](auto arch, const char* name) {
        if constexpr (!std::is_same_v<decltype(arch), gradc::simd::default_arch>) {
            std::vector<double> values(point_count);
            std::vector<std::vector<double>> grad(r.arity, std::vector<double>(point_count));
            k.gradient_batch(in, values, grad, arch);
            std::vector<double> g(point_count * r.arity);
            for (std::size_t p = 0; p < point_count; ++p)
                for (std::size_t j = 0; j < r.arity; ++j) g[p * r.arity + j] = grad[j][p];
            r.narrow_arch.push_back(name);
            r.narrow_value.push_back(std::move(values));
            r.narrow_grad.push_back(std::move(g));
        }
    };
#if XSIMD_WITH_AVX2
    run(xsimd::avx2{}, "avx2");
#endif
#if XSIMD_WITH_SSE2
    run(xsimd::sse2{}, "sse2");
#endif
    (void)run;
}

/// Runs the four modes on the expression `f` (a generic lambda of N arguments) at the
/// points `seed` picks, and the references; `What` adds the second-order and float checks
/// (`checks`).
template <std::size_t N, unsigned What = all_checks, class F>
results run_modes(std::uint64_t seed, const F& f) {
    results r;
    r.arity = N;
    draw_points(seed, r);
    const std::size_t P = point_count;

    // Static kernel: one point at a time, and one batch call over all points.
    const auto k = [&]<std::size_t... I>(std::index_sequence<I...>) {
        const auto v = gradc::variables<N>();
        return gradc::compile(f(std::get<I>(v)...));
    }(std::make_index_sequence<N>{});
    r.scalar_value.resize(P);
    r.scalar_grad.resize(P * N);
    r.jvp.resize(P);
    for (std::size_t p = 0; p < P; ++p) {
        std::array<double, N> x, v;
        for (std::size_t j = 0; j < N; ++j) {
            x[j] = r.inputs[p * N + j];
            v[j] = r.tangent[p * N + j];
        }
        const auto g = k.gradient(x);
        r.scalar_value[p] = g.value;
        for (std::size_t j = 0; j < N; ++j) r.scalar_grad[p * N + j] = g.gradient[j];
        r.jvp[p] = k.jvp(x, v).tangent;
        if constexpr ((What & second_order) != 0) {
            const auto h = k.hessian(x);
            const auto hv = k.hvp(x, v);
            r.hess_value.push_back(h.value);
            for (std::size_t i = 0; i < N; ++i) {
                r.hess_grad.push_back(h.gradient[i]);
                r.hvp.push_back(hv.hvp[i]);
                r.hvp_grad.push_back(hv.gradient[i]);
                for (std::size_t j = 0; j < N; ++j) r.scalar_hess.push_back(h.hessian[i][j]);
            }
        }
        // The same a relative 2^-40 away (signs alternating over the variables): where the
        // results move by much more, the modes' few-ulp differences are amplified too.
        for (std::size_t j = 0; j < N; ++j) x[j] *= 1 + (j % 2 ? -1 : 1) * 0x1p-40;
        const auto nearby = k.gradient(x);
        r.nearby_value.push_back(nearby.value);
        for (std::size_t j = 0; j < N; ++j) r.nearby_grad.push_back(nearby.gradient[j]);
        if constexpr ((What & second_order) != 0) {
            const auto h = k.hessian(x);
            for (std::size_t i = 0; i < N; ++i)
                for (std::size_t j = 0; j < N; ++j) r.nearby_hess.push_back(h.hessian[i][j]);
        }
    }
    std::vector<std::vector<double>> in(N, std::vector<double>(P)), grad(N, std::vector<double>(P));
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < N; ++j) in[j][p] = r.inputs[p * N + j];
    r.batch_value.resize(P);
    k.gradient_batch(in, r.batch_value, grad);
    r.batch_grad.resize(P * N);
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < N; ++j) r.batch_grad[p * N + j] = grad[j][p];
    // The batch call at the nearby points too: where the scalar value is NaN there and
    // at the point itself (acos of a cosine of 4e303, whose argument a few ulps of the
    // operations below move by many periods), the batch's finite value still shows how
    // far such results move (`ill_conditioned`).
    {
        std::vector<std::vector<double>> near_in(in), near_grad(N, std::vector<double>(P));
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t j = 0; j < N; ++j) near_in[j][p] *= 1 + (j % 2 ? -1 : 1) * 0x1p-40;
        r.batch_nearby_value.resize(P);
        k.gradient_batch(near_in, r.batch_nearby_value, near_grad);
        r.batch_nearby_grad.resize(P * N);
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t j = 0; j < N; ++j) r.batch_nearby_grad[p * N + j] = near_grad[j][p];
    }
    if constexpr ((What & narrow_simd) != 0) narrow_batches(k, in, r);
    if constexpr ((What & second_order) != 0) {
        std::vector<double> values(P);
        std::vector<std::vector<double>> upper(N * (N + 1) / 2, std::vector<double>(P));
        k.hessian_batch(in, values, grad, upper);
        std::vector<std::vector<double>> tangents(N, std::vector<double>(P)), hv(N, std::vector<double>(P));
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t j = 0; j < N; ++j) tangents[j][p] = r.tangent[p * N + j];
        std::vector<std::vector<double>> hv_grad(N, std::vector<double>(P));
        k.hvp_batch(in, tangents, values, hv_grad, hv);
        r.batch_hvp.resize(P * N);
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t j = 0; j < N; ++j) r.batch_hvp[p * N + j] = hv[j][p];
        r.batch_hess.resize(P * N * N);
        for (std::size_t p = 0; p < P; ++p) {
            std::size_t t = 0;
            for (std::size_t i = 0; i < N; ++i)
                for (std::size_t j = i; j < N; ++j, ++t)
                    r.batch_hess[p * N * N + i * N + j] = r.batch_hess[p * N * N + j * N + i] = upper[t][p];
        }
    }
    if constexpr ((What & single_precision) != 0) {
        // The float kernel, and the double kernel at the same inputs (rounded to float) and
        // a relative 2^-16 away: where those move by much more, float's rounding is
        // amplified as much.
        std::vector<std::vector<float>> fin(N, std::vector<float>(P)), fgrad(N, std::vector<float>(P));
        std::vector<float> fvalues(P);
        for (std::size_t p = 0; p < P; ++p) {
            std::array<float, N> xf;
            std::array<double, N> xd;
            std::array<reference::term_scale<N>, N> xs;
            for (std::size_t j = 0; j < N; ++j) {
                xd[j] = fin[j][p] = xf[j] = static_cast<float>(r.inputs[p * N + j]);
                xs[j] = reference::term_scale<N>::variable(xf[j], j);
            }
            const auto extremes = std::apply(f, xs);
            long double largest = extremes.largest;
            for (std::size_t j = 0; j < N; ++j) largest = std::max(largest, extremes.peak[j]);
            r.float_largest.push_back(largest);
            r.float_smallest.push_back(extremes.smallest);
            r.float_value_error.push_back(extremes.error);
            const auto gf = k.gradient(xf);
            const auto gd = k.gradient(xd);
            r.float_scalar_value.push_back(gf.value);
            r.at_float_value.push_back(gd.value);
            for (std::size_t j = 0; j < N; ++j) {
                r.float_scalar_grad.push_back(gf.gradient[j]);
                r.at_float_grad.push_back(gd.gradient[j]);
                xd[j] *= 1 + (j % 2 ? -1 : 1) * 0x1p-16;
            }
            const auto nd = k.gradient(xd);
            r.at_float_nearby_value.push_back(nd.value);
            for (std::size_t j = 0; j < N; ++j) r.at_float_nearby_grad.push_back(nd.gradient[j]);
            if constexpr ((What & second_order) != 0) {
                const auto hn = k.hessian(xd);
                for (std::size_t j = 0; j < N; ++j) xd[j] = xf[j];
                const auto hf = k.hessian(xf);
                const auto hd = k.hessian(xd);
                for (std::size_t i = 0; i < N; ++i)
                    for (std::size_t j = 0; j < N; ++j) {
                        r.float_hess.push_back(hf.hessian[i][j]);
                        r.at_float_hess.push_back(hd.hessian[i][j]);
                        r.at_float_nearby_hess.push_back(hn.hessian[i][j]);
                    }
            }
        }
        k.gradient_batch(fin, fvalues, fgrad);
        r.float_batch_value.assign(fvalues.begin(), fvalues.end());
        for (std::size_t p = 0; p < P; ++p)
            for (std::size_t j = 0; j < N; ++j) r.float_batch_grad.push_back(fgrad[j][p]);
        // The dynamic mode on float32 tensors of the same inputs (its float SIMD kernels on
        // the full batches, scalar code on the tail).
        std::array<gradc::Tensor, N> tf;
        for (std::size_t j = 0; j < N; ++j) {
            const std::vector<double> rounded(fin[j].begin(), fin[j].end());
            tf[j] = gradc::from_vector(rounded, {std::int64_t(P)}, gradc::TensorOptions(gradc::kFloat64))
                        .to(gradc::kFloat32)
                        .requires_grad_(true);
        }
        const gradc::Tensor yf = std::apply(f, tf);
        yf.sum().backward();
        const gradc::Tensor yfc = yf.detach().to(gradc::kFloat64).contiguous();
        r.float_dynamic_value.assign(yfc.data_ptr<double>(), yfc.data_ptr<double>() + P);
        r.float_dynamic_grad.assign(P * N, 0.0);
        for (std::size_t j = 0; j < N; ++j) {
            if (!tf[j].grad().defined()) continue;
            const gradc::Tensor g = tf[j].grad().to(gradc::kFloat64).contiguous();
            for (std::size_t p = 0; p < P; ++p) r.float_dynamic_grad[p * N + j] = g.data_ptr<double>()[p];
        }
    }

    // Dynamic mode: one tensor of all points per variable, float64 whatever the default
    // dtype (float32 unless the program sets it, as scripts/difftest's does not).
    std::array<gradc::Tensor, N> t;
    for (std::size_t j = 0; j < N; ++j)
        t[j] = gradc::from_vector(in[j], {std::int64_t(P)}, gradc::TensorOptions(gradc::kFloat64).requires_grad(true));
    const gradc::Tensor y = std::apply(f, t);
    y.sum().backward();
    const gradc::Tensor yc = y.detach().contiguous();
    r.dynamic_value.assign(yc.data_ptr<double>(), yc.data_ptr<double>() + P);
    r.dynamic_grad.assign(P * N, 0.0);
    for (std::size_t j = 0; j < N; ++j) {
        if (!t[j].grad().defined()) continue;  // a variable the expression does not use
        const gradc::Tensor g = t[j].grad().contiguous();
        for (std::size_t p = 0; p < P; ++p) r.dynamic_grad[p * N + j] = g.data_ptr<double>()[p];
    }
    if constexpr ((What & second_order) != 0) dynamic_hessian<N>(f, t, P, r.dynamic_hess);

    r.plain_value.resize(P);
    for (std::size_t p = 0; p < P; ++p) {
        std::array<double, N> x;
        for (std::size_t j = 0; j < N; ++j) x[j] = r.inputs[p * N + j];
        r.plain_value[p] = std::apply(f, x);
    }
    reference_derivatives<N>(f, r);
    term_scales<N>(f, r);
    if constexpr ((What & second_order) != 0) reference_hessian<N>(f, r.inputs, P, r.reference_hess);
    return r;
}

/// Runs the four modes on the expression `f` and compares them (`run_modes`).
template <std::size_t N, unsigned What = all_checks, class F>
void check(runner& out, const char* text, int depth, std::uint64_t seed, const F& f) {
    out.compare(text, depth, seed, run_modes<N, What>(seed, f), What);
}

}  // namespace gradc::difftest
