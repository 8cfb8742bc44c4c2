// Matrix products against PyTorch, including operands read in place through their strides.
#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("mm, mv, dot and outer with gradients", "[autograd][linalg]") {
    auto A = ref_tensor("linalg.A", {2, 3}, gradc::requires_grad());
    auto B = ref_tensor("linalg.B", {3, 2}, gradc::requires_grad());
    auto y = A.mm(B);
    CHECK_THAT(values(y), matches("linalg.mm.y", 1e-12));
    y.backward(gradc::tensor({{1.0, 2.0}, {-1.0, 0.5}}));
    CHECK_THAT(values(A.grad()), matches("linalg.mm.A.grad", 1e-12));
    CHECK_THAT(values(B.grad()), matches("linalg.mm.B.grad", 1e-12));

    auto A2 = ref_tensor("linalg.A", {2, 3}, gradc::requires_grad());
    auto v = ref_tensor("linalg.v", {3}, gradc::requires_grad());
    auto mv = A2.mv(v);
    CHECK_THAT(values(mv), matches("linalg.mv.y", 1e-12));
    mv.backward(gradc::tensor({0.7, -0.2}));
    CHECK_THAT(values(A2.grad()), matches("linalg.mv.A.grad", 1e-12));
    CHECK_THAT(values(v.grad()), matches("linalg.mv.v.grad", 1e-12));

    auto p = ref_tensor("linalg.v", {3}, gradc::requires_grad());
    auto q = gradc::tensor({1.0, 0.5, -0.25}, gradc::requires_grad());
    auto d = gradc::dot(p, q);
    CHECK_THAT(values(d), matches("linalg.dot.y"));
    d.backward();
    CHECK_THAT(values(p.grad()), matches("linalg.dot.p.grad"));
    CHECK_THAT(values(q.grad()), matches("linalg.dot.q.grad"));

    auto p2 = ref_tensor("linalg.v", {3}, gradc::requires_grad());
    auto q2 = gradc::tensor({1.0, 0.5}, gradc::requires_grad());
    (gradc::outer(p2, q2) * gradc::arange(6).reshape({3, 2})).sum().backward();
    CHECK_THAT(values(p2.grad()), matches("linalg.outer.p.grad"));
    CHECK_THAT(values(q2.grad()), matches("linalg.outer.q.grad"));
}

TEST_CASE("bmm and broadcast matmul", "[autograd][linalg]") {
    auto X = ref_tensor("linalg.bmm.X", {2, 3, 4}, gradc::requires_grad());
    auto Y = ref_tensor("linalg.bmm.Y", {2, 4, 5}, gradc::requires_grad());
    auto G = ref_tensor("linalg.bmm.G", {2, 3, 5});
    auto z = gradc::bmm(X, Y);
    CHECK_THAT(values(z), matches("linalg.bmm.y", 1e-12));
    z.backward(G);
    CHECK_THAT(values(X.grad()), matches("linalg.bmm.X.grad", 1e-12));
    CHECK_THAT(values(Y.grad()), matches("linalg.bmm.Y.grad", 1e-12));

    auto X2 = ref_tensor("linalg.bmm.X", {2, 3, 4}, gradc::requires_grad());
    auto Y0 = ref_tensor("linalg.bmm.Y", {2, 4, 5}).select(0, 0).contiguous().detach().requires_grad_();
    auto m = gradc::matmul(X2, Y0);
    CHECK(m.sizes() == gradc::Shape{2, 3, 5});
    CHECK_THAT(values(m), matches("linalg.matmul_b.y", 1e-12));
    m.backward(G);
    CHECK_THAT(values(X2.grad()), matches("linalg.matmul_b.X.grad", 1e-12));
    CHECK_THAT(values(Y0.grad()), matches("linalg.matmul_b.Y.grad", 1e-12));
}

TEST_CASE("products of sizes that are not multiples of a register tile", "[autograd][linalg]") {
    auto P = ref_tensor("linalg.big.P", {37, 70});
    auto Q = ref_tensor("linalg.big.Q", {70, 29});
    CHECK_THAT(values(P.mm(Q)), matches("linalg.big.y", 1e-11, 1e-12));
    CHECK_THAT(values(P.to(gradc::kFloat32).mm(Q.to(gradc::kFloat32))), matches("linalg.big.y", 1e-4, 1e-4));
    // Transposed (non-contiguous) operands.
    CHECK_THAT(values(P.t().contiguous().t().mm(Q)), matches("linalg.big.y", 1e-11, 1e-12));
    CHECK_THAT(values(gradc::matmul(Q.t(), P.t()).t()), matches("linalg.big.y", 1e-11, 1e-12));
}

