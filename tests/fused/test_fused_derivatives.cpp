// gradc::autograd::fuse, derivatives: backward against the unfused expression (summed
// over broadcast dimensions), only the gradients asked for, wrt(...) kernels, the
// version check, double backward, forward-mode tangents, gradcheck and gradgradcheck.
#include "fused_support.hpp"

using namespace fused_test;
using Catch::Matchers::Contains;
namespace ag = gradc::autograd;
namespace fwd = gradc::autograd::forward_ad;

namespace {

struct pair_case {
    gradc::Shape x, y;
    layout how;
};

const std::vector<pair_case> pair_cases = {
    {{2000}, {2000}, layout::contiguous}, {{37, 8}, {8}, layout::transposed}, {{37, 8}, {37, 1}, layout::sliced},
    {{5, 1, 7}, {1, 6, 7}, layout::contiguous}, {{}, {3, 4}, layout::contiguous}, {{40, 3}, {40, 3}, layout::expanded},
    {{4, 300}, {1, 300}, layout::sliced},
};

/// X, Y leaves of the case's layout; their unfused twins; the fused and unfused results
/// with the gradients of Σ w·Z for a random non-contiguous w.
template <class F, class K>
void compare_backward(const F& f, const K& k, const pair_case& c, gradc::ScalarType dtype) {
    const Tensor X = leaf_like(make_input(c.x, dtype, c.how)), Y = leaf_like(make_input(c.y, dtype, c.how));
    const Tensor X2 = leaf_like(X), Y2 = leaf_like(Y);
    const Tensor Z = f(X, Y), Z2 = unfused(k, {X2, Y2})[0];
    const Tensor w = make_input(Z.sizes(), dtype, layout::transposed);
    Z.backward(w);
    Z2.backward(w);
    // A gradient summed over broadcast dimensions adds up to (points / its elements) terms.
    const double terms = std::max<double>(1, double(Z.numel()) / std::max<double>(1, double(Y.numel())));
    check_close(X.grad(), X2.grad(), "dX", std::max<double>(1, double(Z.numel()) / std::max<double>(1, double(X.numel()))));
    check_close(Y.grad(), Y2.grad(), "dY", terms);
}

}  // namespace

TEST_CASE("fused backward equals the unfused expression's, summed over broadcast dimensions", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * y + exp(x * y));
    const auto f = ag::fuse(k);
    gradc::manual_seed(21);
    for (const auto dtype : {gradc::kFloat64, gradc::kFloat32})
        for (const auto& c : pair_cases) {
            INFO("shapes " << gradc::shape_string(c.x) << ", " << gradc::shape_string(c.y) << " layout "
                           << static_cast<int>(c.how) << (dtype == gradc::kFloat32 ? " Float" : " Double"));
            compare_backward(f, k, c, dtype);
        }
}

TEST_CASE("fused backward computes only the gradients asked for", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(x * exp(y));
    const auto f = ag::fuse(k);
    const Tensor X = gradc::randn({6, 5}, gradc::requires_grad()), Y = gradc::randn({5}, gradc::requires_grad());
    const Tensor Z = f(X, Y);
    const tensor_list g = ag::grad({Z.sum()}, {X});
    REQUIRE(g.size() == 1);
    check_close(g[0], exp(Y).expand({6, 5}).contiguous(), "dX");
    CHECK_FALSE(Y.grad().defined());
    // An input that does not require grad gets no gradient.
    const Tensor X3 = gradc::randn({6, 5});
    f(X3, Y).sum().backward();
    CHECK_FALSE(X3.grad().defined());
    check_close(Y.grad(), (X3 * exp(Y)).sum(0), "dY", 6);
}

TEST_CASE("a kernel compiled with wrt(...) takes the other variables as non-differentiable inputs", "[fused]") {
    auto [x, s, t] = gradc::variables<3>();
    const auto k = gradc::compile(s * sin(x) + t * x * x, gradc::wrt(x));
    const auto f = ag::fuse(k);
    const Tensor X = gradc::randn({20}, gradc::requires_grad());
    const Tensor S = gradc::randn({20}, gradc::requires_grad()), T = gradc::randn({1}, gradc::requires_grad());
    const Tensor Z = f(X, S, T);
    CHECK(Z.grad_fn()->next_edges().size() == 1);
    Z.sum().backward();
    check_close(X.grad(), (S * cos(X) + 2 * T * X).detach(), "dX");
    CHECK_FALSE(S.grad().defined());
    CHECK_FALSE(T.grad().defined());
    // Only non-differentiable inputs require grad: nothing to record.
    CHECK_FALSE(f(X.detach(), S, T).requires_grad());
}

TEST_CASE("an input modified in place after a fused call fails backward, naming the node", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto f = ag::fuse(gradc::compile(x * y), "product");
    const Tensor X = gradc::randn({4}, gradc::requires_grad());
    Tensor Y = gradc::randn({4});
    const Tensor Z = f(X, Y);
    Y.add_(1.0);
    CHECK_THROWS_WITH(Z.sum().backward(), Contains("modified by an inplace operation") && Contains("ProductBackward"));
}

