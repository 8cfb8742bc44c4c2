// Bad input to the dynamic mode, one table: every row feeds a public entry point the wrong
// thing at run time (an undefined tensor, wrong sizes, an empty tensor, a non-contiguous
// view, mismatched dtypes, a released graph, a saved tensor modified in place, a hook or a
// custom backward that throws or returns the wrong thing) and requires
//  - a gradc::Error whose message names the operation, what it got and what it expected
//    (each row lists the fragments), or, where the user's own code threw, that exception
//    unchanged;
//  - every tensor the call could touch (its operands, the leaves of the graph) exactly as
//    it was: values, gradient and version counter.
// The messages of many of these are checked once more, next to their operation, in the
// other files; this table is the one place that checks them all for the state they leave.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bad_input_table.hpp"
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
using gradc::autograd::AutogradContext;
using namespace bad_input;

namespace {

const auto f64 = gradc::dtype(gradc::kFloat64);

struct ThrowingGrad : gradc::autograd::Function<ThrowingGrad> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
    static tensor_list backward(AutogradContext*, tensor_list) { throw UserFailure("custom backward failed"); }
};
struct BadShapeGrad : gradc::autograd::Function<BadShapeGrad> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
    static tensor_list backward(AutogradContext*, tensor_list) { return {gradc::ones({5}, f64)}; }
};
struct BadCountGrad : gradc::autograd::Function<BadCountGrad> {
    static Tensor forward(AutogradContext*, Tensor x) { return x * 2.0; }
    static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0], g[0]}; }
};

