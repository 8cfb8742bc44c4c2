// LibTorch code ported by renaming `torch::` to `gradc::`: the C++ autograd tutorial's
// custom functions and the semantics a port relies on, written as a LibTorch user writes
// them. Expected values come from PyTorch (reference/generate_libtorch.py).
#include <complex>
#include <sstream>
#include <vector>

#include "libtorch_style.hpp"

using namespace libtorch_style;

namespace {

Tensor ref(const std::string& name, const torch::Shape& shape, bool requires_grad = false) {
    return ref_tensor(name, shape, torch::TensorOptions().requires_grad(requires_grad));
}

// ---- the C++ autograd tutorial ("Autograd in C++ Frontend"), as written there ---------

// Inherit from Function
class LinearFunction : public Function<LinearFunction> {
public:
    // Note that both forward and backward are static functions

    // bias is an optional argument
    static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, Tensor bias = Tensor()) {
        ctx->save_for_backward({input, weight, bias});
        auto output = input.mm(weight.t());
        if (bias.defined()) {
            output += bias.unsqueeze(0).expand_as(output);
        }
        return output;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
        auto saved = ctx->get_saved_variables();
        auto input = saved[0];
        auto weight = saved[1];
        auto bias = saved[2];

        auto grad_output = grad_outputs[0];
        auto grad_input = grad_output.mm(weight);
        auto grad_weight = grad_output.t().mm(input);
        auto grad_bias = Tensor();
        if (bias.defined()) {
            grad_bias = grad_output.sum(0);
        }

        return {grad_input, grad_weight, grad_bias};
    }
};

// Multiplies by a constant kept in saved_data.
class MulConstant : public Function<MulConstant> {
public:
    static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant) {
        // stash the constant for backward
        ctx->saved_data["constant"] = constant;
        return tensor * constant;
    }

    static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
        // one gradient per forward argument; the double gets an undefined Tensor
        return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), Tensor()};
    }
};

// ---- small functions for the semantics a port relies on ------------------------------

// Scales by saved_data values of every kind IValue reads back; needs_input_grad by range.
struct SavedKinds : Function<SavedKinds> {
    static Tensor forward(AutogradContext* ctx, Tensor x, int64_t n, Tensor y) {
        ctx->saved_data["n"] = n;
        ctx->saved_data["half"] = 0.5f;
        ctx->saved_data["flag"] = true;
        ctx->saved_data["name"] = "scaled";
        ctx->saved_data["y"] = y;
        ctx->saved_data["both"] = tensor_list{x, y};
        return x * y * static_cast<double>(n);
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto& d = ctx->saved_data;
        CHECK(d["n"].isInt());
        CHECK(d["half"].toDouble() == 0.5);
        CHECK(d["flag"].toBool());
        CHECK(d["name"].toStringRef() == "scaled");
        CHECK(d["both"].toTensorList().size() == 2);
        CHECK_THAT(error_of([&] { d["n"].toDouble(); }), Contains("IValue::toDouble()") && Contains("holds Int"));
        CHECK(ctx->needs_input_grad({torch::autograd::IndexRange{0, 2}}));
        CHECK_FALSE(ctx->needs_input_grad({torch::autograd::IndexRange{1, 2}}));
        const double n = static_cast<double>(d["n"].toInt());
        return {g[0] * d["y"].toTensor() * n, Tensor(), Tensor()};
    }
};

// Doubles its input by writing through data_ptr (no version bump of its own), marked dirty.
struct DoubleThroughData : Function<DoubleThroughData> {
    static Tensor forward(AutogradContext* ctx, Tensor t) {
        auto* p = t.data_ptr<float>();  // float32, the default dtype
        for (std::int64_t i = 0; i < t.numel(); ++i) p[i] *= 2;
        ctx->mark_dirty({t});
        return t;
    }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {2 * g[0]}; }
};

