// Custom autograd functions: Function<T>::apply, AutogradContext, once_differentiable.
#include <cmath>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;

namespace {

// y = x³ with a backward written in differentiable operations: 3x²·g.
struct Cube : gradc::autograd::Function<Cube> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto x = ctx->get_saved_variables()[0];
        return {3.0 * x * x * g[0]};
    }
};

// The same, declared once-differentiable.
struct CubeOnce : gradc::autograd::Function<CubeOnce> {
    static constexpr bool once_differentiable = true;
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        ctx->save_for_backward({x});
        return x * x * x;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto x = ctx->get_saved_variables()[0];
        CHECK_FALSE(gradc::GradMode::is_enabled());  // runs without recording
        return {3.0 * x * x * g[0]};
    }
};

// y = a·x + b·k with a non-tensor argument k between tensors, and saved_data.
struct Affine : gradc::autograd::Function<Affine> {
    static Tensor forward(AutogradContext* ctx, Tensor a, double k, Tensor x) {
        ctx->saved_data["k"] = k;
        ctx->save_for_backward({a, x});
        return a * x + k;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto saved = ctx->get_saved_variables();
        const double k = ctx->saved_data["k"].toDouble();
        CHECK(k == 0.5);
        // needs_input_grad counts tensor inputs, as in LibTorch: a is 0, x is 1.
        Tensor ga = ctx->needs_input_grad(0) ? saved[1] * g[0] : Tensor();
        Tensor gx = ctx->needs_input_grad(1) ? saved[0] * g[0] : Tensor();
        CHECK_FALSE(ctx->needs_input_grad(2));
        return {ga, Tensor(), gx};
    }
};

// Saves its own output: y = exp(x), dy/dx = y.
struct Exp : gradc::autograd::Function<Exp> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        Tensor y = x.exp();
        ctx->save_for_backward({y});
        return y;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) { return {ctx->get_saved_variables()[0] * g[0]}; }
};

// Two outputs (sum and product of two inputs); counts materialised gradients.
int materialized_zero_seen = 0;
struct SumProd : gradc::autograd::Function<SumProd> {
    static tensor_list forward(AutogradContext* ctx, Tensor a, Tensor b, bool materialize) {
        ctx->set_materialize_grads(materialize);
        ctx->save_for_backward({a, b});
        return {a + b, a * b};
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto s = ctx->get_saved_variables();
        Tensor ga = g[0].defined() ? g[0] : gradc::zeros_like(s[0]);
        Tensor gb = ga;
        if (g[1].defined()) {
            if (gradc::equal(g[1], gradc::zeros_like(g[1]))) ++materialized_zero_seen;
            ga = ga + s[1] * g[1];
            gb = gb + s[0] * g[1];
        }
        return {ga, gb, Tensor()};
    }
};

// In-place doubling, marked dirty.
struct DoubleInPlace : gradc::autograd::Function<DoubleInPlace> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
        x.mul_(2.0);
        ctx->mark_dirty({x});
        return x;
    }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {2.0 * g[0]}; }
};

// Returns the maximum and its index; the index is non-differentiable.
struct MaxWithIndex : gradc::autograd::Function<MaxWithIndex> {
    static tensor_list forward(AutogradContext* ctx, Tensor x) {
        auto [v, i] = x.max(0, false);
        ctx->mark_non_differentiable({i});
        ctx->saved_data["n"] = x.size(0);
        ctx->save_for_backward({i});
        return {v, i};
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        Tensor idx = ctx->get_saved_variables()[0].unsqueeze(0);
        const auto n = ctx->saved_data["n"].toInt();
        Tensor gx = gradc::zeros({n}, gradc::dtype(g[0].dtype()));
        return {gradc::index_add(gx, 0, idx, g[0].unsqueeze(0))};
    }
};

// Returns its input unchanged (identity).
struct Identity : gradc::autograd::Function<Identity> {
    static Tensor forward(AutogradContext*, Tensor x) { return x; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0]}; }
};

struct NoGradFor : gradc::autograd::Function<NoGradFor> {
    static Tensor forward(AutogradContext*, Tensor a, Tensor b) { return a * b; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], Tensor()}; }  // none for b
};

struct TooFew : gradc::autograd::Function<TooFew> {
    static Tensor forward(AutogradContext*, Tensor a, Tensor b) { return a + b; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0]}; }
};

