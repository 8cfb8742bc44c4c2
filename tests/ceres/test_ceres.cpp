// <gradc/ceres.hpp>: compiled kernels as Ceres cost functions and first-order functions,
// checked against ceres::AutoDiffCostFunction on the same residuals, against central
// differences, and by solving problems whose optimum is known in closed form.

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <ceres/autodiff_cost_function.h>
#include <ceres/gradient_problem.h>
#include <ceres/gradient_problem_solver.h>
#include <ceres/problem.h>
#include <ceres/solver.h>

#include <gradc/ceres.hpp>
#include <gradc/gradc.hpp>

#include "../../examples/curve_fit.hpp"
#include "approx.hpp"

using gradc::test::is_close_to;

namespace {

// The residual of Ceres's curve-fitting tutorial, y - exp(m·x + c), for Ceres's Jets with
// one block of two parameters (the form with two blocks of one is examples/curve_fit.hpp's).
struct exponential_residual_one_block {
    double x, y;
    template <class T>
    bool operator()(const T* mc, T* r) const {
        r[0] = y - exp(mc[0] * x + mc[1]);
        return true;
    }
};
using exponential_residual_split = ::exponential_residual;

// Three residuals of three parameters in blocks of two and one, with the data a and b:
// more residuals than parameters in one block, and a residual that ignores a block.
struct three_residuals {
    double a, b;
    template <class T>
    bool operator()(const T* p, const T* q, T* r) const {
        r[0] = sin(p[0]) * q[0] + a;
        r[1] = p[0] * p[1] - b * q[0] * q[0];
        r[2] = log(p[1] * p[1] + a);
        return true;
    }
};

// An array residual: r = (tanh(A·p + b) + exp(q), Σ tanh(A·p)), parameters p (3) and
// q (2), data A (2×3, row-major) and b (2).
struct array_residuals {
    std::array<double, 6> A;
    std::array<double, 2> b;
    template <class T>
    bool operator()(const T* p, const T* q, T* r) const {
        T total(0.0);
        for (int i = 0; i < 2; ++i) {
            T Ap = A[3 * i] * p[0] + A[3 * i + 1] * p[1] + A[3 * i + 2] * p[2];
            r[i] = tanh(Ap + b[i]) + exp(q[i]);
            total += tanh(Ap);
        }
        r[2] = total;
        return true;
    }
};

constexpr double unwritten = -12345.0;

/// Residuals and Jacobian blocks of `f` at `parameters`; blocks whose entry in `wanted`
/// is false are passed as null and must stay unwritten.
struct evaluation {
    std::vector<double> residuals;
    std::vector<std::vector<double>> jacobians;
};
evaluation evaluate(const ceres::CostFunction& f, const std::vector<std::vector<double>>& parameters,
                    const std::vector<bool>& wanted) {
    const auto& sizes = f.parameter_block_sizes();
    evaluation e{std::vector<double>(static_cast<std::size_t>(f.num_residuals()), unwritten), {}};
    std::vector<const double*> p;
    std::vector<double*> j;
    for (std::size_t b = 0; b < sizes.size(); ++b) {
        p.push_back(parameters[b].data());
        e.jacobians.emplace_back(static_cast<std::size_t>(f.num_residuals() * sizes[b]), unwritten);
    }
    for (std::size_t b = 0; b < sizes.size(); ++b) j.push_back(wanted[b] ? e.jacobians[b].data() : nullptr);
    REQUIRE(f.Evaluate(p.data(), e.residuals.data(), j.data()));
    return e;
}

/// gradc's cost function against Ceres's autodiff one, with every combination of null
/// Jacobian blocks, and against central differences.
void check_against_autodiff(const ceres::CostFunction& gradc_f, const ceres::CostFunction& ceres_f,
                            const std::vector<std::vector<double>>& parameters) {
    REQUIRE(gradc_f.num_residuals() == ceres_f.num_residuals());
    REQUIRE(gradc_f.parameter_block_sizes() == ceres_f.parameter_block_sizes());
    const std::size_t blocks = parameters.size();
    const auto M = static_cast<std::size_t>(gradc_f.num_residuals());

    // No Jacobians at all: residuals only.
    std::vector<const double*> p;
    for (const auto& b : parameters) p.push_back(b.data());
    std::vector<double> r(M, unwritten), r_ref(M);
    REQUIRE(gradc_f.Evaluate(p.data(), r.data(), nullptr));
    REQUIRE(ceres_f.Evaluate(p.data(), r_ref.data(), nullptr));
    for (std::size_t m = 0; m < M; ++m) CHECK_THAT(r[m], is_close_to(r_ref[m], 1e-15, 1e-15));

    for (unsigned mask = 0; mask < (1u << blocks); ++mask) {
        std::vector<bool> wanted(blocks);
        for (std::size_t b = 0; b < blocks; ++b) wanted[b] = (mask >> b) & 1u;
        const auto got = evaluate(gradc_f, parameters, wanted);
        const auto ref = evaluate(ceres_f, parameters, wanted);
        INFO("Jacobian blocks asked for (bit mask): " << mask);
        for (std::size_t m = 0; m < M; ++m) CHECK_THAT(got.residuals[m], is_close_to(ref.residuals[m], 1e-15, 1e-15));
        for (std::size_t b = 0; b < blocks; ++b) {
            for (std::size_t e = 0; e < got.jacobians[b].size(); ++e) {
                INFO("block " << b << ", entry " << e);
                if (wanted[b]) {
                    CHECK_THAT(got.jacobians[b][e], is_close_to(ref.jacobians[b][e], 1e-14, 1e-15));
                } else {
                    CHECK(got.jacobians[b][e] == unwritten);
                }
            }
        }
    }

    // Central differences, entry by entry (row-major: residual m, parameter e of block b).
    const auto all = evaluate(gradc_f, parameters, std::vector<bool>(blocks, true));
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t size = parameters[b].size();
        for (std::size_t e = 0; e < size; ++e) {
            for (std::size_t m = 0; m < M; ++m) {
                const double fd = gradc::test::central_difference(
                    [&](double t) {
                        auto q = parameters;
                        q[b][e] = t;
                        std::vector<const double*> qp;
                        for (const auto& v : q) qp.push_back(v.data());
                        std::vector<double> out(M);
                        gradc_f.Evaluate(qp.data(), out.data(), nullptr);
                        return out[m];
                    },
                    parameters[b][e]);
                INFO("residual " << m << ", block " << b << ", entry " << e);
                CHECK_THAT(all.jacobians[b][m * size + e], is_close_to(fd, 1e-8, 1e-9));
            }
        }
    }
}

}  // namespace

