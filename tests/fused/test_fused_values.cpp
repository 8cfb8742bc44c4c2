// gradc::autograd::fuse, forward pass: values against the unfused expression on
// broadcast shapes, Float and Double, contiguous and strided; dtype promotion; several
// outputs; the node's name; errors for bad input; results independent of the threads.
#include "fused_support.hpp"

using namespace fused_test;
using Catch::Matchers::Contains;
namespace ag = gradc::autograd;

namespace {

struct shape_case {
    gradc::Shape x, y;
};

const std::vector<shape_case> shape_cases = {
    {{1000}, {1000}},  {{37, 8}, {8}},       {{37, 8}, {37, 1}}, {{5, 1, 7}, {1, 6, 7}},
    {{}, {3, 4}},      {{3, 4}, {}},         {{2, 3, 64}, {2, 3, 64}}, {{0, 3}, {3}},
    {{1029, 3}, {1, 3}},
};

}  // namespace

TEST_CASE("a fused kernel equals the unfused expression on broadcast shapes, Float and Double, any layout",
          "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * y + exp(x * y));
    const auto f = ag::fuse(k);
    gradc::manual_seed(11);
    for (const auto dtype : {gradc::kFloat64, gradc::kFloat32}) {
        for (const auto& c : shape_cases) {
            for (const auto how : {layout::contiguous, layout::transposed, layout::sliced, layout::expanded}) {
                const Tensor X = make_input(c.x, dtype, how), Y = make_input(c.y, dtype, how);
                INFO("shapes " << gradc::shape_string(c.x) << " and " << gradc::shape_string(c.y) << ", layout "
                               << static_cast<int>(how) << ", dtype " << (dtype == gradc::kFloat32 ? "Float" : "Double"));
                const Tensor Z = f(X, Y);
                check_close(Z, unfused(k, {X, Y})[0], "value");
                CHECK(Z.dtype() == dtype);
                CHECK(Z.is_contiguous());
            }
        }
    }
}

TEST_CASE("a fused kernel promotes dtypes as an elementwise operation does", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto f = ag::fuse(gradc::compile(x * y + 1.0));
    const Tensor a = gradc::ones({4}, gradc::dtype(gradc::kFloat32));
    const Tensor b = gradc::ones({4}, gradc::dtype(gradc::kFloat64));
    CHECK(f(a, a).dtype() == gradc::kFloat32);
    CHECK(f(a, b).dtype() == gradc::kFloat64);
    // A 0-dim Double or a number does not lift a Float tensor (PyTorch's type promotion).
    CHECK(f(a, gradc::scalar_tensor(2.0)).dtype() == gradc::kFloat32);
    CHECK(f(a, 2.0).dtype() == gradc::kFloat32);
    CHECK(values(f(a, 2.0)) == std::vector<double>(4, 3.0));
    CHECK(f(gradc::scalar_tensor(2.0), 3).dtype() == gradc::kFloat64);
    CHECK(f(gradc::scalar_tensor(2.0), 3).dim() == 0);
}

TEST_CASE("a kernel with several outputs gives a tensor_list", "[fused]") {
    auto [x, y, z] = gradc::variables<3>();
    const auto k = gradc::compile(x * y, sin(x) + y * z, where(x > y, x, z));
    const auto f = ag::fuse(k, "three_outputs");
    gradc::manual_seed(3);
    const Tensor X = gradc::randn({50, 4}), Y = gradc::randn({4}), Z = gradc::randn({50, 1});
    const tensor_list out = f(X, Y, Z);
    const tensor_list ref = unfused(k, {X, Y, Z});
    REQUIRE(out.size() == 3);
    for (std::size_t m = 0; m < 3; ++m) check_close(out[m], ref[m], "output " + std::to_string(m));
}

TEST_CASE("the backward node of a fused kernel is named after it and saves the inputs", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(sin(x) * y);
    const Tensor X = gradc::randn({3}, gradc::requires_grad()), Y = gradc::randn({3}, gradc::requires_grad());
    CHECK(ag::fuse(k)(X, Y).grad_fn()->name() == "FusedBackward");
    const Tensor Z = ag::fuse(k, "black_scholes")(X, Y);
    CHECK(ag::fuse(k, "black_scholes").name() == "black_scholes");
    CHECK(Z.grad_fn()->name() == "BlackScholesBackward");
    CHECK(Z.grad_fn()->saved_names() == std::vector<std::string>{"self", "other"});
    CHECK(Z.grad_fn()->next_edges().size() == 2);
    // Without grad mode or an input that requires grad, nothing is recorded.
    CHECK_FALSE(ag::fuse(k)(X.detach(), Y.detach()).requires_grad());
    {
        gradc::NoGradGuard no_grad;
        CHECK_FALSE(ag::fuse(k)(X, Y).requires_grad());
    }
}

TEST_CASE("bad input to a fused kernel is a clear gradc::Error", "[fused]") {
    auto [x, y] = gradc::variables<2>();
    const auto f = ag::fuse(gradc::compile(x * y), "product");
    const Tensor a = gradc::randn({3, 4}), b = gradc::randn({4});
    CHECK_THROWS_WITH(f(a), Contains("fuse(product)") && Contains("got 1 tensors, expected 2"));
    CHECK_THROWS_WITH(f(tensor_list{a, b, b}), Contains("got 3 tensors, expected 2"));
    CHECK_THROWS_WITH(f(a, gradc::randn({3})), Contains("fuse(product)") && Contains("cannot be broadcast"));
    CHECK_THROWS_WITH(f(a, gradc::ones({4}, gradc::dtype(gradc::kLong))),
                      Contains("argument 1") && Contains("expected a Float or Double tensor"));
    CHECK_THROWS_WITH(f(a, Tensor()), Contains("argument 1 is an undefined tensor"));
    CHECK_THROWS_AS(f(a, gradc::ones({4}, gradc::dtype(gradc::kComplex128))), gradc::Error);
}

TEST_CASE("a fused kernel gives the same bits on one thread and on several", "[fused][threads]") {
    auto [x, y] = gradc::variables<2>();
    const auto k = gradc::compile(tanh(x) * y + log1p(y * y));
    const auto f = ag::fuse(k);
    gradc::manual_seed(5);
    const Tensor X0 = gradc::randn({300, 400}), Y0 = gradc::randn({400});
    const auto run = [&](int threads) {
        gradc::set_num_threads(threads);
        const Tensor X = leaf_like(X0), Y = leaf_like(Y0);
        const Tensor Z = f(X, Y);
        (Z * Z).sum().backward();
        return std::vector<std::vector<double>>{values(Z), values(X.grad()), values(Y.grad())};
    };
    const auto one = run(1), two = run(2);
    gradc::set_num_threads(gradc::available_cores());
    CHECK(one == two);
}