struct GradForScalar : gradc::autograd::Function<GradForScalar> {
    static Tensor forward(AutogradContext*, Tensor a, double k) { return a * k; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};

struct DirtyNotInput : gradc::autograd::Function<DirtyNotInput> {
    static Tensor forward(AutogradContext* ctx, Tensor a) {
        Tensor y = a * 2.0;
        ctx->mark_dirty({y});
        return y;
    }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0]}; }
};

}  // namespace

TEST_CASE("a custom function computes forward and its own backward", "[autograd][custom]") {
    auto x = gradc::tensor({0.5, -2.0}, gradc::requires_grad());
    auto y = Cube::apply(x);
    CHECK_THAT(values(y), approx({0.125, -8.0}));
    REQUIRE(y.grad_fn() != nullptr);
    CHECK(y.grad_fn()->name() == "CubeBackward");
    CHECK(y.grad_fn()->next_edges().size() == 1);
    y.sum().backward();
    CHECK_THAT(values(x.grad()), approx({0.75, 12.0}));  // 3x²
}

TEST_CASE("a custom function called without grad records nothing", "[autograd][custom]") {
    auto x = gradc::tensor({2.0});
    auto y = Cube::apply(x);
    CHECK(y.item<double>() == 8.0);
    CHECK(y.grad_fn() == nullptr);
    auto w = gradc::tensor({2.0}, gradc::requires_grad());
    gradc::NoGradGuard no_grad;
    CHECK(Cube::apply(w).grad_fn() == nullptr);
    CHECK_FALSE(Cube::apply(w).requires_grad());
}

TEST_CASE("custom functions take non-tensor arguments and saved_data", "[autograd][custom]") {
    auto a = gradc::tensor({2.0, 3.0}, gradc::requires_grad());
    auto x = gradc::tensor({5.0, 7.0});
    auto y = Affine::apply(a, 0.5, x);
    CHECK_THAT(values(y), approx({10.5, 21.5}));
    y.backward(gradc::tensor({1.0, 10.0}));
    CHECK_THAT(values(a.grad()), approx({5.0, 70.0}));
    CHECK_FALSE(x.grad().defined());
}

TEST_CASE("a custom function's backward differentiates again with create_graph", "[autograd][custom]") {
    auto x = gradc::tensor({0.5, -2.0}, gradc::requires_grad());
    auto y = Cube::apply(x).sum();
    auto g = gradc::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(g), approx({0.75, 12.0}));
    REQUIRE(g.requires_grad());
    auto gg = gradc::autograd::grad({g.sum()}, {x})[0];
    CHECK_THAT(values(gg), approx({3.0, -12.0}));  // 6x
    // Third order through backward(create_graph) on .grad: d³/dx³ x³ = 6.
    auto z = gradc::tensor({1.5}, gradc::requires_grad());
    auto g1 = gradc::autograd::grad({Cube::apply(z)}, {z}, {}, std::nullopt, true)[0];
    auto g2 = gradc::autograd::grad({g1}, {z}, {}, std::nullopt, true)[0];
    auto g3 = gradc::autograd::grad({g2}, {z})[0];
    CHECK(g2.item<double>() == Approx(9.0));
    CHECK(g3.item<double>() == Approx(6.0));
}

TEST_CASE("a once-differentiable function refuses double backward", "[autograd][custom]") {
    auto x = gradc::tensor({0.5, -2.0}, gradc::requires_grad());
    auto y = CubeOnce::apply(x).sum();
    // First order is fine, with or without create_graph.
    auto g = gradc::autograd::grad({y}, {x}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(g), approx({0.75, 12.0}));
    REQUIRE(g.requires_grad());
    CHECK(g.grad_fn()->name() == "DelayedError");
    CHECK_THAT(error_of([&] { gradc::autograd::grad({g.sum()}, {x}); }),
               Contains("differentiate twice") && Contains("CubeOnceBackward") && Contains("once_differentiable"));
    // Without create_graph the result simply has no history.
    auto x2 = gradc::tensor({1.0}, gradc::requires_grad());
    auto g2 = gradc::autograd::grad({CubeOnce::apply(x2)}, {x2})[0];
    CHECK_FALSE(g2.requires_grad());
    CHECK(g2.item<double>() == 3.0);
    // A differentiable grad_output (PyTorch's case) is refused the same way.
    auto x3 = gradc::tensor({2.0}, gradc::requires_grad());
    auto c = CubeOnce::apply(x3);
    auto g3 = gradc::autograd::grad({(c * c).sum()}, {x3}, {}, std::nullopt, true)[0];
    CHECK(g3.item<double>() == Approx(6 * std::pow(2.0, 5)));  // d/dx x⁶
    CHECK_THAT(error_of([&] { g3.backward(); }), Contains("differentiate twice"));
}

