// One-point gradient of f = Σ tanh(A·B) (A, B n×n, n = 48, 128, 256), whose node arrays
// exceed the stack budget: the kernel's own call, which keeps them in a slab of its
// workspace (include/gradc/lower/array_workspace.hpp), against the same programs run on
// arrays on the stack, as every call did before the workspace, and on a heap block
// held across calls. Run with a large stack
// (`ulimit -s unlimited`): the stack variant of n = 256 needs 2 MiB.
// Both results are compared before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gradc/gradc.hpp>

namespace {

template <std::size_t N>
auto product_kernel() {
    auto [A, B] = gradc::variables(gradc::mat<N, N>, gradc::mat<N, N>);
    return gradc::compile(sum(tanh(A * B)));
}

template <std::size_t N>
struct problem {
    decltype(product_kernel<N>()) k = product_kernel<N>();
    std::vector<double> A = filled(1), B = filled(2), gA = std::vector<double>(N * N), gB = gA;
    static std::vector<double> filled(std::size_t seed) {
        std::vector<double> v(N * N);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.2 * std::sin(0.7 * double(i) + double(seed));
        return v;
    }
};

/// The kernel's pointer form: the arrays in a slab of the workspace.
template <class K>
double workspace_gradient(const K& k, const double* const* x, double* const* g) {
    double value;
    k.gradient_at(x, &value, g);
    return value;
}

/// The programs on arrays on the stack, as lower/array_kernel.hpp ran them before.
template <class K>
double stack_gradient(const K& k, const double* const* x, double* const* g) {
    using P = typename K::program;
    typename P::template values<double> v;
    typename P::template derivatives<double> d;
    const gradc::lower::array_frame<double, 2> f{x, v.data(), k.literals().data()};
    P::primal(f);
    const double value = P::steps::template value_of<P::output_node(0)>(f)[0];
    for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t e = 0; e < K::wrt_shape(j).size(); ++e) g[j][e] = 0;
    const double one = 1;
    const double* w = &one;
    P::adjoint(f, gradc::lower::derivative_frame<double>{g, d.data()}, &w);
    return value;
}

/// The same programs on arrays of a heap block held across calls: what the stack
/// variant costs when the compiler cannot see where the arrays are.
template <class K>
double heap_gradient(const K& k, const double* const* x, double* const* g) {
    using P = typename K::program;
    static std::vector<double> v(P::L.value_size + 1), d(P::L.derivative_size + 1);
    const gradc::lower::array_frame<double, 2> f{x, v.data(), k.literals().data()};
    P::primal(f);
    const double value = P::steps::template value_of<P::output_node(0)>(f)[0];
    for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t e = 0; e < K::wrt_shape(j).size(); ++e) g[j][e] = 0;
    const double one = 1;
    const double* w = &one;
    P::adjoint(f, gradc::lower::derivative_frame<double>{g, d.data()}, &w);
    return value;
}

template <std::size_t N, int Variant>
void BM_gradient(benchmark::State& state) {
    static_assert(decltype(product_kernel<N>())::has_workspace);
    problem<N> p;
    const double* x[2] = {p.A.data(), p.B.data()};
    double* g[2] = {p.gA.data(), p.gB.data()};
    std::vector<double> check(2 * N * N);
    double* gc[2] = {check.data(), check.data() + N * N};
    const double a = workspace_gradient(p.k, x, g), b = stack_gradient(p.k, x, gc);
    if (a != b || !std::equal(p.gA.begin(), p.gA.end(), check.begin()) ||
        !std::equal(p.gB.begin(), p.gB.end(), check.begin() + N * N)) {
        std::fprintf(stderr, "workspace benchmark: the two gradients differ (n = %zu)\n", N);
        std::exit(1);
    }
    for (auto _ : state) {
        if constexpr (Variant == 0) {
            benchmark::DoNotOptimize(workspace_gradient(p.k, x, g));
        } else if constexpr (Variant == 1) {
            benchmark::DoNotOptimize(stack_gradient(p.k, x, g));
        } else {
            benchmark::DoNotOptimize(heap_gradient(p.k, x, g));
        }
        benchmark::ClobberMemory();
    }
}

BENCHMARK(BM_gradient<48, 0>)->Name("workspace/48")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<48, 1>)->Name("stack/48")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<48, 2>)->Name("heap/48")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<128, 0>)->Name("workspace/128")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<128, 1>)->Name("stack/128")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<128, 2>)->Name("heap/128")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<256, 0>)->Name("workspace/256")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<256, 1>)->Name("stack/256")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient<256, 2>)->Name("heap/256")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
