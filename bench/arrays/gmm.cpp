// The ADBench GMM objective (d = 10, K = 5) by gradc's array kernels
// (examples/gmm_objective.hpp): objective and full gradient for n = 1,000 and 10,000
// points, one thread. The peers (the hand-written "Manual" gradient, the dynamic mode,
// LibTorch) and the agreement of all systems' gradients are in bench/gmm/.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "../../examples/gmm_objective.hpp"

namespace {

constexpr std::size_t d = 10, K = 5, P = d * (d + 1) / 2;
const gmm_model<d, K> model;

struct gmm_input {
    std::vector<std::vector<double>> points;
    std::array<double, K> alphas;
    std::array<double, K * d> means;
    std::array<double, K * P> icf;
    explicit gmm_input(std::size_t n) : points(d, std::vector<double>(n)) {
        for (std::size_t j = 0; j < d; ++j)
            for (std::size_t i = 0; i < n; ++i) points[j][i] = std::sin(0.731 * double(i * d + j)) * 2;
        for (std::size_t i = 0; i < K; ++i) alphas[i] = std::cos(double(i));
        for (std::size_t i = 0; i < K * d; ++i) means[i] = std::sin(1.3 * double(i));
        for (std::size_t i = 0; i < K * P; ++i) icf[i] = 0.3 * std::cos(0.7 * double(i));
    }
};

void BM_gmm_gradc_objective(benchmark::State& state) {
    const gmm_input in(std::size_t(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(model.objective(in.points, in.alphas, in.means, in.icf, gradc::threads{1}));
}
void BM_gmm_gradc_gradient(benchmark::State& state) {
    const gmm_input in(std::size_t(state.range(0)));
    for (auto _ : state) {
        const auto r = model.objective_and_gradient(in.points, in.alphas, in.means, in.icf, gradc::threads{1});
        benchmark::DoNotOptimize(r.gradient.data());
    }
}
BENCHMARK(BM_gmm_gradc_objective)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_gradc_gradient)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
