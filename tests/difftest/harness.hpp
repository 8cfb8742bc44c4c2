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

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "reference.hpp"

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
    std::vector<double> plain_value;     // the lambda on double: the C library's functions
    std::vector<long double> reference_value;
    std::vector<long double> reference_grad;  // central differences; NaN where not reliable
};

/// Counts and reports of a run.
class runner {
public:
    /// Compares the modes' results of one expression and records what disagrees.
    void compare(const char* text, int depth, std::uint64_t seed, const results& r);
    std::size_t expressions() const { return expressions_; }
    /// Points compared, and points skipped as ill-conditioned (see `compare`).
    std::size_t points_compared() const { return points_compared_; }
    std::size_t points_ill_conditioned() const { return points_ill_conditioned_; }
    std::size_t mismatches() const { return mismatching_expressions_; }
    const std::vector<std::string>& reports() const { return reports_; }

private:
    std::size_t expressions_ = 0;
    std::size_t mismatching_expressions_ = 0;
    std::size_t points_compared_ = 0;
    std::size_t points_ill_conditioned_ = 0;
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
        const auto at = [&](const std::array<real, N>& y) { return std::apply(f, y); };
        const real fx = at(x);
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
            const real fp = shifted(h), fm = shifted(-h), fp2 = shifted(h / 2), fm2 = shifted(-h / 2);
            const real central = (fp - fm) / (2 * h), central2 = (fp2 - fm2) / h;
            const real forward = (fp - fx) / h, backward = (fx - fm) / h;
            const real tol = 1e-4L * (1 + std::fabs(central2));
            // The rounding of f itself, divided by the step: beyond gradcheck's tolerance the
            // differences say nothing (f = 1e16 + g(x) loses g's change entirely).
            const real noise = 4 * std::numeric_limits<real>::epsilon() * std::max({std::fabs(fx), std::fabs(fp), std::fabs(fm)}) / h;
            if (!std::isfinite(central) || !std::isfinite(central2) || std::fabs(central - central2) > tol ||
                std::fabs(forward - central2) > tol || std::fabs(backward - central2) > tol ||
                noise > 1e-7L + 1e-5L * std::fabs(central2))
                continue;
            r.reference_grad[p * N + j] = central2;
        }
    }
}

/// Runs the four modes on the expression `f` (a generic lambda of N arguments) and
/// compares them. `seed` picks the points.
template <std::size_t N, class F>
void check(runner& out, const char* text, int depth, std::uint64_t seed, const F& f) {
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
        // The same a relative 2^-40 away (signs alternating over the variables): where the
        // results move by much more, the modes' few-ulp differences are amplified too.
        for (std::size_t j = 0; j < N; ++j) x[j] *= 1 + (j % 2 ? -1 : 1) * 0x1p-40;
        const auto nearby = k.gradient(x);
        r.nearby_value.push_back(nearby.value);
        for (std::size_t j = 0; j < N; ++j) r.nearby_grad.push_back(nearby.gradient[j]);
    }
    std::vector<std::vector<double>> in(N, std::vector<double>(P)), grad(N, std::vector<double>(P));
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < N; ++j) in[j][p] = r.inputs[p * N + j];
    r.batch_value.resize(P);
    k.gradient_batch(in, r.batch_value, grad);
    r.batch_grad.resize(P * N);
    for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < N; ++j) r.batch_grad[p * N + j] = grad[j][p];

    // Dynamic mode: one tensor of all points per variable.
    std::array<gradc::Tensor, N> t;
    for (std::size_t j = 0; j < N; ++j)
        t[j] = gradc::from_vector(in[j], {std::int64_t(P)}, gradc::TensorOptions().requires_grad(true));
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

    r.plain_value.resize(P);
    for (std::size_t p = 0; p < P; ++p) {
        std::array<double, N> x;
        for (std::size_t j = 0; j < N; ++j) x[j] = r.inputs[p * N + j];
        r.plain_value[p] = std::apply(f, x);
    }
    reference_derivatives<N>(f, r);
    out.compare(text, depth, seed, r);
}

}  // namespace gradc::difftest
