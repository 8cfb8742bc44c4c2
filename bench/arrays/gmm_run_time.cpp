// The ADBench GMM objective and its gradient (d = 10, K = 5, n = 1,000 points, one
// thread) with d, K and n read from the arguments, two ways: one kernel with loops over
// the points and the components (examples/gmm_run_time_objective.hpp), and a map-reduce
// over the points of a run-time kernel (examples/gmm_run_time_points.hpp); against the
// kernels fixed at d = 10, K = 5 (examples/gmm_objective.hpp: a map-reduce over the
// points, SIMD lanes holding points). docs/benchmarks.md, "Loops with counts known at run
// time", has the ratios. All results are compared before timing.
#include <benchmark/benchmark.h>

#include <algorithm>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../examples/gmm_objective.hpp"
#include "../../examples/gmm_run_time_objective.hpp"
#include "../../examples/gmm_run_time_points.hpp"

namespace {

constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2, n = 1000;

struct inputs {
    std::vector<std::vector<double>> points = std::vector<std::vector<double>>(d, std::vector<double>(n));  // d spans of n
    std::vector<double> X = std::vector<double>(n * d);  // n×d, row-major
    std::array<double, K> alphas;
    std::array<double, K * d> means;
    std::array<double, K * P> icf;
    inputs() {
        for (std::size_t j = 0; j < d; ++j)
            for (std::size_t i = 0; i < n; ++i) X[i * d + j] = points[j][i] = std::sin(0.731 * double(i * d + j)) * 2;
        for (std::size_t i = 0; i < K; ++i) alphas[i] = std::cos(double(i));
        for (std::size_t i = 0; i < K * d; ++i) means[i] = std::sin(1.3 * double(i));
        for (std::size_t i = 0; i < K * P; ++i) icf[i] = 0.3 * std::cos(0.7 * double(i));
    }
};

const inputs in;
const gmm_model<d, K> fixed;
const gmm_run_time_model run_time(d);
const gmm_run_time_points_model by_points(d);

void check_agreement() {
    const auto f = fixed.objective_and_gradient(in.points, in.alphas, in.means, in.icf, gradc::threads{1});
    const auto r = run_time.objective_and_gradient(in.X, in.alphas, in.means, in.icf);
    const auto m = by_points.objective_and_gradient(in.points, in.alphas, in.means, in.icf, gradc::threads{1});
    double worst = std::max(std::abs(f.value - r.value), std::abs(f.value - m.value)) / std::abs(f.value);
    for (std::size_t i = 0; i < f.gradient.size(); ++i)
        worst = std::max({worst, std::abs(f.gradient[i] - r.gradient[i]) / std::max(1.0, std::abs(f.gradient[i])),
                          std::abs(f.gradient[i] - m.gradient[i]) / std::max(1.0, std::abs(f.gradient[i]))});
    std::fprintf(stderr, "gmm run-time: largest relative difference to the fixed kernels %.2e\n", worst);
    if (r.gradient.size() != f.gradient.size() || m.gradient.size() != f.gradient.size() || !(worst <= 1e-12)) {
        std::fprintf(stderr, "gmm run-time: disagrees with the fixed kernels\n");
        std::exit(1);
    }
}

void BM_gmm_fixed_objective(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(fixed.objective(in.points, in.alphas, in.means, in.icf, gradc::threads{1}));
}
void BM_gmm_run_time_objective(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(run_time.objective(in.X, in.alphas, in.means, in.icf));
}
void BM_gmm_run_time_map_reduce_objective(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(by_points.objective(in.points, in.alphas, in.means, in.icf, gradc::threads{1}));
}
void BM_gmm_fixed_gradient(benchmark::State& state) {
    for (auto _ : state) {
        auto g = fixed.objective_and_gradient(in.points, in.alphas, in.means, in.icf, gradc::threads{1});
        benchmark::DoNotOptimize(g);
    }
}
void BM_gmm_run_time_gradient(benchmark::State& state) {
    for (auto _ : state) {
        auto g = run_time.objective_and_gradient(in.X, in.alphas, in.means, in.icf);
        benchmark::DoNotOptimize(g);
    }
}
void BM_gmm_run_time_map_reduce_gradient(benchmark::State& state) {
    for (auto _ : state) {
        auto g = by_points.objective_and_gradient(in.points, in.alphas, in.means, in.icf, gradc::threads{1});
        benchmark::DoNotOptimize(g);
    }
}

}  // namespace

BENCHMARK(BM_gmm_fixed_objective);
BENCHMARK(BM_gmm_run_time_objective);
BENCHMARK(BM_gmm_fixed_gradient);
BENCHMARK(BM_gmm_run_time_gradient);
BENCHMARK(BM_gmm_run_time_map_reduce_objective);
BENCHMARK(BM_gmm_run_time_map_reduce_gradient);

int main(int argc, char** argv) {
    check_agreement();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
