// cumsum and the factorisations (linalg_decompositions.hpp, scan.hpp): values and
// gradients against PyTorch (reference/generate.py), tangents against PyTorch's forward
// AD, gradcheck and gradgradcheck in reverse and forward mode, and the errors.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gradc/check.hpp>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;
using gradc::Tensor;
using gradc::tensor_list;
namespace ag = gradc::autograd;
namespace fwd = gradc::autograd::forward_ad;
namespace linalg = gradc::linalg;

namespace {

Tensor leaf(const std::string& name, const gradc::Shape& shape) { return ref_tensor(name, shape, gradc::requires_grad()); }

Tensor mT(const Tensor& t) { return gradc::transpose(t, -2, -1); }

Tensor tangent(const Tensor& t) { return fwd::unpack_dual(t).tangent; }

double inner(const Tensor& a, const Tensor& b) { return (a * b).sum().item<double>(); }

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

/// Runs `f`, which must throw, and checks that `inputs` kept their values and versions and
/// got no gradient: a failed operation leaves nothing half done.
template <class F>
std::string error_leaving_intact(const tensor_list& inputs, F&& f) {
    std::vector<std::vector<double>> before;
    std::vector<std::uint32_t> versions;
    for (const auto& t : inputs) {
        before.push_back(values(t));
        versions.push_back(t._version());
    }
    const std::string message = error_of(f);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        CHECK(values(inputs[i]) == before[i]);
        CHECK(inputs[i]._version() == versions[i]);
        CHECK_FALSE(inputs[i].grad().defined());
    }
    return message;
}

/// X Xᵀ + shift·I for a (batch of) square X: symmetric positive-definite.
Tensor spd(const Tensor& X, double shift) { return gradc::matmul(X, mT(X)) + shift * gradc::eye(X.size(-1)); }

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

// ---- Cholesky ----------------------------------------------------------------------------

TEST_CASE("cholesky: the factor and its symmetric gradient, one matrix and a batch", "[autograd][decompositions]") {
    auto A = leaf("chol.A", {3, 3});
    auto L = linalg::cholesky(A);
    CHECK(L.grad_fn()->name() == "LinalgCholeskyBackward");
    CHECK_THAT(values(L), matches("chol.L", 1e-12));
    CHECK_THAT(values(gradc::matmul(L, L.t())), matches("chol.A", 1e-12));
    L.backward(ref_tensor("chol.G", {3, 3}));
    CHECK_THAT(values(A.grad()), matches("chol.A.grad", 1e-10));
    CHECK_THAT(values(A.grad()), approx(values(A.grad().t())));

    auto AB = leaf("chol_batch.A", {2, 4, 4});
    auto LB = gradc::linalg_cholesky(AB);
    CHECK_THAT(values(LB), matches("chol_batch.L", 1e-12));
    LB.backward(ref_tensor("chol_batch.G", {2, 4, 4}));
    CHECK_THAT(values(AB.grad()), matches("chol_batch.A.grad", 1e-10));

    // Only the lower triangle is read (LAPACK's potrf): the upper one may hold anything.
    auto upper_garbage = ref_tensor("chol.A", {3, 3}) + gradc::tensor({{0.0, 5.0, -7.0}, {0.0, 0.0, 9.0}, {0.0, 0.0, 0.0}});
    CHECK_THAT(values(linalg::cholesky(upper_garbage)), matches("chol.L", 1e-12));
    // float32
    CHECK_THAT(values(linalg::cholesky(ref_tensor("chol.A", {3, 3}).to(gradc::kFloat32))), matches("chol.L", 1e-5, 1e-6));
}

TEST_CASE("cholesky of X Xᵀ + 3I: gradient and second derivative through X, and the tangent", "[autograd][decompositions]") {
    auto X = leaf("chol.X", {3, 3});
    auto G = ref_tensor("chol.G", {3, 3});
    auto gx = gradc::autograd::grad({(linalg::cholesky(spd(X, 3.0)) * G).sum()}, {X}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(gx), matches("chol.X.grad", 1e-10));
    auto gx2 = gradc::autograd::grad({(gx * ref_tensor("chol.W2", {3, 3})).sum()}, {X})[0];
    CHECK_THAT(values(gx2), matches("chol.X.grad2", 1e-9));

    // Along a symmetric direction the tangent is PyTorch's.
    fwd::dual_level level;
    auto L = linalg::cholesky(fwd::make_dual(ref_tensor("chol.A", {3, 3}), ref_tensor("chol.T", {3, 3})));
    CHECK_THAT(values(tangent(L)), matches("chol.jvp", 1e-10));
}