TEST_CASE("fused backward with create_graph is differentiable again (double backward)", "[fused][higher]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * y + exp(x * y));
    const auto f = ag::fuse(k);
    gradc::manual_seed(8);
    for (const auto dtype : {gradc::kFloat64, gradc::kFloat32}) {
        INFO((dtype == gradc::kFloat32 ? "Float" : "Double"));
        const Tensor X = leaf_like(make_input({7, 3}, dtype, layout::transposed));
        const Tensor Y = leaf_like(make_input({3}, dtype, layout::contiguous));
        const Tensor X2 = leaf_like(X), Y2 = leaf_like(Y);
        const tensor_list g = ag::grad({f(X, Y).sum()}, {X, Y}, {}, true, /*create_graph=*/true);
        const tensor_list g2 = ag::grad({unfused(k, {X2, Y2})[0].sum()}, {X2, Y2}, {}, true, true);
        REQUIRE(g[0].requires_grad());
        check_close(g[0], g2[0], "dX");
        check_close(g[1], g2[1], "dY", 7);
        const tensor_list h = ag::grad({(g[0] * g[0]).sum() + g[1].sum()}, {X, Y});
        const tensor_list h2 = ag::grad({(g2[0] * g2[0]).sum() + g2[1].sum()}, {X2, Y2});
        check_close(h[0], h2[0], "d(dX)/dX", 3);
        check_close(h[1], h2[1], "d(dX)/dY", 7);
    }
}

TEST_CASE("gradcheck and gradgradcheck pass on fused kernels", "[fused][gradcheck]") {
    auto [x, y, z] = gradc::variables<3>();
    const auto k1 = gradc::compile(sin(x) * y + exp(x * y) / (1.0 + z * z));
    const auto k2 = gradc::compile(x * y, tanh(x + z));
    const auto f1 = ag::fuse(k1);
    const auto f2 = ag::fuse(k2);
    gradc::manual_seed(2);
    const tensor_list in = {gradc::randn({3, 4}, gradc::requires_grad()), gradc::randn({4}, gradc::requires_grad()),
                            gradc::randn({3, 1}, gradc::requires_grad())};
    ag::GradcheckOptions opt;
    opt.check_forward_ad = true;
    CHECK(ag::gradcheck([&](const tensor_list& t) { return tensor_list{f1(t)}; }, in, opt));
    CHECK(ag::gradcheck([&](const tensor_list& t) { return f2(t); }, in, opt));
    ag::GradcheckOptions fast = opt;
    fast.fast_mode = true;
    CHECK(ag::gradcheck([&](const tensor_list& t) { return f2(t); }, in, fast));
    CHECK(ag::gradgradcheck([&](const tensor_list& t) { return tensor_list{f1(t)}; }, in));
    CHECK(ag::gradgradcheck([&](const tensor_list& t) { return f2(t); }, in));
}

TEST_CASE("fused forward-mode tangents equal the unfused expression's", "[fused][forward_ad]") {
    auto [x, y, z] = gradc::variables<3>();
    const auto k = gradc::compile(sin(x) * y + exp(x * y), x * z - y);
    const auto f = ag::fuse(k);
    gradc::manual_seed(13);
    for (const auto dtype : {gradc::kFloat64, gradc::kFloat32}) {
        const Tensor X = make_input({30, 6}, dtype, layout::transposed), Y = make_input({6}, dtype, layout::contiguous);
        const Tensor Zv = make_input({30, 1}, dtype, layout::contiguous);
        const Tensor dX = make_input({30, 6}, dtype, layout::sliced), dY = make_input({6}, dtype, layout::contiguous);
        fwd::dual_level level;
        // Z has no tangent: it counts as zero.
        const tensor_list in = {fwd::make_dual(X, dX), fwd::make_dual(Y, dY), Zv};
        const tensor_list out = f(in), ref = unfused(k, in);
        for (std::size_t m = 0; m < 2; ++m) {
            check_close(fwd::unpack_dual(out[m]).primal, fwd::unpack_dual(ref[m]).primal, "value");
            check_close(fwd::unpack_dual(out[m]).tangent, fwd::unpack_dual(ref[m]).tangent, "tangent");
        }
    }
}

TEST_CASE("forward over reverse through a fused kernel gives Hessian-vector products", "[fused][forward_ad][higher]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * y * y + exp(x * y));
    const auto f = ag::fuse(k);
    gradc::manual_seed(17);
    const Tensor X = gradc::randn({9}), Y = gradc::randn({9}), u = gradc::randn({9});
    const auto hvp = [&](auto&& fn) {
        fwd::dual_level level;
        const Tensor Xd = fwd::make_dual(X.detach().requires_grad_(), u);
        const Tensor gx = ag::grad({fn(Xd, Y).sum()}, {Xd}, {}, true, true)[0];
        return fwd::unpack_dual(gx).tangent;
    };
    const Tensor fused_hvp = hvp([&](const Tensor& a, const Tensor& b) { return f(a, b); });
    const Tensor ref_hvp = hvp([&](const Tensor& a, const Tensor& b) { return unfused(k, {a, b})[0]; });
    check_close(fused_hvp, ref_hvp, "H·u");
}
