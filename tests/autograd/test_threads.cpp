// Several threads using the dynamic mode at once ("Autograd mechanics" notes,
// "Multithreaded Autograd"): backward and grad on independent graphs and on a shared graph
// kept with retain_graph, a shared graph freed by one thread while others use it, hooks,
// retained gradients, custom functions and views reached from several threads. Built as its
// own executable so that scripts/test can also run it under ThreadSanitizer; the iteration
// counts are sized for that (a TSan run is 5-15x slower).
//
// Catch2's assertions are not thread-safe: the threads record what went wrong in a
// Failures list, which the test thread checks after joining them.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <latch>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;

namespace {

constexpr int kThreads = 8;

class Failures {
public:
    void add(std::string what) {
        std::lock_guard<std::mutex> lock(mutex_);
        list_.push_back(std::move(what));
    }
    std::vector<std::string> list() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return list_;
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> list_;
};

// Runs body(i) for i < n on n threads that start together (so that they contend).
// An exception escaping body is a failure, not a crash.
template <class F>
void on_threads(int n, Failures& failures, F body) {
    std::latch start(n);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            start.arrive_and_wait();
            try {
                body(i);
            } catch (const std::exception& e) {
                failures.add("thread " + std::to_string(i) + " threw: " + e.what());
            }
        });
    for (auto& t : threads) t.join();
}

void check_no_failures(const Failures& failures) {
    const auto list = failures.list();
    for (std::size_t i = 0; i < std::min<std::size_t>(list.size(), 5); ++i) UNSCOPED_INFO(list[i]);
    CHECK(list.empty());
}

// x = -6, -5.5, ..., 6 (+ shift): every value below is a small multiple of 1/4, so each
// gradient and each sum of gradients is exact in float64 whatever the order of the sums.
std::vector<double> grid(double shift) {
    std::vector<double> v;
    for (int i = 0; i < 25; ++i) v.push_back(-6.0 + 0.5 * i + shift);
    return v;
}

// The notes' example. d/dx sum((x+3)(x+4)/2) = x + 3.5.
Tensor notes_example(const Tensor& x) { return ((x + 3.0) * (x + 4.0) * 0.5).sum(); }

std::vector<double> scaled_derivative(const std::vector<double>& x, double times) {
    std::vector<double> out;
    for (double v : x) out.push_back(times * (v + 3.5));
    return out;
}

bool is_retain_graph_error(const gradc::Error& e) {
    return std::string(e.what()).find("retain_graph=true") != std::string::npos;
}

}  // namespace

TEST_CASE("backward on independent graphs from 8 threads gives each its exact gradient", "[autograd][threads]") {
    constexpr int kIterations = 300;
    Failures failures;
    on_threads(kThreads, failures, [&](int t) {
        const auto xv = grid(t);
        const auto expected = scaled_derivative(xv, 1.0);
        for (int it = 0; it < kIterations; ++it) {
            auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
            notes_example(x).backward();
            if (values(x.grad()) != expected) failures.add("thread " + std::to_string(t) + ": wrong x.grad");
            // A second pass over the same private graph accumulates.
            auto y = notes_example(x);
            y.backward({}, true);
            y.backward();
            if (values(x.grad()) != scaled_derivative(xv, 3.0))
                failures.add("thread " + std::to_string(t) + ": wrong accumulated x.grad");
        }
    });
    check_no_failures(failures);
}

TEST_CASE("backward on a shared graph with retain_graph sums exactly into the shared leaf", "[autograd][threads]") {
    constexpr int kIterations = 300;
    const auto xv = grid(0);
    auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
    auto s = notes_example(x);  // built once, backpropagated by every thread
    std::atomic<int> tensor_hook_calls{0};
    x.register_hook([&](const Tensor&) { ++tensor_hook_calls; });
    // Post-accumulate-grad hooks run under the AccumulateGrad lock: each sees the sum its
    // own pass just made, and they may share state without a lock of their own.
    std::vector<double> seen;
    x.register_post_accumulate_grad_hook([&](const Tensor& leaf) { seen.push_back(values(leaf.grad())[0]); });

    Failures failures;
    on_threads(kThreads, failures, [&](int) {
        for (int it = 0; it < kIterations; ++it) s.backward({}, true);
    });
    check_no_failures(failures);
    const int passes = kThreads * kIterations;
    CHECK(values(x.grad()) == scaled_derivative(xv, passes));
    CHECK(tensor_hook_calls == passes);
    // Every partial sum 1·g, 2·g, ..., passes·g was seen exactly once (g = x[0] + 3.5).
    REQUIRE(seen.size() == static_cast<std::size_t>(passes));
    std::sort(seen.begin(), seen.end(), [](double a, double b) { return a > b; });  // g < 0
    for (int k = 0; k < passes; ++k) CHECK(seen[k] == (k + 1) * (xv[0] + 3.5));
}

