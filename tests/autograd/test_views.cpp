// Views share storage and version counter; their gradients rearrange back.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

namespace {
gradc::Tensor base_leaf() { return ref_tensor("views.base", {3, 4}, gradc::requires_grad()); }
}  // namespace

TEST_CASE("views share storage and the version counter with their base", "[autograd][views]") {
    auto b = gradc::arange(12).reshape({3, 4}).clone();
    auto v = b.transpose(0, 1);
    auto s = b.select(0, 1);
    CHECK(v.is_view());
    CHECK(s._base().is_same(b));
    CHECK(v.sizes() == gradc::Shape{4, 3});
    CHECK(v.strides() == gradc::Shape{1, 4});
    CHECK(s.storage_offset() == 4);
    CHECK(v[2][1].item<double>() == 6.0);
    s.fill_(-1.0);
    CHECK(b[1][3].item<double>() == -1.0);
    CHECK(b._version() == 1);
    CHECK(v._version() == 1);
    CHECK(b.view({12})._base().is_same(b));
    CHECK(b.slice(1, 1, 3).sizes() == gradc::Shape{3, 2});
    CHECK(b.slice(1, -2).sizes() == gradc::Shape{3, 2});
    CHECK(b.unsqueeze(0).sizes() == gradc::Shape{1, 3, 4});
    CHECK(b.unsqueeze(-1).squeeze().sizes() == gradc::Shape{3, 4});
    CHECK(b.unsqueeze(1).squeeze(1).sizes() == gradc::Shape{3, 4});
    CHECK(gradc::tensor({1.0}).expand({2, 3}).strides() == gradc::Shape{0, 0});
    CHECK(b.permute({1, 0}).is_contiguous() == false);
    CHECK(b.t().reshape({12}).is_view() == false);  // needs a copy
}

TEST_CASE("view gradients agree with PyTorch", "[autograd][views]") {
    auto wv = ref_tensor("views.base", {3, 4}) * 0.1;
    auto x = base_leaf();
    (x.t() * wv.t()).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.t.grad"));
    x = base_leaf();
    gradc::pow(x.slice(1, 1, 4, 2), 2.0).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.slice.grad"));
    x = base_leaf();
    (x.select(0, 1) * gradc::tensor({1.0, -1.0, 2.0, -2.0})).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.select.grad"));
    auto e = gradc::tensor({1.0, 2.0, 3.0}, gradc::requires_grad());
    (e.unsqueeze(0).expand({4, 3}) * gradc::arange(12).reshape({4, 3})).sum().backward();
    CHECK_THAT(values(e.grad()), matches("views.expand.grad"));
    x = base_leaf();
    gradc::pow(x.reshape({2, 6}).narrow(1, 2, 3), 3.0).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.narrow.grad"));
}

TEST_CASE("index_select, gather, cat and stack agree with PyTorch", "[autograd][views]") {
    auto wv = ref_tensor("views.base", {3, 4}) * 0.1;
    auto x = base_leaf();
    (x.index_select(0, gradc::tensor_i64({2, 0, 2})) * wv).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.index_select.grad"));
    x = base_leaf();
    auto g = x.gather(1, gradc::tensor_i64({0, 3, 1, 1, 2, 0}, {3, 2}));
    CHECK_THAT(values(g), matches("views.gather.y"));
    (g * gradc::tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}})).sum().backward();
    CHECK_THAT(values(x.grad()), matches("views.gather.grad"));

    auto p = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto q = gradc::tensor({{3.0, 4.0}, {5.0, 6.0}}, gradc::requires_grad());
    auto c = gradc::cat({p.unsqueeze(0), q}, 0);
    CHECK(c.sizes() == gradc::Shape{3, 2});
    (c * c).sum().backward();
    CHECK_THAT(values(p.grad()), matches("views.cat.p.grad"));
    CHECK_THAT(values(q.grad()), matches("views.cat.q.grad"));
    auto s1 = gradc::tensor({1.0, 2.0}, gradc::requires_grad());
    auto s2 = gradc::tensor({3.0, 4.0}, gradc::requires_grad());
    auto st = gradc::stack({s1, s2}, 1);
    CHECK(st.sizes() == gradc::Shape{2, 2});
    (st * gradc::tensor({{1.0, 2.0}, {3.0, 4.0}})).sum().backward();
    CHECK_THAT(values(s1.grad()), matches("views.stack.p.grad"));
    CHECK_THAT(values(s2.grad()), matches("views.stack.q.grad"));
}

TEST_CASE("view and indexing errors name the operation and the sizes", "[autograd][views][errors]") {
    auto b = gradc::zeros({3, 4});
    CHECK_THAT(error_of([&] { b.t().view({12}); }), Contains("view") && Contains("reshape()"));
    CHECK_THAT(error_of([&] { b.view({5, -1}); }), Contains("view") && Contains("[5, -1]") && Contains("12"));
    CHECK_THAT(error_of([&] { b.select(0, 3); }), Contains("select") && Contains("index 3 is out of bounds") && Contains("size 3"));
    CHECK_THAT(error_of([&] { b.transpose(0, 2); }), Contains("transpose") && Contains("out of range"));
    CHECK_THAT(error_of([&] { b.expand({2, 4}); }), Contains("expand") && Contains("must match the existing size"));
    CHECK_THAT(error_of([&] { b.narrow(1, 2, 3); }), Contains("narrow") && Contains("exceeds dimension size"));
    CHECK_THAT(error_of([&] { b.permute({0, 0}); }), Contains("permute") && Contains("repeated"));
    CHECK_THAT(error_of([&] { b.index_select(0, gradc::tensor_i64({3})); }), Contains("index_select") && Contains("out of bounds"));
    CHECK_THAT(error_of([&] { b.index_select(0, gradc::tensor({0.0})); }), Contains("index must be an int64"));
    CHECK_THAT(error_of([&] { b.gather(1, gradc::tensor_i64({4}, {1, 1})); }), Contains("gather") && Contains("out of bounds"));
    CHECK_THAT(error_of([&] { gradc::cat({b, gradc::zeros({3, 5})}, 0); }),
               Contains("cat") && Contains("expected size 4 but got size 5"));
    CHECK_THAT(error_of([&] { gradc::stack({b, gradc::zeros({4, 3})}); }), Contains("stack") && Contains("equal size"));
}
