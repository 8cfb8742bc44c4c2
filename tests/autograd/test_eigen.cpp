// <gradc/eigen.hpp>: tensors from Eigen matrices (copies and views) and back (copies and
// maps), in both storage orders; gradients through a tensor made from Eigen; the errors.
#include <algorithm>
#include <cmath>
#include <complex>

#include <Eigen/Core>

#include <gradc/eigen.hpp>

#include "bad_input_table.hpp"
#include "support.hpp"

using Catch::Matchers::Contains;
using gradc::Tensor;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {
// By loops: Eigen's own reductions (sum, norm) warn under g++ 12 with AVX-512
// (-Wmaybe-uninitialized inside its packet code).
double max_abs_difference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    double d = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i)
        for (Eigen::Index j = 0; j < a.cols(); ++j) d = std::max(d, std::abs(a(i, j) - b(i, j)));
    return d;
}
int count_equal(const Eigen::MatrixXd& m, double value) {
    int n = 0;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) n += m(i, j) == value;
    return n;
}
}  // namespace

TEST_CASE("from_eigen copies matrices of either storage order as [rows, cols]", "[autograd][eigen]") {
    Eigen::MatrixXd col(2, 3);
    col << 1, 2, 3, 4, 5, 6;
    const RowMajor row = col;
    for (const Tensor& t : {gradc::from_eigen(col), gradc::from_eigen(row)}) {
        CHECK(t.sizes() == gradc::Shape{2, 3});
        CHECK(t.dtype() == gradc::kFloat64);
        CHECK(t.is_contiguous());
        CHECK_THAT(testing::values(t), testing::approx({1, 2, 3, 4, 5, 6}));
    }
    // A copy: changing the matrix later leaves the tensor alone.
    Tensor t = gradc::from_eigen(col);
    col(0, 0) = 100;
    CHECK(t[0][0].item<double>() == 1.0);
    // Round trips into both orders and into fixed sizes.
    CHECK(gradc::to_eigen(t) == Eigen::MatrixXd(row));
    CHECK(gradc::to_eigen<RowMajor>(gradc::from_eigen(row)) == row);
    CHECK(t.to_eigen<Eigen::Matrix<double, 2, 3>>() == Eigen::Matrix<double, 2, 3>(row));
    CHECK(t.to_eigen() == Eigen::MatrixXd(row));
    // Expressions and arrays are evaluated into the copy.
    CHECK_THAT(testing::values(gradc::from_eigen(row.transpose() * 2.0)), testing::approx({2, 8, 4, 10, 6, 12}));
    CHECK(gradc::from_eigen(row.array().square()).sizes() == gradc::Shape{2, 3});
}

TEST_CASE("from_eigen makes vectors 1-D and keeps the element type", "[autograd][eigen]") {
    Eigen::VectorXf v(3);
    v << 1.5f, -2.f, 4.f;
    Tensor t = gradc::from_eigen(v);
    CHECK(t.sizes() == gradc::Shape{3});
    CHECK(t.dtype() == gradc::kFloat32);
    CHECK(gradc::to_eigen<Eigen::VectorXf>(t) == v);
    CHECK(gradc::to_eigen<Eigen::RowVectorXf>(t) == v.transpose());
    CHECK(gradc::to_eigen(t) == v.cast<double>());  // MatrixXd: a converted copy, 3×1
    CHECK(gradc::from_eigen(v, gradc::kFloat64).dtype() == gradc::kFloat64);
    Eigen::VectorXcd z(2);
    z << std::complex<double>(1, 2), std::complex<double>(-3, 0.5);
    Tensor tz = gradc::from_eigen(z);
    CHECK(tz.dtype() == gradc::kComplex128);
    CHECK(gradc::to_eigen<Eigen::VectorXcd>(tz) == z);
    CHECK_THROWS_WITH(gradc::to_eigen(tz), Contains("to_eigen: got a ComplexDouble tensor") && Contains("MatrixXcd"));
}

