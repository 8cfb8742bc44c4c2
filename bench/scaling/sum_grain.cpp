/// The dynamic mode's sum on 1 and 2 threads (gradc::set_num_threads) from 2¹⁴ to 2²³
/// elements, double, median of 41 calls: where the fixed chunk tree of sums starts to pay
/// (docs/benchmarks.md, "Threads and MPI ranks"). Run: build-bench/bench/scaling/gradc-bench-sum-grain
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#include <gradc/autograd.hpp>
int main() {
    for (int e = 14; e <= 23; ++e) {
        const std::int64_t n = std::int64_t{1} << e;
        auto x = gradc::randn(n, gradc::dtype(gradc::kFloat64));
        double med[2];
        for (int t = 1; t <= 2; ++t) {
            gradc::set_num_threads(t);
            std::vector<double> ts;
            for (int r = 0; r < 41; ++r) {
                auto a = std::chrono::steady_clock::now();
                auto s = x.sum();
                volatile double v = s.item<double>(); (void)v;
                ts.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
            }
            std::sort(ts.begin(), ts.end());
            med[t - 1] = ts[ts.size() / 2];
        }
        std::printf("2^%d elements: 1 thread %.1f us, 2 threads %.1f us, %.2fx\n", e, med[0], med[1], med[0] / med[1]);
    }
}