// a * b; backward records what needs_input_grad says and computes only what is needed.
std::vector<double> needs_seen;
struct MulRecording : Function<MulRecording> {
    static Tensor forward(AutogradContext* ctx, Tensor a, Tensor b) {
        ctx->save_for_backward({a, b});
        return a * b;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        auto saved = ctx->get_saved_variables();
        needs_seen = {ctx->needs_input_grad(0) ? 1.0 : 0.0, ctx->needs_input_grad(1) ? 1.0 : 0.0};
        return {ctx->needs_input_grad(0) ? g[0] * saved[1] : Tensor(),
                ctx->needs_input_grad(1) ? g[0] * saved[0] : Tensor()};
    }
};

// Returns a defined gradient past its inputs: still an error.
struct ExtraDefined : Function<ExtraDefined> {
    static Tensor forward(AutogradContext*, Tensor a) { return a * 2; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {2 * g[0], g[0]}; }
};

}  // namespace

// ---- the tutorial end to end -------------------------------------------------------------

TEST_CASE("the tutorial's LinearFunction with bias", "[autograd][libtorch]") {
    auto x = ref("linear.x", {2, 3}, true);
    auto weight = ref("linear.w", {4, 3}, true);
    auto bias = ref("linear.b", {4}, true);
    auto y = LinearFunction::apply(x, weight, bias);
    y.backward(ref("linear.g", {2, 4}));
    CHECK_THAT(values(y), matches_float("linear.bias.y"));
    CHECK_THAT(values(x.grad()), matches_float("linear.bias.x.grad"));
    CHECK_THAT(values(weight.grad()), matches_float("linear.bias.w.grad"));
    CHECK_THAT(values(bias.grad()), matches_float("linear.bias.b.grad"));
}

TEST_CASE("the tutorial's LinearFunction without bias returns an undefined third gradient",
          "[autograd][libtorch][regression]") {
    auto x = ref("linear.x", {2, 3}, true);
    auto weight = ref("linear.w", {4, 3}, true);
    auto y = LinearFunction::apply(x, weight);
    y.backward(ref("linear.g", {2, 4}));
    CHECK_THAT(values(y), matches_float("linear.no_bias.y"));
    CHECK_THAT(values(x.grad()), matches_float("linear.no_bias.x.grad"));
    CHECK_THAT(values(weight.grad()), matches_float("linear.no_bias.w.grad"));
    // An explicitly undefined bias is an input without a gradient.
    x.mutable_grad() = Tensor();
    LinearFunction::apply(x, weight, Tensor()).backward(ref("linear.g", {2, 4}));
    CHECK_THAT(values(x.grad()), matches_float("linear.no_bias.x.grad"));
    // A defined gradient past the inputs is still refused.
    auto a = torch::ones({2}, torch::requires_grad());
    CHECK_THAT(error_of([&] { ExtraDefined::apply(a).sum().backward(); }),
               Contains("ExtraDefinedBackward returned an incorrect number of gradients (expected 1, got 2)"));
}

TEST_CASE("the tutorial's MulConstant keeps its constant in saved_data", "[autograd][libtorch]") {
    auto x = ref("mul_constant.x", {3}, true);
    auto y = MulConstant::apply(x, 5.5);
    y.backward(torch::tensor({1.0, 2.0, 3.0}));
    CHECK_THAT(values(y), matches_float("mul_constant.y"));
    CHECK_THAT(values(x.grad()), matches_float("mul_constant.x.grad"));
}

TEST_CASE("saved_data holds IValues; needs_input_grad takes index ranges", "[autograd][libtorch]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto y = torch::tensor({3.0, -1.0});
    SavedKinds::apply(x, int64_t{2}, y).sum().backward();
    CHECK_THAT(values(x.grad()), approx({6.0, -2.0}));
}

// ---- the four semantic differences found porting LibTorch code ------------------------

TEST_CASE("mark_dirty bumps the version counter: a tensor saved before is refused",
          "[autograd][libtorch][regression]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto a = x * 1;
    auto y = a * a;  // saves a at its current version
    CHECK(a._version() == ref_scalar("mark_dirty.version_before"));
    DoubleThroughData::apply(a);
    CHECK(a._version() == ref_scalar("mark_dirty.version_after"));
    REQUIRE(ref_scalar("mark_dirty.stale_use_throws") == 1.0);
    CHECK_THAT(error_of([&] { y.sum().backward(); }),
               Contains("one of the variables needed for gradient computation has been modified by an inplace "
                        "operation") &&
                   Contains("is at version 1; expected version 0 instead"));
}

