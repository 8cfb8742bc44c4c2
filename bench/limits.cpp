/// The machine's own limits, for the roofline of docs/benchmarks.md ("Every size"):
///  - memory bandwidth: a STREAM-style triad a[i] = b[i] + s·c[i] over three arrays of
///    3·10⁷ doubles (720 MB, far beyond any cache), best of 7, counting 24 bytes per
///    element (two loads and a store; the store's read for ownership not counted, as
///    STREAM does);
///  - peak floating-point throughput: independent fused multiply-adds on xsimd batches
///    held in registers (16 accumulators, enough to cover the FMA latency), per
///    precision, counting 2 flops per FMA per lane.
/// Prints `bandwidth_gbs,double_gflops,float_gflops` as one CSV line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <gradc/simd/config.hpp>

GRADC_SIMD_DIAGNOSTICS_PUSH

namespace {

double seconds(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double triad_gbs() {
    const std::size_t n = 30'000'000;
    std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
    double best = 1e30;
    for (int pass = 0; pass < 7; ++pass) {
        const auto t0 = std::chrono::steady_clock::now();
        const double s = 3.0 + pass;
        for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        best = std::min(best, seconds(t0));
    }
    std::fprintf(stderr, "(triad check %g)\n", a[n / 2]);
    return 24.0 * double(n) / best / 1e9;
}

template <class T>
double fma_gflops() {
    using B = xsimd::batch<T>;
    constexpr int K = 16;
    B acc[K];
    for (int k = 0; k < K; ++k) acc[k] = B(T(k) * T(1e-3));
    const B m(T(0.999999)), add(T(1e-7));
    const long iterations = 20'000'000;
    double best = 1e30;
    for (int pass = 0; pass < 3; ++pass) {
        const auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < iterations; ++i)
            for (int k = 0; k < K; ++k) acc[k] = xsimd::fma(acc[k], m, add);
        best = std::min(best, seconds(t0));
    }
    B sum = acc[0];
    for (int k = 1; k < K; ++k) sum += acc[k];
    std::fprintf(stderr, "(fma check %g)\n", double(xsimd::hadd(sum)));
    return 2.0 * double(B::size) * K * double(iterations) / best / 1e9;
}

}  // namespace

int main() {
    const double bw = triad_gbs();
    const double d = fma_gflops<double>();
    const double f = fma_gflops<float>();
    std::printf("%.2f,%.2f,%.2f\n", bw, d, f);
}

GRADC_SIMD_DIAGNOSTICS_POP
