// One compiled kernel with run-time extents against the fixed-extent kernel of each
// size: the layer f = Σ tanh(W·x + b), W n×n, value and gradient (wrt W, b) at one
// point, n = 8, 16, 64, 128. The run-time kernel reads its extents from the arguments,
// computes its layout (a few words per node) and returns the gradient as a
// gradc::matrix_value and a std::vector; the fixed kernel returns std::arrays.
// docs/benchmarks.md, "Extents known at run time", has the ratios. Both results are
// compared before timing.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

namespace {

using gradc::dynamic_extent;

std::vector<double> filled(std::size_t n, std::size_t seed) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = 0.3 * std::sin(0.37 * double(i) + double(seed));
    return v;
}

auto run_time_layer() {
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    return gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
}
const auto run_time_kernel = run_time_layer();

template <std::size_t N>
auto fixed_layer() {
    auto [W, b, x] = gradc::variables(gradc::mat<N, N>, gradc::vec<N>, gradc::vec<N>);
    return gradc::compile(sum(tanh(W * x + b)), gradc::wrt(W, b));
}

template <std::size_t N>
struct data {
    std::vector<double> w = filled(N * N, 1), b = filled(N, 2), x = filled(N, 3);
    auto fixed_args() const {
        return std::make_tuple(std::span<const double, N * N>(w.data(), N * N), std::span<const double, N>(b.data(), N),
                               std::span<const double, N>(x.data(), N));
    }
};

template <std::size_t N>
void check_equal() {
    const data<N> d;
    const auto kf = fixed_layer<N>();
    const auto gf = std::apply([&](const auto&... a) { return kf.gradient(a...); }, d.fixed_args());
    const auto gr = run_time_kernel.gradient(gradc::mat_view(d.w, N, N), d.b, d.x);
    if (gf.value != gr.value || std::get<1>(gr.gradient)[N - 1] != std::get<1>(gf.gradient)[N - 1]) {
        std::fprintf(stderr, "run-time and fixed kernels differ at n = %zu\n", N);
        std::exit(1);
    }
}

template <std::size_t N>
void BM_fixed_gradient(benchmark::State& state) {
    const data<N> d;
    const auto k = fixed_layer<N>();
    const auto args = d.fixed_args();
    for (auto _ : state) {
        auto g = std::apply([&](const auto&... a) { return k.gradient(a...); }, args);
        benchmark::DoNotOptimize(g);
    }
}
template <std::size_t N>
void BM_run_time_gradient(benchmark::State& state) {
    const data<N> d;
    const auto w = gradc::mat_view(d.w, N, N);
    for (auto _ : state) {
        auto g = run_time_kernel.gradient(w, d.b, d.x);
        benchmark::DoNotOptimize(g);
    }
}
template <std::size_t N>
void BM_fixed_value(benchmark::State& state) {
    const data<N> d;
    const auto k = fixed_layer<N>();
    const auto args = d.fixed_args();
    for (auto _ : state) benchmark::DoNotOptimize(std::apply([&](const auto&... a) { return k(a...); }, args));
}
template <std::size_t N>
void BM_run_time_value(benchmark::State& state) {
    const data<N> d;
    const auto w = gradc::mat_view(d.w, N, N);
    for (auto _ : state) benchmark::DoNotOptimize(run_time_kernel(w, d.b, d.x));
}

}  // namespace

#define GRADC_LAYER_BENCH(n)                 \
    BENCHMARK(BM_fixed_value<n>);            \
    BENCHMARK(BM_run_time_value<n>);         \
    BENCHMARK(BM_fixed_gradient<n>);         \
    BENCHMARK(BM_run_time_gradient<n>);
GRADC_LAYER_BENCH(8)
GRADC_LAYER_BENCH(16)
GRADC_LAYER_BENCH(64)
GRADC_LAYER_BENCH(128)

int main(int argc, char** argv) {
    check_equal<8>();
    check_equal<16>();
    check_equal<64>();
    check_equal<128>();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