std::vector<BadInput> dynamic_table() {
    std::vector<BadInput> t;
    // ---- undefined tensors ----------------------------------------------------------
    t.push_back({"add with an undefined operand", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { (void)(Tensor() + x); }};
                 }, {"gradc: add:", "undefined tensor"}});
    t.push_back({"sum of an undefined tensor", [] { return Scene{{}, [] { (void)Tensor().sum(); }}; },
                 {"gradc: sum:", "undefined tensor"}});
    t.push_back({"mean of an undefined tensor", [] { return Scene{{}, [] { (void)Tensor().mean(); }}; },
                 {"gradc: mean:", "undefined tensor"}});
    t.push_back({"max of an undefined tensor", [] { return Scene{{}, [] { (void)Tensor().max(); }}; },
                 {"gradc: max:", "undefined tensor"}});
    t.push_back({"item of an undefined tensor", [] { return Scene{{}, [] { (void)Tensor().item<double>(); }}; },
                 {"gradc: item():", "undefined tensor"}});
    t.push_back({"backward of an undefined tensor", [] { return Scene{{}, [] { Tensor().backward(); }}; },
                 {"gradc: backward:", "undefined tensor"}});
    t.push_back({"autograd::grad with respect to an undefined tensor", [] {
                     auto x = leaf_with_grad();
                     auto s = (x * x).sum();
                     return Scene{{x}, [s] { (void)gradc::autograd::grad({s}, {Tensor()}); }};
                 }, {"gradc: autograd::grad:", "undefined tensor"}});
    t.push_back({"copy_ from an undefined tensor", [] {
                     auto d = gradc::zeros({3}, f64);
                     return Scene{{d}, [d] { d.copy_(Tensor()); }};
                 }, {"gradc: copy_:", "undefined tensor"}});
    t.push_back({"cat with an undefined tensor", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { (void)gradc::cat({x, Tensor()}, 0); }};
                 }, {"gradc: cat:", "undefined tensor"}});
    // ---- wrong sizes ----------------------------------------------------------------
    t.push_back({"add of shapes that do not broadcast", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { (void)(x + gradc::ones({2}, f64)); }};
                 }, {"gradc: add:", "[3]", "[2]", "cannot be broadcast", "expected equal sizes or one of them 1"}});
    t.push_back({"add_ whose result would be larger than its destination", [] {
                     auto d = gradc::zeros({3}, f64);
                     return Scene{{d}, [d] { d.add_(gradc::ones({2, 3}, f64)); }};
                 }, {"gradc: add_:", "[3]", "[2, 3]"}});
    t.push_back({"copy_ of a source larger than its destination", [] {
                     auto d = gradc::zeros({3}, f64);
                     auto s = gradc::ones({2, 3}, f64);
                     return Scene{{d, s}, [d, s] { d.copy_(s); }};
                 }, {"gradc: copy_:", "[Double [2, 3]]", "destination's shape [3]", "expected a source of that shape"}});
    t.push_back({"index_put_ of a value that does not fit the indexed entry", [] {
                     auto d = gradc::zeros({3}, f64);
                     return Scene{{d}, [d] { d.index_put_({0}, gradc::ones({2}, f64)); }};
                 }, {"gradc: copy_:", "[Double [2]]", "destination's shape []"}});
    t.push_back({"matmul of shapes that do not multiply", [] {
                     auto a = gradc::ones({2, 3}, f64.requires_grad(true));
                     auto b = gradc::ones({4, 5}, f64.requires_grad(true));
                     return Scene{{a, b}, [a, b] { (void)gradc::matmul(a, b); }};
                 }, {"gradc: mm:", "2x3 and 4x5", "cannot be multiplied"}});
    t.push_back({"reshape to another number of elements", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { (void)x.reshape({4}); }};
                 }, {"gradc: reshape:", "[4]", "size 3"}});
    t.push_back({"backward with a gradient of the wrong shape", [] {
                     auto x = leaf_with_grad();
                     auto y = x * 2.0;
                     return Scene{{x}, [y] { y.backward(gradc::ones({2}, f64)); }};
                 }, {"gradc: backward:", "mismatch in shape", "[2]", "[3]"}});
    t.push_back({"autograd::grad with two gradients for one output", [] {
                     auto x = leaf_with_grad();
                     auto y = x * 2.0;
                     return Scene{{x}, [x, y] {
                                      (void)gradc::autograd::grad({y}, {x}, {gradc::ones({3}, f64), gradc::ones({3}, f64)});
                                  }};
                 }, {"gradc: autograd::grad:", "got 2 gradients for 1 outputs", "expected one per output"}});
    t.push_back({"a leaf's .grad() assigned with another shape", [] {
                     auto x = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
                     x.mutable_grad() = gradc::ones({5}, f64);
                     return Scene{{x}, [x] { (x * 2.0).sum().backward(); }};
                 }, {"gradc: AccumulateGrad:", "has shape [5]", "expected the leaf's shape [3]"}});
    // ---- empty tensors --------------------------------------------------------------
    t.push_back({"item of an empty tensor", [] { return Scene{{}, [] { (void)gradc::zeros({0}, f64).item<double>(); }}; },
                 {"gradc: item():", "0 elements", "[0]", "expected exactly one element"}});
    t.push_back({"max of an empty tensor", [] {
                     auto e = gradc::zeros({0}, f64.requires_grad(true));
                     return Scene{{e}, [e] { (void)e.max(); }};
                 }, {"gradc: max:", "zero-size", "[0]"}});
    t.push_back({"backward of an empty non-scalar without a gradient", [] {
                     auto e = gradc::zeros({0}, f64.requires_grad(true));
                     auto y = e * 2.0;
                     return Scene{{e}, [y] { y.backward(); }};
                 }, {"gradc: backward:", "scalar outputs", "[0]"}});
    t.push_back({"cat of an empty list", [] { return Scene{{}, [] { (void)gradc::cat({}, 0); }}; },
                 {"gradc: cat:", "expected a non-empty list"}});
    t.push_back({"dot of an empty and a one-element vector", [] {
                     auto e = gradc::zeros({0}, f64.requires_grad(true));
                     return Scene{{e}, [e] { (void)gradc::dot(e, gradc::ones({1}, f64)); }};
                 }, {"gradc: dot:", "[Double [0]]", "[Double [1]]", "same size"}});
    // ---- non-contiguous views -------------------------------------------------------
    t.push_back({"view of a transposed tensor", [] {
                     auto a = gradc::ones({2, 3}, f64.requires_grad(true));
                     return Scene{{a}, [a] { (void)a.t().view({6}); }};
                 }, {"gradc: view:", "[6]", "stride", "reshape()"}});
    t.push_back({"as_strided differentiated through a transposed view", [] {
                     auto a = gradc::ones({2, 3}, f64.requires_grad(true));
                     return Scene{{a}, [a] { (void)gradc::as_strided(a.t(), {3}, {1}, 0); }};
                 }, {"gradc: as_strided:", "contiguous input", "strides"}});
    t.push_back({"in-place update of a transposed view of a leaf", [] {
                     auto a = gradc::ones({2, 3}, f64.requires_grad(true));
                     return Scene{{a}, [a] { a.t().mul_(2.0); }};
                 }, {"gradc: mul_:", "view of a leaf Variable that requires grad"}});
    t.push_back({"from_blob with a negative stride", [] {
                     return Scene{{}, [] {
                                      static double data[3] = {1, 2, 3};
                                      (void)gradc::from_blob(data, {3}, {-1});
                                  }};
                 }, {"gradc: from_blob:", "negative strides", "[-1]"}});
    // A 0-dim tensor has no dimension 0 to read (found by the fuzzer: narrow read past
    // the end of the sizes).
    t.push_back({"narrow of a 0-dim tensor", [] {
                     auto s = gradc::Tensor(2.5).requires_grad_();
                     return Scene{{s}, [s] { (void)s.narrow(0, 0, 1); }};
                 }, {"gradc: narrow() cannot be applied to a 0-dim tensor"}});
    t.push_back({"size(0) of a 0-dim tensor", [] {
                     auto s = gradc::Tensor(2.5);
                     return Scene{{s}, [s] { (void)s.size(0); }};
                 }, {"gradc: size:", "dimension specified as 0 but tensor has no dimensions"}});
    t.push_back({"stride(-1) of a 0-dim tensor", [] {
                     auto s = gradc::Tensor(2.5);
                     return Scene{{s}, [s] { (void)s.stride(-1); }};
                 }, {"gradc: stride:", "dimension specified as -1 but tensor has no dimensions"}});
    // ---- mismatched dtypes ----------------------------------------------------------
    t.push_back({"dot of float64 and float32", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { (void)gradc::dot(x, gradc::ones({3}, gradc::dtype(gradc::kFloat32))); }};
                 }, {"gradc: dot:", "same dtype", "[Double [3]]", "[Float [3]]"}});
    t.push_back({"mul_ of a real tensor by a complex one", [] {
                     auto d = gradc::ones({3}, f64);
                     return Scene{{d}, [d] { d.mul_(gradc::ones({3}, gradc::dtype(gradc::kComplex128))); }};
                 }, {"gradc: mul_:", "ComplexDouble", "can't be cast", "Double"}});
    t.push_back({"backward of a real output with a complex gradient", [] {
                     auto x = leaf_with_grad();
                     auto y = x * 2.0;
                     return Scene{{x}, [y] { y.backward(gradc::ones({3}, gradc::dtype(gradc::kComplex128))); }};
                 }, {"gradc: backward:", "grad_output[0] has dtype ComplexDouble", "output[0] has dtype Double",
                     "expected both real or both complex"}});
    t.push_back({"autograd::grad of a complex output with a real gradient", [] {
                     auto z = gradc::complex(gradc::ones({2}, f64), gradc::ones({2}, f64)).requires_grad_();
                     auto y = z * 2.0;
                     return Scene{{z}, [z, y] { (void)gradc::autograd::grad({y}, {z}, {gradc::ones({2}, f64)}); }};
                 }, {"gradc: autograd::grad:", "grad_output[0] has dtype Double", "output[0] has dtype ComplexDouble"}});
    t.push_back({"requires_grad_ on an integer tensor", [] {
                     auto i = gradc::tensor_i64({1, 2});
                     return Scene{{i}, [i] { i.requires_grad_(); }};
                 }, {"gradc: requires_grad_():", "floating point and complex", "Long"}});
    // ---- a released graph, a saved tensor changed, an in-place update of a leaf -------
    t.push_back({"backward through a released graph", [] {
                     auto x = leaf_with_grad();
                     auto y = (x.exp() * x).sum();
                     y.backward();
                     return Scene{{x}, [y] { y.backward(); }};
                 }, {"gradc: Trying to backward through the graph a second time", "retain_graph=true"}});
    t.push_back({"backward after a saved tensor was modified in place", [] {
                     auto x = leaf_with_grad();
                     auto a = x * 1.0;
                     auto b = (a * a).sum();
                     a.mul_(2.0);
                     return Scene{{x, a}, [b] { b.backward(); }};
                 }, {"modified by an inplace operation", "is at version 1; expected version 0", "MulBackward"}});
    t.push_back({"in-place update of a leaf that requires grad", [] {
                     auto x = leaf_with_grad();
                     return Scene{{x}, [x] { x.mul_(2.0); }};
                 }, {"gradc: mul_:", "leaf Variable that requires grad", "[Double [3]]", "NoGradGuard"}});
    // ---- hooks ----------------------------------------------------------------------
    t.push_back({"a tensor hook that throws", [] {
                     auto x = leaf_with_grad();
                     auto y = x * 2.0;
                     y.register_hook([](const Tensor&) -> Tensor { throw UserFailure("hook failed"); });
                     return Scene{{x}, [y] { y.sum().backward(); }};
                 }, {"hook failed"}, Thrower::user});
    t.push_back({"a tensor hook that returns another shape", [] {
                     auto x = leaf_with_grad();
                     auto y = x * 2.0;
                     y.register_hook([](const Tensor&) { return gradc::ones({5}, f64); });
                     return Scene{{x}, [y] { y.sum().backward(); }};
                 }, {"gradc: tensor hook:", "[Double [3]]", "[Double [5]]", "same shape and dtype"}});
    t.push_back({"a leaf's hook that returns another dtype", [] {
                     auto x = leaf_with_grad();
                     x.register_hook([](const Tensor& g) { return g.to(gradc::kFloat32); });
                     return Scene{{x}, [x] { (x * 2.0).sum().backward(); }};
                 }, {"gradc: tensor hook:", "[Double [3]]", "[Float [3]]", "same shape and dtype"}});
    // ---- custom functions -----------------------------------------------------------
    t.push_back({"a custom backward that throws", [] {
                     auto x = leaf_with_grad();
                     auto y = ThrowingGrad::apply(x);
                     return Scene{{x}, [y] { y.sum().backward(); }};
                 }, {"custom backward failed"}, Thrower::user});
    t.push_back({"a custom backward that returns a gradient of another shape", [] {
                     auto x = leaf_with_grad();
                     auto y = BadShapeGrad::apply(x);
                     return Scene{{x}, [y] { y.sum().backward(); }};
                 }, {"gradc: BadShapeGradBackward returned an invalid gradient at index 0", "got [5]",
                     "expected shape compatible with [3]"}});
    t.push_back({"a custom backward that returns too many gradients", [] {
                     auto x = leaf_with_grad();
                     auto y = BadCountGrad::apply(x);
                     return Scene{{x}, [y] { y.sum().backward(); }};
                 }, {"BadCountGradBackward returned an incorrect number of gradients", "expected 1, got 2"}});
    // ---- failures after some leaves' gradients were computed --------------------------
    // x's AccumulateGrad is recorded after the failing node, so it runs first (newest
    // first): the pass fails after x's gradient is known; it must not reach x.grad().
    t.push_back({"a custom backward that throws after a leaf's gradient was computed", [] {
                     auto w = leaf_with_grad();
                     auto failing = ThrowingGrad::apply(w);
                     auto x = leaf_with_grad();
                     auto s = (x * 3.0).sum() + failing.sum();
                     return Scene{{x, w}, [s] { s.backward(); }};
                 }, {"custom backward failed"}, Thrower::user});
    t.push_back({"a tensor hook that throws after a retained non-leaf's gradient was computed", [] {
                     auto w = leaf_with_grad();
                     auto failing = w * 2.0;
                     failing.register_hook([](const Tensor&) -> Tensor { throw UserFailure("hook failed"); });
                     auto x = leaf_with_grad();
                     auto r = x * 3.0;
                     r.retain_grad();
                     auto s = r.sum() + failing.sum();
                     return Scene{{x, w, r}, [s] { s.backward(); }};
                 }, {"hook failed"}, Thrower::user});
    t.push_back({"backward(inputs=...) failing after a retained target's gradient was summed", [] {
                     auto w = leaf_with_grad();
                     auto failing = ThrowingGrad::apply(w);
                     auto x = leaf_with_grad();
                     auto r = x * 3.0;
                     r.retain_grad();
                     auto s = (r * r).sum() + failing.sum();
                     return Scene{{x, w, r}, [s, r, w] { s.backward({}, std::nullopt, false, {r, w}); }};
                 }, {"custom backward failed"}, Thrower::user});
    return t;
}

}  // namespace