TEST_CASE("cost_function: the exponential residual matches AutoDiffCostFunction and finite differences",
          "[ceres]") {
    // The data x, y are the kernel's variables outside wrt(m, c), given per residual block.
    auto [x, m, y, c] = gradc::variables<4>();
    const auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
    for (const auto& [xi, yi] : {std::array{0.5, 2.0}, std::array{-1.25, 0.3}, std::array{3.0, 7.5}}) {
        const auto one_block = gradc::ceres::make_cost_function(k, xi, yi);
        static_assert(std::is_same_v<decltype(one_block)::element_type, gradc::ceres::cost_function<std::remove_cvref_t<decltype(k)>, 2>>);
        const ceres::AutoDiffCostFunction<exponential_residual_one_block, 1, 2> ref_one(
            new exponential_residual_one_block{xi, yi});
        check_against_autodiff(*one_block, ref_one, {{0.3, 0.1}});

        const auto two_blocks = gradc::ceres::make_cost_function<1, 1>(k, xi, yi);
        const ceres::AutoDiffCostFunction<exponential_residual_split, 1, 1, 1> ref_two(
            new exponential_residual_split{xi, yi});
        check_against_autodiff(*two_blocks, ref_two, {{-0.2}, {0.7}});
        // Made directly, as Ceres's own cost functions are, from the const kernel's type.
        const std::unique_ptr<ceres::CostFunction> direct(
            new gradc::ceres::cost_function<decltype(k), 1, 1>(k, xi, yi));
        check_against_autodiff(*direct, ref_two, {{0.9}, {-0.4}});
    }
}

