// Backward hooks ("Autograd mechanics" notes, "Backward Hooks execution"): tensor hooks,
// post-accumulate hooks, node pre- and post-hooks, when each fires and in which order,
// multi-grad hooks.
#include <cmath>
#include <string>
#include <vector>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;

TEST_CASE("a tensor hook on a leaf replaces or observes its gradient", "[autograd][hooks]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    std::vector<double> seen;
    auto h1 = x.register_hook([&](Tensor g) { seen = values(g); });  // void: observes
    auto h2 = x.register_hook([](Tensor g) { return g * 10.0; });
    (x * x).sum().backward();
    CHECK_THAT(seen, approx({2.0, 4.0}));
    CHECK_THAT(values(x.grad()), approx({20.0, 40.0}));
    h2.remove();
    h2.remove();  // a second remove is a no-op
    x.mutable_grad() = Tensor();
    (x * x).sum().backward();
    CHECK_THAT(values(x.grad()), approx({2.0, 4.0}));
    h1.remove();
    seen.clear();
    (x * x).sum().backward();
    CHECK(seen.empty());
}

TEST_CASE("a tensor hook on a non-leaf changes the gradient flowing on", "[autograd][hooks]") {
    auto x = gradc::tensor({3.0}, gradc::requires_grad());
    auto h = x * x;  // dh/dx = 6
    h.register_hook([](const Tensor& g) { return g + 1.0; });
    (h * 2.0).backward();  // dL/dh = 2 → 3
    CHECK(x.grad().item<double>() == 18.0);
    // Returning an undefined tensor keeps the gradient.
    auto x2 = gradc::tensor({3.0}, gradc::requires_grad());
    auto h2 = x2 * x2;
    h2.register_hook([](const Tensor&) { return Tensor(); });
    h2.backward();
    CHECK(x2.grad().item<double>() == 6.0);
}

TEST_CASE("hooks of one kind run in registration order and see each other's changes", "[autograd][hooks]") {
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    auto h = x * 1.0;
    std::vector<std::string> log;
    h.register_hook([&](const Tensor& g) {
        log.push_back("t1:" + std::to_string(g.item<double>()));
        return g * 2.0;
    });
    h.register_hook([&](const Tensor& g) {
        log.push_back("t2:" + std::to_string(g.item<double>()));
        return g + 1.0;
    });
    auto node = h.grad_fn();
    node->register_prehook([&](const tensor_list& g) {
        log.push_back("p1:" + std::to_string(g[0].item<double>()));
        return tensor_list{g[0] * 10.0};
    });
    node->register_prehook([&](const tensor_list& g) { log.push_back("p2:" + std::to_string(g[0].item<double>())); });
    node->register_hook([&](const tensor_list& gi, const tensor_list& go) {
        log.push_back("q1:" + std::to_string(gi[0].item<double>()) + "/" + std::to_string(go[0].item<double>()));
        return tensor_list{gi[0] + 5.0, gi[1]};  // x * 1.0 has two inputs
    });
    node->register_hook([&](const tensor_list& gi, const tensor_list&) { log.push_back("q2:" + std::to_string(gi[0].item<double>())); });
    h.backward();
    // 1 → ×2 → +1 = 3 → pre ×10 = 30 → MulBackward(×1) = 30 → post +5 = 35.
    CHECK(log == std::vector<std::string>{"t1:1.000000", "t2:2.000000", "p1:3.000000", "p2:30.000000",
                                          "q1:30.000000/30.000000", "q2:35.000000"});
    CHECK(x.grad().item<double>() == 35.0);
}

