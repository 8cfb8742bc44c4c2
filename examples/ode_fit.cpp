// Fitting the four rates of a Lotka-Volterra model to observations at every time step,
// by Gauss-Newton, with the residuals as the per-step outputs of an RK4 integration.
//
//     x' = α x − β x y,   y' = δ x y − γ y,   (x, y)(0) = (10, 5),
//
// integrated by RK4 with step h = 0.02 over 500 steps. The observations are the true
// trajectory (α, β, γ, δ) = (1.1, 0.4, 0.4, 0.1) plus small noise, one row per step. The
// kernel is a `gradc::scan` over the observations' rows whose step emits the residual
// predicted − observed after the step (`gradc::emit`): its ys are the 500 × 2 residuals,
// and `k.jacobian` gives their Jacobian with respect to the rates. Gauss-Newton, damped
// by Levenberg-Marquardt (the trajectory oscillates over several periods, and plain
// Gauss-Newton diverges from this far), solves (JᵀJ + λ·diag(JᵀJ)) δ = −Jᵀr from a start
// 25 % away from the truth. The number of observations is
// read when the kernel runs: one compiled kernel for any length of data.
//
// The program checks the Jacobian against central differences at the start, that the
// fit converges, that the fitted rates are within 1 % of the truth, and that Jᵀr
// (the gradient of ½‖r‖²) is zero at the fit.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

namespace {

constexpr std::size_t steps = 500;
constexpr double h = 0.02;

/// The constants of the RK4 step as named constants: every stage that uses them is one
/// node, where a literal would keep equal stages apart (docs/static.md, "Named constants").
const auto step_h = gradc::constant([] { return h; });
const auto half_h = gradc::constant([] { return h / 2; });
const auto sixth_h = gradc::constant([] { return h / 6; });
const auto two = gradc::constant([] { return 2.0; });

/// One RK4 step of the model from state s, rates as expressions.
template <class A, class B, class G, class D, class S>
auto rk4(const A& alpha, const B& beta, const G& gamma, const D& delta, const S& s) {
    const auto f = [=](const auto& u) {
        const auto x = u[gradc::index<0>];
        const auto y = u[gradc::index<1>];
        return gradc::concat(x * (alpha - beta * y), y * (delta * x - gamma));
    };
    const auto k1 = f(s);
    const auto k2 = f(s + half_h * k1);
    const auto k3 = f(s + half_h * k2);
    const auto k4 = f(s + step_h * k3);
    return s + sixth_h * (k1 + two * k2 + two * k3 + k4);
}

/// The same step on numbers: the observations' truth.
std::array<double, 2> rk4_numbers(const std::array<double, 4>& r, const std::array<double, 2>& s) {
    const auto f = [&](const std::array<double, 2>& u) {
        return std::array<double, 2>{u[0] * (r[0] - r[1] * u[1]), u[1] * (r[3] * u[0] - r[2])};
    };
    const auto add = [](const std::array<double, 2>& a, double c, const std::array<double, 2>& b) {
        return std::array<double, 2>{a[0] + c * b[0], a[1] + c * b[1]};
    };
    const auto k1 = f(s), k2 = f(add(s, h / 2, k1)), k3 = f(add(s, h / 2, k2)), k4 = f(add(s, h, k3));
    return {s[0] + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]), s[1] + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])};
}

/// Solves the 4×4 symmetric positive definite system A x = b by Cholesky.
std::array<double, 4> solve4(std::array<std::array<double, 4>, 4> A, std::array<double, 4> b) {
    for (std::size_t j = 0; j < 4; ++j) {
        for (std::size_t k = 0; k < j; ++k) A[j][j] -= A[j][k] * A[j][k];
        A[j][j] = std::sqrt(A[j][j]);
        for (std::size_t i = j + 1; i < 4; ++i) {
            for (std::size_t k = 0; k < j; ++k) A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
    }
    for (std::size_t i = 0; i < 4; ++i) {  // L z = b, then Lᵀ x = z
        for (std::size_t k = 0; k < i; ++k) b[i] -= A[i][k] * b[k];
        b[i] /= A[i][i];
    }
    for (std::size_t i = 4; i-- > 0;) {
        for (std::size_t k = i + 1; k < 4; ++k) b[i] -= A[k][i] * b[k];
        b[i] /= A[i][i];
    }
    return b;
}

}  // namespace