TEST_CASE("cost_function: several residuals and blocks, wrt order differing from variable order", "[ceres]") {
    // Parameters p0, p1 (block of two) and q (block of one) are interleaved with the data a
    // and b among the variables; the blocks follow wrt order.
    auto [p1, a, q, p0, b] = gradc::variables<5>();
    const auto k = gradc::compile(sin(p0) * q + a, p0 * p1 - b * q * q, log(p1 * p1 + a), gradc::wrt(p0, p1, q));
    const double da = 0.75, db = -1.5;
    const auto f = gradc::ceres::make_cost_function<2, 1>(k, da, db);
    const ceres::AutoDiffCostFunction<three_residuals, 3, 2, 1> ref(new three_residuals{da, db});
    check_against_autodiff(*f, ref, {{0.4, -1.1}, {2.3}});
    check_against_autodiff(*f, ref, {{-2.0, 0.25}, {-0.6}});
}

TEST_CASE("cost_function of an array kernel: blocks are the wrt variables, residuals the outputs' entries",
          "[ceres][arrays]") {
    auto [A, p, b, q] = gradc::variables(gradc::mat<2, 3>, gradc::vec<3>, gradc::vec<2>, gradc::vec<2>);
    const auto k = gradc::compile(tanh(A * p + b) + exp(q), sum(tanh(A * p)), gradc::wrt(p, q));
    const std::array<double, 6> a{0.5, -1.0, 0.25, 1.5, 0.75, -0.5};
    const std::array<double, 2> bb{0.1, -0.3};
    const auto f = gradc::ceres::make_cost_function(k, a, bb);
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(*f)>,
                                 gradc::ceres::array_cost_function<std::remove_cvref_t<decltype(k)>>>);
    const ceres::AutoDiffCostFunction<array_residuals, 3, 3, 2> ref(new array_residuals{a, bb});
    check_against_autodiff(*f, ref, {{0.3, -0.2, 0.9}, {0.4, -1.1}});
    check_against_autodiff(*f, ref, {{-1.3, 0.6, 0.05}, {0.0, 0.7}});
}

TEST_CASE("cost_function: a ceres::Problem owns it and fits the exponential curve as autodiff does", "[ceres]") {
    auto [x, y, m, c] = gradc::variables<4>();
    const auto k = gradc::compile(y - exp(m * x + c), gradc::wrt(m, c));
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0.0, 0.1);
    double gradc_mc[2] = {0.0, 0.0}, ceres_mc[2] = {0.0, 0.0};
    ceres::Problem gradc_problem, ceres_problem;
    for (int i = 0; i < 40; ++i) {
        const double xi = 0.1 * i, yi = std::exp(0.3 * xi + 0.1) + noise(rng);
        gradc_problem.AddResidualBlock(gradc::ceres::make_cost_function(k, xi, yi).release(), nullptr, gradc_mc);
        ceres_problem.AddResidualBlock(
            new ceres::AutoDiffCostFunction<exponential_residual_one_block, 1, 2>(
                new exponential_residual_one_block{xi, yi}),
            nullptr,
            ceres_mc);
    }
    ceres::Solver::Options options;
    options.function_tolerance = options.gradient_tolerance = options.parameter_tolerance = 1e-15;
    ceres::Solver::Summary gradc_summary, ceres_summary;
    ceres::Solve(options, &gradc_problem, &gradc_summary);
    ceres::Solve(options, &ceres_problem, &ceres_summary);
    REQUIRE(gradc_summary.IsSolutionUsable());
    CHECK_THAT(gradc_mc[0], is_close_to(ceres_mc[0], 1e-10, 1e-12));
    CHECK_THAT(gradc_mc[1], is_close_to(ceres_mc[1], 1e-10, 1e-12));
    CHECK_THAT(gradc_summary.final_cost, is_close_to(ceres_summary.final_cost, 1e-12, 1e-14));
}

