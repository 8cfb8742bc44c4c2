// Exponential curve fitting, the problem of Ceres Solver's tutorial ("Curve Fitting"):
// find m and c in y = exp(m·x + c) from noisy points, by least squares over residuals
// rᵢ = yᵢ - exp(m·xᵢ + c). Solved twice, once with ceres::AutoDiffCostFunction (Ceres's
// Jets) and once with gradc's cost function (the kernel's Jacobian sweep); the program
// checks that the two solutions agree to 1e-10 and prints the time of one Evaluate per
// residual block, with Jacobian, for both (bench/ceres/ measures it with Google Benchmark).

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <ceres/autodiff_cost_function.h>
#include <ceres/problem.h>
#include <ceres/solver.h>

#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>

#include "curve_fit.hpp"

namespace {

/// Nanoseconds per Evaluate (residual and both Jacobian blocks) over all residual blocks,
/// the best of a few passes.
double evaluate_time(const std::vector<ceres::CostFunction*>& blocks, double m, double c) {
    const double* parameters[2] = {&m, &c};
    double residual = 0, dm = 0, dc = 0;
    double* jacobians[2] = {&dm, &dc};
    double checksum = 0, best = 1e300;
    const int repeats = 2000;
    for (int pass = 0; pass < 5; ++pass) {
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < repeats; ++r) {
            for (const ceres::CostFunction* f : blocks) {
                f->Evaluate(parameters, &residual, jacobians);
                checksum += residual + dm + dc;
            }
        }
        const std::chrono::duration<double, std::nano> t = std::chrono::steady_clock::now() - start;
        best = std::min(best, t.count() / (double(repeats) * double(blocks.size())));
    }
    // Keeps the loop's work observable.
    if (checksum == 42.0) std::puts("");
    return best;
}

}  // namespace

int main() {
    const curve_fit_points points;
    const std::vector<double>&xs = points.xs, &ys = points.ys;
    const double true_m = curve_fit_points::true_m, true_c = curve_fit_points::true_c;

    // gradc's residual: the data x and y are the variables outside wrt(m, c), given per
    // residual block; make_cost_function<1, 1> makes m and c two parameter blocks of one.
    auto [m, c, x, y] = gradc::variables<4>();
    const auto residual = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));

    double ceres_m = 0, ceres_c = 0, gradc_m = 0, gradc_c = 0;
    ceres::Problem ceres_problem, gradc_problem;
    std::vector<ceres::CostFunction*> ceres_blocks, gradc_blocks;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        // Each Problem takes ownership of its cost functions (Ceres's convention).
        ceres_blocks.push_back(new ceres::AutoDiffCostFunction<exponential_residual, 1, 1, 1>(
            new exponential_residual{xs[i], ys[i]}));
        ceres_problem.AddResidualBlock(ceres_blocks.back(), nullptr, &ceres_m, &ceres_c);
        gradc_blocks.push_back(gradc::ceres::make_cost_function<1, 1>(residual, xs[i], ys[i]).release());
        gradc_problem.AddResidualBlock(gradc_blocks.back(), nullptr, &gradc_m, &gradc_c);
    }

    ceres::Solver::Options options;
    options.linear_solver_type = ceres::DENSE_QR;
    options.function_tolerance = options.gradient_tolerance = options.parameter_tolerance = 1e-15;
    ceres::Solver::Summary ceres_summary, gradc_summary;
    ceres::Solve(options, &ceres_problem, &ceres_summary);
    ceres::Solve(options, &gradc_problem, &gradc_summary);

    std::printf("true            m = %.12f  c = %.12f\n", true_m, true_c);
    std::printf("Ceres autodiff  m = %.12f  c = %.12f  cost %.12f  (%d iterations)\n", ceres_m, ceres_c,
                ceres_summary.final_cost, int(ceres_summary.iterations.size()));
    std::printf("gradc           m = %.12f  c = %.12f  cost %.12f  (%d iterations)\n", gradc_m, gradc_c,
                gradc_summary.final_cost, int(gradc_summary.iterations.size()));

    const double ceres_ns = evaluate_time(ceres_blocks, ceres_m, ceres_c);
    const double gradc_ns = evaluate_time(gradc_blocks, gradc_m, gradc_c);
    std::printf("Evaluate with Jacobian, per residual block: Ceres autodiff %.2f ns, gradc %.2f ns (%.2fx)\n",
                ceres_ns, gradc_ns, ceres_ns / gradc_ns);

    const bool usable = ceres_summary.IsSolutionUsable() && gradc_summary.IsSolutionUsable();
    const bool agree = std::abs(gradc_m - ceres_m) <= 1e-10 && std::abs(gradc_c - ceres_c) <= 1e-10;
    const bool near_truth = std::abs(gradc_m - true_m) < 0.05 && std::abs(gradc_c - true_c) < 0.2;
    if (!usable || !agree || !near_truth) {
        std::puts("MISMATCH: the two solutions differ by more than 1e-10, or are far from the truth");
        return 1;
    }
    std::puts("the two solutions agree to 1e-10");
    return 0;
}