TEST_CASE("the notes' firing order: tensor hooks, pre-hooks, retain_grad, node, post-accumulate, post-hooks",
          "[autograd][hooks]") {
    auto x = gradc::tensor({2.0}, gradc::requires_grad());
    auto h = x * 3.0;
    h.retain_grad();
    std::vector<std::string> log;
    h.register_hook([&](const Tensor&) { log.push_back("tensor hook h"); });
    h.grad_fn()->register_prehook([&](const tensor_list&) {
        log.push_back(std::string("pre-hook h, h.grad ") + (h.grad().defined() ? "set" : "unset"));
    });
    h.grad_fn()->register_hook([&](const tensor_list&, const tensor_list&) {
        log.push_back(std::string("post-hook h, h.grad ") + (h.grad().defined() ? "set" : "unset"));
    });
    x.register_hook([&](const Tensor&) { log.push_back("tensor hook x"); });
    x.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
        log.push_back("post-accumulate x, grad " + std::to_string(leaf.grad().item<double>()));
    });
    (h * h).backward();  // dL/dh = 2h = 12, dL/dx = 36
    auto acc = gradc::autograd::grad_accumulator(x);
    CHECK(log == std::vector<std::string>{"tensor hook h", "pre-hook h, h.grad unset", "post-hook h, h.grad set",
                                          "tensor hook x", "post-accumulate x, grad 36.000000"});
    CHECK(h.grad().item<double>() == 12.0);
    // Hooks on the AccumulateGrad node: pre-hooks after tensor hooks, post-hooks after the
    // post-accumulate hooks.
    log.clear();
    x.mutable_grad() = Tensor();
    auto y = x * x;
    auto acc2 = gradc::autograd::grad_accumulator(x);
    acc2->register_prehook([&](const tensor_list&) { log.push_back("acc pre-hook"); });
    acc2->register_hook([&](const tensor_list& gi, const tensor_list&) {
        log.push_back("acc post-hook " + std::to_string(gi.size()));
    });
    y.backward();
    CHECK(log == std::vector<std::string>{"tensor hook x", "acc pre-hook", "post-accumulate x, grad 4.000000",
                                          "acc post-hook 0"});
}

TEST_CASE("post-accumulate-grad hooks see the accumulated .grad and only exist for leaves", "[autograd][hooks]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    std::vector<std::vector<double>> seen;
    auto handle = x.register_post_accumulate_grad_hook([&](const Tensor& leaf) { seen.push_back(values(leaf.grad())); });
    (x * 3.0).sum().backward();
    (x * 3.0).sum().backward();
    REQUIRE(seen.size() == 2);
    CHECK_THAT(seen[0], approx({3.0, 3.0}));
    CHECK_THAT(seen[1], approx({6.0, 6.0}));  // after accumulation
    // The hook may act on the leaf (an optimizer step fused into backward).
    x.register_post_accumulate_grad_hook([](const Tensor& leaf) {
        gradc::NoGradGuard no_grad;
        Tensor p = leaf;
        p.sub_(leaf.grad() * 0.5);
        leaf.mutable_grad() = Tensor();
    });
    x.mutable_grad() = Tensor();
    (x * 2.0).sum().backward();
    CHECK_THAT(values(x), approx({0.0, 1.0}));
    CHECK_FALSE(x.grad().defined());
    handle.remove();
    auto h = x * 2.0;
    CHECK_THAT(error_of([&] { h.register_post_accumulate_grad_hook([](const Tensor&) {}); }),
               Contains("post accumulate grad hooks cannot be registered on non-leaf tensors"));
    CHECK_THAT(error_of([] { gradc::tensor({1.0}).register_hook([](const Tensor& g) { return g; }); }),
               Contains("cannot register a hook on a tensor that doesn't require gradient"));
}

TEST_CASE("tensor hooks fire for autograd::grad inputs, node hooks only if the node runs", "[autograd][hooks]") {
    auto x = gradc::tensor({2.0}, gradc::requires_grad());
    auto h = x * x;
    auto y = h * 5.0;
    int tensor_hook = 0, pre_hook = 0, post_hook = 0, x_hook = 0;
    h.register_hook([&](const Tensor& g) {
        ++tensor_hook;
        return g * 2.0;
    });
    h.grad_fn()->register_prehook([&](const tensor_list&) { ++pre_hook; });
    h.grad_fn()->register_hook([&](const tensor_list&, const tensor_list&) { ++post_hook; });
    x.register_hook([&](const Tensor&) { ++x_hook; });
    // grad with respect to h: h's grad_fn need not run, but h's tensor hook does and its
    // result is what grad returns.
    auto gh = gradc::autograd::grad({y}, {h}, {}, true)[0];
    CHECK(gh.item<double>() == 10.0);
    CHECK(tensor_hook == 1);
    CHECK(pre_hook == 0);
    CHECK(post_hook == 0);
    CHECK(x_hook == 0);
    // grad with respect to a leaf: its AccumulateGrad does not run (no .grad), the hook fires.
    auto gx = gradc::autograd::grad({y}, {x}, {}, true)[0];
    CHECK(gx.item<double>() == 40.0);  // 5 · 2 (hook) · 2x
    CHECK(x_hook == 1);
    CHECK(pre_hook == 1);
    CHECK_FALSE(x.grad().defined());
    // backward(inputs = {h}) runs h's node anyway (the notes' difference to grad).
    y.backward({}, true, false, {h});
    CHECK(pre_hook == 2);
    CHECK(post_hook == 2);
    CHECK(h.grad().item<double>() == 10.0);
    // A node that is not run because nothing reached it: no node hooks.
    auto z = gradc::tensor({1.0}, gradc::requires_grad());
    auto w = z * 2.0;
    int w_pre = 0;
    w.grad_fn()->register_prehook([&](const tensor_list&) { ++w_pre; });
    (x * 1.0).backward();
    CHECK(w_pre == 0);
}

