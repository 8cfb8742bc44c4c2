// Large elementwise operations and reductions on several threads: the same bits on 1, 2
// and 3 threads (gradc::set_num_threads), forward and backward, and sums equal to a
// long-double reference.
#include <cmath>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include <gradc/autograd.hpp>

namespace {

using gradc::Tensor;

bool same_bits(const Tensor& a, const Tensor& b) {
    return a.sizes() == b.sizes() && a.dtype() == b.dtype() &&
           std::memcmp(a.contiguous().raw_data(), b.contiguous().raw_data(),
                       static_cast<std::size_t>(a.numel()) * (a.dtype() == gradc::kFloat64 ? 8 : 4)) == 0;
}

struct results {
    Tensor y, total, rows, columns, gx, gy;
};

results run(const Tensor& x, const Tensor& w) {
    Tensor xa = x.detach().requires_grad_(true), wa = w.detach().requires_grad_(true);
    results r;
    r.y = gradc::sin(xa) * wa + gradc::exp(xa * 0.1);
    r.total = r.y.sum();
    r.rows = r.y.reshape({1000, 1200}).sum({1});
    r.columns = r.y.reshape({1000, 1200}).mean({0});
    (r.total + r.rows.sum() * 0.5).backward();
    r.gx = xa.grad();
    r.gy = wa.grad();
    return r;
}

}  // namespace

TEST_CASE("large tensor operations give the same bits on any number of threads", "[autograd][threads]") {
    const int before = gradc::get_num_threads();
    for (auto dtype : {gradc::kFloat64, gradc::kFloat32}) {
        gradc::manual_seed(4);
        const Tensor x = gradc::randn({1'200'000}, gradc::TensorOptions().dtype(dtype));
        const Tensor w = gradc::randn({1'200'000}, gradc::TensorOptions().dtype(dtype));
        gradc::set_num_threads(1);
        const results one = run(x, w);
        for (int t : {2, 3}) {
            INFO("threads = " << t);
            gradc::set_num_threads(t);
            const results r = run(x, w);
            CHECK(same_bits(r.y, one.y));
            CHECK(same_bits(r.total, one.total));
            CHECK(same_bits(r.rows, one.rows));
            CHECK(same_bits(r.columns, one.columns));
            CHECK(same_bits(r.gx, one.gx));
            CHECK(same_bits(r.gy, one.gy));
        }
        if (dtype == gradc::kFloat64) {
            // The chunked sum against a long-double sum of the same values.
            const Tensor y = one.y.contiguous();
            const double* p = static_cast<const double*>(y.raw_data());
            long double ref = 0;
            for (std::int64_t i = 0; i < y.numel(); ++i) ref += p[i];
            CHECK(one.total.item<double>() == Approx(static_cast<double>(ref)).epsilon(1e-14));
        }
    }
    gradc::set_num_threads(before);
}
