// pow's second derivatives where its first-derivative conventions hold (a = ±0 with
// b >= 0; b = 0 with a = ±0): the static mode's Hessian (dual numbers over the gradient
// program) and the dynamic mode's (double backward through the rule's partials on
// tensors) agree, and are finite. PyTorch 1.13 gives NaN for every entry at a = ±0,
// b = ±0, and for the b row at a = 0, b > 0 (tests/check/pow_second_order_torch.py prints
// them with python3-torch 1.13): its backward runs through the branch a convention discards, at
// log 0 or 0⁻¹, and multiplies the zero gradient it gets by that infinity. The "Autograd
// mechanics" notes ("Gradients for non-differentiable functions") ask for a value where
// the function is defined, so gradc departs from PyTorch there. Away from those points both
// modes equal the closed form.
#include <array>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>
#include <gradc/check.hpp>
#include <gradc/gradc.hpp>

#include "approx.hpp"

namespace {

/// The dynamic mode's Hessian of pow(a, b), H[i][j] = ∂²/∂xᵢ∂xⱼ, reverse over reverse.
std::array<std::array<double, 2>, 2> dynamic_hessian(double a, double b) {
    const auto f = [](const gradc::tensor_list& x) { return gradc::tensor_list{gradc::pow(x[0], x[1])}; };
    const auto h = gradc::autograd::functional::hessian(
        f, {gradc::scalar_tensor(a, gradc::dtype(gradc::kFloat64)), gradc::scalar_tensor(b, gradc::dtype(gradc::kFloat64))});
    std::array<std::array<double, 2>, 2> r{};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) r[i][j] = h[i][j].item<double>();
    return r;
}

}  // namespace

TEST_CASE("pow's Hessian at a = ±0, b = ±0 is 0 in both modes, not NaN", "[check][second_order][pow]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(pow(a, b));
    for (double av : {0.0, -0.0}) {
        for (double bv : {0.0, -0.0}) {
            INFO("a = " << av << ", b = " << bv);
            const auto s = k.hessian(av, bv);
            const auto d = dynamic_hessian(av, bv);
            CHECK(s.value == 1.0);
            CHECK(s.gradient[0] == 0.0);
            CHECK(s.gradient[1] == 0.0);
            for (int i = 0; i < 2; ++i) {
                for (int j = 0; j < 2; ++j) {
                    INFO("entry (" << i << ", " << j << ")");
                    CHECK(s.hessian[i][j] == 0.0);
                    CHECK(d[i][j] == 0.0);  // PyTorch 1.13: NaN
                }
            }
        }
    }
}

TEST_CASE("pow's Hessian at a = 0, b > 0: the a row as PyTorch, the b row finite", "[check][second_order][pow]") {
    auto [a, b] = gradc::variables<2>();
    const auto k = gradc::compile(pow(a, b));
    // PyTorch 1.13: (0, 1) gives [[0, 1], [NaN, NaN]]; (0, 2) gives [[2, 0], [NaN, NaN]].
    struct Case {
        double b, h00, h01;
    };
    for (const Case c : {Case{1.0, 0.0, 1.0}, Case{2.0, 2.0, 0.0}, Case{3.0, 0.0, 0.0}}) {
        INFO("a = 0, b = " << c.b);
        const auto s = k.hessian(0.0, c.b);
        const auto d = dynamic_hessian(0.0, c.b);
        CHECK(s.hessian[0][0] == c.h00);
        CHECK(s.hessian[0][1] == c.h01);
        CHECK(d[0][0] == c.h00);
        CHECK(d[0][1] == c.h01);
        // ∂/∂b of ∂f/∂b = y·log(a), forced to 0 at a = 0 for b >= 0: 0 in both modes.
        CHECK(s.hessian[1][1] == 0.0);
        CHECK(d[1][1] == 0.0);
        // ∂/∂a of that forced 0 is 0; the mixed derivative does not exist at b = 1 (the a
        // row's limit in b is 1 from above and inf from below), so the two orders differ there.
        CHECK(d[1][0] == 0.0);
    }
}

TEST_CASE("pow's Hessian away from the conventions equals the closed form in both modes",
          "[check][second_order][pow]") {
    auto [a, b] = gradc::variables<2>();
    const auto e = pow(a, b);
    const auto k = gradc::compile(e);
    const std::vector<std::array<double, 2>> points{{0.5, 0.0}, {1.5, 0.3}, {0.7, -1.2}, {2.0, 3.0}, {0.25, 0.5}};
    for (const auto& [av, bv] : points) {
        INFO("a = " << av << ", b = " << bv);
        const double l = std::log(av);
        // At b = 0 the mixed derivative is 1/a: PyTorch 1.13 forces ∂f/∂a to 0 for every a
        // there and gives 0 for it.
        const std::array<std::array<double, 2>, 2> closed{
            {{bv * (bv - 1) * std::pow(av, bv - 2), std::pow(av, bv - 1) * (1 + bv * l)},
             {std::pow(av, bv - 1) * (1 + bv * l), std::pow(av, bv) * l * l}}};
        const auto s = k.hessian(av, bv);
        const auto d = dynamic_hessian(av, bv);
        for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) {
                INFO("entry (" << i << ", " << j << ")");
                CHECK_THAT(s.hessian[i][j], gradc::test::is_close_to(closed[i][j], 1e-12, 0));
                CHECK_THAT(d[i][j], gradc::test::is_close_to(closed[i][j], 1e-12, 0));
            }
        }
    }
    CHECK(gradc::check::cross_hessian(e, points));
}