TEST_CASE("tensor hooks and in-place operations: a hook stays with the old grad_fn", "[autograd][hooks]") {
    // The notes' example: t = sin(1); t.cos_(); hooks before and after the in-place op.
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    auto t = x.sin();
    double before = 0, after = 0;
    t.register_hook([&](const Tensor& g) { before = g.item<double>(); });
    t.cos_();
    t.register_hook([&](const Tensor& g) { after = g.item<double>(); });
    t.backward();
    CHECK(after == 1.0);                                     // gradient w.r.t. the new value
    CHECK(before == Approx(-std::sin(std::sin(1.0))).epsilon(1e-14));  // w.r.t. the value before cos_
    CHECK(x.grad().item<double>() == Approx(-std::sin(std::sin(1.0)) * std::cos(1.0)).epsilon(1e-14));
}

TEST_CASE("node hooks may replace gradients and are removable", "[autograd][hooks]") {
    auto a = gradc::tensor({2.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0}, gradc::requires_grad());
    auto y = a * b;
    auto post = y.grad_fn()->register_hook([](const tensor_list& gi, const tensor_list&) {
        return tensor_list{gi[0], Tensor()};  // drop b's gradient
    });
    y.backward({}, true);
    CHECK(a.grad().item<double>() == 3.0);
    CHECK_FALSE(b.grad().defined());
    post.remove();
    y.backward({}, true);
    CHECK(b.grad().item<double>() == 2.0);
    auto pre = y.grad_fn()->register_prehook([](const tensor_list&) { return tensor_list{}; });  // keeps them
    y.backward({}, true);
    CHECK(b.grad().item<double>() == 4.0);
    pre.remove();
    y.grad_fn()->register_prehook([](const tensor_list& g) { return tensor_list{g[0], g[0]}; });
    CHECK_THAT(error_of([&] { y.backward({}, true); }),
               Contains("a pre-hook of MulBackward returned 2 gradients; expected 1"));
    // A handle outliving its node is harmless.
    gradc::autograd::RemovableHandle late;
    {
        auto c = a * 2.0;
        late = c.grad_fn()->register_prehook([](const tensor_list&) {});
    }
    late.remove();
}

TEST_CASE("register_multi_grad_hook fires once after the last gradient", "[autograd][hooks]") {
    auto a = gradc::tensor({2.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0}, gradc::requires_grad());
    auto h = a * b;  // a non-leaf among the tensors
    std::vector<tensor_list> calls;
    std::vector<std::string> order;
    a.register_hook([&](const Tensor&) { order.push_back("a"); });
    b.register_hook([&](const Tensor&) { order.push_back("b"); });
    auto handle = gradc::autograd::register_multi_grad_hook({a, b, h}, [&](const tensor_list& grads) {
        calls.push_back(grads);
        order.push_back("multi");
    });
    (h * h + a).backward({}, true);  // dL/dh = 2h = 12; dL/da = 12·3 + 1 = 37; dL/db = 24
    REQUIRE(calls.size() == 1);
    CHECK(calls[0][0].item<double>() == 37.0);
    CHECK(calls[0][1].item<double>() == 24.0);
    CHECK(calls[0][2].item<double>() == 12.0);
    CHECK(order.back() == "multi");
    CHECK(order.size() == 3);
    // A pass that computes only some of the gradients: the others are undefined.
    calls.clear();
    auto g = gradc::autograd::grad({h * 2.0}, {a}, {}, true)[0];
    CHECK(g.item<double>() == 6.0);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0][0].item<double>() == 6.0);
    CHECK_FALSE(calls[0][1].defined());
    CHECK(calls[0][2].item<double>() == 2.0);
    // A pass whose graph does not contain one of the tensors (h): the others suffice.
    calls.clear();
    auto c = gradc::tensor({1.0}, gradc::requires_grad());
    auto m = gradc::stack({a * 1.0, c}).sum();
    (b * 2.0 + m).backward();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0][0].item<double>() == 1.0);
    CHECK(calls[0][1].item<double>() == 2.0);
    CHECK_FALSE(calls[0][2].defined());
    handle.remove();
    calls.clear();
    (h * h).backward();
    CHECK(calls.empty());
}

