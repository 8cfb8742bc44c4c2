// cumsum (scan.hpp): values and gradients against PyTorch (reference/generate.py),
// gradcheck and gradgradcheck in reverse and forward mode, and the errors.
#include <string>
#include <utility>

#include <gradc/check.hpp>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
namespace ag = gradc::autograd;

namespace {

Tensor leaf(const std::string& name, const gradc::Shape& shape) { return ref_tensor(name, shape, gradc::requires_grad()); }

/// gradcheck and gradgradcheck of f at `inputs`, slow and fast mode, each with the
/// forward-mode check too (in gradgradcheck: the JVPs of the backward formulas).
void check_derivatives(const ag::GradcheckFunction& f, const tensor_list& inputs) {
    for (bool fast : {false, true}) {
        INFO((fast ? "fast mode" : "slow mode"));
        ag::GradcheckOptions o;
        o.fast_mode = fast;
        o.check_forward_ad = true;
        CHECK(ag::gradcheck(f, inputs, o));
        CHECK(ag::gradgradcheck(f, inputs, {}, o));
    }
}

}  // namespace

// ---- cumsum ------------------------------------------------------------------------------

TEST_CASE("cumsum along each dimension, with its gradient", "[autograd][scan]") {
    const std::pair<const char*, int> cases[] = {{"cumsum1", 1}, {"cumsum_last", -1}, {"cumsum0", 0}};
    for (const auto& [name, dim] : cases) {
        INFO(name);
        auto x = leaf("scan.x", {2, 3, 4});
        auto y = dim == 1 ? x.cumsum(dim) : gradc::cumsum(x, dim);
        CHECK(y.sizes() == x.sizes());
        CHECK(y.grad_fn()->name() == "CumsumBackward");
        CHECK_THAT(values(y), matches(std::string("scan.") + name + ".y", 1e-12));
        y.backward(ref_tensor("scan.g", {2, 3, 4}));
        CHECK_THAT(values(x.grad()), matches(std::string("scan.") + name + ".grad", 1e-12));
    }
    // float32 is summed in double and rounded once per element, as PyTorch's CPU kernel:
    // the same floats exactly.
    auto f = (ref_tensor("scan.x", {2, 3, 4}).to(gradc::kFloat32) * 1000.0).cumsum(2);
    CHECK(f.dtype() == gradc::kFloat32);
    CHECK_THAT(values(f), matches("scan.cumsum_float.y", 0.0, 0.0));
}

TEST_CASE("cumsum of 0-dim, bool, integer, empty and complex tensors", "[autograd][scan]") {
    auto s = gradc::scalar_tensor(3.0, gradc::requires_grad());
    auto y = gradc::cumsum(s, -1);
    CHECK(y.dim() == 0);
    CHECK(y.item<double>() == 3.0);
    y.backward();
    CHECK(s.grad().item<double>() == 1.0);
    CHECK_THAT(error_of([&] { gradc::cumsum(s, 1); }), Contains("cumsum") && Contains("dimension out of range"));
    CHECK_THAT(error_of([] { gradc::cumsum(gradc::zeros({2, 3}), -3); }), Contains("cumsum") && Contains("[-2, 1]"));
    // As torch.cumsum: bool and int64 give int64.
    auto b = gradc::cumsum(gradc::tensor({1.0, 1.0, 0.0, 1.0}) > 0.5, 0);
    CHECK(b.dtype() == gradc::kInt64);
    CHECK_THAT(values(b), approx({1.0, 2.0, 2.0, 3.0}));
    CHECK_THAT(values(gradc::cumsum(gradc::tensor_i64({5, -2, 7}), 0)), approx({5.0, 3.0, 10.0}));
    CHECK(gradc::cumsum(gradc::zeros({0, 3}), 0).sizes() == gradc::Shape{0, 3});
    auto z = gradc::complex(gradc::tensor({1.0, 2.0}), gradc::tensor({0.5, -1.0}));
    CHECK_THAT(values(gradc::cumsum(z, 0)), approx({1.0, 0.5, 3.0, -0.5}));
}

TEST_CASE("cumsum passes gradcheck and gradgradcheck, reverse and forward, real and complex", "[autograd][scan][gradcheck]") {
    auto x = leaf("scan.x", {2, 3, 4});
    check_derivatives([](const tensor_list& t) -> tensor_list { return {gradc::cumsum(t[0], 1), gradc::cumsum(t[0], -1)}; }, {x});
    auto re = ref_tensor("scan.x", {2, 3, 4});
    auto z = gradc::complex(re, re * 0.5).requires_grad_();
    check_derivatives([](const tensor_list& t) -> tensor_list { return {gradc::cumsum(t[0], 2)}; }, {z});
}