TEST_CASE("autograd::grad on a shared graph from 8 threads, first and second order", "[autograd][threads]") {
    constexpr int kIterations = 100;
    const auto xv = grid(0.5);
    auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
    auto s = notes_example(x);
    const auto expected = scaled_derivative(xv, 1.0);
    Failures failures;
    on_threads(kThreads, failures, [&](int t) {
        for (int it = 0; it < kIterations; ++it) {
            // grad touches no .grad(): the results are deterministic (the notes' advice for Hogwild).
            auto g = gradc::autograd::grad({s}, {x}, {}, true)[0];
            if (values(g) != expected) failures.add("thread " + std::to_string(t) + ": wrong grad");
            // create_graph records a new graph on top of the shared one's saved tensors.
            auto g2 = gradc::autograd::grad({s}, {x}, {}, true, true)[0];
            auto h = gradc::autograd::grad({g2.sum()}, {x})[0];
            if (values(h) != std::vector<double>(25, 1.0)) failures.add("thread " + std::to_string(t) + ": wrong second derivative");
        }
    });
    check_no_failures(failures);
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("a shared graph freed by one thread gives the others the retain_graph error, never a crash",
          "[autograd][threads]") {
    constexpr int kIterations = 60;
    for (int round = 0; round < 4; ++round) {
        const auto xv = grid(0);
        auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
        auto s = notes_example(x);
        // A node that saved tensors: inspecting them races with the freeing too.
        auto mul = s.grad_fn()->next_edges()[0].function->next_edges()[0].function;
        REQUIRE(mul->name() == "MulBackward");
        REQUIRE_FALSE(mul->saved_names().empty());
        const std::string saved_name = mul->saved_names()[0];
        std::atomic<int> successes{0}, errors{0}, inspections_failed{0};
        Failures failures;
        on_threads(kThreads, failures, [&](int t) {
            for (int it = 0; it < kIterations; ++it) {
                try {
                    if (t == 0 && it == round * 5) {
                        s.backward({}, false);  // frees the saved tensors of the shared graph
                    } else if (t == 1) {
                        (void)mul->saved(saved_name);
                        continue;
                    } else {
                        s.backward({}, true);
                    }
                    ++successes;
                } catch (const gradc::Error& e) {
                    if (!is_retain_graph_error(e)) failures.add(std::string("unexpected error: ") + e.what());
                    (t == 1 ? inspections_failed : errors)++;
                }
            }
        });
        check_no_failures(failures);
        // Each pass either ran to the end or stopped before reaching x's AccumulateGrad
        // (x's gradient arrives last, summed over both paths): no partial sums.
        CHECK(values(x.grad()) == scaled_derivative(xv, successes.load()));
        CHECK(successes >= 1);
        CHECK(errors + successes == (kThreads - 1) * kIterations);
        CHECK_THAT(error_of([&] { s.backward({}, true); }), Contains("retain_graph=true"));
        CHECK_THAT(error_of([&] { (void)mul->saved(saved_name); }), Contains("retain_graph=true"));
    }
}

TEST_CASE("autograd::grad on a graph being freed returns the right value or the retain_graph error",
          "[autograd][threads]") {
    constexpr int kIterations = 60;
    const auto xv = grid(-1);
    auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
    auto s = notes_example(x);
    const auto expected = scaled_derivative(xv, 1.0);
    std::atomic<int> successes{0}, errors{0};
    Failures failures;
    on_threads(kThreads, failures, [&](int t) {
        for (int it = 0; it < kIterations; ++it) {
            try {
                auto g = gradc::autograd::grad({s}, {x}, {}, !(t == 0 && it == 3))[0];
                if (values(g) != expected) failures.add("wrong gradient");
                ++successes;
            } catch (const gradc::Error& e) {
                if (!is_retain_graph_error(e)) failures.add(std::string("unexpected error: ") + e.what());
                ++errors;
            }
        }
    });
    check_no_failures(failures);
    CHECK(successes + errors == kThreads * kIterations);
    CHECK(errors > 0);  // thread 0 itself fails after freeing the graph
}

TEST_CASE("hooks fire from several threads and may be added and removed meanwhile", "[autograd][threads]") {
    constexpr int kIterations = 200;
    const auto xv = grid(1);
    auto x = gradc::from_vector(xv, {5, 5}, gradc::requires_grad());
    auto a = x + 3.0, b = x + 4.0;
    auto s = (a * b * 0.5).sum();
    std::atomic<int> pre_hook{0}, post_hook{0}, multi{0}, tensor_hook{0}, churn{0};
    s.grad_fn()->register_prehook([&](const tensor_list&) { ++pre_hook; });
    a.grad_fn()->register_hook([&](const tensor_list&, const tensor_list&) { ++post_hook; });
    // Once per pass, after both a's and b's gradients: keyed by each thread's pass.
    auto handle = gradc::autograd::register_multi_grad_hook({a, b}, [&](const tensor_list& g) {
        if (g[0].defined() && g[1].defined()) ++multi;
    });
    b.register_hook([&](const Tensor& g) { return g * 1.0; });  // a replacing hook: same value
    x.register_hook([&](const Tensor&) { ++tensor_hook; });
    Failures failures;
    on_threads(kThreads, failures, [&](int t) {
        if (t == kThreads - 1) {
            // Registers and removes hooks on the nodes and the leaf the others are running.
            for (int it = 0; it < kIterations * 4; ++it) {
                auto h1 = s.grad_fn()->register_prehook([&](const tensor_list&) { ++churn; });
                auto h2 = x.register_hook([&](const Tensor&) { ++churn; });
                auto h3 = a.register_hook([&](const Tensor& g) { return g; });
                auto h4 = x.register_post_accumulate_grad_hook([&](const Tensor&) { ++churn; });
                h1.remove();
                h2.remove();
                h3.remove();
                h4.remove();
            }
            return;
        }
        for (int it = 0; it < kIterations; ++it) s.backward({}, true);
    });
    check_no_failures(failures);
    const int passes = (kThreads - 1) * kIterations;
    CHECK(pre_hook == passes);
    CHECK(post_hook == passes);
    CHECK(multi == passes);
    CHECK(tensor_hook == passes);
    CHECK(values(x.grad()) == scaled_derivative(xv, passes));
    handle.remove();
}

TEST_CASE("threads recording on a fresh shared leaf at once share one AccumulateGrad", "[autograd][threads]") {
    constexpr int kRounds = 40;
    Failures failures;
    for (int round = 0; round < kRounds; ++round) {
        auto w = gradc::from_vector({1.0, 2.0}, {2}, gradc::requires_grad());
        std::vector<const gradc::autograd::Node*> seen(kThreads);
        std::latch recorded(kThreads);
        on_threads(kThreads, failures, [&](int t) {
            auto y = w * 2.0;  // the first use of w creates its AccumulateGrad
            seen[t] = y.grad_fn()->next_edges()[0].function.get();
            recorded.arrive_and_wait();  // keep every y alive until all have looked
            y.sum().backward();
        });
        CHECK(std::count(seen.begin(), seen.end(), seen[0]) == kThreads);
        CHECK(values(w.grad()) == std::vector<double>{2.0 * kThreads, 2.0 * kThreads});
    }
    check_no_failures(failures);
}

TEST_CASE("retain_grad on a shared non-leaf from several threads", "[autograd][threads]") {
    constexpr int kRounds = 30, kIterations = 10;
    {
        // Two threads racing past the retains_grad flag both reach the node, which keeps
        // one registration (the race itself is too narrow to hit reliably below).
        auto x = gradc::from_vector({1.0}, {1}, gradc::requires_grad());
        auto h = x * 2.0;
        h.grad_fn()->add_retained_grad(h.output_nr(), h.impl());
        h.retain_grad();
        (h * 3.0).sum().backward();
        CHECK(values(h.grad()) == std::vector<double>{3.0});
    }
    Failures failures;
    for (int round = 0; round < kRounds; ++round) {
        auto x = gradc::from_vector({1.0, -2.0, 0.5}, {3}, gradc::requires_grad());
        auto h = x * 2.0;
        auto s = (h * h).sum();  // ds/dh = 2h
        on_threads(kThreads, failures, [&](int) {
            h.retain_grad();  // all threads at once: registered once
            for (int it = 0; it < kIterations; ++it) s.backward({}, true);
        });
        const double passes = kThreads * kIterations;
        CHECK(h.retains_grad());
        // Each thread's passes start after its own retain_grad returned, so all of them
        // see it, and it was registered once (twice would add more into h.grad).
        CHECK(values(h.grad()) == std::vector<double>{4.0 * passes, -8.0 * passes, 2.0 * passes});
        CHECK(values(x.grad()) == std::vector<double>{8.0 * passes, -16.0 * passes, 4.0 * passes});  // 2·2h
    }
    check_no_failures(failures);
}

namespace {
// Its backward counts its calls in a plain int: custom nodes run one thread at a time
// (PyTorch's guarantee for C++ custom functions), so no lock of its own is needed.
struct CountedSquare : gradc::autograd::Function<CountedSquare> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        ctx->saved_data["calls"] = 0;
        return x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        ctx->saved_data["calls"] = ctx->saved_data["calls"].toInt() + 1;
        auto x = ctx->get_saved_variables()[0];
        return {2.0 * x * g[0]};
    }
};
}  // namespace

