// The ADBench GMM objective (d = 10, K = 5) and its full gradient for n = 1,000 and
// 10,000 points, one thread, by every system: gradc static (the array kernels of
// examples/gmm_objective.hpp), the hand-written gradient ("Manual", gmm_manual.hpp),
// gradc's dynamic mode and LibTorch (the same tensor operations, gmm_tensors.hpp).
// Before timing, every system's value and gradient are checked against gradc static
// (1e-10 relative), and gradc static's gradient against central differences of the
// Manual objective on sampled components; a disagreement stops the run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gmm_manual.hpp"
#include "gmm_peers.hpp"

namespace {

constexpr std::size_t d = gmm_d, K = gmm_K, P = gmm_P;
const gmm_model<d, K> model;

struct gmm_input {
    gmm_point_set points;
    gmm_parameters p;
    explicit gmm_input(std::size_t n) : points(d, std::vector<double>(n)) {
        for (std::size_t j = 0; j < d; ++j)
            for (std::size_t i = 0; i < n; ++i) points[j][i] = std::sin(0.731 * double(i * d + j)) * 2;
        for (std::size_t i = 0; i < K; ++i) p.alphas[i] = std::cos(double(i));
        for (std::size_t i = 0; i < K * d; ++i) p.means[i] = std::sin(1.3 * double(i));
        for (std::size_t i = 0; i < K * P; ++i) p.icf[i] = 0.3 * std::cos(0.7 * double(i));
    }
};

double manual(const gmm_input& in, std::vector<double>* grad) {
    if (grad) return gmm_manual::evaluate<d, K, true>(in.points, in.p.alphas, in.p.means, in.p.icf, grad);
    return gmm_manual::evaluate<d, K, false>(in.points, in.p.alphas, in.p.means, in.p.icf, nullptr);
}

/// Every system against gradc static, and gradc static against differences.
void check_agreement() {
    const gmm_input in(1000);
    const auto s = model.objective_and_gradient(in.points, in.p.alphas, in.p.means, in.p.icf, gradc::threads{1});
    double worst = 0;
    auto compare = [&](const char* name, double value, const std::vector<double>& g) {
        double w = std::abs(value - s.value) / std::abs(s.value);
        for (std::size_t i = 0; i < g.size(); ++i)
            w = std::max(w, std::abs(g[i] - s.gradient[i]) / std::max(1.0, std::abs(s.gradient[i])));
        std::fprintf(stderr, "gmm: %-12s largest relative difference to gradc static %.2e\n", name, w);
        if (g.size() != s.gradient.size() || !(w <= 1e-10)) {
            std::fprintf(stderr, "gmm: %s disagrees with gradc static\n", name);
            std::exit(1);
        }
        worst = std::max(worst, w);
    };
    std::vector<double> g;
    compare("manual", manual(in, &g), g);
    compare("dynamic", gmm_dynamic(in.points, in.p, &g), g);
#ifdef GRADC_BENCH_LIBTORCH
    compare("libtorch", gmm_libtorch(in.points, in.p, &g), g);
#endif
    // Central differences of the Manual objective on every 7th parameter.
    for (std::size_t e = 0; e < s.gradient.size(); e += 7) {
        gmm_input up = in, down = in;
        double* pu = e < K ? &up.p.alphas[e] : e < K + K * d ? &up.p.means[e - K] : &up.p.icf[e - K - K * d];
        double* pd = e < K ? &down.p.alphas[e] : e < K + K * d ? &down.p.means[e - K] : &down.p.icf[e - K - K * d];
        const double h = 1e-5;
        *pu += h;
        *pd -= h;
        const double fd = (manual(up, nullptr) - manual(down, nullptr)) / (2 * h);
        if (std::abs(fd - s.gradient[e]) > 1e-6 * std::max(1.0, std::abs(fd))) {
            std::fprintf(stderr, "gmm: gradient entry %zu is %.12g, differences give %.12g\n", e, s.gradient[e], fd);
            std::exit(1);
        }
    }
}

const bool agreed = (check_agreement(), true);

template <class F>
void run(benchmark::State& state, F f) {
    const gmm_input in(std::size_t(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(f(in));
}

void BM_gmm_gradc_objective(benchmark::State& s) {
    run(s, [](const gmm_input& in) { return model.objective(in.points, in.p.alphas, in.p.means, in.p.icf, gradc::threads{1}); });
}
void BM_gmm_gradc_gradient(benchmark::State& s) {
    run(s, [](const gmm_input& in) {
        return model.objective_and_gradient(in.points, in.p.alphas, in.p.means, in.p.icf, gradc::threads{1}).gradient[0];
    });
}
void BM_gmm_manual_objective(benchmark::State& s) {
    run(s, [](const gmm_input& in) { return manual(in, nullptr); });
}
void BM_gmm_manual_gradient(benchmark::State& s) {
    std::vector<double> g;
    run(s, [&](const gmm_input& in) { return manual(in, &g); });
}
void BM_gmm_dynamic_objective(benchmark::State& s) {
    run(s, [](const gmm_input& in) { return gmm_dynamic(in.points, in.p, nullptr); });
}
void BM_gmm_dynamic_gradient(benchmark::State& s) {
    std::vector<double> g;
    run(s, [&](const gmm_input& in) { return gmm_dynamic(in.points, in.p, &g); });
}
#ifdef GRADC_BENCH_LIBTORCH
void BM_gmm_libtorch_objective(benchmark::State& s) {
    run(s, [](const gmm_input& in) { return gmm_libtorch(in.points, in.p, nullptr); });
}
void BM_gmm_libtorch_gradient(benchmark::State& s) {
    std::vector<double> g;
    run(s, [&](const gmm_input& in) { return gmm_libtorch(in.points, in.p, &g); });
}
BENCHMARK(BM_gmm_libtorch_objective)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_libtorch_gradient)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
#endif
BENCHMARK(BM_gmm_gradc_objective)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_gradc_gradient)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_manual_objective)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_manual_gradient)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_dynamic_objective)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gmm_dynamic_gradient)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
