// Tensors: creation, dtypes, geometry, element access, printing.
#include <sstream>

#include "support.hpp"

using namespace testing;
using Catch::Matchers::Contains;

TEST_CASE("creation functions give the documented values and dtypes", "[autograd][tensor]") {
    auto t = gradc::tensor({0.5, 0.25});
    CHECK(t.dtype() == gradc::kFloat64);
    CHECK(t.sizes() == gradc::Shape{2});
    CHECK(t.dim() == 1);
    CHECK(t.numel() == 2);
    CHECK(t.data_ptr<double>()[1] == 0.25);
    CHECK_FALSE(t.requires_grad());

    auto m = gradc::tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, gradc::dtype(gradc::kFloat32));
    CHECK(m.dtype() == gradc::kFloat32);
    CHECK(m.sizes() == gradc::Shape{2, 3});
    CHECK(m.strides() == gradc::Shape{3, 1});
    CHECK(m.data_ptr<float>()[4] == 5.0f);

    CHECK_THAT(values(gradc::zeros({2, 2})), approx({0, 0, 0, 0}));
    CHECK_THAT(values(gradc::ones({3})), approx({1, 1, 1}));
    CHECK_THAT(values(gradc::full({2}, 7.5)), approx({7.5, 7.5}));
    CHECK_THAT(values(gradc::arange(4)), approx({0, 1, 2, 3}));
    CHECK_THAT(values(gradc::arange(1, 2, 0.25)), approx({1, 1.25, 1.5, 1.75}));
    CHECK_THAT(values(gradc::linspace(0, 1, 5)), approx({0, 0.25, 0.5, 0.75, 1}));
    CHECK_THAT(values(gradc::eye(2)), approx({1, 0, 0, 1}));
    CHECK(gradc::eye(2, 3).sizes() == gradc::Shape{2, 3});

    auto opts = gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true);
    auto r = gradc::zeros({2}, opts);
    CHECK(r.dtype() == gradc::kFloat32);
    CHECK(r.requires_grad());
    CHECK(r.is_leaf());
}

TEST_CASE("random tensors are reproducible with manual_seed", "[autograd][tensor]") {
    gradc::manual_seed(42);
    auto a = gradc::rand({1000});
    auto n = gradc::randn({1000});
    gradc::manual_seed(42);
    CHECK(gradc::equal(a, gradc::rand({1000})));
    CHECK(gradc::equal(n, gradc::randn({1000})));
    CHECK(gradc::all(a >= 0.0) == true);
    CHECK(gradc::all(a < 1.0) == true);
    CHECK(a.mean().item<double>() == Approx(0.5).margin(0.05));
    CHECK(n.mean().item<double>() == Approx(0.0).margin(0.1));
    CHECK(((n * n).mean()).item<double>() == Approx(1.0).margin(0.1));
    auto i = gradc::randint(0, 5, {100});
    CHECK(i.dtype() == gradc::kInt64);
}

TEST_CASE("item, data_ptr and contiguous", "[autograd][tensor]") {
    auto t = gradc::tensor({{1.0, 2.0}, {3.0, 4.0}});
    CHECK(t[1][0].item<double>() == 3.0);
    CHECK(t[1][0].item<float>() == 3.0f);
    auto tt = t.t();
    CHECK_FALSE(tt.is_contiguous());
    auto c = tt.contiguous();
    CHECK(c.is_contiguous());
    CHECK_THAT(values(c), approx({1, 3, 2, 4}));
    CHECK(t.contiguous().is_same(t));
    CHECK_THAT(error_of([&] { (void)t.item<double>(); }), Contains("item()") && Contains("4 elements") && Contains("[2, 2]"));
    CHECK_THAT(error_of([&] { (void)t.data_ptr<float>(); }), Contains("data_ptr") && Contains("Float") && Contains("Double"));
}

TEST_CASE("complex tensors", "[autograd][tensor][complex]") {
    auto z = gradc::tensor({std::complex<double>(1, 2), std::complex<double>(-3, 0.5)});
    CHECK(z.dtype() == gradc::kComplex128);
    CHECK(z.is_complex());
    CHECK(z[0].item<std::complex<double>>() == std::complex<double>(1, 2));
    auto z64 = z.to(gradc::kComplex64);
    CHECK(z64.dtype() == gradc::kComplex64);
    CHECK_THAT(values(gradc::real(z)), approx({1, -3}));
    CHECK_THAT(values(gradc::imag(z)), approx({2, 0.5}));
    CHECK_THAT(values(gradc::abs(z)), approx({std::sqrt(5.0), std::sqrt(9.25)}));
}

TEST_CASE("printing follows LibTorch's layout", "[autograd][tensor]") {
    CHECK(gradc::to_string(gradc::tensor({0.5, 0.25})) == " 0.5000\n 0.2500\n[ CPUDoubleType{2} ]");
    CHECK(gradc::to_string(gradc::tensor({{1.0, 2.0}, {3.0, 4.0}}, gradc::dtype(gradc::kFloat32))) ==
          " 1  2\n 3  4\n[ CPUFloatType{2,2} ]");
    CHECK(gradc::to_string(gradc::scalar_tensor(2.5)) == "2.5\n[ CPUDoubleType{} ]");
    CHECK(gradc::to_string(gradc::tensor({-1.5, 2.0})) == " -1.5000\n  2.0000\n[ CPUDoubleType{2} ]");
    std::ostringstream os;
    os << gradc::zeros({2, 1, 2});
    CHECK(os.str() == "(1,.,.) = \n 0  0\n\n(2,.,.) = \n 0  0\n[ CPUDoubleType{2,1,2} ]");
}

TEST_CASE("bad shapes and sizes are reported with the operation and the shapes", "[autograd][tensor][errors]") {
    CHECK_THAT(error_of([] { gradc::tensor({{1.0, 2.0}, {3.0}}); }), Contains("row 1") && Contains("expected 2"));
    CHECK_THAT(error_of([] { gradc::zeros({2, -1}); }), Contains("negative size"));
    CHECK_THAT(error_of([] { gradc::tensor({1.0}).size(3); }), Contains("size") && Contains("out of range"));
    CHECK_THAT(error_of([] { gradc::tensor({1.0, 2.0}) + gradc::tensor({1.0, 2.0, 3.0}); }),
               Contains("add") && Contains("[2]") && Contains("[3]") && Contains("broadcast"));
    CHECK_THAT(error_of([] { gradc::arange(0, 1, -1); }), Contains("arange"));
    CHECK_THAT(error_of([] { gradc::tensor_i64({1, 2}).requires_grad_(); }),
               Contains("floating point and complex") && Contains("Long"));
}