TEST_CASE("custom function gradients agree with finite differences", "[autograd][custom]") {
    // f(a, x) = sum(exp(a·x + 0.5) ^ 3) through three custom functions.
    std::vector<double> av{0.3, -0.2, 0.1}, xv{0.7, 0.4, -1.1};
    auto f = [&](const std::vector<double>& a) {
        return Cube::apply(Exp::apply(Affine::apply(gradc::from_vector(a, {3}), 0.5, gradc::from_vector(xv, {3})))).sum();
    };
    auto a = gradc::from_vector(av, {3}, gradc::requires_grad());
    f(av);
    Cube::apply(Exp::apply(Affine::apply(a, 0.5, gradc::from_vector(xv, {3})))).sum().backward();
    const double h = 1e-6;
    for (std::size_t i = 0; i < 3; ++i) {
        auto p = av, m = av;
        p[i] += h;
        m[i] -= h;
        const double fd = (f(p).item<double>() - f(m).item<double>()) / (2 * h);
        CHECK(a.grad()[static_cast<std::int64_t>(i)].item<double>() == Approx(fd).epsilon(1e-7));
        // Closed form: 3·exp(3(a x + .5))·x
        CHECK(a.grad()[static_cast<std::int64_t>(i)].item<double>() ==
              Approx(3 * std::exp(3 * (av[i] * xv[i] + 0.5)) * xv[i]).epsilon(1e-12));
    }
}

TEST_CASE("a custom function may save its own output", "[autograd][custom]") {
    auto x = gradc::tensor({0.0, 1.0}, gradc::requires_grad());
    auto y = Exp::apply(x);
    y.backward(gradc::tensor({1.0, 2.0}));
    CHECK_THAT(values(x.grad()), approx({1.0, 2.0 * std::exp(1.0)}));
    // Second derivative through the saved output: d²/dx² e^x = e^x.
    auto z = gradc::tensor({0.5}, gradc::requires_grad());
    auto g = gradc::autograd::grad({Exp::apply(z)}, {z}, {}, std::nullopt, true)[0];
    CHECK(gradc::autograd::grad({g}, {z})[0].item<double>() == Approx(std::exp(0.5)));
}

TEST_CASE("saved tensors of a custom function are version-checked and freed", "[autograd][custom]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * 1.0;
    auto y = Cube::apply(h);
    h.mul_(2.0);
    CHECK_THAT(error_of([&] { y.sum().backward(); }),
               Contains("modified by an inplace operation") && Contains("is at version 1; expected version 0") &&
                   Contains("CubeBackward"));
    auto y2 = Cube::apply(x).sum();
    y2.backward();
    CHECK_THAT(error_of([&] { y2.backward(); }), Contains("backward through the graph a second time"));
    auto y3 = Cube::apply(x).sum();
    y3.backward({}, true);
    y3.backward();
    CHECK_THAT(values(x.grad()), approx({3.0 + 6.0, 12.0 + 24.0}));
}

TEST_CASE("custom functions with several outputs and materialize_grads", "[autograd][custom]") {
    auto a = gradc::tensor({2.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0}, gradc::requires_grad());
    auto out = SumProd::apply(a, b, true);
    REQUIRE(out.size() == 2);
    CHECK(out[0].item<double>() == 5.0);
    CHECK(out[1].item<double>() == 6.0);
    CHECK(out[0].grad_fn() == out[1].grad_fn());
    CHECK(out[1].output_nr() == 1);
    // Only the first output used: the second's gradient arrives as zeros (materialised).
    materialized_zero_seen = 0;
    out[0].backward();
    CHECK(materialized_zero_seen == 1);
    CHECK(a.grad().item<double>() == 1.0);
    // Without materialisation it stays undefined.
    a.mutable_grad() = Tensor();
    materialized_zero_seen = 0;
    auto out2 = SumProd::apply(a, b, false);
    out2[0].backward();
    CHECK(materialized_zero_seen == 0);
    CHECK(a.grad().item<double>() == 1.0);
    // Both used: d(s + 10 p)/da = 1 + 10 b.
    a.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
    auto out3 = SumProd::apply(a, b, true);
    (out3[0] + 10.0 * out3[1]).backward();
    CHECK(a.grad().item<double>() == 31.0);
    CHECK(b.grad().item<double>() == 21.0);
}