TEST_CASE("a custom function's backward on a shared graph runs one thread at a time", "[autograd][threads]") {
    constexpr int kIterations = 200;
    auto x = gradc::from_vector({1.5, -0.5}, {2}, gradc::requires_grad());
    auto y = CountedSquare::apply(x);
    auto s = y.sum();
    Failures failures;
    on_threads(kThreads, failures, [&](int) {
        for (int it = 0; it < kIterations; ++it) s.backward({}, true);
    });
    check_no_failures(failures);
    auto node = std::dynamic_pointer_cast<gradc::autograd::CustomNodeBase>(y.grad_fn());
    REQUIRE(node);
    const int passes = kThreads * kIterations;
    CHECK(node->context().saved_data["calls"].toInt() == passes);
    CHECK(values(x.grad()) == std::vector<double>{3.0 * passes, -1.0 * passes});
}

TEST_CASE("a shared view made stale by an in-place operation is refreshed once", "[autograd][threads]") {
    constexpr int kRounds = 20;
    Failures failures;
    for (int round = 0; round < kRounds; ++round) {
        auto x = gradc::from_vector({1.0, 2.0, 3.0, 4.0}, {4}, gradc::requires_grad());
        auto a = x * 1.0;
        auto v = gradc::narrow(a, 0, 1, 2);
        a.mul_(2.0);  // v's history must now go through the new history of a
        std::vector<const gradc::autograd::Node*> seen(kThreads);
        on_threads(kThreads, failures, [&](int t) {
            auto g = gradc::autograd::grad({v.sum()}, {x}, {}, true)[0];
            if (values(g) != std::vector<double>{0.0, 2.0, 2.0, 0.0}) failures.add("wrong gradient through the view");
            seen[t] = v.grad_fn().get();
        });
        CHECK(std::count(seen.begin(), seen.end(), seen[0]) == kThreads);
    }
    check_no_failures(failures);
}