TEST_CASE("first_order_function: a GradientProblem reaches the normal maximum-likelihood estimate", "[ceres]") {
    // One point's negative log-likelihood (up to a constant); the optimum is the sample
    // mean and the root of the mean squared deviation.
    auto [x, mu, sigma] = gradc::variables<3>();
    const auto z = (x - mu) / sigma;
    const auto nll = gradc::compile(0.5 * (z * z) + log(sigma), gradc::wrt(mu, sigma));
    std::vector<double> xs(1001);
    std::mt19937 rng(11);
    std::normal_distribution<double> normal(2.0, 0.8);
    for (double& e : xs) e = normal(rng);
    const double n = static_cast<double>(xs.size());
    const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
    double ss = 0;
    for (double e : xs) ss += (e - mean) * (e - mean);
    const double sd = std::sqrt(ss / n);

    const std::array<std::vector<double>, 1> data{xs};
    auto f = gradc::ceres::make_first_order_function(nll, data);
    REQUIRE(f->NumParameters() == 2);
    // Value and gradient at a point against the closed form, and with a null gradient.
    const double at[2] = {1.5, 1.2};
    double cost = 0, gradient[2] = {0, 0}, cost_only = 0;
    REQUIRE(f->Evaluate(at, &cost, gradient));
    REQUIRE(f->Evaluate(at, &cost_only, nullptr));
    double s1 = 0, s2 = 0;
    for (double e : xs) {
        s1 += (e - at[0]) / at[1];
        s2 += (e - at[0]) * (e - at[0]) / (at[1] * at[1]);
    }
    CHECK_THAT(cost, is_close_to(0.5 * s2 + n * std::log(at[1]), 1e-12));
    CHECK(cost_only == cost);
    CHECK_THAT(gradient[0], is_close_to(-s1 / at[1], 1e-12));
    CHECK_THAT(gradient[1], is_close_to(n / at[1] - s2 / at[1], 1e-12));

    ceres::GradientProblem problem(f.release());
    double theta[2] = {0.0, 1.0};
    ceres::GradientProblemSolver::Options options;
    options.function_tolerance = options.gradient_tolerance = options.parameter_tolerance = 1e-15;
    ceres::GradientProblemSolver::Summary summary;
    ceres::Solve(options, problem, theta, &summary);
    REQUIRE(summary.IsSolutionUsable());
    CHECK_THAT(theta[0], is_close_to(mean, 1e-8));
    CHECK_THAT(theta[1], is_close_to(sd, 1e-8));
}

TEST_CASE("first_order_function: data of the wrong count or length are refused when it is made", "[ceres]") {
    auto [x, w, mu] = gradc::variables<3>();
    const auto k = gradc::compile(w * (x - mu) * (x - mu), gradc::wrt(mu));
    const std::vector<std::vector<double>> one_array{{1.0, 2.0}};
    const std::vector<std::vector<double>> ragged{{1.0, 2.0}, {1.0}};
    CHECK_THROWS_WITH(gradc::ceres::make_first_order_function(k, one_array),
                      Catch::Contains("gradc ceres::first_order_function") && Catch::Contains("has 1 spans, expected 2"));
    CHECK_THROWS_WITH(gradc::ceres::make_first_order_function(k, ragged),
                      Catch::Contains("`data[1]` has 1 entries, expected 2"));
    const std::vector<std::vector<double>> good{{1.0, 3.0}, {1.0, 1.0}};
    const auto f = gradc::ceres::make_first_order_function(k, good);
    const double at[1] = {0.0};
    double cost = 0, gradient[1] = {0};
    REQUIRE(f->Evaluate(at, &cost, gradient));
    CHECK(cost == 10.0);
    CHECK(gradient[0] == -8.0);
}