TEST_CASE("backward returning an undefined gradient means no gradient", "[autograd][custom]") {
    auto a = gradc::tensor({2.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0}, gradc::requires_grad());
    NoGradFor::apply(a, b).backward();
    CHECK(a.grad().item<double>() == 1.0);
    CHECK_FALSE(b.grad().defined());
    auto r = gradc::autograd::grad({NoGradFor::apply(a, b)}, {a, b}, {}, std::nullopt, false, true);
    CHECK(r[0].item<double>() == 1.0);
    CHECK_FALSE(r[1].defined());
}

TEST_CASE("mark_dirty: an in-place custom function rebases the input's history", "[autograd][custom]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto h = x * 3.0;
    auto& before = h.grad_fn();
    CHECK(before->name() == "MulBackward");
    auto y = DoubleInPlace::apply(h);
    CHECK(y.is_same(h));
    CHECK(h._version() == 2);  // mul_ and mark_dirty each count, as in PyTorch
    CHECK(h.grad_fn()->name() == "DoubleInPlaceBackward");
    CHECK_THAT(values(h), approx({6.0, 12.0}));
    h.sum().backward();
    CHECK_THAT(values(x.grad()), approx({6.0, 6.0}));
    // On a view: the base's history is rewritten (copy_slices).
    auto x2 = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    auto base = x2 * 1.0;
    auto v = base.narrow(0, 1, 2);
    DoubleInPlace::apply(v);
    CHECK_THAT(values(base), approx({1.0, 4.0, 6.0}));
    base.backward(gradc::tensor({1.0, 1.0, 1.0}));
    CHECK_THAT(values(x2.grad()), approx({1.0, 2.0, 2.0}));
    // On a leaf that requires grad: refused.
    auto leaf = gradc::tensor({1.0}, gradc::requires_grad());
    CHECK_THAT(error_of([&] { DoubleInPlace::apply(leaf); }),
               Contains("DoubleInPlaceBackward") && Contains("a leaf Variable that requires grad has been used in an in-place operation."));
    CHECK_THAT(error_of([&] { DirtyNotInput::apply(x * 1.0); }), Contains("mark_dirty() was given a tensor that is not an input"));
}

TEST_CASE("mark_non_differentiable outputs do not require grad", "[autograd][custom]") {
    auto x = gradc::tensor({1.0, 5.0, 3.0}, gradc::requires_grad());
    auto out = MaxWithIndex::apply(x);
    CHECK(out[0].item<double>() == 5.0);
    CHECK(out[1].item<std::int64_t>() == 1);
    CHECK(out[0].requires_grad());
    CHECK_FALSE(out[1].requires_grad());
    (out[0] * 2.0).backward();
    CHECK_THAT(values(x.grad()), approx({0.0, 2.0, 0.0}));
}

TEST_CASE("an input returned unchanged becomes a new tensor with the custom history", "[autograd][custom]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto y = Identity::apply(x);
    CHECK_FALSE(y.is_same(x));
    CHECK(y.grad_fn()->name() == "IdentityBackward");
    CHECK(x.is_leaf());
    (y * y).sum().backward();
    CHECK_THAT(values(x.grad()), approx({2.0, 4.0}));
}

TEST_CASE("errors of custom functions name the function", "[autograd][custom]") {
    auto a = gradc::tensor({1.0}, gradc::requires_grad());
    CHECK_THAT(error_of([&] { TooFew::apply(a, a).backward(); }),
               Contains("function TooFewBackward returned an incorrect number of gradients (expected 2, got 1)"));
    CHECK_THAT(error_of([&] { GradForScalar::apply(a, 2.0).backward(); }),
               Contains("function GradForScalarBackward returned a gradient different than an undefined Tensor at "
                        "position 1") &&
                   Contains("not a Tensor"));
}

