// Fused kernels against the same formulas as separate operations, forward + backward on
// one thread: gradc::autograd::fuse of the compiled formula, gradc's dynamic mode
// unfused, and LibTorch (libtorch.cpp) when found. Each benchmark also reports the large
// allocations (tensor buffers, allocations.hpp) of one iteration: count and megabytes.
// Run by bench/fused/run.sh, with and without --keep_memory (below).
#include <malloc.h>

#include <limits>
#include <string_view>

#include <benchmark/benchmark.h>

#include <gradc/autograd.hpp>
#include <gradc/gradc.hpp>

#include "data.hpp"
#include "measure.hpp"

namespace {

namespace fb = fused_bench;
using fb::measure;
using fb::sizes;
namespace ag = gradc::autograd;
using gradc::Tensor;
using gradc::tensor_list;

tensor_list leaves(const std::vector<fb::operand>& ops) {
    tensor_list t;
    for (const auto& o : ops) t.push_back(gradc::from_vector(o.values, gradc::Shape(o.shape.begin(), o.shape.end()), gradc::dtype(gradc::kFloat64).requires_grad(true)));
    return t;
}

template <class F>
auto compiled() {
    return std::apply([](auto... v) { return gradc::compile(F::f(v...)); }, gradc::variables<F::inputs>());
}

template <class F>
void BM_fused(benchmark::State& state) {
    gradc::set_num_threads(1);
    const tensor_list in = leaves(fb::make_operands<F>(state.range(0)));
    const auto f = ag::fuse(compiled<F>(), F::name);
    measure(state, [&] { return ag::grad({f(in).sum()}, in); });
}

template <class F>
void BM_unfused(benchmark::State& state) {
    gradc::set_num_threads(1);
    const tensor_list in = leaves(fb::make_operands<F>(state.range(0)));
    measure(state, [&] {
        const Tensor z = std::apply([](const auto&... t) { return Tensor(F::f(t...)); },
                                    [&]<std::size_t... I>(std::index_sequence<I...>) {
                                        return std::tuple{in[I]...};
                                    }(std::make_index_sequence<F::inputs>{}));
        return ag::grad({z.sum()}, in);
    });
}

}  // namespace

BENCHMARK_TEMPLATE(BM_fused, fb::black_scholes)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_unfused, fb::black_scholes)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_fused, fb::gelu_bias)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_unfused, fb::gelu_bias)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_fused, fb::normal_logpdf)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_unfused, fb::normal_logpdf)->Apply(sizes);

// `--keep_memory`: the C library keeps freed memory for the next allocation instead of
// returning it to the system (no mmap for large blocks, no trimming), for every system
// alike. Without it each large temporary is fresh memory from the system, and every page
// of it is a page fault on first touch: on this virtual machine about 5-10 µs each, which
// then dominates the figures of the unfused systems (docs/benchmarks.md).
int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--keep_memory") {
            mallopt(M_MMAP_MAX, 0);
            mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
            for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
            --argc;
            break;
        }
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
}