TEST_CASE("random tensors drawn from several threads each take a whole run of the generator", "[autograd][threads]") {
    constexpr int kDraws = 20, kSize = 16;
    gradc::manual_seed(11);
    std::vector<std::vector<double>> drawn(kThreads * kDraws);
    Failures failures;
    on_threads(kThreads, failures, [&](int t) {
        for (int d = 0; d < kDraws; ++d) drawn[t * kDraws + d] = values(gradc::rand({kSize}));
    });
    check_no_failures(failures);
    gradc::manual_seed(11);
    std::vector<std::vector<double>> sequential;
    for (int d = 0; d < kThreads * kDraws; ++d) sequential.push_back(values(gradc::rand({kSize})));
    std::sort(drawn.begin(), drawn.end());
    std::sort(sequential.begin(), sequential.end());
    CHECK(drawn == sequential);
}

namespace {

// The stress test's iterations per thread: small in the test suite (it also runs under
// ThreadSanitizer), set by scripts/stress through GRADC_STRESS_ITERATIONS for full counts.
int stress_iterations() {
    if (const char* s = std::getenv("GRADC_STRESS_ITERATIONS")) return std::max(1, std::atoi(s));
    return 40;
}

// Shared leaves and one shared graph over them, with hooks on the leaves and on a node:
// what every thread of the stress test uses at once, and the serial run repeats alone.
struct StressScene {
    Tensor w = gradc::from_vector({0.5, -1.0, 1.5, 2.0}, {4}, gradc::requires_grad());
    Tensor b = gradc::from_vector({0.25, 0.75, -0.5, 1.0}, {4}, gradc::requires_grad());
    Tensor shared;  // sum((w·b + w)·w): kept with retain_graph, backpropagated by all
    std::atomic<long> w_hook_calls{0}, b_post_hook_calls{0}, node_hook_calls{0};

