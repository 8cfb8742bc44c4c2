#pragma once
/// \file
/// Dynamic-mode tensors from and to Eigen dense objects (Eigen 3.4). Header-only, and not
/// included by <gradc/gradc.hpp> or <gradc/autograd.hpp>: a program needs Eigen only if it
/// includes this header.
///
///   gradc::from_eigen(m, options)           a copy: a new tensor that owns its data
///   gradc::from_eigen(m, gradc::eigen_view, options)
///                                           no copy: a tensor over m's memory (from_blob
///                                           with m's strides, either storage order)
///   gradc::to_eigen<Matrix>(t), t.to_eigen<Matrix>()
///                                           a copy as an Eigen matrix or array
///                                           (Eigen::MatrixXd when not named)
///   gradc::eigen_map<Scalar>(t)             an Eigen::Map over a contiguous tensor's
///                                           memory, row-major (no copy)
///
/// Shapes: a matrix gives a tensor [rows, cols]; a vector type (one row or one column at
/// compile time: Eigen::VectorXd, RowVectorXd, Vector3f) gives a 1-D tensor. Back, a 1-D
/// tensor becomes a column (a row for a row-vector type) and a 0-dim tensor a 1×1 matrix.
/// Element types: float, double, std::complex<float>, std::complex<double> (float32,
/// float64, complex64, complex128), and int64 and bool.
///
/// The view and the map share memory with their source, as LibTorch's from_blob and
/// PyTorch's `Tensor.numpy()` do: writes through one are seen by the other, the caller
/// keeps the source alive, and a write from the Eigen side is not counted by the tensor's
/// version counter ("Autograd mechanics" notes, "In-place operations"), so do not write
/// through it into a tensor that a recorded operation saved. For that reason eigen_map,
/// like `numpy()`, refuses a tensor that requires grad (map `t.detach()` instead).

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include <Eigen/Core>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/dtype.hpp>
#include <gradc/autograd/options.hpp>
#include <gradc/autograd/tensor.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/error.hpp>

