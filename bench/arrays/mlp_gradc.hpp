#pragma once
// The MLP as a gradc array kernel: sum(u ⊙ tanh(W2 tanh(W1 x + b1) + b2)), over
// variables of fixed shapes; `input_kernel` differentiates with respect to x (weights
// broadcast in batch calls), `weight_kernel` with respect to every weight.
#include <gradc/gradc.hpp>

namespace mlp {

template <std::size_t I, std::size_t H>
struct gradc_network {
    static constexpr auto vars = gradc::variables(gradc::mat<H, I>, gradc::vec<H>, gradc::mat<H, H>, gradc::vec<H>,
                                                  gradc::vec<H>, gradc::vec<I>);
    static auto output() {
        const auto& [W1, b1, W2, b2, u, x] = vars;
        return dot(u, tanh(W2 * tanh(W1 * x + b1) + b2));
    }
    static auto input_kernel() {
        const auto& [W1, b1, W2, b2, u, x] = vars;
        return gradc::compile(output(), gradc::wrt(x));
    }
    static auto weight_kernel() {
        const auto& [W1, b1, W2, b2, u, x] = vars;
        return gradc::compile(output(), gradc::wrt(W1, b1, W2, b2, u));
    }
};

}  // namespace mlp