TEST_CASE("cholesky's tangent is the adjoint of its gradient for any direction", "[autograd][decompositions]") {
    // ⟨gL, L̇(U)⟩ = ⟨gA(gL), U⟩ also for a U that is not symmetric (here: only above the
    // diagonal, which the factorisation does not even read), because the tangent
    // symmetrises U as the gradient is symmetric. PyTorch 1.13 does not symmetrise its
    // tangent, so there the identity fails for such U.
    auto A = leaf("chol.A", {3, 3});
    auto G = ref_tensor("chol.G", {3, 3});
    const Tensor U = gradc::tensor({{0.0, 1.0, -2.0}, {0.0, 0.0, 0.5}, {0.0, 0.0, 0.0}});
    (linalg::cholesky(A) * G).sum().backward();
    Tensor dL;
    {
        fwd::dual_level level;
        dL = tangent(linalg::cholesky(fwd::make_dual(A.detach(), U)));
    }
    CHECK(inner(G, dL) == Approx(inner(A.grad(), U)).epsilon(1e-12));
    CHECK(inner(G, dL) != 0.0);
}

TEST_CASE("cholesky passes gradcheck and gradgradcheck on a symmetric input, one matrix and a batch",
          "[autograd][decompositions][gradcheck]") {
    // The gradient is the symmetric one, so finite differences must move A symmetrically:
    // the checked function is X ↦ cholesky(X Xᵀ + n·I).
    auto f = [](const tensor_list& t) -> tensor_list { return {linalg::cholesky(spd(t[0], 3.0))}; };
    check_derivatives(f, {leaf("chol.X", {3, 3})});
    check_derivatives([](const tensor_list& t) -> tensor_list { return {linalg::cholesky(spd(t[0], 4.0))}; },
                      {leaf("solve.batch.A", {2, 3, 3})});
}

TEST_CASE("cholesky refuses what it cannot factor, and changes nothing", "[autograd][decompositions][errors]") {
    auto A = gradc::tensor({{1.0, 2.0}, {2.0, 1.0}}, gradc::requires_grad());
    CHECK(error_leaving_intact({A}, [&] { linalg::cholesky(A); }) ==
          "gradc: linalg.cholesky: The factorization could not be completed because the input is not "
          "positive-definite (the leading minor of order 2 is not positive-definite).");
    auto batch = gradc::stack({gradc::eye(2), A.detach()}, 0);
    CHECK_THAT(error_leaving_intact({batch}, [&] { linalg::cholesky(batch); }),
               Contains("linalg.cholesky: (Batch element 1): The factorization could not be completed") &&
                   Contains("the leading minor of order 2"));
    auto nan = gradc::tensor({{std::nan(""), 0.0}, {0.0, 1.0}});
    CHECK_THAT(error_of([&] { linalg::cholesky(nan); }), Contains("leading minor of order 1"));
    CHECK_THAT(error_of([] { linalg::cholesky(gradc::ones({3})); }),
               Contains("linalg.cholesky") && Contains("at least 2 dimensions") && Contains("[3]"));
    CHECK_THAT(error_of([] { linalg::cholesky(gradc::ones({2, 3})); }),
               Contains("linalg.cholesky") && Contains("square matrices") && Contains("2 by 3") && Contains("[2, 3]"));
    CHECK_THAT(error_of([] { linalg::cholesky(gradc::eye(2, gradc::dtype(gradc::kInt64))); }),
               Contains("linalg.cholesky") && Contains("Float or Double") && Contains("Long"));
    CHECK_THAT(error_of([] { linalg::cholesky(gradc::complex(gradc::eye(2), gradc::zeros({2, 2}))); }),
               Contains("linalg.cholesky") && Contains("ComplexDouble"));
    CHECK_THAT(error_of([] { linalg::cholesky(Tensor()); }), Contains("linalg.cholesky") && Contains("undefined"));
}

// ---- triangular solves -------------------------------------------------------------------