TEST_CASE("tensor hooks and node post-hooks match PyTorch", "[autograd][hooks][reference]") {
    auto x = ref_tensor("hooks.chain.x", {2}, gradc::requires_grad());
    auto h = x.exp();
    h.register_hook([](const Tensor& g) { return g * 2.0; });
    h.register_hook([](const Tensor& g) { return g + 1.0; });
    h.grad_fn()->register_hook([](const tensor_list& gi, const tensor_list&) { return tensor_list{gi[0] * 3.0}; });
    (h * h).sum().backward();
    CHECK_THAT(values(x.grad()), matches("hooks.chain.grad"));

    auto x1 = gradc::tensor({1.0}, gradc::requires_grad());
    auto t = x1.sin();
    Tensor before;
    t.register_hook([&](const Tensor& g) { before = g.clone(); });
    t.cos_();
    t.backward();
    CHECK_THAT(values(before), matches("hooks.inplace.before"));
    CHECK_THAT(values(x1.grad()), matches("hooks.inplace.grad"));
}

namespace {
// Sends no gradient to b although b is reachable.
struct FirstOnly : gradc::autograd::Function<FirstOnly> {
    static Tensor forward(gradc::autograd::AutogradContext*, Tensor a, Tensor b) { return a * b; }
    static tensor_list backward(gradc::autograd::AutogradContext*, tensor_list g) { return {g[0], Tensor()}; }
};
}  // namespace

TEST_CASE("a multi-grad hook whose tensor is reached without a gradient runs at the end of the pass",
          "[autograd][hooks]") {
    auto a = gradc::tensor({2.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0}, gradc::requires_grad());
    std::vector<tensor_list> calls;
    bool inside_pass = false;
    gradc::autograd::register_multi_grad_hook({a, b}, [&](const tensor_list& grads) {
        calls.push_back(grads);
        inside_pass = gradc::autograd::current_graph_task_id() != 0;
    });
    FirstOnly::apply(a, b).backward();
    REQUIRE(calls.size() == 1);
    CHECK(calls[0][0].item<double>() == 1.0);
    CHECK_FALSE(calls[0][1].defined());
    CHECK(inside_pass);
    // Outside a pass.
    CHECK(gradc::autograd::current_graph_task_id() == 0);
    CHECK_FALSE(gradc::autograd::will_engine_execute_node(a.grad_fn().get()));
    CHECK_THAT(error_of([] { gradc::autograd::queue_callback([] {}); }), Contains("no backward pass is running"));
}

TEST_CASE("queue_callback runs after the graph, and will_engine_execute_node follows the pass", "[autograd][hooks]") {
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    auto z = gradc::tensor({1.0}, gradc::requires_grad());
    auto h = x * 2.0;
    auto other = z * 3.0;
    std::vector<std::string> log;
    bool h_node = false, other_node = true, x_acc = false;
    auto y = h * h;
    h.register_hook([&](const Tensor&) {
        h_node = gradc::autograd::will_engine_execute_node(h.grad_fn().get());
        other_node = gradc::autograd::will_engine_execute_node(other.grad_fn().get());
        x_acc = gradc::autograd::will_engine_execute_node(gradc::autograd::grad_accumulator(x).get());
        gradc::autograd::queue_callback([&] { log.push_back("callback, x.grad " + std::string(x.grad().defined() ? "set" : "unset")); });
        log.push_back("hook");
    });
    y.backward();
    CHECK(h_node);
    CHECK_FALSE(other_node);
    CHECK(x_acc);
    CHECK(log == std::vector<std::string>{"hook", "callback, x.grad set"});
}