TEST_CASE("needs_input_grad follows the inputs autograd::grad asks for", "[autograd][libtorch][regression]") {
    auto a0 = ref("needs_input_grad.a", {2}, true);
    auto b0 = ref("needs_input_grad.b", {2}, true);
    SECTION("grad with respect to a") {
        auto a = a0 * 1, b = b0 * 1;
        auto g = torch::autograd::grad({MulRecording::apply(a, b).sum()}, {a});
        CHECK(needs_seen == expected("needs_input_grad.grad_a.needs"));
        CHECK_THAT(values(g[0]), matches_float("needs_input_grad.grad_a.grad0"));
    }
    SECTION("grad with respect to b") {
        auto a = a0 * 1, b = b0 * 1;
        auto g = torch::autograd::grad({MulRecording::apply(a, b).sum()}, {b});
        CHECK(needs_seen == expected("needs_input_grad.grad_b.needs"));
        CHECK_THAT(values(g[0]), matches_float("needs_input_grad.grad_b.grad0"));
    }
    SECTION("grad with respect to both, and backward") {
        auto a = a0 * 1, b = b0 * 1;
        auto g = torch::autograd::grad({MulRecording::apply(a, b).sum()}, {a, b});
        CHECK(needs_seen == expected("needs_input_grad.grad_ab.needs"));
        CHECK_THAT(values(g[0]), matches_float("needs_input_grad.grad_ab.grad0"));
        CHECK_THAT(values(g[1]), matches_float("needs_input_grad.grad_ab.grad1"));
        MulRecording::apply(a0 * 1, b0 * 1).sum().backward();
        CHECK(needs_seen == expected("needs_input_grad.backward.needs"));
    }
    SECTION("an input that does not require grad") {
        MulRecording::apply(a0 * 1, ref("needs_input_grad.b", {2})).sum().backward();
        CHECK(needs_seen == expected("needs_input_grad.constant_b.needs"));
    }
    SECTION("on leaves too") {
        torch::autograd::grad({MulRecording::apply(a0, b0).sum()}, {b0});
        CHECK(needs_seen == expected("needs_input_grad.grad_b.needs"));
    }
}

TEST_CASE("retain_grad then an in-place operation: the gradient of the current value",
          "[autograd][libtorch][regression]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto a = x * 1;
    a.retain_grad();
    a.mul_(2);
    a.sum().backward();
    CHECK_THAT(values(a.grad()), matches_float("retain_grad.inplace.a.grad"));
    CHECK_THAT(values(x.grad()), matches_float("retain_grad.inplace.x.grad"));

    auto x2 = ref("retain_grad.twice.x", {2}, true);
    auto b = x2 * 2;
    b.retain_grad();
    b.add_(1);
    b.mul_(3);
    (b * b).sum().backward();
    CHECK_THAT(values(b.grad()), matches_float("retain_grad.twice.a.grad"));
    CHECK_THAT(values(x2.grad()), matches_float("retain_grad.twice.x.grad"));
}

TEST_CASE("autograd::grad refuses empty inputs with PyTorch's message", "[autograd][libtorch][regression]") {
    auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
    CHECK_THAT(error_of([&] { torch::autograd::grad({(x * x).sum()}, {}); }),
               Contains("grad requires non-empty inputs."));
}

// ---- LibTorch's spellings --------------------------------------------------------------

TEST_CASE("LibTorch's names: Variable, tensor_list and variable_list in torch::autograd", "[autograd][libtorch]") {
    torch::autograd::Variable v = torch::ones({2}, torch::requires_grad());
    torch::autograd::variable_list vars{v, v * 2};
    torch::autograd::tensor_list grads = torch::autograd::grad({vars[1].sum()}, {vars[0]});
    CHECK_THAT(values(grads[0]), approx({2.0, 2.0}));
}

