// The array benchmark (Google Benchmark): the MLP with weight matrices.
//  - 4-16-16-1, the gradient with respect to the inputs at N points: gradc's array
//    kernel (weights broadcast) against hand-written xsimd code, in the same run;
//  - 64-64-64-1, the gradient with respect to every weight at one point: gradc against
//    a hand-written Eigen backpropagation and LibTorch (one thread).
// Every implementation's result is checked against the hand-written one before timing.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mlp_gradc.hpp"
#include "mlp_hand.hpp"

namespace mlp {
#ifdef GRADC_BENCH_LIBTORCH
double libtorch_backprop_64(const network<64, 64>& net, const std::array<double, 64>& x, std::vector<double>& grad);
#endif
}  // namespace mlp

namespace {

std::size_t points_n() {
    const char* e = std::getenv("GRADC_BENCH_N");
    return e ? std::size_t(std::atol(e)) : 1000000;
}

const mlp::network<4, 16> small;
const mlp::network<64, 64> large;
const auto small_kernel = mlp::gradc_network<4, 16>::input_kernel();
const auto large_kernel = mlp::gradc_network<64, 64>::weight_kernel();

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "mlp benchmark: %s disagrees with the hand-written gradient\n", what);
        std::exit(1);
    }
}

void BM_small_hand(benchmark::State& state) {
    const std::size_t n = points_n();
    const auto x = mlp::points<4>(n);
    std::vector<double> v(n);
    std::vector<std::vector<double>> g(4, std::vector<double>(n));
    for (auto _ : state) {
        mlp::batch_gradient(small, x, v, g);
        benchmark::DoNotOptimize(v.data());
    }
    state.counters["ns_per_point"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate |
                                                                       benchmark::Counter::kInvert);
}

void BM_small_gradc(benchmark::State& state) {
    const std::size_t n = points_n();
    const auto x = mlp::points<4>(n);
    std::vector<double> v(n), vh(n);
    std::vector<std::vector<double>> g(4, std::vector<double>(n)), gh = g;
    const auto in = std::tuple{gradc::broadcast(small.l1.w), gradc::broadcast(small.l1.b), gradc::broadcast(small.l2.w),
                               gradc::broadcast(small.l2.b), gradc::broadcast(small.out), x};
    small_kernel.gradient_batch(in, v, g, gradc::threads{1});
    mlp::batch_gradient(small, x, vh, gh);
    for (std::size_t p = 0; p < n; p += 997) require(std::abs(g[2][p] - gh[2][p]) < 1e-12 && std::abs(v[p] - vh[p]) < 1e-12, "gradc");
    for (auto _ : state) {
        small_kernel.gradient_batch(in, v, g, gradc::threads{1});
        benchmark::DoNotOptimize(v.data());
    }
    state.counters["ns_per_point"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate |
                                                                       benchmark::Counter::kInvert);
}

std::array<double, 64> large_point() {
    std::array<double, 64> x;
    for (std::size_t i = 0; i < 64; ++i) x[i] = std::sin(0.7 * double(i));
    return x;
}

void BM_large_eigen(benchmark::State& state) {
    const auto x = large_point();
    std::vector<double> g;
    for (auto _ : state) {
        benchmark::DoNotOptimize(mlp::eigen_backprop(large, x, g));
        benchmark::DoNotOptimize(g.data());
    }
}

void BM_large_gradc(benchmark::State& state) {
    const auto x = large_point();
    std::vector<double> ge;
    const double ye = mlp::eigen_backprop(large, x, ge);
    const auto r0 = large_kernel.gradient(large.l1.w, large.l1.b, large.l2.w, large.l2.b, large.out, x);
    require(std::abs(r0.value - ye) < 1e-12 && std::abs(std::get<2>(r0.gradient)[100] - ge[64 * 64 + 64 + 100]) < 1e-12,
            "gradc (one point)");
    for (auto _ : state) {
        const auto r = large_kernel.gradient(large.l1.w, large.l1.b, large.l2.w, large.l2.b, large.out, x);
        benchmark::DoNotOptimize(r);
    }
}

#ifdef GRADC_BENCH_LIBTORCH
void BM_large_libtorch(benchmark::State& state) {
    const auto x = large_point();
    std::vector<double> g, ge;
    const double ye = mlp::eigen_backprop(large, x, ge);
    require(std::abs(mlp::libtorch_backprop_64(large, x, g) - ye) < 1e-12 && std::abs(g[5000] - ge[5000]) < 1e-12,
            "LibTorch");
    for (auto _ : state) benchmark::DoNotOptimize(mlp::libtorch_backprop_64(large, x, g));
}
BENCHMARK(BM_large_libtorch);
#endif

BENCHMARK(BM_small_hand)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_small_gradc)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_large_eigen);
BENCHMARK(BM_large_gradc);

}  // namespace

BENCHMARK_MAIN();
