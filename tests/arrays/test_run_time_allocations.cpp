// A kernel with run-time extents allocates, after its first call at given extents,
// nothing but the std::vector results it returns: its nodes' arrays live in slabs it
// keeps (include/gradc/lower/run_time_workspace.hpp). Scalar results leave nothing to
// allocate at all. operator new, aligned or not, is replaced by a counting one here
// (tests/support/counting_new.hpp). Loops keep their bodies' arrays in buffers per thread,
// sized on first use: the same holds for them.

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <gradc/gradc.hpp>

#include "counting_new.hpp"

using counting_new::allocations;

TEST_CASE("a run-time-extent kernel allocates only on its first call at given extents", "[arrays][run_time][allocation]") {
    using gradc::dynamic_extent;
    auto [W, b, x] = gradc::variables(gradc::mat<dynamic_extent, dynamic_extent>, gradc::vec<dynamic_extent>,
                                      gradc::vec<dynamic_extent>);
    const auto k = gradc::compile(sum(tanh(W * x + b)), gradc::wrt(x));
    std::vector<double> w(64 * 64, 0.01), bv(64, 0.1), xv(64, 0.2);
    const auto view = gradc::mat_view(w, 64, 64);

    (void)k(view, bv, xv);  // the first call sizes a slab
    long before = allocations.load();
    double v = 0;
    for (int r = 0; r < 10; ++r) v += k(view, bv, xv);
    CHECK(allocations.load() == before);
    CHECK(v != 0);

    (void)k.gradient(view, bv, xv);  // values and adjoints: the slab grows once
    before = allocations.load();
    for (int r = 0; r < 10; ++r) v += std::get<0>(k.gradient(view, bv, xv).gradient)[0];
    // One std::vector per call: the gradient of x.
    CHECK(allocations.load() - before == 10);

    // Smaller extents fit the slab already held.
    std::vector<double> w2(8 * 8, 0.01), b2(8, 0.1), x2(8, 0.2);
    before = allocations.load();
    v += k(gradc::mat_view(w2, 8, 8), b2, x2);
    CHECK(allocations.load() == before);
}

TEST_CASE("a kernel with loops allocates only on its first call at given extents", "[loops][run_time][allocation]") {
    using gradc::dynamic_extent;
    // Nested loops, a hoisted part (row(X, i) in the inner body) and a run-time segment:
    // the bodies' arrays are in per-thread buffers, their layouts kept while the extents
    // and literals stay (include/gradc/loops/body_call.hpp).
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto X = std::get<1>(vars);
    const auto e = gradc::sum_over(gradc::rows(X), [=](auto i) {
        return log_sum_exp(gradc::concat_over(gradc::size(a), [=](auto k) { return a[k] * sum(gradc::segment(row(X, i), 0, 2)) * X(i, k); }));
    });
    const auto k = gradc::compile(e, gradc::wrt(a));
    std::vector<double> av(4, 0.3), xv(6 * 4, 0.2);
    const auto view = gradc::mat_view(xv, 6, 4);

    (void)k.gradient(av, view);  // the first call sizes the slab and the loops' buffers
    long before = allocations.load();
    double v = 0;
    for (int r = 0; r < 10; ++r) v += k(av, view);
    CHECK(allocations.load() == before);
    for (int r = 0; r < 10; ++r) v += std::get<0>(k.gradient(av, view).gradient)[0];
    CHECK(allocations.load() - before == 10);  // one std::vector per gradient: a's
    const auto j = k.jvp(std::tie(av, view), std::tie(av));
    before = allocations.load();
    for (int r = 0; r < 10; ++r) v += k.jvp(std::tie(av, view), std::tie(av)).tangent;
    CHECK(allocations.load() == before);
    CHECK(v != 0);
    CHECK(j.tangent != 0);

    // A fixed kernel with a loop: nothing at all after the first call.
    const auto fixed_vars = gradc::variables(gradc::vec<5>);
    const auto x = std::get<0>(fixed_vars);
    const auto kf = gradc::compile(gradc::sum_over(5, [=](auto i) { return exp(x[i]) * x[i]; }));
    const std::array<double, 5> x0{0.1, 0.2, 0.3, 0.4, 0.5};
    (void)kf.gradient(x0);
    (void)kf.hessian(x0);  // the first call on dual numbers sizes their buffer
    before = allocations.load();
    for (int r = 0; r < 10; ++r) v += kf.gradient(x0).value + kf.hessian(x0).value;
    CHECK(allocations.load() == before);
}

TEST_CASE("run-time Jacobians and second order allocate only their results", "[arrays][run_time][allocation]") {
    using gradc::dynamic_extent;
    // The dual copies of the arguments and the sweeps' working arrays are kept per thread
    // (include/gradc/lower/run_time_derivatives.hpp).
    const auto vars = gradc::variables(gradc::vec<dynamic_extent>, gradc::mat<dynamic_extent, dynamic_extent>);
    const auto a = std::get<0>(vars);
    const auto X = std::get<1>(vars);
    const auto e = gradc::sum_over(gradc::rows(X), [=](auto i) { return log_sum_exp(a * row(X, i)); });
    const auto k = gradc::compile(e, gradc::wrt(a));
    std::vector<double> av(11, 0.3), xv(6 * 11, 0.2), v(11, 1.0);
    const auto view = gradc::mat_view(xv, 6, 11);
    (void)k.hessian(av, view);
    (void)k.hessian_diagonal(av, view);
    (void)k.hvp(std::tie(av, view), std::tie(v));
    (void)k.jacobian(av, view);
    long before = allocations.load();
    double s = 0;
    for (int r = 0; r < 10; ++r) s += k.hessian(av, view).hessian[3][4];
    CHECK(allocations.load() - before == 20);  // the gradient's and the Hessian's vectors
    before = allocations.load();
    for (int r = 0; r < 10; ++r) s += std::get<0>(k.hessian_diagonal(av, view).diagonal)[0];
    CHECK(allocations.load() - before == 20);  // the gradient's and the diagonal's
    before = allocations.load();
    for (int r = 0; r < 10; ++r) s += std::get<0>(k.hvp(std::tie(av, view), std::tie(v)).hvp)[0];
    CHECK(allocations.load() - before == 20);  // the gradient's and the product's
    before = allocations.load();
    for (int r = 0; r < 10; ++r) s += k.jacobian(av, view).jacobian[0][2];
    CHECK(allocations.load() - before == 10);  // the Jacobian's (the value is a scalar)
    CHECK(s != 0);
}