namespace {
struct SoftplusBeta : gradc::autograd::Function<SoftplusBeta> {
    static Tensor forward(AutogradContext* ctx, Tensor x, double beta) {
        ctx->save_for_backward({x});
        ctx->saved_data["beta"] = beta;
        return gradc::softplus(x * beta) / beta;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        Tensor x = ctx->get_saved_variables()[0];
        const double beta = ctx->saved_data["beta"].toDouble();
        return {gradc::sigmoid(x * beta) * g[0], Tensor()};
    }
};
}  // namespace

TEST_CASE("custom functions match PyTorch's torch.autograd.Function", "[autograd][custom][reference]") {
    auto x = ref_tensor("custom.softplus.x", {4}, gradc::requires_grad());
    auto y = SoftplusBeta::apply(x, 1.5);
    CHECK_THAT(values(y), matches("custom.softplus.y"));
    auto d1 = gradc::autograd::grad({y.sum()}, {x}, {}, std::nullopt, true)[0];
    auto d2 = gradc::autograd::grad({d1.sum()}, {x})[0];
    CHECK_THAT(values(d1), matches("custom.softplus.d1"));
    CHECK_THAT(values(d2), matches("custom.softplus.d2"));
    auto a = gradc::tensor({2.0, -1.0}, gradc::requires_grad());
    auto b = gradc::tensor({3.0, 0.5}, gradc::requires_grad());
    auto out = SumProd::apply(a, b, true);
    (out[0] * out[1]).sum().backward();
    CHECK_THAT(values(a.grad()), matches("custom.sumprod.a.grad"));
    CHECK_THAT(values(b.grad()), matches("custom.sumprod.b.grad"));
}

namespace {
// Non-tensor arguments of any type pass through; the tensors of a tensor_list are inputs,
// one gradient each (as in LibTorch).
struct ScaleBy : gradc::autograd::Function<ScaleBy> {
    static Tensor forward(AutogradContext* ctx, Tensor x, const std::string& how, tensor_list extra) {
        ctx->saved_data["how"] = how;
        ctx->saved_data["extra"] = extra.size();
        return x * static_cast<double>(extra.size());
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        CHECK(ctx->saved_data["how"].toStringRef() == "by count");
        const auto n = ctx->saved_data["extra"].to<std::size_t>();
        return {g[0] * static_cast<double>(n), Tensor(), Tensor(), Tensor(), g[0]};
    }
};
}  // namespace

TEST_CASE("custom functions pass any non-tensor argument through", "[autograd][custom]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto y = ScaleBy::apply(x, std::string("by count"), tensor_list{x, x, x});
    CHECK_THAT(values(y), approx({3.0, 6.0}));
    CHECK(y.grad_fn()->next_edges().size() == 4);
    y.sum().backward();
    CHECK_THAT(values(x.grad()), approx({4.0, 4.0}));  // 3 for x, 1 for the list's last element
}

TEST_CASE("custom nodes are freed with their graph (no reference cycles)", "[autograd][custom]") {
    std::weak_ptr<gradc::autograd::Node> saved_output_node, dirty_node, hooked;
    auto x = gradc::tensor({1.0}, gradc::requires_grad());
    {
        auto y = Exp::apply(x);  // saves its own output
        saved_output_node = y.grad_fn();
        auto h = x * 1.0;
        DoubleInPlace::apply(h);
        dirty_node = h.grad_fn();
        auto c = Cube::apply(h);
        c.register_hook([](const Tensor& g) { return g; });
        c.grad_fn()->register_prehook([](const tensor_list&) {});
        hooked = c.grad_fn();
        (y + c).backward({}, true);
        CHECK_FALSE(saved_output_node.expired());
    }
    CHECK(saved_output_node.expired());
    CHECK(dirty_node.expired());
    CHECK(hooked.expired());
}

TEST_CASE("tensor hooks apply to custom function outputs and inputs", "[autograd][custom][hooks]") {
    auto x = gradc::tensor({2.0}, gradc::requires_grad());
    auto y = Cube::apply(x);
    y.register_hook([](const Tensor& g) { return g * 2.0; });
    y.backward();
    CHECK(x.grad().item<double>() == 24.0);  // 2 · 3x²
}