TEST_CASE("factories take an integer size; ones({}) stays 0-dim", "[autograd][libtorch]") {
    auto opts = torch::TensorOptions().dtype(torch::kFloat64);
    CHECK(torch::ones(3).sizes() == torch::Shape{3});
    CHECK(torch::zeros(2, opts).sizes() == torch::Shape{2});
    CHECK(torch::empty(4).sizes() == torch::Shape{4});
    CHECK(torch::full(1, 2.5).item<double>() == 2.5);
    CHECK(torch::randn(5, opts).numel() == 5);
    CHECK(torch::rand(5).numel() == 5);
    CHECK(torch::ones({}).dim() == ref_scalar("spelling.ones_empty_dim"));
    CHECK(torch::zeros({2, 3}, torch::requires_grad(true)).requires_grad());
}

TEST_CASE("empty is LibTorch's: storage to write before reading, with the options given", "[autograd][libtorch]") {
    // Its contents are unspecified (uninitialised, as LibTorch's); what it guarantees is
    // the shape, the dtype, requires_grad, and that written values read back.
    torch::Tensor t = torch::empty({2, 3}, torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true));
    CHECK(t.sizes() == torch::Shape{2, 3});
    CHECK(t.dtype() == torch::kFloat64);
    CHECK(t.requires_grad());
    CHECK(t.is_leaf());
    torch::Tensor f = torch::empty(4, torch::dtype(torch::kFloat32));
    float* data = f.data_ptr<float>();
    for (int i = 0; i < 4; ++i) data[i] = 0.5f * float(i);
    CHECK(f.sum().item<double>() == 3.0);
    CHECK(torch::zeros({64}).abs().sum().item<double>() == 0.0);  // zeros still zero-fills
}

TEST_CASE("reductions over one integer dimension; member forms of free functions", "[autograd][libtorch]") {
    auto m = ref("spelling.m", {2, 3});
    CHECK_THAT(values(m.sum(0)), matches_float("spelling.sum0"));
    CHECK(m.sum(1, true).sizes() == torch::Shape{2, 1});
    CHECK_THAT(values(m.sum(1, true)), matches_float("spelling.sum1_keepdim"));
    CHECK_THAT(values(m.mean(1)), matches_float("spelling.mean1"));
    CHECK(m.sum({}).dim() == 0);  // a braced list is a list of dimensions (none: all)
    CHECK(m.ndimension() == 2);
    CHECK(m.add(m, 2).equal(m * 3));
    CHECK(m.sub(1.0).equal(m - 1.0));
    CHECK(m.mul(2.0).equal(m * 2.0));
    CHECK(m.div(m).equal(torch::ones({2, 3})));
    CHECK(m.square().equal(m * m));
    CHECK(m.clamp_min(0.0).equal(torch::clamp_min(m, 0.0)));
    CHECK(m.clamp_max(0.0).equal(torch::clamp_max(m, 0.0)));
    CHECK(m.argmax(1).equal(torch::argmax(m, 1)));
    CHECK(m.eq(m).all().item<bool>());
    CHECK_FALSE(m.ne(m).any().item<bool>());
    CHECK(m.eq(2.0).any().item<bool>());
}

TEST_CASE("compound assignment is the in-place operation; remove_hook takes the handle", "[autograd][libtorch]") {
    auto m = ref("spelling.m", {2, 3}, true);
    auto h = m * 1;
    h += 2;
    h *= m;
    h -= 1;
    h /= 4;
    CHECK(h._version() == 4);
    int removed_calls = 0;
    auto handle = h.register_hook([](Tensor g) { return g * 3; });
    auto removed = h.register_hook([&](Tensor) { ++removed_calls; });
    h.remove_hook(removed);
    h.sum().backward();
    CHECK(removed_calls == 0);
    CHECK_THAT(values(h), matches_float("spelling.compound.h"));
    CHECK_THAT(values(m.grad()), matches_float("spelling.compound.m.grad"));
    CHECK_THAT(error_of([&] { m += 1; }),
               Contains("a leaf Variable that requires grad is being used in an in-place operation."));
}

