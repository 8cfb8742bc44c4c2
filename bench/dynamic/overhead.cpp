// Dynamic mode against LibTorch, single thread, in the same run:
//  1. per-operation overhead: a chain of 100,000 operations on one-element tensors,
//     forward + backward, reported per operation;
//  2. an elementwise chain on 10^6 elements, forward + backward;
//  3. a 2-layer MLP on a 1000×1000 input, forward + backward.
// Each figure is the median of several runs. Built with -DGRADC_BENCH_LIBTORCH=1 and
// LibTorch available, the LibTorch columns are filled.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include <gradc/autograd.hpp>

#if GRADC_BENCH_LIBTORCH
#include <torch/torch.h>
#endif

namespace {

double median_seconds(const std::function<void()>& f, int runs) {
    std::vector<double> t;
    f();  // warm-up
    for (int i = 0; i < runs; ++i) {
        auto a = std::chrono::steady_clock::now();
        f();
        auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double>(b - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

constexpr int kScalarOps = 100000;

void gradc_scalar_chain() {
    auto x = gradc::tensor({0.5}, gradc::dtype(gradc::kFloat64).requires_grad(true));
    gradc::Tensor y = x;
    for (int i = 0; i < kScalarOps / 4; ++i) y = gradc::sin(y * 0.9 + 0.1) * 1.01;  // 4 ops
    y.backward();
}

void gradc_chain(const gradc::Tensor& x) {
    auto y = gradc::sin(x) * x + gradc::exp(-x) / (x * x + 1.0);
    y = gradc::tanh(y) * gradc::sigmoid(x);
    y.sum().backward();
}

void gradc_mlp(const gradc::Tensor& X, const gradc::Tensor& W1, const gradc::Tensor& W2, const gradc::Tensor& T) {
    auto h = gradc::relu(X.mm(W1));
    auto out = h.mm(W2);
    auto loss = gradc::pow(out - T, 2.0).mean();
    loss.backward();
}

#if GRADC_BENCH_LIBTORCH
void torch_scalar_chain() {
    auto x = torch::tensor({0.5}, torch::dtype(torch::kFloat64).requires_grad(true));
    torch::Tensor y = x;
    for (int i = 0; i < kScalarOps / 4; ++i) y = torch::sin(y * 0.9 + 0.1) * 1.01;
    y.backward();
}

void torch_chain(const torch::Tensor& x) {
    auto y = torch::sin(x) * x + torch::exp(-x) / (x * x + 1.0);
    y = torch::tanh(y) * torch::sigmoid(x);
    y.sum().backward();
}

void torch_mlp(const torch::Tensor& X, const torch::Tensor& W1, const torch::Tensor& W2, const torch::Tensor& T) {
    auto h = torch::relu(X.mm(W1));
    auto out = h.mm(W2);
    auto loss = (out - T).pow(2.0).mean();
    loss.backward();
}
#endif

}  // namespace

int main() {
    std::printf("%-34s %14s %14s %8s\n", "benchmark", "gradc", "LibTorch", "ratio");
    auto row = [](const char* name, double g, double t, const char* unit, double scale) {
        if (t > 0)
            std::printf("%-34s %11.3f %-2s %11.3f %-2s %8.2f\n", name, g * scale, unit, t * scale, unit, g / t);
        else
            std::printf("%-34s %11.3f %-2s %14s %8s\n", name, g * scale, unit, "-", "-");
    };
#if GRADC_BENCH_LIBTORCH
    torch::set_num_threads(1);
#endif
    double tg = median_seconds(gradc_scalar_chain, 5), tt = 0;
#if GRADC_BENCH_LIBTORCH
    tt = median_seconds(torch_scalar_chain, 5);
#endif
    row("per-op overhead (fwd+bwd, 1 elem)", tg / kScalarOps, tt / kScalarOps, "us", 1e6);

    for (auto dt : {gradc::kFloat32, gradc::kFloat64}) {
        gradc::manual_seed(1);
        auto x = gradc::randn({1000000}, gradc::TensorOptions().dtype(dt).requires_grad(true));
        tg = median_seconds([&] { gradc_chain(x); x.mutable_grad() = {}; }, 7);
        tt = 0;
#if GRADC_BENCH_LIBTORCH
        auto xt = torch::randn({1000000}, torch::dtype(dt == gradc::kFloat32 ? torch::kFloat32 : torch::kFloat64).requires_grad(true));
        tt = median_seconds([&] { torch_chain(xt); xt.mutable_grad() = torch::Tensor(); }, 7);
#endif
        row(dt == gradc::kFloat32 ? "elementwise chain 1e6 float32" : "elementwise chain 1e6 float64", tg, tt, "ms", 1e3);
    }

    {
        gradc::manual_seed(2);
        auto X = gradc::randn({1000, 1000}, gradc::dtype(gradc::kFloat32));
        auto W1 = (gradc::randn({1000, 100}, gradc::dtype(gradc::kFloat32)) * 0.03).detach().requires_grad_();
        auto W2 = (gradc::randn({100, 10}, gradc::dtype(gradc::kFloat32)) * 0.1).detach().requires_grad_();
        auto T = gradc::randn({1000, 10}, gradc::dtype(gradc::kFloat32));
        tg = median_seconds([&] { gradc_mlp(X, W1, W2, T); W1.mutable_grad() = {}; W2.mutable_grad() = {}; }, 7);
        tt = 0;
#if GRADC_BENCH_LIBTORCH
        auto Xt = torch::randn({1000, 1000});
        auto W1t = (torch::randn({1000, 100}) * 0.03).requires_grad_();
        auto W2t = (torch::randn({100, 10}) * 0.1).requires_grad_();
        auto Tt = torch::randn({1000, 10});
        tt = median_seconds([&] { torch_mlp(Xt, W1t, W2t, Tt); W1t.mutable_grad() = torch::Tensor(); W2t.mutable_grad() = torch::Tensor(); }, 7);
#endif
        row("2-layer MLP 1000x1000 float32", tg, tt, "ms", 1e3);
    }
}
