// Backward hooks (docs/dynamic.md, "Hooks"): gradient clipping with a tensor hook, a
// fused optimizer step in a post-accumulate-grad hook, logging with node hooks, and the
// order in which they fire.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <gradc/autograd.hpp>

using gradc::Tensor;
using gradc::tensor_list;

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    bool ok = true;
    std::vector<std::string> log;

    auto w = gradc::tensor({1.0, -2.0, 0.5}, gradc::requires_grad());
    auto x = gradc::tensor({3.0, 1.0, 4.0});
    auto h = w * x;  // non-leaf

    // Tensor hooks: clip the gradient of h to [-1, 1]; a void hook just observes.
    auto clip = h.register_hook([&](Tensor g) {
        log.push_back("tensor hook on h (clips)");
        return g.clamp(-1.0, 1.0);
    });
    h.register_hook([&](const Tensor& g) { log.push_back("tensor hook on h sees max " + std::to_string(g.max().item<double>())); });
    // Node hooks on h's grad_fn (MulBackward).
    h.grad_fn()->register_prehook([&](const tensor_list&) { log.push_back("pre-hook of " + std::string("MulBackward")); });
    h.grad_fn()->register_hook([&](const tensor_list&, const tensor_list&) { log.push_back("post-hook of MulBackward"); });
    // A fused SGD step: update w as soon as its gradient is accumulated.
    w.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
        log.push_back("post-accumulate-grad hook on w: SGD step");
        gradc::NoGradGuard no_grad;
        Tensor p = leaf;
        p.sub_(leaf.grad() * 0.1);
    });
    // One callback once every gradient of {w, h} of a pass is known.
    auto multi = gradc::autograd::register_multi_grad_hook({w, h}, [&](const tensor_list& grads) {
        log.push_back("multi-grad hook: w.grad[0] = " + std::to_string(grads[0][0].item<double>()));
    });

    (h * h).sum().backward();  // dL/dh = 2h = {6, -4, 4}, clipped to {1, -1, 1}
    for (const auto& line : log) std::cout << line << "\n";
    std::cout << "w.grad =\n" << w.grad() << "\nw after the fused step =\n" << w << "\n";
    ok = ok && w.grad()[1].item<double>() == -1.0 && std::abs(w[0].item<double>() - 0.7) < 1e-12;

    // Hooks on the leaf w persist across graphs.
    // Removing a hook: the multi-grad hook no longer fires.
    multi.remove();
    clip.remove();
    log.clear();
    w.mutable_grad() = Tensor();
    (w * x).sum().backward();  // dL/dw = x
    for (const auto& line : log) std::cout << line << "\n";
    ok = ok && log.size() == 1 && w.grad()[2].item<double>() == 4.0;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
