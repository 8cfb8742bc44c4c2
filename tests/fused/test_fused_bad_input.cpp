// Bad input to gradc::autograd::fuse, as a table (tests/support/bad_input_table.hpp): the
// forward call fed the wrong tensors, and backward passes through a fused node that fail
// (a saved input modified in place, a released graph, a hook or a fused node failing
// after a leaf's gradient was summed). Each row requires the error, naming the fused
// kernel, and every tensor it could touch as it was (values, gradient, version counter).
#include "bad_input_table.hpp"
#include "fused_support.hpp"

using namespace bad_input;
using gradc::Tensor;
using gradc::tensor_list;
namespace ag = gradc::autograd;

namespace {

const auto f64 = gradc::dtype(gradc::kFloat64);

/// x·y fused as "product".
auto product() {
    auto [x, y] = gradc::variables<2>();
    return ag::fuse(gradc::compile(x * y), "product");
}

std::vector<BadInput> fused_table() {
    std::vector<BadInput> t;
    // ---- the forward call -----------------------------------------------------------
    t.push_back({"too few tensors", [] {
                     auto a = leaf_with_grad();
                     return Scene{{a}, [a] { (void)product()(a); }};
                 }, {"gradc: fuse(product):", "got 1 tensors, expected 2"}});
    t.push_back({"too many tensors in a list", [] {
                     auto a = leaf_with_grad();
                     return Scene{{a}, [a] { (void)product()(tensor_list{a, a, a}); }};
                 }, {"gradc: fuse(product):", "got 3 tensors, expected 2"}});
    t.push_back({"shapes that do not broadcast", [] {
                     auto a = leaf_with_grad();
                     auto b = gradc::ones({2}, f64);
                     return Scene{{a, b}, [a, b] { (void)product()(a, b); }};
                 }, {"gradc: fuse(product):", "cannot be broadcast"}});
    t.push_back({"an integer tensor", [] {
                     auto a = leaf_with_grad();
                     auto b = gradc::tensor_i64({1, 2, 3});
                     return Scene{{a, b}, [a, b] { (void)product()(a, b); }};
                 }, {"gradc: fuse(product):", "argument 1", "expected a Float or Double tensor"}});
    t.push_back({"a bool tensor", [] {
                     auto a = leaf_with_grad();
                     auto b = a > 1.5;
                     return Scene{{a, b}, [a, b] { (void)product()(b, a); }};
                 }, {"gradc: fuse(product):", "argument 0", "expected a Float or Double tensor"}});
    t.push_back({"a complex tensor", [] {
                     auto a = leaf_with_grad();
                     auto b = gradc::ones({3}, gradc::dtype(gradc::kComplex128));
                     return Scene{{a, b}, [a, b] { (void)product()(a, b); }};
                 }, {"gradc: fuse(product):", "argument 1", "ComplexDouble"}});
    t.push_back({"an undefined tensor", [] {
                     auto a = leaf_with_grad();
                     return Scene{{a}, [a] { (void)product()(a, Tensor()); }};
                 }, {"gradc: fuse(product):", "argument 1 is an undefined tensor"}});
    // ---- backward through a fused node ----------------------------------------------
    t.push_back({"backward after a saved input was modified in place", [] {
                     auto a = leaf_with_grad();
                     auto b = gradc::ones({3}, f64);
                     auto s = product()(a, b).sum();
                     b.add_(1.0);
                     return Scene{{a, b}, [s] { s.backward(); }};
                 }, {"modified by an inplace operation", "ProductBackward"}});
    t.push_back({"backward through a released graph", [] {
                     auto a = leaf_with_grad();
                     auto s = product()(a, a).sum();
                     s.backward();
                     return Scene{{a}, [s] { s.backward(); }};
                 }, {"Trying to backward through the graph a second time", "retain_graph=true"}});
    // a's AccumulateGrad is recorded after the failing part, so it runs first: the pass
    // fails after a's gradient is summed, and must put it back.
    t.push_back({"a hook on a fused output that throws after a leaf's gradient was summed", [] {
                     auto w = leaf_with_grad();
                     auto failing = product()(w, w);
                     failing.register_hook([](const Tensor&) -> Tensor { throw UserFailure("hook failed"); });
                     auto a = leaf_with_grad();
                     auto first = product()(a, a).sum();
                     auto s = first + failing.sum();
                     return Scene{{a, w}, [s] { s.backward(); }};
                 }, {"hook failed"}, Thrower::user});
    t.push_back({"a fused node failing after a leaf's gradient was summed", [] {
                     auto w = leaf_with_grad();
                     auto b = gradc::ones({3}, f64);
                     auto failing = product()(w, b);
                     auto a = leaf_with_grad();
                     auto first = (a * 3.0).sum();
                     auto s = first + failing.sum();
                     b.mul_(2.0);
                     return Scene{{a, w, b}, [s] { s.backward(); }};
                 }, {"modified by an inplace operation", "ProductBackward"}});
    return t;
}

}  // namespace

TEST_CASE("fused kernels: every bad input is an error naming the kernel, and changes nothing", "[fused][bad_input]") {
    check_table(fused_table());
}
