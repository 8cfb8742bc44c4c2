// More LibTorch code ported by renaming `torch::` to `gradc::`, under LibTorch's default
// dtype (float32): the default dtype itself, var/std/norm over dimensions, torch::indexing,
// shallow copies, custom functions (mark_non_differentiable, set_materialize_grads,
// UndefinedGrad, nesting, reentrant backward), hooks by position, anomaly mode and
// warnings. Expected values come from PyTorch (reference/generate_libtorch.py).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "libtorch_style.hpp"

using namespace libtorch_style;
using namespace torch::indexing;

namespace {

torch::Shape shape_of(const std::string& name) {
    torch::Shape s;
    for (double d : expected(name)) s.push_back(static_cast<std::int64_t>(d));
    return s;
}

Tensor leaf(const std::string& name, const torch::Shape& shape) {
    return ref_tensor(name, shape, torch::requires_grad());
}

// Collects warnings instead of printing them (c10's WarningHandler, here gradc's).
struct CollectWarnings : torch::WarningHandler {
    std::vector<std::string> seen;
    void process(const torch::Warning& w) override { seen.push_back(w.msg()); }
};

}  // namespace

TEST_CASE("the default dtype is float32, as in LibTorch, and can be changed", "[autograd][libtorch]") {
    CHECK(torch::get_default_dtype() == torch::kFloat);
    CHECK(torch::randn({2, 3}).dtype() == torch::kFloat);
    CHECK(torch::tensor({1.0, 2.0}).dtype() == torch::kFloat);
    CHECK(torch::tensor({1.0f}).dtype() == torch::kFloat);
    CHECK(torch::tensor({1, 2}).dtype() == torch::kLong);
    CHECK(torch::tensor({std::complex<double>(1, 2)}).dtype() == torch::kComplexFloat);
    CHECK((torch::tensor({1, 2}) * 2.5).dtype() == torch::kFloat);
    auto x = torch::randn({3});
    CHECK(x.data_ptr<float>() != nullptr);  // what PyTorch's own C++ tests do
    {
        torch::DefaultDtypeGuard as_double(torch::kDouble);
        CHECK(torch::tensor({1.0f}).dtype() == torch::kDouble);  // LibTorch: the default, not the C++ type
        CHECK(torch::ones(2).dtype() == torch::kDouble);
        CHECK(torch::tensor({std::complex<double>(1, 2)}).dtype() == torch::kComplexDouble);
    }
    CHECK(torch::get_default_dtype() == torch::kFloat);
    torch::set_default_dtype(torch::kDouble);
    CHECK(torch::zeros({1}).dtype() == torch::kDouble);
    CHECK_THAT(error_of([] { torch::set_default_dtype(torch::kLong); }),
               Contains("only floating-point types are supported as the default type"));
    CHECK(torch::get_default_dtype() == torch::kDouble);  // unchanged by the refusal
    torch::set_default_dtype(torch::kFloat);
}

TEST_CASE("var, std and norm over dimensions, with their gradients", "[autograd][libtorch]") {
    const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> cases = {
        {"var_all", [](const Tensor& t) { return t.var(); }},
        {"var_all_biased", [](const Tensor& t) { return t.var(/*unbiased=*/false); }},
        {"var_dim1", [](const Tensor& t) { return t.var(1); }},
        {"std_all", [](const Tensor& t) { return torch::std(t); }},
        {"std_dim0_keep", [](const Tensor& t) { return t.std({0}, true, true); }},
        {"std_dim1_biased", [](const Tensor& t) { return t.std(1, false); }},
        {"norm_p3_dim1", [](const Tensor& t) { return t.norm(3, 1); }},
        {"norm_p2_dim0_keep", [](const Tensor& t) { return t.norm(2, {0}, true); }},
    };
    for (const auto& [name, f] : cases) {
        INFO(name);
        auto t = leaf("stat.x", {3, 4});
        auto y = f(t);
        CHECK(y.sizes() == shape_of("stat." + name + ".shape"));
        auto w = torch::arange(1, y.numel() + 1).reshape(y.sizes());
        (y * w).sum().backward();
        CHECK_THAT(values(y), matches_float("stat." + name + ".y"));
        CHECK_THAT(values(t.grad()), matches_float("stat." + name + ".grad"));
    }
    auto c = torch::tensor({{1.0, 1.0, 1.0}, {0.5, 1.5, 2.5}}, torch::requires_grad());
    c.std(1).sum().backward();
    CHECK_THAT(values(c.grad()), matches_float("stat.std_constant.grad"));  // 0 where std is 0
    CHECK(std::isnan(torch::tensor({2.0}).var().item<double>()) == (ref_scalar("stat.var_one_element_isnan") == 1.0));
    CHECK_THAT(error_of([] { torch::tensor({1, 2}).var(); }), Contains("var: expected a floating or complex tensor"));
    CHECK_THAT(error_of([] { torch::ones({2, 2}).std({1, -1}); }), Contains("std: dim -1 appears multiple times in [1, -1]"));
}

