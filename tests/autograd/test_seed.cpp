// The worked examples of the tutorial reverse-mode implementation (Tensor, Operator, and
// its dependency counting, compute_dependencies / execute_graph):
// v3 = sin(x1), v4 = x1·x2, v5 = v3 + v4; backward(1) gives x1.grad = cos(x1) + x2 and
// x2.grad = x1.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("tutorial example sin(x1) + x1*x2 at (0.5, 0.5)", "[autograd][tutorial]") {
    auto x1 = gradc::tensor({0.5}, gradc::requires_grad());
    auto x2 = gradc::tensor({0.5}, gradc::requires_grad());
    auto v3 = gradc::sin(x1);
    auto v4 = gradc::mul(x1, x2);
    auto v5 = gradc::add(v3, v4);
    v5.backward(gradc::tensor({1.0}));
    CHECK(x1.grad().item<double>() == Approx(1.37758256).epsilon(1e-8));
    CHECK(x1.grad().item<double>() == Approx(std::cos(0.5) + 0.5).epsilon(1e-15));
    CHECK(x2.grad().item<double>() == 0.5);
}

TEST_CASE("dependency counts of the tutorial example's graph", "[autograd][tutorial]") {
    // {"op:+": 1, "op:sin": 1, "op:*": 1, "op:acc|x1": 2, "op:acc|x2": 1}
    auto x1 = gradc::tensor({0.5}, gradc::requires_grad());
    auto x2 = gradc::tensor({0.5}, gradc::requires_grad());
    auto v5 = gradc::sin(x1) + x1 * x2;
    const auto& add = v5.grad_fn();
    REQUIRE(add->name() == "AddBackward");
    REQUIRE(add->next_edges().size() == 2);
    const auto& sin = add->next_edges()[0].function;
    const auto& mul = add->next_edges()[1].function;
    CHECK(sin->name() == "SinBackward");
    CHECK(mul->name() == "MulBackward");
    // x1 has one AccumulateGrad, reached from sin and from mul: two dependencies.
    CHECK(sin->next_edges()[0].function == mul->next_edges()[0].function);
    CHECK(sin->next_edges()[0].function->name() == "AccumulateGrad");
    CHECK(mul->next_edges()[1].function->name() == "AccumulateGrad");
    CHECK(mul->next_edges()[1].function != mul->next_edges()[0].function);
}

TEST_CASE("tutorial example on vectors agrees with PyTorch", "[autograd][tutorial]") {
    auto x1 = ref_tensor("seed.vector.x1", {3}, gradc::requires_grad());
    auto x2 = ref_tensor("seed.vector.x2", {3}, gradc::requires_grad());
    auto v5 = gradc::add(gradc::sin(x1), gradc::mul(x1, x2));
    v5.backward(ref_tensor("seed.vector.g", {3}));
    CHECK_THAT(values(x1.grad()), matches("seed.vector.x1.grad"));
    CHECK_THAT(values(x2.grad()), matches("seed.vector.x2.grad"));
    // The rounded values printed in the tutorial.
    CHECK_THAT(values(x1.grad()), approx({0.65467087, 1.16167806, 1.37161212}, 1e-7));
    CHECK_THAT(values(x2.grad()), approx({0.0069272, 0.50490658, 0.03318644}, 1e-6));
}
