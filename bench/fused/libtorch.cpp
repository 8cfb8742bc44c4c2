// The fused-kernel benchmark's formulas in LibTorch, as separate operations on one thread
// (its own file: LibTorch's headers are large).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "data.hpp"
#include "measure.hpp"

namespace {

namespace fb = fused_bench;
using fb::sizes;

std::vector<torch::Tensor> leaves(const std::vector<fb::operand>& ops) {
    std::vector<torch::Tensor> t;
    for (const auto& o : ops)
        t.push_back(torch::from_blob(const_cast<double*>(o.values.data()), o.shape, torch::kFloat64).clone().requires_grad_());
    return t;
}

template <class F>
void BM_libtorch(benchmark::State& state) {
    torch::set_num_threads(1);
    const std::vector<torch::Tensor> in = leaves(fb::make_operands<F>(state.range(0)));
    const auto step = [&] {
        const torch::Tensor z = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return torch::Tensor(F::f(in[I]...));
        }(std::make_index_sequence<F::inputs>{});
        return torch::autograd::grad({z.sum()}, in);
    };
    fb::measure(state, step);
}

}  // namespace

BENCHMARK_TEMPLATE(BM_libtorch, fb::black_scholes)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_libtorch, fb::gelu_bias)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_libtorch, fb::normal_logpdf)->Apply(sizes);
