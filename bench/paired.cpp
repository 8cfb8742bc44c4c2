/// gradc's batch gradient and the hand-written xsimd code on one kernel, timed in turns in
/// one process, so that both see the same clock: the machine's speed drifts by phases (up
/// to a third between runs, docs/benchmarks.md "Machine"), and Google Benchmark's loop in
/// gradc-bench times all repetitions of one implementation before the next.
///
///     gradc-bench-paired KERNEL N [REPETITIONS]
///
/// Each repetition calls gradc-batch, then hand-simd, as many times as cover about 2·10⁶
/// points; prints the best nanoseconds per point of each and their ratio. The inputs are
/// drawn as gradc-bench draws them, and both results are checked against hand-scalar at
/// the first call (a mismatch exits with status 1).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench.hpp"

namespace {

using namespace bench;

/// Runs `run` on `p` into fresh outputs and returns them.
std::vector<std::vector<double>> outputs_of(const runner& run, const kernel_info& k, problem p) {
    std::vector<std::vector<double>> out(1 + k.gradient_size, std::vector<double>(k.reduction ? 1 : p.n));
    p.out.clear();
    for (auto& v : out) p.out.push_back(v.data());
    run(p);
    return out;
}

/// max |a - b| / max(|b|, 1), NaN counting as infinite (as gradc-bench's check).
double max_error(const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want) {
    double err = 0;
    for (std::size_t m = 0; m < want.size(); ++m)
        for (std::size_t i = 0; i < want[m].size(); ++i) {
            const double e = std::abs(got[m][i] - want[m][i]) / std::max(std::abs(want[m][i]), 1.0);
            err = std::isnan(e) ? INFINITY : std::max(err, e);
        }
    return err;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: gradc-bench-paired KERNEL N [REPETITIONS]\n");
        return 2;
    }
    const std::string kernel = argv[1];
    const std::size_t n = std::strtoul(argv[2], nullptr, 10);
    const int repetitions = argc == 4 ? std::max(1, std::atoi(argv[3])) : 11;
    const kernel_info* found = find_kernel(kernel);
    if (found == nullptr) {
        std::fprintf(stderr, "gradc-bench-paired: no kernel %s\n", kernel.c_str());
        return 2;
    }
    const kernel_info& k = *found;
    const registry reg = native_registry();
    const auto in = draw_columns(k, n);
    problem p;
    p.n = n;
    for (const auto& v : in) p.in.push_back(v.data());
    const auto reference = outputs_of(reg.at("hand-scalar").at(kernel), k, p);
    const char* systems[] = {"gradc-batch", "hand-simd"};
    std::vector<std::vector<double>> out(1 + k.gradient_size, std::vector<double>(k.reduction ? 1 : n));
    for (auto& v : out) p.out.push_back(v.data());
    for (const char* s : systems) {
        // Sums over N points round differently in each system: 1e-9·√N, as gradc-bench.
        const double tolerance = k.reduction ? 1e-9 * std::sqrt(double(n)) : 1e-9;
        if (const double e = max_error(outputs_of(reg.at(s).at(kernel), k, p), reference); !(e <= tolerance)) {
            std::fprintf(stderr, "gradc-bench-paired: %s on %s differs from hand-scalar by %g\n", s, kernel.c_str(), e);
            return 1;
        }
    }
    const long calls = std::max(1L, long(2e6 / double(std::max<std::size_t>(n, 1))));
    double best[2] = {INFINITY, INFINITY};
    for (int r = 0; r < repetitions; ++r)
        for (int s = 0; s < 2; ++s) {
            const runner& run = reg.at(systems[s]).at(kernel);
            const auto t0 = std::chrono::steady_clock::now();
            for (long c = 0; c < calls; ++c) run(p);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            best[s] = std::min(best[s], seconds / double(calls) / double(n) * 1e9);
        }
    std::printf("%s N=%zu gradc-batch %.3f hand-simd %.3f ns/point, ratio %.3f\n", kernel.c_str(), n, best[0], best[1],
                best[0] / best[1]);
    return 0;
}