TEST_CASE("dynamic mode: every bad input is an error naming the operation, and changes nothing",
          "[autograd][bad_input]") {
    bad_input::check_table(dynamic_table());
}

TEST_CASE("dynamic mode: after a failed pass the same graph still gives the right gradient",
          "[autograd][bad_input]") {
    // The hook throws once; the pass that follows on the same graph (kept by retain_graph)
    // accumulates exactly one gradient.
    auto x = gradc::tensor({1.0, -2.0}, gradc::requires_grad());
    auto y = x * 3.0;
    bool fail = true;
    y.register_hook([&](const Tensor& g) -> Tensor {
        if (fail) throw UserFailure("hook failed");
        return g;
    });
    auto s = y.sum();
    CHECK_THROWS_AS(s.backward({}, true), UserFailure);
    CHECK_FALSE(x.grad().defined());
    fail = false;
    s.backward();
    CHECK(values(x.grad()) == std::vector<double>{3.0, 3.0});
}

TEST_CASE("dynamic mode: a post-accumulate-grad hook that throws fails the pass, which puts back its sums",
          "[autograd][bad_input]") {
    // The hook runs right after its leaf's sum (the notes' firing order), so that sum is
    // made when it throws; the failed pass puts it back, and the other leaf's AccumulateGrad
    // never runs. A leaf with an earlier gradient gets back its own tensor, values and version.
    auto z = gradc::tensor({3.0}, gradc::requires_grad());
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    x.mutable_grad() = gradc::tensor({5.0, 5.0});  // not by a pass: its AccumulateGrad is made below
    const Tensor x_grad = x.grad();
    const auto x_grad_version = x_grad._version();
    int hooks_run = 0;
    z.register_post_accumulate_grad_hook([&](const Tensor&) { ++hooks_run; });
    x.register_post_accumulate_grad_hook([&](const Tensor& leaf) {
        ++hooks_run;
        CHECK(values(leaf.grad()) == std::vector<double>{7.0, 7.0});
        throw UserFailure("post-accumulate hook failed");
    });
    // x's AccumulateGrad is the newest node (registering a hook makes it), so it runs first.
    auto z_part = (z * z).sum();  // recorded in this order (the operands of + are not sequenced)
    auto x_part = (x * 2.0).sum();
    auto s = z_part + x_part;
    CHECK_THROWS_MATCHES(s.backward(), UserFailure, Catch::Matchers::Message("post-accumulate hook failed"));
    CHECK(hooks_run == 1);
    CHECK(x.grad().impl() == x_grad.impl());
    CHECK(values(x.grad()) == std::vector<double>{5.0, 5.0});
    CHECK(x.grad()._version() == x_grad_version);
    CHECK_FALSE(z.grad().defined());
}