TEST_CASE("solve_triangular on either side, with its gradients", "[autograd][decompositions]") {
    auto A = leaf("tri.A", {3, 3});
    auto B = leaf("tri.B", {3, 2});
    auto X = linalg::solve_triangular(A, B, /*upper=*/true);
    CHECK(X.grad_fn()->name() == "LinalgSolveTriangularBackward");
    CHECK_THAT(values(X), matches("tri.upper_left.X", 1e-12));
    X.backward(ref_tensor("tri.G", {3, 2}));
    CHECK_THAT(values(A.grad()), matches("tri.upper_left.A.grad", 1e-10));
    CHECK_THAT(values(B.grad()), matches("tri.upper_left.B.grad", 1e-10));

    auto A2 = leaf("tri.A", {3, 3});
    auto Bt = ref_tensor("tri.B", {3, 2}).t().contiguous().requires_grad_();
    auto Y = gradc::linalg_solve_triangular(A2, Bt, /*upper=*/false, /*left=*/false, /*unitriangular=*/true);
    CHECK_THAT(values(Y), matches("tri.lower_right_unit.X", 1e-12));
    Y.backward(ref_tensor("tri.G", {3, 2}).t());
    CHECK_THAT(values(A2.grad()), matches("tri.lower_right_unit.A.grad", 1e-10));
    CHECK_THAT(values(Bt.grad()), matches("tri.lower_right_unit.B.grad", 1e-10));
}

TEST_CASE("solve_triangular passes gradcheck and gradgradcheck: each triangle, side, unit diagonal, batches",
          "[autograd][decompositions][gradcheck]") {
    for (bool upper : {true, false})
        for (bool left : {true, false})
            for (bool unit : {false, true}) {
                INFO("upper " << upper << ", left " << left << ", unitriangular " << unit);
                auto B = left ? leaf("tri.B", {3, 2}) : ref_tensor("tri.B", {3, 2}).t().contiguous().requires_grad_();
                check_derivatives([=](const tensor_list& t) -> tensor_list {
                    return {linalg::solve_triangular(t[0], t[1], upper, left, unit)};
                }, {leaf("tri.A", {3, 3}), B});
            }
    // A batch of two A against one B (broadcast: B's gradient sums over the batch).
    check_derivatives([](const tensor_list& t) -> tensor_list {
        return {linalg::solve_triangular(t[0] + 3.0 * gradc::eye(3), t[1], /*upper=*/false)};
    }, {leaf("solve.batch.A", {2, 3, 3}), leaf("tri.B", {3, 2})});
}

TEST_CASE("solve_triangular reports shapes and dtypes", "[autograd][decompositions][errors]") {
    CHECK_THAT(error_of([] { linalg::solve_triangular(gradc::eye(3), gradc::ones({3}), true); }),
               Contains("linalg.solve_triangular") && Contains("B must have at least 2 dimensions") && Contains("[3]"));
    CHECK_THAT(error_of([] { linalg::solve_triangular(gradc::eye(3), gradc::ones({2, 1}), true); }),
               Contains("linalg.solve_triangular") && Contains("AX = B (3x3 and 2x1)"));
    CHECK_THAT(error_of([] { linalg::solve_triangular(gradc::eye(3), gradc::ones({1, 2}), true, false); }),
               Contains("XA = B (3x3 and 1x2)"));
    CHECK_THAT(error_of([] { linalg::solve_triangular(gradc::eye(3), gradc::ones({3, 1}, gradc::dtype(gradc::kFloat32)), true); }),
               Contains("linalg.solve_triangular") && Contains("same dtype") && Contains("Float") && Contains("Double"));
    // A zero on the diagonal: infinities, no error (as torch and LAPACK's trtrs).
    auto x = linalg::solve_triangular(gradc::zeros({2, 2}), gradc::ones({2, 1}), true);
    CHECK(std::isinf(values(x)[1]));
}

// ---- solve -------------------------------------------------------------------------------

