// gradc::autograd::functional against torch.autograd.functional (reference/generate.py)
// and closed forms.
#include <gradc/autograd/functional.hpp>

#include "support.hpp"

using namespace testing;
using gradc::Tensor;
using gradc::tensor_list;
namespace F = gradc::autograd::functional;

namespace {

Tensor fx() { return ref_tensor("functional.x", {3}); }
Tensor fy() { return ref_tensor("functional.y", {3}); }

tensor_list two_out(const tensor_list& in) {
    const Tensor& x = in[0];
    const Tensor& y = in[1];
    return {gradc::sin(x) * y, (x * y * y).sum().reshape({1}), gradc::exp(x.slice(0, 0, 2))};
}

tensor_list scalar_fn(const tensor_list& in) {
    const Tensor& x = in[0];
    const Tensor& y = in[1];
    return {(gradc::pow(x, 3.0) * y).sum() + x[0] * x[1] * y[2] + gradc::tanh(y).sum()};
}

}  // namespace

TEST_CASE("functional::jacobian of a function with several inputs and outputs", "[autograd][functional]") {
    for (auto strategy : {F::Strategy::reverse_mode, F::Strategy::forward_mode}) {
        INFO((strategy == F::Strategy::reverse_mode ? "reverse" : "forward"));
        auto x = fx(), y = fy();
        auto jac = F::jacobian(two_out, {x, y}, {.strategy = strategy});
        REQUIRE(jac.size() == 3);
        const gradc::Shape shapes[3][2] = {{{3, 3}, {3, 3}}, {{1, 3}, {1, 3}}, {{2, 3}, {2, 3}}};
        for (int i = 0; i < 3; ++i) {
            REQUIRE(jac[i].size() == 2);
            for (int j = 0; j < 2; ++j) {
                INFO("output " << i << " input " << j);
                CHECK(jac[i][j].sizes() == shapes[i][j]);
                CHECK_FALSE(jac[i][j].requires_grad());
                CHECK_THAT(values(jac[i][j]), matches("functional.jacobian." + std::to_string(i) + "." + std::to_string(j)));
            }
        }
        // The caller's tensors are untouched.
        CHECK_FALSE(x.requires_grad());
    }
}

TEST_CASE("functional::jacobian of one tensor, closed form", "[autograd][functional]") {
    // f(x) = x ⊙ x ⊙ a: J = diag(2·x·a)
    auto a = gradc::tensor({1.0, -2.0, 0.5});
    auto x = gradc::tensor({0.5, 1.5, -1.0});
    Tensor j = F::jacobian([&](const Tensor& t) { return t * t * a; }, x);
    CHECK_THAT(values(j), approx({1, 0, 0, 0, -6, 0, 0, 0, -1}));
    // A 2-D input and output: shape out ++ in.
    auto m = gradc::tensor({{1.0, 2.0}, {3.0, 4.0}});
    Tensor jm = F::jacobian([](const Tensor& t) { return t.t() * 2.0; }, m);
    CHECK(jm.sizes() == gradc::Shape{2, 2, 2, 2});
    CHECK_THAT(values(jm), approx({2, 0, 0, 0, 0, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0, 2}));
}

TEST_CASE("functional::vjp and jvp agree with PyTorch", "[autograd][functional]") {
    auto x = fx(), y = fy();
    tensor_list v = {ref_tensor("functional.vjp.v0", {3}), ref_tensor("functional.vjp.v1", {1}),
                     ref_tensor("functional.vjp.v2", {2})};
    auto [out, vjp] = F::vjp(two_out, {x, y}, v);
    REQUIRE(out.size() == 3);
    CHECK_FALSE(out[0].requires_grad());
    CHECK_THAT(values(out[0]), approx(values(gradc::sin(x) * y)));
    CHECK_THAT(values(vjp[0]), matches("functional.vjp.0"));
    CHECK_THAT(values(vjp[1]), matches("functional.vjp.1"));

    tensor_list u = {ref_tensor("functional.jvp.v0", {3}), ref_tensor("functional.jvp.v1", {3})};
    auto [out2, jvp] = F::jvp(two_out, {x, y}, u);
    REQUIRE(jvp.size() == 3);
    for (int i = 0; i < 3; ++i) CHECK_THAT(values(jvp[i]), matches("functional.jvp." + std::to_string(i)));
}

TEST_CASE("functional::hessian, hvp and vhp agree with PyTorch", "[autograd][functional]") {
    auto x = fx(), y = fy();
    for (auto strategy : {F::Strategy::reverse_mode, F::Strategy::forward_mode}) {
        auto h = F::hessian(scalar_fn, {x, y}, {.strategy = strategy});
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                INFO("block " << i << j);
                CHECK(h[i][j].sizes() == gradc::Shape{3, 3});
                CHECK_THAT(values(h[i][j]), matches("functional.hessian." + std::to_string(i) + "." + std::to_string(j)));
            }
    }
    tensor_list u = {ref_tensor("functional.jvp.v0", {3}), ref_tensor("functional.jvp.v1", {3})};
    auto [value, hvp] = F::hvp(scalar_fn, {x, y}, u);
    CHECK(value.numel() == 1);
    CHECK_THAT(values(hvp[0]), matches("functional.hvp.0"));
    CHECK_THAT(values(hvp[1]), matches("functional.hvp.1"));
    auto [value2, vhp] = F::vhp(scalar_fn, {x, y}, u);
    CHECK_THAT(values(vhp[0]), matches("functional.vhp.0"));
    CHECK_THAT(values(vhp[1]), matches("functional.vhp.1"));
}