TEST_CASE("a view from eigen_view shares memory in both storage orders", "[autograd][eigen]") {
    Eigen::MatrixXd col(2, 3);
    col << 1, 2, 3, 4, 5, 6;
    RowMajor row = col;
    Tensor tc = gradc::from_eigen(col, gradc::eigen_view);
    Tensor tr = gradc::from_eigen(row, gradc::eigen_view);
    CHECK(tc.strides() == gradc::Shape{1, 2});
    CHECK(tr.strides() == gradc::Shape{3, 1});
    CHECK(tc.data_ptr<double>() == col.data());
    CHECK(tr.data_ptr<double>() == row.data());
    CHECK(gradc::to_eigen(tc) == col);
    CHECK(gradc::to_eigen(tr) == col);
    // Writes go through, both ways.
    tc[1][2] = 60.0;
    CHECK(col(1, 2) == 60.0);
    tr.mul_(2.0);
    CHECK(row(0, 1) == 4.0);
    col(0, 1) = -7.0;
    CHECK(tc[0][1].item<double>() == -7.0);
    // A block of a larger matrix: the outer stride is the parent's.
    Eigen::MatrixXd big = Eigen::MatrixXd::Zero(4, 5);
    Tensor block = gradc::from_eigen(big.block(1, 1, 2, 3), gradc::eigen_view);
    CHECK(block.strides() == gradc::Shape{1, 4});
    block.fill_(1.0);
    CHECK(count_equal(big, 1.0) == 6);
    CHECK(big(1, 1) == 1.0);
    CHECK(big(0, 0) == 0.0);
    // A column of a row-major matrix is a strided 1-D view.
    Tensor column = gradc::from_eigen(row.col(1), gradc::eigen_view);
    CHECK(column.sizes() == gradc::Shape{2});
    CHECK(column.strides() == gradc::Shape{3});
    CHECK_THAT(testing::values(column), testing::approx({4, 10}));
    CHECK_THROWS_WITH(gradc::from_eigen(col, gradc::eigen_view, gradc::kFloat32),
                      Contains("from_eigen(m, eigen_view): got options with dtype Float") && Contains("cannot convert"));
}

TEST_CASE("eigen_map maps a contiguous tensor and refuses the others", "[autograd][eigen]") {
    Tensor t = gradc::arange(6.0, gradc::kFloat64).reshape({2, 3});
    auto m = gradc::eigen_map<double>(t);
    CHECK(m.rows() == 2);
    CHECK(m.cols() == 3);
    CHECK(m(1, 0) == 3.0);
    CHECK(m.data() == t.data_ptr<double>());
    m(0, 2) = 42.0;  // writes through
    CHECK(t[0][2].item<double>() == 42.0);
    CHECK(gradc::eigen_map<double>(gradc::arange(4.0, gradc::kFloat64)).rows() == 4);
    CHECK_THROWS_WITH(gradc::eigen_map<double>(t.t()),
                      Contains("eigen_map: got a non-contiguous tensor (sizes [3, 2], strides [1, 3])") &&
                          Contains("t.contiguous()"));
    CHECK_THROWS_WITH(gradc::eigen_map<float>(t), Contains("eigen_map: got a Double tensor; expected Float"));
    CHECK_THROWS_WITH(gradc::eigen_map<double>(gradc::zeros({2, 2, 2}, gradc::kFloat64)),
                      Contains("eigen_map: got a 3-dim tensor of shape [2, 2, 2]; expected at most 2 dimensions"));
    CHECK_THROWS_WITH(gradc::eigen_map<double>(gradc::ones({2}, gradc::requires_grad())),
                      Contains("eigen_map: got a tensor that requires grad") && Contains("t.detach()"));
    CHECK_THROWS_WITH((gradc::to_eigen<Eigen::Matrix<double, 3, 3>>(t)),
                      Contains("to_eigen: got a tensor of shape [2, 3] (2×3); expected 3×3"));
    CHECK_THROWS_WITH(gradc::to_eigen(Tensor()), Contains("to_eigen: got an undefined tensor"));
}