TEST_CASE("solve with a matrix, a vector and a broadcast batch, with gradients", "[autograd][decompositions]") {
    auto A = leaf("solve.A", {3, 3});
    auto B = leaf("solve.B", {3, 2});
    auto X = linalg::solve(A, B);
    CHECK(X.grad_fn()->name() == "LinalgSolveBackward");
    CHECK_THAT(values(X), matches("solve.X", 1e-12));
    X.backward(ref_tensor("solve.G", {3, 2}));
    CHECK_THAT(values(A.grad()), matches("solve.A.grad", 1e-10));
    CHECK_THAT(values(B.grad()), matches("solve.B.grad", 1e-10));

    auto A2 = leaf("solve.A", {3, 3});
    auto b = leaf("solve.v", {3});
    auto x = gradc::linalg_solve(A2, b);
    CHECK(x.sizes() == gradc::Shape{3});
    CHECK_THAT(values(x), matches("solve.vector.X", 1e-12));
    x.backward(ref_tensor("solve.gv", {3}));
    CHECK_THAT(values(A2.grad()), matches("solve.vector.A.grad", 1e-10));
    CHECK_THAT(values(b.grad()), matches("solve.vector.b.grad", 1e-10));

    auto AB = leaf("solve.batch.A", {2, 3, 3});
    auto B2 = leaf("solve.B", {3, 2});
    auto XB = linalg::solve(AB, B2);
    CHECK(XB.sizes() == gradc::Shape{2, 3, 2});
    CHECK_THAT(values(XB), matches("solve.batch.X", 1e-12));
    XB.backward(ref_tensor("solve.batch.G", {2, 3, 2}));
    CHECK_THAT(values(AB.grad()), matches("solve.batch.A.grad", 1e-10));
    CHECK_THAT(values(B2.grad()), matches("solve.batch.B.grad", 1e-10));

    // A batch of vectors: B has A's shape without the last dimension.
    auto AB3 = ref_tensor("solve.batch.A", {2, 3, 3});
    auto vs = gradc::stack({ref_tensor("solve.v", {3}), ref_tensor("solve.v", {3}) * 2.0}, 0);
    auto xs = linalg::solve(AB3, vs);
    CHECK(xs.sizes() == gradc::Shape{2, 3});
    CHECK_THAT(values(xs.select(0, 1)), approx(values(linalg::solve(AB3.select(0, 1), vs.select(0, 1))), 1e-12));

    // The tangent, against PyTorch's forward AD.
    fwd::dual_level level;
    auto Xd = linalg::solve(fwd::make_dual(ref_tensor("solve.A", {3, 3}), ref_tensor("solve.TA", {3, 3})),
                            fwd::make_dual(ref_tensor("solve.B", {3, 2}), ref_tensor("solve.TB", {3, 2})));
    CHECK_THAT(values(tangent(Xd)), matches("solve.jvp", 1e-10));
}

TEST_CASE("solve passes gradcheck and gradgradcheck: matrix, vector and batched right-hand sides",
          "[autograd][decompositions][gradcheck]") {
    auto f = [](const tensor_list& t) -> tensor_list { return {linalg::solve(t[0], t[1])}; };
    check_derivatives(f, {leaf("solve.A", {3, 3}), leaf("solve.B", {3, 2})});
    check_derivatives(f, {leaf("solve.A", {3, 3}), leaf("solve.v", {3})});
    check_derivatives(f, {leaf("solve.batch.A", {2, 3, 3}), leaf("solve.B", {3, 2})});
}

TEST_CASE("solve refuses a singular matrix and wrong shapes, and changes nothing", "[autograd][decompositions][errors]") {
    auto A = gradc::tensor({{1.0, 2.0}, {2.0, 4.0}}, gradc::requires_grad());
    auto b = gradc::tensor({1.0, 1.0}, gradc::requires_grad());
    CHECK(error_leaving_intact({A, b}, [&] { linalg::solve(A, b); }) ==
          "gradc: linalg.solve: The solver failed because the input matrix is singular.");
    auto batch = gradc::stack({gradc::eye(2), gradc::zeros({2, 2})}, 0);
    CHECK_THAT(error_of([&] { linalg::solve(batch, gradc::ones({2, 2, 1})); }),
               Contains("linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."));
    CHECK_THAT(error_of([] { linalg::solve(gradc::eye(3), gradc::ones({2})); }),
               Contains("linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)") &&
                   Contains("[Double [3, 3]]"));
    CHECK_THAT(error_of([] { linalg::solve(gradc::eye(3), gradc::scalar_tensor(1.0)); }),
               Contains("linalg.solve") && Contains("at least 1 dimension"));
    CHECK_THAT(error_of([] { linalg::solve(gradc::eye(3), gradc::ones({3}, gradc::dtype(gradc::kFloat32))); }),
               Contains("linalg.solve") && Contains("same dtype"));
    CHECK_THAT(error_of([] { linalg::solve(gradc::ones({3, 2}), gradc::ones({3})); }),
               Contains("linalg.solve") && Contains("square matrices"));
    CHECK_THAT(error_of([] { linalg::solve(gradc::eye(2).expand({3, 2, 2}), gradc::ones({2, 2, 1})); }),
               Contains("linalg.solve") && Contains("broadcast"));
}