TEST_CASE("torch::indexing: index, index_put_ and assignment through a temporary", "[autograd][libtorch]") {
    auto ix = leaf("stat.x", {3, 4});
    const std::vector<std::pair<std::string, Tensor>> parts = {
        {"rows_step", ix.index({Slice(0, None, 2)})},
        {"col1", ix.index({Slice(), 1})},
        {"none_mid", ix.index({1, None, Slice(1, 3)})},
        {"ellipsis", ix.index({Ellipsis, -1})},
        {"tensor_idx", ix.index({Slice(), torch::tensor({3, 0, 3})})},
        {"tensor_2d", ix.index({torch::tensor({{2, 0}, {1, 1}})})},
        {"bool_true", ix.index({true, 0})},
    };
    Tensor total = torch::zeros({});
    double k = 1;
    for (const auto& [name, v] : parts) {
        INFO(name);
        CHECK(v.sizes() == shape_of("index." + name + ".shape"));
        CHECK_THAT(values(v), matches_float("index." + name));
        total = total + (v * k++).sum();
    }
    total.backward();
    CHECK_THAT(values(ix.grad()), matches_float("index.grad"));

    auto z = torch::zeros({3, 4});
    z.index_put_({1, Slice(1, 3)}, 5.0);
    z.index_put_({Ellipsis, 0}, torch::tensor({1.0, 2.0, 3.0}));
    z[2][3] = 7.0;
    z[0] = torch::tensor({0.5, 0.25, 0.125, 0.0625});
    CHECK_THAT(values(z), matches_float("index_put.z"));

    auto a = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::requires_grad());
    auto v = torch::tensor({10.0, 20.0}, torch::requires_grad());
    auto b = a * 2;
    b.index_put_({Slice(1, 3)}, v * 3);
    b[0] = 9.0;
    (b * torch::tensor({1.0, 2.0, 3.0, 4.0})).sum().backward();
    CHECK_THAT(values(b), matches_float("index_put.b"));
    CHECK_THAT(values(a.grad()), matches_float("index_put.a.grad"));
    CHECK_THAT(values(v.grad()), matches_float("index_put.v.grad"));

    CHECK_THAT(error_of([&] { ix.index({0, 0, 0}); }), Contains("too many indices for tensor of dimension 2 (got 3)"));
    CHECK_THAT(error_of([&] { ix.index({Ellipsis, 0, Ellipsis}); }), Contains("a single ellipsis"));
    CHECK_THAT(error_of([&] { ix.index({5}); }), Contains("index 5 is out of bounds for dimension 0 with size 3"));
    CHECK_THAT(error_of([&] { ix.index({ix > 0}); }), Contains("boolean mask indices are not supported"));
    CHECK_THAT(error_of([&] { z.index_put_({torch::tensor({0})}, 1.0); }), Contains("index_put_: tensor indices are not supported"));
    CHECK_THAT(error_of([&] { ix[0] = 1.0; }), Contains("a view of a leaf Variable that requires grad is being used in an in-place"));
    const std::vector<double> z_before = values(z);
    CHECK_THAT(error_of([&] { z.index_put_({0}, torch::ones({5})); }), Contains("copy_"));
    CHECK(values(z) == z_before);  // a refused write changes nothing
}

