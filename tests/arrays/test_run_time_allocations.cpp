// A kernel with run-time extents allocates, after its first call at given extents,
// nothing but the std::vector results it returns: its nodes' arrays live in slabs it
// keeps (include/gradc/lower/run_time_workspace.hpp). Scalar results leave nothing to
// allocate at all. operator new, aligned or not, is replaced by a counting one here
// (tests/support/counting_new.hpp).

#include <atomic>
#include <cstdlib>
#include <new>
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
