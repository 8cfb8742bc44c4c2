/// LibTorch, used the natural vectorised way: length-N tensors (one per input, the
/// benchmark's arrays wrapped without a copy), the kernel as tensor operations, one
/// backward() of the sum; single-threaded like every other implementation, and with
/// the widest kernels this CPU runs, as every other implementation is compiled with
/// -march=native. The value and gradient tensors are copied into the harness's arrays
/// only in the checked pass, not in the timed ones (problem::results_needed).

#include <cstdlib>
#include <cstring>
#include <vector>

#include <torch/torch.h>

#include "bench.hpp"

namespace bench {
namespace {

torch::Tensor wrap(const double* data, std::size_t n) {
    // from_blob needs a mutable pointer; autograd never writes to a leaf's data.
    return torch::from_blob(const_cast<double*>(data), {static_cast<long>(n)}, torch::kFloat64);
}

void copy_out(const torch::Tensor& t, double* out) {
    const auto c = t.contiguous();
    std::memcpy(out, c.data_ptr<double>(), sizeof(double) * std::size_t(c.numel()));
}

template <std::size_t K, class F>
void tensor_points(const problem& p, F f) {
    std::vector<torch::Tensor> x;
    for (std::size_t j = 0; j < K; ++j) x.push_back(wrap(p.in[j], p.n).requires_grad_(true));
    const torch::Tensor y = [&]<std::size_t... j>(std::index_sequence<j...>) {
        return f(x[j]...);
    }(std::make_index_sequence<K>{});
    y.sum().backward();
    if (!p.results_needed) return;
    copy_out(y.detach(), p.out[0]);
    for (std::size_t j = 0; j < K; ++j) copy_out(x[j].grad(), p.out[1 + j]);
}

}  // namespace

void register_libtorch(registry& r) {
    // Debian's LibTorch 1.13 carries AVX-512 kernels but picks its AVX2 ones on this
    // machine's Zen 4 unless told (PyTorch's ATEN_CPU_CAPABILITY, read at the first
    // operation); a value set by the user is kept.
    setenv("ATEN_CPU_CAPABILITY", "avx512", 0);
    torch::set_num_threads(1);
    auto& impl = r["libtorch"];
    impl["seed"] = [](const problem& p) {
        tensor_points<2>(p, [](const auto&... a) { return formula::seed<torch::Tensor>(a...); });
    };
    impl["normal_logpdf"] = [](const problem& p) {
        tensor_points<3>(p, [](const auto&... a) { return formula::normal_logpdf<torch::Tensor>(a...); });
    };
    impl["black_scholes"] = [](const problem& p) {
        tensor_points<5>(p, [](const auto&... a) { return formula::black_scholes<torch::Tensor>(a...); });
    };
    impl["mlp"] = [](const problem& p) {
        tensor_points<4>(p, [](const auto&... a) { return formula::mlp<torch::Tensor>(a...); });
    };
    impl["loglik"] = [](const problem& p) {
        const auto x = wrap(p.in[0], p.n);
        auto mu = torch::tensor(loglik_mu, torch::kFloat64).requires_grad_(true);
        auto sigma = torch::tensor(loglik_sigma, torch::kFloat64).requires_grad_(true);
        const auto s = formula::normal_logpdf<torch::Tensor>(x, mu, sigma).sum();
        s.backward();
        p.out[0][0] = s.item<double>();
        p.out[1][0] = mu.grad().item<double>();
        p.out[2][0] = sigma.grad().item<double>();
    };
}

}  // namespace bench