int main() {
    const std::array<double, 4> truth{1.1, 0.4, 0.4, 0.1};
    const std::array<double, 2> start_state{10.0, 5.0};
    std::vector<double> observed(steps * 2);
    std::mt19937_64 rng(2026);
    std::normal_distribution<double> noise(0.0, 0.01);
    auto s = start_state;
    for (std::size_t k = 0; k < steps; ++k) {
        s = rk4_numbers(truth, s);
        observed[2 * k] = s[0] + noise(rng);
        observed[2 * k + 1] = s[1] + noise(rng);
    }

    const auto vars = gradc::variables(gradc::scalar, gradc::scalar, gradc::scalar, gradc::scalar, gradc::vec<2>,
                                       gradc::mat<gradc::dynamic_extent, 2>);
    const auto alpha = std::get<0>(vars);
    const auto beta = std::get<1>(vars);
    const auto gamma = std::get<2>(vars);
    const auto delta = std::get<3>(vars);
    const auto s0 = std::get<4>(vars);
    const auto observations = std::get<5>(vars);
    const auto integration = gradc::scan(s0, observations, [=](auto state, auto seen) {
        const auto next = rk4(alpha, beta, gamma, delta, state);
        return gradc::emit(next, next - seen);
    });
    const auto residuals = std::get<1>(integration);  // steps × 2
    const auto k = gradc::compile(residuals, gradc::wrt(alpha, beta, gamma, delta));

    std::array<double, 4> rates{truth[0] * 1.25, truth[1] * 0.75, truth[2] * 1.25, truth[3] * 0.75};
    const auto data = gradc::mat_view(observed, steps, 2);
    const auto jacobian_at = [&](const std::array<double, 4>& r) {
        return k.jacobian(r[0], r[1], r[2], r[3], start_state, data);
    };

    // The Jacobian at the start against central differences, column by column.
    bool jacobian_ok = true;
    {
        const auto J = jacobian_at(rates);
        for (std::size_t p = 0; p < 4; ++p) {
            auto up = rates, down = rates;
            const double e = 1e-6 * std::abs(rates[p]);
            up[p] += e;
            down[p] -= e;
            const auto ru = k(up[0], up[1], up[2], up[3], start_state, data);
            const auto rd = k(down[0], down[1], down[2], down[3], start_state, data);
            double worst = 0, scale = 0;
            for (std::size_t i = 0; i < 2 * steps; ++i) {
                const double fd = (ru.data[i] - rd.data[i]) / (2 * e);
                worst = std::max(worst, std::abs(J.jacobian[i][p] - fd));
                scale = std::max(scale, std::abs(fd));
            }
            std::printf("d r / d rate %zu: largest difference from central differences %.2e (of %.2e)\n", p, worst,
                        scale);
            jacobian_ok = jacobian_ok && worst <= 1e-5 * scale;
        }
    }

    // Gauss-Newton damped by Levenberg-Marquardt: (JᵀJ + λ·diag(JᵀJ)) δ = −Jᵀr, λ shrunk
    // after a step that lowers the cost and grown (the step retried) after one that
    // does not; λ → 0 near the fit, where the steps are Gauss-Newton's.
    const auto cost_at = [&](const std::array<double, 4>& r) {
        const auto res = k(r[0], r[1], r[2], r[3], start_state, data);
        double c = 0;
        for (double v : res.data) c += 0.5 * v * v;
        return std::isfinite(c) ? c : INFINITY;
    };
    double change = 1, lambda = 1e-3;
    int iteration = 0;
    std::array<double, 4> gradient{};
    for (; iteration < 50 && change > 1e-12; ++iteration) {
        const auto J = jacobian_at(rates);
        const auto& r = J.value.data;
        std::array<std::array<double, 4>, 4> normal{};
        gradient = {};
        double cost = 0;
        for (std::size_t i = 0; i < 2 * steps; ++i) {
            cost += 0.5 * r[i] * r[i];
            for (std::size_t p = 0; p < 4; ++p) {
                gradient[p] += J.jacobian[i][p] * r[i];
                for (std::size_t q = 0; q < 4; ++q) normal[p][q] += J.jacobian[i][p] * J.jacobian[i][q];
            }
        }
        for (int attempt = 0; attempt < 40; ++attempt, lambda *= 4) {
            auto damped = normal;
            for (std::size_t p = 0; p < 4; ++p) damped[p][p] *= 1 + lambda;
            const auto step = solve4(damped, {-gradient[0], -gradient[1], -gradient[2], -gradient[3]});
            auto trial = rates;
            change = 0;
            for (std::size_t p = 0; p < 4; ++p) {
                trial[p] += step[p];
                change = std::max(change, std::abs(step[p]) / std::abs(trial[p]));
            }
            if (cost_at(trial) <= cost) {
                rates = trial;
                lambda = std::max(lambda / 4, 1e-12);
                break;
            }
        }
        std::printf("iteration %d: ½‖r‖² = %.6e, rates (%.6f, %.6f, %.6f, %.6f), λ %.1e, relative step %.2e\n",
                    iteration + 1, cost, rates[0], rates[1], rates[2], rates[3], lambda, change);
    }
    double largest_error = 0, largest_gradient = 0;
    for (std::size_t p = 0; p < 4; ++p) {
        largest_error = std::max(largest_error, std::abs(rates[p] - truth[p]) / truth[p]);
        largest_gradient = std::max(largest_gradient, std::abs(gradient[p]));
    }
    std::printf("fit: rates within %.2e (relative) of the truth; |J^T r| = %.2e at the last iteration\n",
                largest_error, largest_gradient);
    const bool converged = change <= 1e-12;
    const bool close = largest_error < 1e-2;
    if (!jacobian_ok) std::printf("FAILED: the Jacobian differs from central differences\n");
    if (!converged) std::printf("FAILED: the fit did not converge in 50 iterations\n");
    if (!close) std::printf("FAILED: the fitted rates are more than 1 %% from the truth\n");
    if (largest_gradient > 1e-6) std::printf("FAILED: J^T r is not zero at the fit\n");
    return jacobian_ok && converged && close && largest_gradient <= 1e-6 ? 0 : 1;
}