TEST_CASE("accessor, from_blob and the shallow copies", "[autograd][libtorch]") {
    auto m = torch::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    auto acc = m.accessor<float, 2>();
    CHECK(acc.size(0) == 2);
    CHECK(acc[1][2] == 6.0f);
    acc[0][1] = 20.0f;
    CHECK(m[0][1].item<float>() == 20.0f);
    auto mt = m.t();
    CHECK(mt.accessor<float, 2>()[2][1] == 6.0f);  // through the strides
    CHECK_THAT(error_of([&] { m.accessor<double, 2>(); }), Contains("accessor: expected element type Double"));
    CHECK_THAT(error_of([&] { m.accessor<float, 3>(); }), Contains("accessor: expected 3 dims but tensor has 2"));

    std::vector<float> blob{1, 2, 3, 4, 5, 6};
    auto b = torch::from_blob(blob.data(), {2, 3});
    CHECK(b.dtype() == torch::kFloat);
    b.mul_(2);
    CHECK(blob[5] == 12.0f);  // no copy: the caller's memory changed
    std::vector<double> strided{1, 2, 3, 4, 5, 6};
    auto col = torch::from_blob(strided.data(), {3}, {2}, torch::dtype(torch::kDouble).requires_grad(true));
    CHECK_THAT(values(col), approx({1.0, 3.0, 5.0}));
    (col * col).sum().backward();
    CHECK_THAT(values(col.grad()), approx({2.0, 6.0, 10.0}));
    int freed = 0;
    {
        auto owned = torch::from_blob(blob.data(), {6}, [&](void*) { ++freed; });
        auto view = owned.slice(0, 1, 3);
        owned = Tensor();
        CHECK(freed == 0);  // the view keeps the memory
    }
    CHECK(freed == 1);

    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y = x * 1;
    y.tensor_data().add_(1);
    CHECK(y._version() == ref_scalar("shallow.tensor_data.version"));
    auto y2 = x * 1;
    auto vd = y2.variable_data();
    vd.add_(1);
    CHECK(y2._version() == ref_scalar("shallow.variable_data.version"));
    CHECK_THAT(values(y2), matches_float("shallow.variable_data.y2"));
    CHECK_FALSE(vd.requires_grad());

    auto var = torch::autograd::make_variable(y2, /*requires_grad=*/true);
    CHECK(var.is_leaf());
    CHECK(var.requires_grad());
    CHECK(var.data_ptr<float>() == y2.data_ptr<float>());
    CHECK_THAT(error_of([] { torch::autograd::make_variable(torch::tensor({1, 2}), true); }), Contains("require"));
}

namespace {

struct ScaleAndMask : Function<ScaleAndMask> {
    static tensor_list forward(AutogradContext* ctx, Tensor x) {
        auto mask = (x > 0).to(x.dtype());
        ctx->mark_non_differentiable({mask});
        ctx->save_for_backward({mask});
        return {x * 2, mask};
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto mask = ctx->get_saved_variables()[0];
        return {g[0] * 2 + mask};
    }
};

std::vector<std::vector<double>> received;

struct TwoOutputs : Function<TwoOutputs> {
    static tensor_list forward(AutogradContext* ctx, Tensor x, bool materialize) {
        ctx->set_materialize_grads(materialize);
        return {x * 2, x * 3};
    }
    static tensor_list backward(AutogradContext*, tensor_list g) {
        received.push_back({double(!g[0].defined()), double(!g[1].defined())});
        auto total = torch::zeros_like(g[0].defined() ? g[0] : g[1]);
        if (g[0].defined()) total = total + g[0] * 2;
        if (g[1].defined()) total = total + g[1] * 3;
        return {total, Tensor()};
    }
};

struct Doubler : Function<Doubler> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2; }
    static tensor_list backward(AutogradContext*, tensor_list g) {
        received.push_back({double(!g[0].defined())});
        return {g[0].defined() ? g[0] * 2 : Tensor()};
    }
};

struct Inner : Function<Inner> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x.exp();
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {g[0] * ctx->get_saved_variables()[0].exp()};
    }
};

// Calls Inner inside its forward, which is not recorded (forward runs without grad mode).
struct Outer : Function<Outer> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        auto y = Inner::apply(x);
        ctx->save_for_backward({y});
        return y * 3;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {g[0] * 3 * ctx->get_saved_variables()[0]};
    }
};

