/// Strong scaling over threads (Google Benchmark): map-reduce of the loglik and
/// calibration kernels, the calibration kernel's gradient_batch and the ADBench GMM's
/// objective and gradient (array kernels), at N points
/// (GRADC_BENCH_N, default 10,000,000) on 1 and 2 threads (gradc::threads{t}).
/// docs/benchmarks.md, "Threads and MPI ranks", has the figures.

#include <array>
#include <cstdlib>
#include <span>
#include <vector>

#include <benchmark/benchmark.h>

#include <gradc/gradc.hpp>
#include <gradc/simd.hpp>

#include "gmm.hpp"
#include "kernels.hpp"

namespace {

std::size_t point_count() {
    const char* env = std::getenv("GRADC_BENCH_N");
    return env ? std::strtoull(env, nullptr, 10) : 10'000'000;
}

template <std::size_t D>
std::array<std::span<const double>, D> spans(const std::vector<std::vector<double>>& d) {
    std::array<std::span<const double>, D> s;
    for (std::size_t j = 0; j < D; ++j) s[j] = d[j];
    return s;
}

const std::size_t n = point_count();
const auto loglik_data = scaling::data(n, scaling::loglik_ranges, 1);
const auto option_data = scaling::data(n, scaling::option_ranges, 2);

void report_points(benchmark::State& state) {
    state.counters["ns_per_point"] = benchmark::Counter(double(n) * double(state.iterations()),
                                                        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void loglik_map_reduce(benchmark::State& state) {
    const auto k = scaling::loglik_kernel();
    const auto d = spans<1>(loglik_data);
    for (auto _ : state) benchmark::DoNotOptimize(k.map_reduce(d, scaling::loglik_theta, gradc::threads{int(state.range(0))}));
    report_points(state);
}

void calibration_map_reduce(benchmark::State& state) {
    const auto k = scaling::calibration_kernel();
    const auto d = spans<3>(option_data);
    for (auto _ : state) benchmark::DoNotOptimize(k.map_reduce(d, scaling::option_theta, gradc::threads{int(state.range(0))}));
    report_points(state);
}

void calibration_gradient_batch(benchmark::State& state) {
    const auto k = scaling::calibration_kernel();
    std::vector<double> r(n, scaling::option_theta[0]), v(n, scaling::option_theta[1]), value(n), g0(n), g1(n);
    const std::array<std::span<const double>, 5> in{option_data[0], option_data[1], option_data[2], r, v};
    for (auto _ : state)
        k.gradient_batch(in, std::span<double>(value), std::array<std::span<double>, 2>{g0, g1},
                         gradc::threads{int(state.range(0))});
    report_points(state);
}

// The GMM (array kernels): objective and gradient, the point term's map-reduce on t threads.
const scaling::gmm_parameters gmm_theta;
const gmm_model<scaling::gmm_d, scaling::gmm_K> gmm;

void gmm_objective_and_gradient(benchmark::State& state) {
    static const auto points = scaling::data(n, scaling::gmm_ranges, 3);
    for (auto _ : state)
        benchmark::DoNotOptimize(
            gmm.objective_and_gradient(points, gmm_theta.a, gmm_theta.mu, gmm_theta.q, gradc::threads{int(state.range(0))}));
    report_points(state);
}

}  // namespace

BENCHMARK(gmm_objective_and_gradient)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(loglik_map_reduce)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(calibration_map_reduce)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(calibration_gradient_batch)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
