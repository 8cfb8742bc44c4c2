// The 64-64-64-1 MLP's weight gradient at one point with LibTorch (one thread), the
// same operations as gradc's kernel: dot(u, tanh(W2 tanh(W1 x + b1) + b2)).
#include <torch/torch.h>

#include <vector>

#include "mlp_data.hpp"

namespace mlp {

struct torch_state {
    torch::Tensor W1, b1, W2, b2, u, x;
};

static torch::Tensor from(const double* p, std::vector<std::int64_t> sizes, bool grad) {
    auto t = torch::from_blob(const_cast<double*>(p), sizes, torch::kFloat64).clone();
    return t.set_requires_grad(grad);
}

double libtorch_backprop_64(const network<64, 64>& net, const std::array<double, 64>& x, std::vector<double>& grad) {
    static thread_local bool once = [] {
        at::set_num_threads(1);
        return true;
    }();
    (void)once;
    static thread_local torch_state s{from(net.l1.w.data(), {64, 64}, true), from(net.l1.b.data(), {64}, true),
                                      from(net.l2.w.data(), {64, 64}, true), from(net.l2.b.data(), {64}, true),
                                      from(net.out.data(), {64}, true), from(x.data(), {64}, false)};
    for (auto* t : {&s.W1, &s.b1, &s.W2, &s.b2, &s.u}) t->mutable_grad() = torch::Tensor();
    auto y = torch::dot(s.u, torch::tanh(torch::mv(s.W2, torch::tanh(torch::mv(s.W1, s.x) + s.b1)) + s.b2));
    y.backward();
    grad.clear();
    for (auto* t : {&s.W1, &s.b1, &s.W2, &s.b2, &s.u}) {
        auto g = t->grad().contiguous();
        grad.insert(grad.end(), g.data_ptr<double>(), g.data_ptr<double>() + g.numel());
    }
    return y.item<double>();
}

}  // namespace mlp