// sin(x), whose backward finds cos(x) with a nested autograd::grad: a reentrant pass.
struct SinByGrad : Function<SinByGrad> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x.sin();
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto x = ctx->get_saved_variables()[0];
        torch::AutoGradMode enable_grad(true);
        auto xx = x.detach().requires_grad_();
        auto d = torch::autograd::grad({xx.sin().sum()}, {xx})[0];
        return {g[0] * d};
    }
};

}  // namespace

TEST_CASE("custom functions: mark_non_differentiable, set_materialize_grads, UndefinedGrad, nesting, reentrance",
          "[autograd][libtorch]") {
    auto x = torch::tensor({-1.0, 0.5, 2.0}, torch::requires_grad());
    auto out = ScaleAndMask::apply(x);
    CHECK(std::vector<double>{double(out[0].requires_grad()), double(out[1].requires_grad())} ==
          expected("custom.non_differentiable.requires_grad"));
    (out[0] * out[0]).sum().backward();
    CHECK_THAT(values(x.grad()), matches_float("custom.non_differentiable.x.grad"));

    for (bool materialize : {true, false}) {
        const std::string name = materialize ? "custom.materialize_on" : "custom.materialize_off";
        INFO(name);
        received.clear();
        auto x2 = torch::tensor({1.0, 2.0}, torch::requires_grad());
        auto ys = TwoOutputs::apply(x2, materialize);
        ys[0].sum().backward();
        REQUIRE(received.size() == 1);
        CHECK(received[0] == expected(name + ".undefined"));
        CHECK_THAT(values(x2.grad()), matches_float(name + ".x.grad"));
    }

    received.clear();
    auto x3 = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y3 = torch::autograd::UndefinedGrad().apply({Doubler::apply(x3)})[0];
    CHECK(y3.grad_fn()->name() == "UndefinedGradBackward");
    y3.sum().backward();
    REQUIRE(received.size() == 1);
    CHECK(received[0] == expected("custom.undefined_grad.received_undefined"));  // materialised zeros
    REQUIRE(double(x3.grad().defined()) == ref_scalar("custom.undefined_grad.x.grad_defined"));
    CHECK_THAT(values(x3.grad()), matches_float("custom.undefined_grad.x.grad"));

    auto x4 = torch::tensor({0.5, -1.0}, torch::requires_grad());
    auto y4 = Outer::apply(x4);
    const auto& next = y4.grad_fn()->next_edges()[0].function;
    CHECK(double(next && next->name() != "AccumulateGrad") == ref_scalar("custom.nested.inner_recorded"));
    (y4 * torch::tensor({1.0, 2.0})).sum().backward();
    CHECK_THAT(values(y4), matches_float("custom.nested.y"));
    CHECK_THAT(values(x4.grad()), matches_float("custom.nested.x.grad"));

    auto x5 = torch::tensor({0.5, -1.0, 2.0}, torch::requires_grad());
    (SinByGrad::apply(x5) * torch::tensor({1.0, 2.0, 3.0})).sum().backward();
    CHECK_THAT(values(x5.grad()), matches_float("custom.reentrant.x.grad"));
}

TEST_CASE("hooks: tensor and node hooks; remove_hook by position", "[autograd][libtorch]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y = x * x;
    y.register_hook([](Tensor g) { return g * 10; });
    y.grad_fn()->register_hook([](const tensor_list& gi, const tensor_list&) { return tensor_list{gi[0] + 1, gi[1]}; });
    y.sum().backward();
    CHECK_THAT(values(x.grad()), matches_float("hooks.x.grad"));

    // LibTorch code keeps the position as an unsigned and removes by it.
    auto a = torch::tensor({1.0, 2.0}, torch::requires_grad());
    std::vector<int> calls;
    unsigned first = a.register_hook([&](Tensor) { calls.push_back(1); });
    unsigned second = a.register_hook([&](Tensor) { calls.push_back(2); });
    CHECK(first == 0);
    CHECK(second == 1);
    a.remove_hook(first);
    a.remove_hook(first);  // removing twice is a no-op, as in LibTorch
    (a * 2).sum().backward();
    CHECK(calls == std::vector<int>{2});
    CHECK_THAT(error_of([&] { a.remove_hook(7); }), Contains("remove_hook: Invalid index, no hook at position 7"));
    auto h = (a * 3);
    unsigned on_non_leaf = h.register_hook([&](Tensor) { calls.push_back(3); });
    h.remove_hook(on_non_leaf);
    h.sum().backward();
    CHECK(calls == std::vector<int>{2, 2});  // a's second hook again; h's is gone
}