TEST_CASE("gradients flow through tensors made from Eigen", "[autograd][eigen]") {
    // f(A, x) = sum(tanh(A x)): ∂f/∂x = Aᵀ (1 - tanh²(A x)), ∂f/∂A = (1 - tanh²(A x)) xᵀ.
    Eigen::MatrixXd a(2, 3);
    a << 0.5, -1.0, 0.25, 1.5, 0.75, -0.5;
    Eigen::VectorXd x(3);
    x << 0.3, -0.2, 0.8;
    Tensor ta = gradc::from_eigen(a, gradc::eigen_view, gradc::requires_grad());
    Tensor tx = gradc::from_eigen(x, gradc::requires_grad());
    gradc::tanh(gradc::matmul(ta, tx)).sum().backward();
    // The closed forms by loops (Eigen's products warn as its reductions do).
    Eigen::VectorXd s(2), gx = Eigen::VectorXd::Zero(3);
    Eigen::MatrixXd ga(2, 3);
    for (int i = 0; i < 2; ++i) {
        double ax = 0;
        for (int j = 0; j < 3; ++j) ax += a(i, j) * x(j);
        s(i) = 1 - std::tanh(ax) * std::tanh(ax);
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            gx(j) += a(i, j) * s(i);
            ga(i, j) = s(i) * x(j);
        }
    CHECK(max_abs_difference(gradc::to_eigen<Eigen::VectorXd>(tx.grad()), gx) < 1e-15);
    CHECK(max_abs_difference(tx.grad().to_eigen(), gx) < 1e-15);
    CHECK(max_abs_difference(gradc::to_eigen(ta.grad()), ga) < 1e-15);
}

TEST_CASE("Eigen conversions: every bad input is an error naming the call, and changes nothing",
          "[autograd][eigen][bad_input]") {
    // The table of tests/support/bad_input_table.hpp: the message's fragments, and the
    // tensors (values, gradient, version counter) as they were.
    using bad_input::BadInput;
    using bad_input::Scene;
    const std::vector<BadInput> table = {
        {"to_eigen of an undefined tensor", [] { return Scene{{}, [] { (void)gradc::to_eigen(Tensor()); }}; },
         {"gradc: to_eigen:", "got an undefined tensor", "expected a defined one"}},
        {"to_eigen of a 3-dim tensor", [] {
             auto t = gradc::zeros({2, 2, 2}, gradc::kFloat64);
             return Scene{{t}, [t] { (void)gradc::to_eigen(t); }};
         }, {"gradc: to_eigen:", "3-dim tensor of shape [2, 2, 2]", "expected at most 2 dimensions"}},
        {"to_eigen into a fixed size that does not fit", [] {
             auto t = bad_input::leaf_with_grad();
             return Scene{{t}, [t] { (void)gradc::to_eigen<Eigen::Matrix<double, 2, 1>>(t); }};
         }, {"gradc: to_eigen:", "shape [3]", "expected 2×1", "fixed size"}},
        {"to_eigen of a complex tensor into a real matrix", [] {
             auto z = gradc::ones({2}, gradc::dtype(gradc::kComplex128));
             return Scene{{z}, [z] { (void)gradc::to_eigen(z); }};
         }, {"gradc: to_eigen:", "ComplexDouble tensor", "MatrixXcd"}},
        {"eigen_map of a non-contiguous view", [] {
             auto t = gradc::arange(6.0, gradc::kFloat64).reshape({2, 3});
             return Scene{{t}, [t] { (void)gradc::eigen_map<double>(t.t()); }};
         }, {"gradc: eigen_map:", "non-contiguous tensor (sizes [3, 2], strides [1, 3])", "t.contiguous()"}},
        {"eigen_map with another element type", [] {
             auto t = gradc::arange(6.0, gradc::kFloat64);
             return Scene{{t}, [t] { (void)gradc::eigen_map<float>(t); }};
         }, {"gradc: eigen_map:", "got a Double tensor", "expected Float"}},
        {"eigen_map of a tensor that requires grad", [] {
             auto t = bad_input::leaf_with_grad();
             return Scene{{t}, [t] { (void)gradc::eigen_map<double>(t); }};
         }, {"gradc: eigen_map:", "requires grad", "t.detach()"}},
        {"eigen_map of an undefined tensor", [] { return Scene{{}, [] { (void)gradc::eigen_map<double>(Tensor()); }}; },
         {"gradc: eigen_map:", "undefined"}},
        {"from_eigen(m, eigen_view) with another dtype", [] {
             return Scene{{}, [] {
                              static Eigen::MatrixXd m = Eigen::MatrixXd::Ones(2, 2);
                              (void)gradc::from_eigen(m, gradc::eigen_view, gradc::kFloat32);
                          }};
         }, {"gradc: from_eigen(m, eigen_view):", "dtype Float", "cannot convert"}},
    };
    bad_input::check_table(table);
}
