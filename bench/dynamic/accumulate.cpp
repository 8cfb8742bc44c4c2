// What putting back a failed pass costs (docs/dynamic.md, "A pass that fails"): a pass that
// adds into an existing .grad() first copies it into a buffer the leaf keeps. Times the
// cheapest pass that accumulates, `(x * 2).sum().backward()` into a leaf that holds a
// gradient, beside a clone of the gradient (a copy that also allocates: an upper bound of
// the pass's own copy), for leaves of 1 to 10^6 elements (Google Benchmark, one thread). Run with
//   meson compile -C build-bench gradc-bench-accumulate && build-bench/bench/dynamic/gradc-bench-accumulate
#include <benchmark/benchmark.h>

#include <gradc/autograd.hpp>

namespace {

gradc::Tensor leaf_holding_a_gradient(std::int64_t n) {
    auto x = gradc::randn({n}, gradc::TensorOptions().dtype(gradc::kFloat64).requires_grad(true));
    (x * 2.0).sum().backward();
    return x;
}

void backward_accumulating(benchmark::State& state) {
    const auto x = leaf_holding_a_gradient(state.range(0));
    for (auto _ : state) (x * 2.0).sum().backward();
}

void clone_of_the_gradient(benchmark::State& state) {
    const auto x = leaf_holding_a_gradient(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(x.grad().clone());
}

}  // namespace

BENCHMARK(backward_accumulating)->RangeMultiplier(100)->Range(1, 1000000);
BENCHMARK(clone_of_the_gradient)->RangeMultiplier(100)->Range(1, 1000000);
BENCHMARK_MAIN();