TEST_CASE("functional::hessian of one tensor, closed form", "[autograd][functional]") {
    // f(x) = Σ x³ + x0·x1: H = diag(6x) + offdiag(1)
    auto x = gradc::tensor({1.0, -2.0});
    Tensor h = F::hessian([](const Tensor& t) { return gradc::pow(t, 3.0).sum() + t[0] * t[1]; }, x);
    CHECK_THAT(values(h), approx({6, 1, 1, -12}));
    auto [v, hv] = F::hvp([](const Tensor& t) { return gradc::pow(t, 3.0).sum() + t[0] * t[1]; }, x,
                          gradc::tensor({1.0, 1.0}));
    CHECK_THAT(values(v), approx({1.0 - 8.0 - 2.0}));
    CHECK_THAT(values(hv), approx({7, -11}));
}

TEST_CASE("functional with create_graph gives differentiable results", "[autograd][functional]") {
    auto x = fx().set_requires_grad(true);
    Tensor j = F::jacobian([](const Tensor& t) { return gradc::sin(t) * t.sum(); }, x, {.create_graph = true});
    REQUIRE(j.requires_grad());
    CHECK_THAT(values(j), matches("functional.create_graph.J"));
    (j * j).sum().backward();
    CHECK_THAT(values(x.grad()), matches("functional.create_graph.grad"));

    // Without create_graph the caller's leaf gets no gradient and results are detached.
    auto x2 = fx().set_requires_grad(true);
    auto [out, g] = F::vjp([](const Tensor& t) { return (t * t).sum(); }, x2);
    CHECK_FALSE(out.requires_grad());
    CHECK_FALSE(g.requires_grad());
    CHECK_FALSE(x2.grad().defined());
    CHECK_THAT(values(g), approx(values(fx() * 2.0)));
}

TEST_CASE("functional: independent inputs give zeros, or errors in strict mode", "[autograd][functional]") {
    auto x = gradc::tensor({1.0, 2.0});
    auto y = gradc::tensor({3.0});
    auto only_x = [](const tensor_list& in) -> tensor_list { return {in[0] * 2.0}; };
    auto jac = F::jacobian(only_x, {x, y});
    CHECK_THAT(values(jac[0][1]), approx({0, 0}));
    CHECK(jac[0][1].sizes() == gradc::Shape{2, 1});
    CHECK_THAT(error_of([&] { F::jacobian(only_x, {x, y}, {.strict = true}); }),
               Catch::Contains("jacobian") && Catch::Contains("output 0") && Catch::Contains("input 1") &&
                   Catch::Contains("strict"));
    auto [o, vj] = F::vjp(only_x, {x, y}, {gradc::tensor({1.0, 1.0})});
    CHECK_THAT(values(vj[1]), approx({0}));
    CHECK_THAT(error_of([&] { F::vjp(only_x, {x, y}, {gradc::tensor({1.0, 1.0})}, {.strict = true}); }),
               Catch::Contains("vjp") && Catch::Contains("input 1"));
    // A constant output: zeros, or an error in strict mode.
    auto constant = [](const tensor_list& in) -> tensor_list { return {gradc::ones_like(in[0])}; };
    CHECK_THAT(values(F::jacobian(constant, {x})[0][0]), approx({0, 0, 0, 0}));
    CHECK_THAT(error_of([&] { F::jacobian(constant, {x}, {.strict = true}); }),
               Catch::Contains("output 0") && Catch::Contains("does not require grad"));
    // jvp: a linear function's JVP is exact; an independent input contributes nothing.
    auto [o2, jv] = F::jvp(only_x, {x, y}, {gradc::tensor({1.0, -1.0}), gradc::tensor({5.0})});
    CHECK_THAT(values(jv[0]), approx({2, -2}));
}

TEST_CASE("functional: bad arguments are errors that say what was expected", "[autograd][functional]") {
    auto x = gradc::tensor({1.0, 2.0});
    auto f = [](const Tensor& t) { return t * 3.0; };
    CHECK_THAT(error_of([&] { F::vjp(f, x); }),
               Catch::Contains("vjp") && Catch::Contains("v may be omitted only") && Catch::Contains("[2]"));
    CHECK_THAT(error_of([&] { F::vjp(f, x, gradc::tensor({1.0, 2.0, 3.0})); }),
               Catch::Contains("vjp") && Catch::Contains("v[0] has shape [3]") && Catch::Contains("expected [2]"));
    CHECK_THAT(error_of([&] { F::jvp(f, x, gradc::tensor({1.0})); }),
               Catch::Contains("jvp") && Catch::Contains("v[0] has shape [1]"));
    CHECK_THAT(error_of([&] { F::hessian(f, x); }),
               Catch::Contains("hessian") && Catch::Contains("single one-element tensor") && Catch::Contains("[2]"));
    CHECK_THAT(error_of([&] { F::jacobian(f, gradc::tensor_i64({1, 2})); }),
               Catch::Contains("jacobian") && Catch::Contains("input 0") && Catch::Contains("floating-point"));
    CHECK_THAT(error_of([&] { F::jacobian([](const tensor_list&) -> tensor_list { return {}; }, {x}); }),
               Catch::Contains("jacobian") && Catch::Contains("no tensors"));
}

TEST_CASE("functional::jacobian of a complex function follows the backward convention", "[autograd][functional][complex]") {
    // f(z) = c·z (holomorphic): backward returns conj(c)·g, so the row for output k with a
    // one-hot gradient is conj(c) at k.
    auto z = gradc::tensor({std::complex<double>(1, 2), std::complex<double>(-0.5, 0.5)});
    auto c = gradc::tensor({std::complex<double>(0.5, -1.5)});
    Tensor j = F::jacobian([&](const Tensor& t) { return t * c; }, z);
    CHECK_THAT(values(j), approx({0.5, 1.5, 0, 0, 0, 0, 0.5, 1.5}));
}
