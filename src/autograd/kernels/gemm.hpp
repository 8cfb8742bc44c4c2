#pragma once
// Batched matrix products for the dynamic mode, computed by Eigen's product (its packed,
// cache-blocked GEMM; docs/dynamic.md, "Performance").

#include <complex>
#include <cstdint>

namespace gradc::kernels {

/// `count` matrices of one product operand, element (s, i, j) at
/// data[s·batch_stride + i·row_stride + j·col_stride]. The product reads the operand in
/// place when row_stride or col_stride is 1 (a contiguous matrix or a transposed view of
/// one); other strides are gathered by Eigen first.
template <class T>
struct strided_matrices {
    const T* data;
    std::int64_t batch_stride, row_stride, col_stride;
};

/// C[s] = A[s]·B[s] for s < count, with A[s] m×k, B[s] k×n and C contiguous
/// (count × m × n, overwritten). One thread; the result does not depend on the strides'
/// history, only on the values and the shapes.
template <class T>
void gemm(strided_matrices<T> a, strided_matrices<T> b, T* c, std::int64_t count, std::int64_t m, std::int64_t k,
          std::int64_t n);

extern template void gemm(strided_matrices<float>, strided_matrices<float>, float*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t);
extern template void gemm(strided_matrices<double>, strided_matrices<double>, double*, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t);
extern template void gemm(strided_matrices<std::complex<float>>, strided_matrices<std::complex<float>>,
                          std::complex<float>*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
extern template void gemm(strided_matrices<std::complex<double>>, strided_matrices<std::complex<double>>,
                          std::complex<double>*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);

}  // namespace gradc::kernels
