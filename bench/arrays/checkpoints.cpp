// Reverse mode of a long loop by binomial checkpoints against storing every step: the
// gradient of Σ c_n² where c_{k+1} = c_k + h·(θ ⊙ sin(c_k) − 0.1·c_k), a state of 64
// entries, n = 2,000 steps, with gradc::checkpoints{s} for s = 2, 4, 11, 51 and storing
// every step (n·64 doubles, 1 MiB). The value alone is the floor: every reverse mode
// runs the steps at least twice. docs/benchmarks.md, "Loops: checkpoints", has the
// ratios; the gradients are compared (bit for bit) before timing.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include <gradc/gradc.hpp>

namespace {

using gradc::dynamic_extent;
constexpr int steps = 2000;
constexpr std::size_t entries = 64;

/// The kernel, its loop built by `make` from the step's body.
template <class Make>
auto integration(const Make& make) {
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::vec<dynamic_extent>);
    const auto theta = std::get<0>(vars);
    const auto c0 = std::get<1>(vars);
    const auto cn = make(c0, [=](auto c, auto) { return c + 0.001 * (theta * sin(c) - 0.1 * c); });
    return gradc::compile(sum(cn * cn), gradc::wrt(theta));
}
const auto stored = integration([](const auto& c0, auto body) { return gradc::loop(steps, c0, body); });
/// One kernel for every s: the snapshots are a literal, read when the kernel runs.
auto checkpointed(int s) {
    return integration([s](const auto& c0, auto body) { return gradc::loop(steps, c0, body, gradc::checkpoints{s}); });
}

std::vector<double> filled(std::size_t seed) {
    std::vector<double> v(entries);
    for (std::size_t i = 0; i < entries; ++i) v[i] = 0.5 + 0.3 * std::sin(0.37 * double(i) + double(seed));
    return v;
}
const std::vector<double> theta_values = filled(1), start = filled(2);

void compare(int s) {
    const auto expected = stored.gradient(theta_values, start);
    const auto got = checkpointed(s).gradient(theta_values, start);
    if (got.value != expected.value || got.gradient != expected.gradient) {
        std::fprintf(stderr, "checkpoints{%d} differs from storing every step\n", s);
        std::exit(1);
    }
}

void gradient(benchmark::State& state) {
    const int s = int(state.range(0));
    if (s < 0) {
        for (auto _ : state) benchmark::DoNotOptimize(stored.gradient(theta_values, start));
        state.SetLabel("stored steps");
        return;
    }
    compare(s);
    const auto k = checkpointed(s);
    for (auto _ : state) benchmark::DoNotOptimize(k.gradient(theta_values, start));
    state.SetLabel("checkpoints{" + std::to_string(s) + "}");
}
BENCHMARK(gradient)->Arg(-1)->Arg(51)->Arg(11)->Arg(4)->Arg(2)->Unit(benchmark::kMillisecond);

void value(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(stored(theta_values, start));
    state.SetLabel("value alone");
}
BENCHMARK(value)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
