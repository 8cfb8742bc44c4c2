// Several threads using the dynamic mode at once (docs/dynamic.md, "Threads"):
//  1. the autograd notes' example: each thread builds and backpropagates its own graph;
//  2. a graph built once and backpropagated by every thread (retain_graph=true), all
//     summing into one shared leaf;
//  3. data-parallel training: each thread computes the gradient of the loss on its shard
//     of the data with autograd::grad (which writes no shared .grad()), and a barrier's
//     completion step averages the gradients and updates the shared parameters, so the
//     result is the same on every run.
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include <gradc/autograd.hpp>

using gradc::Tensor;

int main() {
    // Computes in double, as numerical code does; gradc's default (LibTorch's) is float32.
    gradc::set_default_dtype(gradc::kFloat64);
    bool ok = true;
    constexpr int kThreads = 4;

    // 1. Independent graphs: d/dx sum((x+3)(x+4)/2) = x + 3.5.
    std::vector<Tensor> grads(kThreads);
    {
        std::vector<std::jthread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&grads, t] {
                auto x = gradc::full({2, 2}, static_cast<double>(t), gradc::requires_grad());
                auto y = (x + 3.0) * (x + 4.0) * 0.5;
                y.sum().backward();
                grads[t] = x.grad();
            });
    }
    for (int t = 0; t < kThreads; ++t) {
        std::cout << "thread " << t << ": x = " << t << ", x.grad[0][0] = " << grads[t][0][0].item<double>() << "\n";
        ok = ok && grads[t][0][0].item<double>() == t + 3.5;
    }

    // 2. One graph, backpropagated by every thread: the sums into x.grad are exact
    //    (AccumulateGrad takes a lock), their order is not.
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto loss = ((x + 3.0) * (x + 4.0) * 0.5).sum();
    {
        std::vector<std::jthread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&loss] {
                for (int i = 0; i < 10; ++i) loss.backward({}, /*retain_graph=*/true);
            });
    }
    std::cout << "shared graph, " << kThreads * 10 << " passes: x.grad = " << x.grad()[0].item<double>() << ", "
              << x.grad()[1].item<double>() << " (expected 40 * (x + 3.5) = 180, 220)\n";
    ok = ok && x.grad()[0].item<double>() == 180.0 && x.grad()[1].item<double>() == 220.0;

    // 3. Data-parallel linear regression: y = 2·u - 1, 400 samples in 4 shards.
    auto u = gradc::linspace(-1.0, 1.0, 400).reshape({400, 1});
    auto target = 2.0 * u - 1.0 + 0.05 * gradc::sin(7.0 * u);
    auto w = gradc::zeros({1, 1}, gradc::requires_grad());
    auto b = gradc::zeros({1}, gradc::requires_grad());
    std::vector<Tensor> shard_gw(kThreads), shard_gb(kThreads);
    const double lr = 0.5;
    int steps_done = 0;
    auto update = [&]() noexcept {
        // Runs on one thread while the others wait at the barrier.
        gradc::NoGradGuard no_grad;
        Tensor gw = shard_gw[0], gb = shard_gb[0];
        for (int t = 1; t < kThreads; ++t) {
            gw = gw + shard_gw[t];
            gb = gb + shard_gb[t];
        }
        w.sub_(lr / kThreads * gw);
        b.sub_(lr / kThreads * gb);
        ++steps_done;
    };
    std::barrier step_done(kThreads, update);
    {
        std::vector<std::jthread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                const Tensor us = gradc::narrow(u, 0, 100 * t, 100), ys = gradc::narrow(target, 0, 100 * t, 100);
                for (int step = 0; step < 100; ++step) {
                    auto l = gradc::pow(us.mm(w) + b - ys, 2.0).mean();
                    auto g = gradc::autograd::grad({l}, {w, b});
                    shard_gw[t] = g[0];
                    shard_gb[t] = g[1];
                    step_done.arrive_and_wait();
                }
            });
    }
    std::cout << "data-parallel training, " << steps_done << " steps on " << kThreads
              << " threads: w = " << w.item<double>() << ", b = " << b.item<double>() << " (data: 2u - 1)\n";
    ok = ok && std::abs(w.item<double>() - 2.0) < 0.1 && std::abs(b.item<double>() + 1.0) < 0.01;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