TEST_CASE("grad with create_graph, then backward through the gradient", "[autograd][libtorch]") {
    auto x = torch::tensor({0.5, -1.2}, torch::requires_grad());
    auto g = torch::autograd::grad({(x * x * x).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
    g.sum().backward();
    CHECK_THAT(values(g), matches_float("spelling.double_backward.g"));
    CHECK_THAT(values(x.grad()), matches_float("spelling.double_backward.x.grad"));
    auto unused = torch::tensor({1.0}, torch::requires_grad());
    CHECK_THAT(error_of([&] { torch::autograd::grad({(x * x).sum()}, {unused}); }),
               Contains("Set allow_unused=True"));
}

namespace {
// Sums the tensors of a list scaled by k; each element of the list is an input.
struct ScaledSum : Function<ScaledSum> {
    static Tensor forward(AutogradContext* ctx, double k, tensor_list xs) {
        ctx->saved_data["k"] = k;
        Tensor total = xs[0] * k;
        for (std::size_t i = 1; i < xs.size(); ++i) total = total + xs[i] * k;
        return total;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list g) {
        // needs_input_grad counts tensor inputs: the list's elements are 0, 1, 2.
        CHECK(ctx->needs_input_grad(0));
        CHECK_FALSE(ctx->needs_input_grad(1));
        CHECK(ctx->needs_input_grad(2));
        const double k = ctx->saved_data["k"].toDouble();
        return {Tensor(), g[0] * k, Tensor(), g[0] * k};
    }
};
}  // namespace

TEST_CASE("a tensor_list argument is differentiable in each of its tensors", "[autograd][libtorch]") {
    auto a = torch::tensor({1.0, 2.0}, torch::requires_grad());
    auto b = torch::tensor({3.0, 4.0});
    auto c = torch::tensor({5.0, 6.0}, torch::requires_grad());
    auto y = ScaledSum::apply(0.5, tensor_list{a, b, c});
    CHECK(y.grad_fn()->next_edges().size() == 3);
    y.sum().backward();
    CHECK_THAT(values(a.grad()), approx({0.5, 0.5}));
    CHECK_THAT(values(c.grad()), approx({0.5, 0.5}));
}

TEST_CASE("sizes and dtypes print as in LibTorch", "[autograd][libtorch]") {
    auto m = torch::zeros({2, 3}, torch::dtype(torch::kFloat64));
    std::ostringstream os;
    os << m.sizes() << " " << m.dtype() << " " << torch::kFloat32 << " " << torch::ones({}).sizes();
    CHECK(os.str() == "[2, 3] double float []");
}

TEST_CASE("item() returns a Scalar; masked_fill", "[autograd][libtorch]") {
    const auto& items = expected("spelling.item");
    CHECK(torch::tensor({2.5}).item().toDouble() == items[0]);
    CHECK(torch::tensor({2.5}).item().isFloatingPoint());
    CHECK(torch::tensor_i64({3}).item().toLong() == static_cast<std::int64_t>(items[1]));
    CHECK(torch::tensor_i64({3}).item().isIntegral(false));
    CHECK(torch::tensor({1.0}).eq(1.0).item().toBool());
    CHECK(torch::tensor({std::complex<double>(1, 2)}).item().toComplexDouble() == std::complex<double>(1, 2));
    CHECK_THAT(error_of([&] { torch::tensor({std::complex<double>(1, 2)}).item().toDouble(); }),
               Contains("imaginary part"));
    CHECK(torch::tensor({2.5}).item<double>() == 2.5);  // the template form stays

    auto m = ref("spelling.m", {2, 3}, true);
    auto w = torch::tensor({{1.0, -2.0, 0.5}, {0.25, 3.0, -1.0}});
    auto y = m.masked_fill(m > 0.4, 7.0);
    (y * w).sum().backward();
    CHECK_THAT(values(y), matches_float("spelling.masked_fill.y"));
    CHECK_THAT(values(m.grad()), matches_float("spelling.masked_fill.m.grad"));
    CHECK_THAT(error_of([&] { m.masked_fill(m, 1.0); }), Contains("masked_fill: the mask must be a bool tensor"));
    CHECK_THAT(error_of([&] { m.masked_fill(torch::ones({3, 2, 3}).eq(1.0), 1.0); }),
               Contains("must broadcast to the shape of the tensor, [2, 3]"));
}
