// The dynamic mode's matrix products through Eigen's product. Each operand is mapped in
// place (Eigen::Map) in the storage order its strides give, so a transposed view is read
// as a column-major matrix instead of being copied; Eigen packs the blocks it needs.
//
// GCC 12 reports -W(maybe-)uninitialized inside its own avx512fintrin.h where Eigen's
// AVX-512 packets are inlined (GCC bug 105593, see gradc/math/xsimd.hpp); the warnings are
// off for this file, which holds nothing but the product.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <Eigen/Core>

#include "kernels/gemm.hpp"

namespace gradc::kernels {

namespace {

template <class T, int Order>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>;
template <class T, int Order>
using ConstMap = Eigen::Map<const Matrix<T, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;
using GeneralStride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;

/// Calls f with the operand's s-th rows × cols matrix as an Eigen map: row-major when its
/// columns are adjacent, column-major when its rows are (a transposed view), a row-major
/// copy otherwise. A dimension of size 1 has no stride to respect, so it never forces the
/// copy.
template <class T, class F>
void with_matrix(const strided_matrices<T>& x, std::int64_t s, std::int64_t rows, std::int64_t cols, F&& f) {
    const T* p = x.data + s * x.batch_stride;
    if (cols == 1 || x.col_stride == 1)
        f(ConstMap<T, Eigen::RowMajor>(p, rows, cols, Eigen::OuterStride<>(rows == 1 ? cols : x.row_stride)));
    else if (rows == 1 || x.row_stride == 1)
        f(ConstMap<T, Eigen::ColMajor>(p, rows, cols, Eigen::OuterStride<>(x.col_stride)));
    else {
        // Gathered once into a row-major copy, so that the product has two storage orders
        // per operand to instantiate instead of three.
        const Matrix<T, Eigen::RowMajor> gathered = Eigen::Map<const Matrix<T, Eigen::RowMajor>, Eigen::Unaligned, GeneralStride>(
            p, rows, cols, GeneralStride(x.row_stride, x.col_stride));
        f(ConstMap<T, Eigen::RowMajor>(gathered.data(), rows, cols, Eigen::OuterStride<>(cols)));
    }
}

}  // namespace

template <class T>
void gemm(strided_matrices<T> a, strided_matrices<T> b, T* c, std::int64_t count, std::int64_t m, std::int64_t k,
          std::int64_t n) {
    for (std::int64_t s = 0; s < count; ++s) {
        Eigen::Map<Matrix<T, Eigen::RowMajor>> out(c + s * m * n, m, n);
        if (k == 0) {
            out.setZero();
            continue;
        }
        with_matrix(a, s, m, k, [&](const auto& lhs) {
            with_matrix(b, s, k, n, [&](const auto& rhs) { out.noalias() = lhs * rhs; });
        });
    }
}

template void gemm(strided_matrices<float>, strided_matrices<float>, float*, std::int64_t, std::int64_t, std::int64_t,
                   std::int64_t);
template void gemm(strided_matrices<double>, strided_matrices<double>, double*, std::int64_t, std::int64_t,
                   std::int64_t, std::int64_t);
template void gemm(strided_matrices<std::complex<float>>, strided_matrices<std::complex<float>>, std::complex<float>*,
                   std::int64_t, std::int64_t, std::int64_t, std::int64_t);
template void gemm(strided_matrices<std::complex<double>>, strided_matrices<std::complex<double>>,
                   std::complex<double>*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);

}  // namespace gradc::kernels