TEST_CASE("the product reads transposed, broadcast and strided operands in place", "[autograd][linalg]") {
    auto P = ref_tensor("linalg.big.P", {37, 70});
    auto Q = ref_tensor("linalg.big.Q", {70, 29});
    const auto y = values(P.mm(Q));
    // Batches whose second operand is a transposed view (the GMM's bmm(x, L.transpose(1, 2))),
    // and batches that repeat one matrix with batch stride 0.
    auto Qt = gradc::stack({Q.t().contiguous(), Q.t().contiguous()}, 0);
    auto batched = gradc::bmm(gradc::stack({P, P}, 0), Qt.transpose(1, 2));
    CHECK_THAT(values(batched.select(0, 1)), matches("linalg.big.y", 1e-11, 1e-12));
    auto repeated = gradc::bmm(P.unsqueeze(0).expand({3, 37, 70}), Q.unsqueeze(0).expand({3, 70, 29}));
    CHECK(repeated.sizes() == gradc::Shape{3, 37, 29});
    CHECK_THAT(values(repeated.select(0, 2)), matches("linalg.big.y", 1e-11, 1e-12));
    // Neither stride 1: every other element of a [37, 140] matrix.
    auto spread = gradc::stack({P, gradc::zeros_like(P)}, 2).select(2, 0);
    CHECK(spread.stride(1) == 2);
    CHECK_THAT(values(spread.mm(Q)), matches("linalg.big.y", 1e-11, 1e-12));
    // A strided vector (a column of Q) on either side of mv and dot.
    auto column = Q.select(1, 3);
    CHECK(column.stride(0) == 29);
    CHECK_THAT(values(P.mv(column)), approx(values(P.mm(column.contiguous().reshape({70, 1}))), 1e-12));
    CHECK_THAT(values(gradc::dot(column, P.select(0, 5))),
               approx({y[std::size_t(5 * 29 + 3)]}, 1e-12));
    // Empty inner dimension: zeros, as LibTorch gives.
    CHECK_THAT(values(gradc::mm(gradc::ones({2, 0}), gradc::ones({0, 3}))), approx(std::vector<double>(6, 0.0)));
    // Complex operands through a transposed view: the same as the contiguous copy.
    auto Z = gradc::complex(P, P * 0.5);
    auto W = gradc::complex(Q, -Q);
    auto direct = Z.mm(W), viewed = Z.mm(W.t().contiguous().t());
    CHECK_THAT(values(gradc::real(viewed)), approx(values(gradc::real(direct)), 1e-12));
    CHECK_THAT(values(gradc::imag(viewed)), approx(values(gradc::imag(direct)), 1e-12));
}

TEST_CASE("complex matmul uses the conjugate transpose in its gradient", "[autograd][linalg][complex]") {
    auto a = gradc::complex(gradc::tensor({{1.0, 2.0}}), gradc::tensor({{0.5, -1.0}})).requires_grad_();
    auto b = gradc::complex(gradc::tensor({3.0, -1.0}).reshape({2, 1}), gradc::tensor({1.0, 2.0}).reshape({2, 1}));
    auto y = gradc::abs(a.mm(b)).sum();  // real loss of a complex product
    y.backward();
    // y = |s| with s = Σ a_k b_k; dL/da = (s/|s|)·conj(b)
    auto s = a.detach().mm(b).item<std::complex<double>>();
    auto g = s / std::abs(s);
    auto ga = values(a.grad());
    CHECK(ga[0] == Approx((g * std::conj(std::complex<double>(3, 1))).real()));
    CHECK(ga[1] == Approx((g * std::conj(std::complex<double>(3, 1))).imag()));
    CHECK(ga[2] == Approx((g * std::conj(std::complex<double>(-1, 2))).real()));
    CHECK(ga[3] == Approx((g * std::conj(std::complex<double>(-1, 2))).imag()));
}

TEST_CASE("matrix products report shape and dtype mismatches", "[autograd][linalg][errors]") {
    CHECK_THAT(error_of([] { gradc::mm(gradc::zeros({2, 3}), gradc::zeros({4, 5})); }),
               Contains("mm") && Contains("cannot be multiplied") && Contains("2x3") && Contains("4x5"));
    CHECK_THAT(error_of([] { gradc::mm(gradc::zeros({2, 3}), gradc::zeros({3, 5}, gradc::dtype(gradc::kFloat32))); }),
               Contains("same dtype") && Contains("Double") && Contains("Float"));
    CHECK_THAT(error_of([] { gradc::mv(gradc::zeros({2, 3}), gradc::zeros({2})); }), Contains("mv") && Contains("[2, 3]"));
    CHECK_THAT(error_of([] { gradc::dot(gradc::zeros({2}), gradc::zeros({3})); }), Contains("dot"));
    CHECK_THAT(error_of([] { gradc::matmul(gradc::zeros({2, 3, 4}), gradc::zeros({5, 6})); }), Contains("matmul") && Contains("4 vs 5"));
}