    StressScene() {
        auto h = w * b + w;
        // A replacing hook on a non-leaf of the shared graph (the identity, so the values
        // stay exact) and a pre-hook on its node.
        h.register_hook([](const Tensor& g) { return g * 1.0; });
        shared = (h * w).sum();
        shared.grad_fn()->register_prehook([this](const tensor_list&) { ++node_hook_calls; });
        w.register_hook([this](const Tensor&) { ++w_hook_calls; });
        b.register_post_accumulate_grad_hook([this](const Tensor&) { ++b_post_hook_calls; });
    }

    // One iteration of one thread: a private graph over the shared leaves and the thread's
    // own leaf x, then a pass over the shared graph, then autograd::grad on it (which
    // touches no .grad()). Every value is a multiple of 1/16 far below 2^40, so sums are
    // exact in any order and the threaded result must equal the serial one bit for bit.
    void iterate(const Tensor& x, Failures& failures, const std::vector<double>& expected_grad_of_shared) {
        ((w * x + b) * (w - 0.5)).sum().backward();
        shared.backward({}, true);
        auto g = gradc::autograd::grad({shared}, {w}, {}, true)[0];
        if (values(g) != expected_grad_of_shared) failures.add("autograd::grad on the shared graph differs");
    }
};

struct StressResult {
    std::vector<double> w_grad, b_grad;
    std::vector<std::vector<double>> x_grads;
    long w_hook_calls, b_post_hook_calls, node_hook_calls;
    bool operator==(const StressResult&) const = default;
};

StressResult run_stress(int threads, int iterations, bool concurrent) {
    StressScene scene;
    const auto expected_shared = values(gradc::autograd::grad({scene.shared}, {scene.w}, {}, true)[0]);
    scene.w_hook_calls = scene.node_hook_calls = scene.b_post_hook_calls = 0;  // count the iterations' calls only
    std::vector<Tensor> xs;
    for (int t = 0; t < threads; ++t)
        xs.push_back(gradc::from_vector({1.0 + t, -0.5, 0.25 * t, 2.0}, {4}, gradc::requires_grad()));
    Failures failures;
    if (concurrent) {
        on_threads(threads, failures, [&](int t) {
            for (int it = 0; it < iterations; ++it) scene.iterate(xs[t], failures, expected_shared);
        });
    } else {
        for (int t = 0; t < threads; ++t)
            for (int it = 0; it < iterations; ++it) scene.iterate(xs[t], failures, expected_shared);
    }
    check_no_failures(failures);
    StressResult r{values(scene.w.grad()), values(scene.b.grad()), {}, scene.w_hook_calls, scene.b_post_hook_calls,
                   scene.node_hook_calls};
    for (const auto& x : xs) r.x_grads.push_back(values(x.grad()));
    return r;
}

}  // namespace

TEST_CASE("stress: threads backpropagating through shared and private graphs into shared leaves equal the serial run",
          "[autograd][threads][stress]") {
    const int iterations = stress_iterations();
    const StressResult serial = run_stress(kThreads, iterations, false);
    const StressResult threaded = run_stress(kThreads, iterations, true);
    // The hooks fire as often per iteration as in one iteration alone.
    const StressResult one = run_stress(1, 1, false);
    const long passes = long(kThreads) * iterations;
    CHECK(one.w_hook_calls > 0);
    CHECK(one.node_hook_calls > 0);
    CHECK(one.b_post_hook_calls > 0);
    CHECK(serial.w_hook_calls == one.w_hook_calls * passes);
    CHECK(serial.node_hook_calls == one.node_hook_calls * passes);
    CHECK(serial.b_post_hook_calls == one.b_post_hook_calls * passes);
    // b's gradient does not depend on the thread's own leaf: no pass was lost or doubled.
    for (std::size_t i = 0; i < serial.b_grad.size(); ++i) CHECK(serial.b_grad[i] == one.b_grad[i] * double(passes));
    CHECK(threaded == serial);
}