TEST_CASE("x.grad().zero_() and mutable_grad() as LibTorch code writes them", "[autograd][libtorch]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    (x * x).sum().backward();
    x.grad().zero_();  // in-place methods are const, as in LibTorch
    CHECK_THAT(values(x.grad()), approx({0.0, 0.0}));
    x.mutable_grad() = torch::ones({2});
    (x * 3).sum().backward();
    CHECK_THAT(values(x.grad()), approx({4.0, 4.0}));
    const Tensor c = torch::zeros({2});
    c.add_(1).mul_(3);
    CHECK_THAT(values(c), approx({3.0, 3.0}));
}

namespace {
struct NanGrad : Function<NanGrad> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 1; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * std::nan("")}; }
};
struct Refuses : Function<Refuses> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 1; }
    static tensor_list backward(AutogradContext*, tensor_list) { throw torch::Error("Refuses: no gradient here"); }
};
// Its backward applies Refuses: with create_graph, that records a RefusesBackward node.
struct CallsRefuses : Function<CallsRefuses> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        return {Refuses::apply(g[0] * 2 * ctx->get_saved_variables()[0])};
    }
};
}  // namespace

TEST_CASE("anomaly mode: NaN gradients, the forward trace of a failing node, and its warnings",
          "[autograd][libtorch]") {
    CollectWarnings warnings;
    torch::WarningUtils::WarningHandlerGuard capture(&warnings);
    {
        torch::autograd::DetectAnomalyGuard anomaly;
        CHECK(torch::autograd::AnomalyMode::is_enabled());
        REQUIRE(warnings.seen.size() == 1);
        CHECK_THAT(warnings.seen[0], Contains("This mode should be enabled only for debugging"));
        auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
        const std::string nan_error = error_of([&] { NanGrad::apply(x).sum().backward(); });
        CHECK(double(!nan_error.empty()) == ref_scalar("anomaly.nan_raises"));
        CHECK_THAT(nan_error, Contains("Function 'NanGradBackward' returned nan values in its 0th output."));
        CHECK_THAT(nan_error, Contains("Error detected in NanGradBackward. Traceback of forward call that caused the error:"));
        CHECK_THAT(warnings.seen.back(), Contains("Error detected in NanGradBackward"));

        const std::string refused = error_of([&] { Refuses::apply(x).sum().backward(); });
        CHECK_THAT(refused, Contains("Refuses: no gradient here"));
        CHECK_THAT(refused, Contains("Error detected in RefusesBackward. Traceback of forward call that caused the error:"));
        CHECK_THAT(refused, Contains("#0 "));  // one line per frame

        // A node made by a backward pass with create_graph names the node that induced it.
        auto z = torch::tensor({0.5}, torch::requires_grad());
        auto g = torch::autograd::grad({CallsRefuses::apply(z).sum()}, {z}, {}, std::nullopt, /*create_graph=*/true)[0];
        const std::string second = error_of([&] { g.sum().backward(); });
        CHECK_THAT(second, Contains("Error detected in RefusesBackward"));
        CHECK_THAT(second, Contains("Previous calculation was induced by CallsRefusesBackward. Traceback of forward call "
                                    "that induced the previous calculation:"));
        // Two warnings, as LibTorch's AnomalyMetadata::print_stack emits them (its test
        // AutogradAPITests.AnomalyMode counts them): the failing node's, then its parent's.
        REQUIRE(warnings.seen.size() >= 2);
        const auto last = warnings.seen.end();
        CHECK_THAT(*(last - 2), Contains("Error detected in RefusesBackward. Traceback of forward call that caused"));
        CHECK_THAT(*(last - 2), !Contains("Previous calculation"));
        CHECK_THAT(*(last - 1), Contains("Previous calculation was induced by CallsRefusesBackward. Traceback of "
                                         "forward call that induced the previous calculation:"));
    }
    CHECK_FALSE(torch::autograd::AnomalyMode::is_enabled());
    {
        auto guard = torch::autograd::detect_anomaly(/*check_nan=*/false);
        auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
        CHECK(error_of([&] { NanGrad::apply(x).sum().backward(); }).empty());
    }
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    NanGrad::apply(x).sum().backward();  // outside anomaly mode the NaN goes through
    CHECK(double(std::isnan(x.grad()[0].item<double>())) == ref_scalar("anomaly.off.x.grad_isnan"));
    CHECK_THAT(error_of([&] { Refuses::apply(x).sum().backward(); }), !Contains("Error detected"));
}