// ---- inv and logdet ----------------------------------------------------------------------

TEST_CASE("inv and its gradient; a singular matrix is refused", "[autograd][decompositions]") {
    auto A = leaf("solve.A", {3, 3});
    auto X = linalg::inv(A);
    CHECK_THAT(values(X), matches("inv.X", 1e-12));
    X.backward(ref_tensor("solve.TA", {3, 3}));
    CHECK_THAT(values(A.grad()), matches("inv.A.grad", 1e-10));
    check_derivatives([](const tensor_list& t) -> tensor_list { return {gradc::linalg_inv(t[0])}; }, {leaf("solve.A", {3, 3})});
    auto S = gradc::tensor({{1.0, 2.0}, {2.0, 4.0}}, gradc::requires_grad());
    CHECK(error_leaving_intact({S}, [&] { linalg::inv(S); }) ==
          "gradc: linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input "
          "matrix is singular.");
}

TEST_CASE("logdet: value, gradient, second derivative and tangent", "[autograd][decompositions]") {
    auto A = leaf("solve.A", {3, 3});
    auto y = A.logdet();
    CHECK(y.dim() == 0);
    CHECK(y.grad_fn()->name() == "LogdetBackward");
    CHECK_THAT(values(y), matches("logdet.y", 1e-12));
    auto g = gradc::autograd::grad({y}, {A}, {}, std::nullopt, true)[0];
    CHECK_THAT(values(g), matches("logdet.A.grad", 1e-10));
    auto g2 = gradc::autograd::grad({(g * ref_tensor("chol.W2", {3, 3})).sum()}, {A})[0];
    CHECK_THAT(values(g2), matches("logdet.A.grad2", 1e-9));
    {
        fwd::dual_level level;
        auto yd = gradc::logdet(fwd::make_dual(ref_tensor("solve.A", {3, 3}), ref_tensor("solve.TA", {3, 3})));
        CHECK_THAT(values(tangent(yd)), matches("logdet.jvp", 1e-10));
    }
    // A batch whose second matrix has a negative determinant: NaN, and (as PyTorch's
    // where(sign = −1, NaN, log|det|)) a zero gradient there.
    auto AB = leaf("logdet.batch.A", {2, 3, 3});
    auto yb = gradc::logdet(AB);
    CHECK_THAT(values(yb), matches("logdet.batch.y", 1e-12));
    yb.backward(gradc::tensor({1.5, -0.5}));
    CHECK_THAT(values(AB.grad()), matches("logdet.batch.A.grad", 1e-10));
}

TEST_CASE("logdet of a singular matrix is -inf, its gradient infinite, without an error", "[autograd][decompositions]") {
    auto S = gradc::tensor({{1.0, 2.0}, {2.0, 4.0}}, gradc::requires_grad());
    auto y = gradc::logdet(S);
    CHECK(y.item<double>() == -std::numeric_limits<double>::infinity());
    y.backward();
    bool finite = true;
    for (double v : values(S.grad())) finite = finite && std::isfinite(v);
    CHECK_FALSE(finite);
    CHECK(gradc::logdet(gradc::zeros({0, 0})).item<double>() == 0.0);  // the empty product
    CHECK_THAT(error_of([] { gradc::logdet(gradc::ones({2, 3})); }), Contains("logdet") && Contains("2 by 3"));
}

TEST_CASE("logdet passes gradcheck and gradgradcheck, one matrix and a batch", "[autograd][decompositions][gradcheck]") {
    auto f = [](const tensor_list& t) -> tensor_list { return {gradc::logdet(t[0])}; };
    check_derivatives(f, {leaf("solve.A", {3, 3})});
    check_derivatives(f, {leaf("chol_batch.A", {2, 4, 4})});
}
