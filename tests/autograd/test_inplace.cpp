// In-place operations: version counters, the saved-tensor check, the leaf check, and
// in-place operations on views rewriting the base's history.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("every in-place operation bumps the shared version counter", "[autograd][inplace]") {
    auto t = gradc::ones({4});
    auto v = t.slice(0, 1, 3);
    CHECK(t._version() == 0);
    t.add_(1.0);
    t.sub_(gradc::ones({4}), 0.5);
    t.mul_(2.0);
    t.div_(gradc::full({4}, 3.0));
    t.clamp_(0.0, 10.0);
    t.relu_();
    v.sin_();
    v.zero_();
    v.fill_(2.0);
    v.copy_(gradc::tensor({5.0, 6.0}));
    CHECK(t._version() == 10);
    CHECK(v._version() == 10);
    CHECK_THAT(values(t), approx({1, 5, 6, 1}));
    auto d = t.detach();
    d.exp_();
    CHECK(t._version() == 11);  // detach shares the counter
}

TEST_CASE("a saved tensor modified in place makes backward fail with both versions", "[autograd][inplace][errors]") {
    auto x = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    auto y = x.exp();      // saves its output
    auto z = (y * 2.0).sum();
    y.add_(1.0);
    auto msg = error_of([&] { z.backward(); });
    CHECK_THAT(msg, Contains("modified by an inplace operation") && Contains("[Double [3]]") &&
                        Contains("output 0 of AddBackward") && Contains("is at version 1; expected version 0 instead") &&
                        Contains("saved by MulBackward"));
    // MulBackward saves its inputs: modifying one of them is caught too.
    auto a = x * 1.0;
    auto p = (a * x).sum();
    a.mul_(3.0);
    CHECK_THAT(error_of([&] { p.backward(); }), Contains("is at version 1; expected version 0") && Contains("MulBackward"));
    // Operations that save nothing are not affected.
    auto b = x * 1.0;
    auto q = (b + x).sum();
    b.mul_(3.0);
    CHECK_NOTHROW(q.backward());
}

TEST_CASE("in-place operations on leaves that require grad are refused", "[autograd][inplace][errors]") {
    auto w = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    CHECK_THAT(error_of([&] { w.add_(1.0); }), Contains("add_") && Contains("a leaf Variable that requires grad is being used in an in-place operation.") && Contains("NoGradGuard"));
    CHECK_THAT(error_of([&] { w.select(0, 0).mul_(2.0); }), Contains("a view of a leaf Variable that requires grad is being used in an in-place operation."));
    CHECK(w._version() == 0);  // nothing was modified
    {
        gradc::NoGradGuard no_grad;
        w.sub_(gradc::tensor({0.5, 0.5}));  // e.g. a gradient-descent step
    }
    CHECK_THAT(values(w), approx({0.5, 1.5}));
    CHECK(w.is_leaf());
    CHECK(w.requires_grad());
}

TEST_CASE("in-place operations on non-leaves take part in the graph", "[autograd][inplace]") {
    auto x = gradc::tensor({0.5, -1.0, 2.0}, gradc::requires_grad());
    auto y = x * 2.0;
    y.sin_();
    CHECK(y.grad_fn()->name() == "SinBackward");
    y.add_(x);
    CHECK_THAT(values(y), matches("inplace.chain.y"));
    y.sum().backward();
    CHECK_THAT(values(x.grad()), matches("inplace.chain.grad"));
}

TEST_CASE("in-place on a view rewrites the history of its base", "[autograd][inplace][views]") {
    auto x = gradc::tensor({1.0, 2.0, 3.0, 4.0}, gradc::requires_grad());
    auto b = x * 1.0;
    auto v = b.slice(0, 1, 3);
    v.mul_(x.slice(0, 0, 2));
    CHECK_THAT(values(b), matches("inplace.view_mul.b"));
    CHECK(b.grad_fn()->name() == "CopySlicesBackward");
    (b * b).sum().backward();
    CHECK_THAT(values(x.grad()), matches("inplace.view_mul.grad"));
}

TEST_CASE("copying into a slice of a tensor that does not require grad", "[autograd][inplace][views]") {
    auto x = gradc::tensor({0.5, -1.0, 2.0}, gradc::requires_grad());
    auto s = gradc::tensor({3.0}, gradc::requires_grad());
    auto b = x.clone();
    b.slice(0, 0, 1).copy_(s * 2.0);
    gradc::pow(b, 2.0).sum().backward();
    CHECK_THAT(values(x.grad()), matches("inplace.copy.x.grad"));
    CHECK_THAT(values(s.grad()), matches("inplace.copy.s.grad"));

    auto buf = gradc::zeros({3});
    CHECK_FALSE(buf.requires_grad());
    buf.select(0, 1).copy_(s.squeeze());
    CHECK(buf.requires_grad());
    CHECK_FALSE(buf.is_leaf());
    s.mutable_grad() = gradc::Tensor();
    (buf * gradc::tensor({1.0, 7.0, 1.0})).sum().backward();
    CHECK(s.grad().item<double>() == 7.0);
}

TEST_CASE("views taken before an in-place operation on the base see the new history", "[autograd][inplace][views]") {
    auto x = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto b = x * 1.0;
    auto v = b.select(0, 0);
    b.mul_(3.0);  // v now holds 3·x0
    CHECK(v.item<double>() == 3.0);
    v.backward();
    CHECK_THAT(values(x.grad()), approx({3, 0}));
}

TEST_CASE("in-place results must keep the shape and a castable dtype", "[autograd][inplace][errors]") {
    auto t = gradc::zeros({3});
    CHECK_THAT(error_of([&] { t.add_(gradc::zeros({2, 3})); }),
               Contains("add_") && Contains("output with shape [3] doesn't match the broadcast shape [2, 3]"));
    CHECK_THAT(error_of([&] { t.mul_(gradc::tensor({std::complex<double>(0, 1)})); }), Contains("can't be cast"));
    CHECK(t._version() == 0);
}

TEST_CASE("in-place on a view of a non-contiguous base keeps gradients correct", "[autograd][inplace][views]") {
    // The base is a transposed tensor detached: its strides are a permutation of a
    // contiguous layout, and the view's region is embedded in that layout.
    auto base = gradc::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}).t().detach();
    REQUIRE_FALSE(base.is_contiguous());
    auto w = gradc::tensor({0.5, -1.0, 2.0}, gradc::requires_grad());
    base.select(1, 0).mul_(w);
    auto v = base.select(0, 1);  // a view made after the in-place operation
    ((base * base).sum() + 3.0 * v.sum()).backward();
    CHECK_THAT(values(base), matches("inplace.noncontiguous.base"));
    CHECK_THAT(values(w.grad()), matches("inplace.noncontiguous.w.grad"));
}