TEST_CASE("warnings: reading .grad() of a non-leaf warns, as LibTorch does", "[autograd][libtorch]") {
    CollectWarnings warnings;
    torch::WarningUtils::WarningHandlerGuard capture(&warnings);
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y = x * 2;
    y.sum().backward();
    CHECK_FALSE(y.grad().defined());
    REQUIRE(warnings.seen.size() == 1);
    CHECK_THAT(warnings.seen[0], Contains("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"));
    CHECK(x.grad().defined());  // a leaf: no warning
    auto r = x * 3;
    r.retain_grad();
    r.sum().backward();
    CHECK(r.grad().defined());  // retained: no warning
    CHECK(warnings.seen.size() == 1);
}

TEST_CASE("retain_graph, a second backward, grad modes, node pre-hooks", "[autograd][libtorch]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y = (x * x).sum();
    y.backward({}, /*retain_graph=*/true);
    y.backward();
    CHECK_THAT(values(x.grad()), matches_float("retain.x.grad"));
    auto x2 = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y2 = (x2 * x2).sum();
    y2.backward();
    const std::string second = error_of([&] { y2.backward(); });
    CHECK(double(!second.empty()) == ref_scalar("retain.second_throws"));
    CHECK_THAT(second, Contains("Trying to backward through the graph a second time"));

    Tensor a, b, c;
    {
        torch::NoGradGuard no_grad;
        a = x * 2;
        torch::AutoGradMode enable_grad(true);
        b = x * 2;
    }
    {
        torch::InferenceMode guard;
        c = x * 2;
    }
    CHECK(std::vector<double>{double(a.requires_grad()), double(b.requires_grad()), double(c.requires_grad()),
                              double(c.is_inference())} == expected("grad_mode.requires_grad"));

    // A node pre-hook replaces the gradient the node receives (PyTorch 2's
    // grad_fn.register_prehook; 1.13 has none, so the value is the closed form).
    auto x3 = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y3 = x3 * x3;
    y3.grad_fn()->register_prehook([](const tensor_list& g) { return tensor_list{g[0] * 2}; });
    y3.sum().backward();
    CHECK_THAT(values(x3.grad()), approx({4.0, 8.0}));  // 2 · 2x
}

TEST_CASE("the rule table's functions and the other free functions are members too", "[autograd][libtorch]") {
    auto x = torch::tensor({0.25, 0.5, 0.75});
    auto y = torch::tensor({0.5, 0.25, 1.0});
    CHECK(x.exp().equal(torch::exp(x)));
    CHECK(x.expm1().equal(torch::expm1(x)));
    CHECK(x.atanh().equal(torch::atanh(x)));
    CHECK(x.erfc().equal(torch::erfc(x)));
    CHECK(x.logit().equal(torch::logit(x)));
    CHECK(x.atan2(y).equal(torch::atan2(x, y)));
    CHECK(x.hypot(y).equal(torch::hypot(x, y)));
    CHECK(x.maximum(y).equal(torch::maximum(x, y)));
    CHECK(x.max(y).equal(torch::maximum(x, y)));
    CHECK(x.min(y).equal(torch::minimum(x, y)));
    CHECK(x.pow(y).equal(torch::pow(x, y)));
    CHECK(x.where(x > 0.3, y).equal(torch::where(x > 0.3, x, y)));
    CHECK(x.isnan().any().item<bool>() == false);
    CHECK(x.outer(y).equal(torch::outer(x, y)));
    auto idx = torch::tensor({0, 2});
    CHECK(torch::zeros({3}).index_add(0, idx, torch::ones({2})).equal(torch::tensor({1.0, 0.0, 1.0})));
    CHECK(torch::zeros({3}).scatter_add(0, idx, torch::ones({2})).equal(torch::tensor({1.0, 0.0, 1.0})));
}