namespace gradc {

/// Tag of the non-owning form: `gradc::from_eigen(m, gradc::eigen_view)`.
struct eigen_view_t {
    explicit eigen_view_t() = default;
};
inline constexpr eigen_view_t eigen_view{};  ///< Asks from_eigen for a view sharing the matrix's memory.

namespace detail {

template <class Scalar>
concept tensor_element = requires { dtype_of<Scalar>::value; };

template <class M>
concept eigen_dense = std::is_base_of_v<Eigen::DenseBase<M>, M>;

/// Read and written in place: a Matrix, an Array, a Map or a Block of one.
template <class M>
concept eigen_direct = eigen_dense<M> && (static_cast<unsigned>(M::Flags) & Eigen::DirectAccessBit) != 0;

template <class M>
constexpr bool eigen_is_vector = M::IsVectorAtCompileTime != 0;

template <class M>
Shape eigen_sizes(const M& m) {
    if constexpr (eigen_is_vector<M>) {
        return Shape{static_cast<std::int64_t>(m.size())};
    } else {
        return Shape{static_cast<std::int64_t>(m.rows()), static_cast<std::int64_t>(m.cols())};
    }
}

/// The rows and columns of an Eigen object holding `t` (`what` names the call in errors).
template <class Matrix>
std::pair<Eigen::Index, Eigen::Index> eigen_extents(const Tensor& t, const char* what) {
    if (!t.defined()) throw Error(std::string("gradc: ") + what + ": got an undefined tensor; expected a defined one");
    Eigen::Index rows = 1, cols = 1;
    if (t.dim() == 2) {
        rows = t.size(0);
        cols = t.size(1);
    } else if (t.dim() == 1) {
        (Matrix::RowsAtCompileTime == 1 ? cols : rows) = t.size(0);
    } else if (t.dim() > 2) {
        throw Error(std::string("gradc: ") + what + ": got a " + std::to_string(t.dim()) + "-dim tensor of shape " +
                    shape_string(t.sizes()) + "; expected at most 2 dimensions (reshape it first)");
    }
    const bool rows_fit = Matrix::RowsAtCompileTime == Eigen::Dynamic || Matrix::RowsAtCompileTime == rows;
    const bool cols_fit = Matrix::ColsAtCompileTime == Eigen::Dynamic || Matrix::ColsAtCompileTime == cols;
    if (!rows_fit || !cols_fit)
        throw Error(std::string("gradc: ") + what + ": got a tensor of shape " + shape_string(t.sizes()) + " (" +
                    std::to_string(rows) + "×" + std::to_string(cols) + "); expected " +
                    (Matrix::RowsAtCompileTime == Eigen::Dynamic ? std::string("any") : std::to_string(Matrix::RowsAtCompileTime)) +
                    "×" +
                    (Matrix::ColsAtCompileTime == Eigen::Dynamic ? std::string("any") : std::to_string(Matrix::ColsAtCompileTime)) +
                    " (the Eigen type's fixed size)");
    return {rows, cols};
}

template <class Scalar>
using row_major_matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace detail

/// A new tensor with a copy of `m`'s values (any dense expression: a matrix, an array, a
/// product, a block). Its dtype is the element type's, or the options' dtype if given (a
/// converted copy); `requires_grad` in the options makes it a leaf that requires grad.
template <class Derived>
Tensor from_eigen(const Eigen::DenseBase<Derived>& m, TensorOptions options = {}) {
    using Scalar = typename Derived::Scalar;
    static_assert(detail::tensor_element<Scalar>,
                  "gradc::from_eigen: the Eigen object's Scalar must be float, double, std::complex<float>, "
                  "std::complex<double>, std::int64_t or bool");
    const Derived& d = m.derived();
    Tensor t = empty(detail::eigen_sizes(d), dtype(dtype_of_v<Scalar>));
    Eigen::Map<detail::row_major_matrix<Scalar>> into(t.data_ptr<Scalar>(), d.rows(), d.cols());
    if constexpr (std::is_base_of_v<Eigen::ArrayBase<Derived>, Derived>) {
        into = d.matrix();
    } else {
        into = d;
    }
    if (options.has_dtype() && options.dtype() != t.dtype()) t = t.to(options.dtype());
    if (options.requires_grad()) t.set_requires_grad(true);
    return t;
}

/// A tensor over `m`'s memory, without a copy (LibTorch's from_blob, with `m`'s strides, so
/// either storage order and a Block of a larger matrix are viewed in place). `m` must stay
/// alive while the tensor (or a view of it) is used; a write through either is seen by the
/// other. A Matrix or Array passed as a temporary is refused at compile time (the tensor
/// would outlive it); a Map or Block temporary is fine (it points into other memory).
template <class M>
Tensor from_eigen(M&& m, eigen_view_t, TensorOptions options = {}) {
    using Plain = std::remove_cvref_t<M>;
    static_assert(detail::eigen_direct<Plain>,
                  "gradc::from_eigen(m, gradc::eigen_view): m must be an Eigen object with direct access to its "
                  "memory (a Matrix, an Array, a Map or a Block of one); copy an expression with from_eigen(m)");
    using Scalar = typename Plain::Scalar;
    static_assert(detail::tensor_element<Scalar>,
                  "gradc::from_eigen(m, gradc::eigen_view): the Eigen object's Scalar must be float, double, "
                  "std::complex<float>, std::complex<double>, std::int64_t or bool");
    static_assert(!std::is_const_v<std::remove_pointer_t<decltype(m.data())>>,
                  "gradc::from_eigen(m, gradc::eigen_view): m is read-only (const), but a tensor can be written "
                  "through; pass a non-const matrix, or copy with from_eigen(m)");
    static_assert(std::is_lvalue_reference_v<M> || !std::is_base_of_v<Eigen::PlainObjectBase<Plain>, Plain>,
                  "gradc::from_eigen(m, gradc::eigen_view): m is a temporary Matrix or Array that owns its memory, "
                  "which would be freed while the tensor still points into it; name it, or copy with from_eigen(m)");
    if (options.has_dtype() && options.dtype() != dtype_of_v<Scalar>)
        throw Error(std::string("gradc: from_eigen(m, eigen_view): got options with dtype ") +
                    std::string(to_string(options.dtype())) + " for a matrix of " +
                    std::string(to_string(dtype_of_v<Scalar>)) + "; expected no dtype or the matrix's own (a view "
                    "cannot convert; copy with from_eigen(m, options))");
    const auto inner = static_cast<std::int64_t>(m.innerStride());
    const auto outer = static_cast<std::int64_t>(m.outerStride());
    Shape strides;
    if constexpr (detail::eigen_is_vector<Plain>) {
        strides = Shape{inner};
    } else if constexpr (Plain::IsRowMajor) {
        strides = Shape{outer, inner};
    } else {
        strides = Shape{inner, outer};
    }
    return from_blob(const_cast<std::remove_const_t<Scalar>*>(m.data()), detail::eigen_sizes(m), strides,
                     TensorOptions().dtype(dtype_of_v<Scalar>).requires_grad(options.requires_grad()));
}

/// A copy of `t`'s values (without its history) as `Matrix`, an Eigen Matrix or Array
/// type, converted to its element type. A complex tensor into a real type is refused (the
/// imaginary parts would be lost).
template <class Matrix = Eigen::MatrixXd>
Matrix to_eigen(const Tensor& t) {
    using Scalar = typename Matrix::Scalar;
    static_assert(std::is_base_of_v<Eigen::PlainObjectBase<Matrix>, Matrix>,
                  "gradc::to_eigen<Matrix>: Matrix must be an Eigen Matrix or Array type (it receives a copy)");
    static_assert(detail::tensor_element<Scalar>,
                  "gradc::to_eigen<Matrix>: Matrix's Scalar must be float, double, std::complex<float>, "
                  "std::complex<double>, std::int64_t or bool");
    const auto [rows, cols] = detail::eigen_extents<Matrix>(t, "to_eigen");
    if (t.is_complex() && !is_complex(dtype_of_v<Scalar>))
        throw Error("gradc: to_eigen: got a " + std::string(to_string(t.dtype())) + " tensor for a matrix of " +
                    std::string(to_string(dtype_of_v<Scalar>)) + "; expected a complex Matrix type (e.g. "
                    "Eigen::MatrixXcd): a real one would drop the imaginary parts (or convert with t.real())");
    const Tensor values = t.detach().to(dtype_of_v<Scalar>).contiguous();
    Matrix out;
    out.resize(rows, cols);
    Eigen::Map<const detail::row_major_matrix<Scalar>> from(values.data_ptr<Scalar>(), rows, cols);
    if constexpr (std::is_base_of_v<Eigen::ArrayBase<Matrix>, Matrix>) {
        out = from.array();
    } else {
        out = from;
    }
    return out;
}

/// `t.to_eigen<Matrix>()`: gradc::to_eigen<Matrix>(t) (Eigen::MatrixXd when not named).
template <class Matrix>
auto Tensor::to_eigen() const {
    if constexpr (std::is_void_v<Matrix>) {
        return gradc::to_eigen<Eigen::MatrixXd>(*this);
    } else {
        return gradc::to_eigen<Matrix>(*this);
    }
}

/// An Eigen::Map over a contiguous tensor's memory, row-major: [r, c] as r×c, [n] as n×1,
/// a 0-dim tensor as 1×1. `Scalar` must be the tensor's element type; the tensor must be
/// contiguous and must not require grad (see the header's comment).
template <class Scalar>
Eigen::Map<detail::row_major_matrix<Scalar>> eigen_map(const Tensor& t) {
    static_assert(detail::tensor_element<Scalar>,
                  "gradc::eigen_map<Scalar>: Scalar must be float, double, std::complex<float>, std::complex<double>, "
                  "std::int64_t or bool");
    const auto [rows, cols] = detail::eigen_extents<detail::row_major_matrix<Scalar>>(t, "eigen_map");
    if (t.dtype() != dtype_of_v<Scalar>)
        throw Error("gradc: eigen_map: got a " + std::string(to_string(t.dtype())) + " tensor; expected " +
                    std::string(to_string(dtype_of_v<Scalar>)) + " (the Map's Scalar); map it with its own element "
                    "type, or convert first with t.to(...) (a copy)");
    if (!t.is_contiguous())
        throw Error("gradc: eigen_map: got a non-contiguous tensor (sizes " + shape_string(t.sizes()) + ", strides " +
                    shape_string(t.strides()) + "); expected a contiguous one; call t.contiguous() first (a copy)");
    if (t.requires_grad())
        throw Error("gradc: eigen_map: got a tensor that requires grad; expected one that does not, since writes "
                    "through the Map bypass autograd; map t.detach() instead");
    return Eigen::Map<detail::row_major_matrix<Scalar>>(t.data_ptr<Scalar>(), rows, cols);
}

}  // namespace gradc
