#pragma once
// C = A·B for row-major contiguous A (m×k), B (k×n), C (m×n, zero on entry), optionally
// `batch` times with the given element strides between matrices.

#include <cstdint>

namespace gradc::kernels {

void gemm_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n);
void gemm_f64(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n);
template <class T>
void gemm_scalar(const T* a, const T* b, T* c, std::int64_t m, std::int64_t k, std::int64_t n) {
    // i-k-j order: the inner loop streams rows of B and C.
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t p = 0; p < k; ++p) {
            const T aip = a[i * k + p];
            for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
        }
}

}  // namespace gradc::kernels
