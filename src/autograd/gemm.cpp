// Blocked, vectorised matrix product. The k dimension is split into panels that stay in
// cache; inside a panel a 4-row × 2-batch register tile of C accumulates with fused
// multiply-adds while rows of B stream through.
#include <algorithm>

#include "kernels/gemm.hpp"
#include "kernels/simd.hpp"

namespace gradc::kernels {

namespace {

constexpr std::int64_t kPanel = 256;  // k-panel depth
constexpr std::int64_t kCols = 512;   // columns of B per block

template <class T>
void gemm_simd(const T* a, const T* b, T* c, std::int64_t m, std::int64_t k, std::int64_t n) {
    using B = batch<T>;
    constexpr std::int64_t W = B::size;
    for (std::int64_t j0 = 0; j0 < n; j0 += kCols) {
        const std::int64_t j1 = std::min(n, j0 + kCols);
        for (std::int64_t p0 = 0; p0 < k; p0 += kPanel) {
            const std::int64_t p1 = std::min(k, p0 + kPanel);
            std::int64_t i = 0;
            for (; i + 4 <= m; i += 4) {
                std::int64_t j = j0;
                for (; j + 2 * W <= j1; j += 2 * W) {
                    B acc[4][2];
                    for (int r = 0; r < 4; ++r) {
                        acc[r][0] = B::load_unaligned(c + (i + r) * n + j);
                        acc[r][1] = B::load_unaligned(c + (i + r) * n + j + W);
                    }
                    for (std::int64_t p = p0; p < p1; ++p) {
                        const B b0 = B::load_unaligned(b + p * n + j), b1 = B::load_unaligned(b + p * n + j + W);
                        for (int r = 0; r < 4; ++r) {
                            const B ar(a[(i + r) * k + p]);
                            acc[r][0] = xsimd::fma(ar, b0, acc[r][0]);
                            acc[r][1] = xsimd::fma(ar, b1, acc[r][1]);
                        }
                    }
                    for (int r = 0; r < 4; ++r) {
                        acc[r][0].store_unaligned(c + (i + r) * n + j);
                        acc[r][1].store_unaligned(c + (i + r) * n + j + W);
                    }
                }
                for (; j < j1; ++j)
                    for (int r = 0; r < 4; ++r) {
                        T s = c[(i + r) * n + j];
                        for (std::int64_t p = p0; p < p1; ++p) s += a[(i + r) * k + p] * b[p * n + j];
                        c[(i + r) * n + j] = s;
                    }
            }
            for (; i < m; ++i) {
                for (std::int64_t p = p0; p < p1; ++p) {
                    const T aip = a[i * k + p];
                    const B av(aip);
                    std::int64_t j = j0;
                    for (; j + W <= j1; j += W)
                        xsimd::fma(av, B::load_unaligned(b + p * n + j), B::load_unaligned(c + i * n + j)).store_unaligned(c + i * n + j);
                    for (; j < j1; ++j) c[i * n + j] += aip * b[p * n + j];
                }
            }
        }
    }
}

}  // namespace

void gemm_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n) {
    gemm_simd(a, b, c, m, k, n);
}
void gemm_f64(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
    gemm_simd(a, b, c, m, k, n);
}

}  // namespace gradc::kernels
