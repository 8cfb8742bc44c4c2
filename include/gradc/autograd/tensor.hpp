#pragma once
/// \file
/// `gradc::Tensor`: a reference-counted handle to a strided view of a storage, with the
/// autograd state of PyTorch's tensors (requires_grad, grad, grad_fn, version). Copying a
/// Tensor copies the handle, as in LibTorch; `clone()` copies the data.

#include <complex>
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <gradc/autograd/accessor.hpp>
#include <gradc/autograd/dtype.hpp>
#include <gradc/autograd/options.hpp>
#include <gradc/autograd/removable_handle.hpp>
#include <gradc/autograd/scalar.hpp>
#include <gradc/autograd/small_vector.hpp>
#include <gradc/rules/list.hpp>
#include <gradc/math/value_traits.hpp>

namespace gradc {

/// Sizes or strides: up to five dimensions without a heap block.
using Shape = SmallVector<std::int64_t, 5>;

class TensorImpl;
class Tensor;
using tensor_list = std::vector<Tensor>;  ///< A list of tensors (LibTorch's tensor_list).
namespace indexing {
class TensorIndex;
}

namespace autograd {
class Node;

/// LibTorch's names for tensors in autograd code: a Variable is a Tensor (as in LibTorch
/// since 1.0), and its lists are visible as gradc::autograd::tensor_list / variable_list.
using Variable = Tensor;
using gradc::tensor_list;
using variable_list = tensor_list;  ///< LibTorch's variable_list.

/// A tensor hook: receives the gradient of the tensor, returns a replacement or an
/// undefined Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor& grad)>;
}  // namespace autograd

/// A dense tensor that records its operations for autograd, as LibTorch's torch::Tensor (docs/dynamic.md).
class Tensor {
public:
    Tensor() = default;  ///< An undefined tensor (`defined()` is false).
    Tensor(const Tensor&) = default;  ///< Another handle to the same tensor (no copy of the data).
    Tensor(Tensor&&) noexcept = default;  ///< Takes over the handle.
    explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}  ///< A handle to `impl`.
    /// Assigning to a named tensor rebinds the handle; assigning to a temporary writes
    /// values into what it views, as in LibTorch: `x[0][1] = 2.0`, `x.slice(0, 1) = y`
    /// (fill_ and copy_: versioned and checked like any in-place operation).
    Tensor& operator=(const Tensor&) & = default;
    Tensor& operator=(Tensor&&) & noexcept = default;  ///< Rebinds the handle.
    Tensor& operator=(const Tensor& values) &&;  ///< Writes `values` into the viewed elements.
    Tensor& operator=(double value) &&;  ///< Fills the viewed elements.
    /// A 0-dim float64 "wrapped number": in mixed arithmetic it takes the dtype of the
    /// other operand (`x * 2.0` stays float32 for a float32 `x`), as Python scalars do.
    explicit Tensor(double value);

    // ---- metadata -------------------------------------------------------------------
    bool defined() const { return impl_ != nullptr; }  ///< Whether the handle refers to a tensor.
    ScalarType dtype() const;  ///< The element type.
    ScalarType scalar_type() const { return dtype(); }  ///< The element type (LibTorch's other name).
    const Shape& sizes() const;  ///< The size of each dimension.
    /// Size of dimension `dim`; negative `dim` counts from the end.
    std::int64_t size(std::int64_t dim) const;
    const Shape& strides() const;  ///< The stride of each dimension, in elements.
    std::int64_t stride(std::int64_t dim) const;  ///< Stride of dimension `dim` (negative counts from the end).
    std::int64_t dim() const;  ///< The number of dimensions.
    std::int64_t ndimension() const { return dim(); }  ///< The number of dimensions.
    std::int64_t numel() const;  ///< The number of elements.
    std::int64_t storage_offset() const;  ///< Where element 0 is in the storage.
    bool is_contiguous() const;  ///< Whether the strides are row-major.
    bool is_complex() const { return gradc::is_complex(dtype()); }  ///< Whether complex64/128.
    bool is_floating_point() const { return gradc::is_floating_point(dtype()); }  ///< Whether float32/64.
    TensorOptions options() const;  ///< The dtype and requires_grad, for factories.
    /// The single element of a one-element tensor, converted to `T` (the real part when a
    /// complex value is read as a real type).
    template <class T>
    T item() const;
    /// The single element as a Scalar of the tensor's kind (LibTorch's
    /// `loss.item().toDouble()`).
    Scalar item() const;
    /// Pointer to element 0; `T` must be the tensor's element type.
    template <class T>
    T* data_ptr() const {
        check_element_type(dtype_of_v<T>, "data_ptr");
        return static_cast<T*>(raw_data());
    }
    /// `auto a = t.accessor<float, 2>(); a[i][j]`: element access through the strides,
    /// checked once for element type and dimension count (not on temporaries, whose
    /// storage could go away under the accessor).
    template <class T, std::size_t N>
    TensorAccessor<T, N> accessor() const& {
        check_element_type(dtype_of_v<T>, "accessor");
        check_dim(N, "accessor");
        return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
    }
    template <class T, std::size_t N>
    TensorAccessor<T, N> accessor() && = delete;
    void* raw_data() const;  ///< Untyped pointer to element 0.
    bool is_same(const Tensor& other) const { return impl_ == other.impl_; }  ///< Same tensor (not values).
    TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }  ///< The implementation object.
    const std::shared_ptr<TensorImpl>& impl() const { return impl_; }  ///< The shared implementation.

    // ---- copies and conversions (differentiable) ------------------------------------
    Tensor contiguous() const;  ///< This tensor, or a row-major copy.
    Tensor clone() const;  ///< A copy with its own storage (differentiable).
    Tensor to(ScalarType t) const;  ///< A copy converted to dtype `t` (differentiable).
    /// A copy as an Eigen matrix (Eigen::MatrixXd unless named): declared here, defined in
    /// <gradc/eigen.hpp>, which a program calling it includes, so this header needs no Eigen.
    template <class Matrix = void>
    auto to_eigen() const;

    // ---- autograd -------------------------------------------------------------------
    bool requires_grad() const;  ///< Whether gradients flow to this tensor.
    /// Marks a leaf as requiring grad (or not). Throws for a non-leaf asked to stop:
    /// its requires_grad follows from its history.
    Tensor& requires_grad_(bool requires_grad = true) const;
    const Tensor& set_requires_grad(bool requires_grad) const;  ///< requires_grad_, LibTorch's other name.
    /// A leaf is a tensor without grad_fn: created by the user, or made while nothing it
    /// came from required grad.
    bool is_leaf() const;
    const std::shared_ptr<autograd::Node>& grad_fn() const;  ///< The node that made it; null for a leaf.
    std::uint32_t output_nr() const;  ///< Which output of grad_fn it is.
    /// The gradient accumulated by backward (leaves and tensors with retain_grad()).
    const Tensor& grad() const;
    Tensor& mutable_grad() const;  ///< The gradient, assignable.
    void retain_grad() const;  ///< Keep .grad() of a non-leaf after backward.
    bool retains_grad() const;  ///< Whether retain_grad() was called.
    /// Same data and version counter, no history, requires_grad = false.
    Tensor detach() const;
    Tensor& detach_() const;  ///< detach() in place: drops the history.
    /// LibTorch's two shallow copies without history: `tensor_data()` shares the storage
    /// and the version counter (as detach()); `variable_data()` shares the storage with a
    /// new version counter, so in-place changes through it are invisible to the checks of
    /// saved tensors.
    Tensor tensor_data() const;
    Tensor variable_data() const;  ///< Shares the storage, with a new version counter.
    std::uint32_t _version() const;  ///< The version counter (in-place changes).
    bool is_inference() const;  ///< Whether made in InferenceMode.
    bool is_view() const;  ///< Whether a view of another tensor.
    /// For a view: the tensor whose storage it looks at; undefined otherwise.
    const Tensor& _base() const;
    /// Registers `fn(Tensor grad) -> Tensor` (the gradient or a replacement; an undefined
    /// result keeps it) or `fn(Tensor grad) -> void`, run whenever the gradient of this
    /// tensor is computed, in registration order, before node pre-hooks. On a non-leaf the
    /// hook belongs to the current grad_fn (an in-place operation afterwards does not move
    /// it). Throws for a tensor that does not require grad.
    template <class F>
    autograd::RemovableHandle register_hook(F&& fn) const {
        if constexpr (std::is_void_v<std::invoke_result_t<F&, Tensor>>) {
            return register_tensor_hook([f = std::forward<F>(fn)](const Tensor& g) mutable -> Tensor {
                f(g);
                return Tensor();
            });
        } else {
            return register_tensor_hook(autograd::TensorHook(std::forward<F>(fn)));
        }
    }
    autograd::RemovableHandle register_tensor_hook(autograd::TensorHook fn) const;  ///< Non-template register_hook.
    /// `x.remove_hook(h)` for `auto h = x.register_hook(...)`: the handle's remove()
    /// (LibTorch returns a position instead; code that keeps it in `auto` ports as is).
    void remove_hook(autograd::RemovableHandle& handle) const { handle.remove(); }
    /// Removes the hook at `position` (the `unsigned` a registration converts to). An
    /// already removed position is a no-op; one never handed out is an error.
    void remove_hook(unsigned position) const;
    /// For a leaf that requires grad: `fn(const Tensor& leaf)` runs after backward has
    /// accumulated into `leaf.grad()`. Throws for a non-leaf.
    autograd::RemovableHandle register_post_accumulate_grad_hook(std::function<void(const Tensor& leaf)> fn) const;

    /// Reverse-mode differentiation of this tensor; see `gradc::autograd::backward`.
    void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                  bool create_graph = false, const tensor_list& inputs = {}) const;

    // ---- arithmetic (the free functions as members, as in LibTorch) ----------------
    Tensor add(const Tensor& other, double alpha = 1) const;  ///< this + alpha·other.
    Tensor add(double other) const;  ///< this + other.
    Tensor sub(const Tensor& other, double alpha = 1) const;  ///< this - alpha·other.
    Tensor sub(double other) const;  ///< this - other.
    Tensor mul(const Tensor& other) const;  ///< this · other, elementwise.
    Tensor mul(double other) const;  ///< this · other.
    Tensor div(const Tensor& other) const;  ///< this / other, elementwise.
    Tensor div(double other) const;  ///< this / other.
    Tensor square() const;  ///< this · this.
    Tensor clamp_min(double min) const;  ///< max(this, min); see gradc::clamp.
    Tensor clamp_max(double max) const;  ///< min(this, max); see gradc::clamp.
    /// `value` where `mask` (a bool tensor broadcastable to this one) is true.
    Tensor masked_fill(const Tensor& mask, double value) const;
    /// Comparisons as members (bool results, no gradient).
    Tensor eq(const Tensor& other) const;
    Tensor eq(double other) const;  ///< this == other (bool).
    Tensor ne(const Tensor& other) const;  ///< this != other (bool).
    Tensor ne(double other) const;  ///< this != other (bool).
    /// 0-dim bool tensors, as LibTorch's (`x.eq(y).all().item<bool>()`); the free
    /// functions gradc::all / gradc::any return `bool`.
    Tensor all() const;
    Tensor any() const;  ///< Whether some element is true (0-dim bool).
    bool equal(const Tensor& other) const;  ///< Same shape and values.
    bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8) const;  ///< See gradc::allclose.

    // ---- elementwise ----------------------------------------------------------------
    // Every function of the rule table is a member too (x.exp(), x.atan2(y), x.maximum(y)).
#define GRADC_TENSOR_MEMBER_UNARY(rule, op) Tensor op() const;
#define GRADC_TENSOR_MEMBER_BINARY(rule, op) Tensor op(const Tensor& other) const;
    GRADC_UNARY_PRIMITIVES(GRADC_TENSOR_MEMBER_UNARY)
    GRADC_BINARY_PRIMITIVES(GRADC_TENSOR_MEMBER_BINARY)
#undef GRADC_TENSOR_MEMBER_UNARY
#undef GRADC_TENSOR_MEMBER_BINARY
    Tensor neg() const;  ///< -this.
    Tensor pow(double exponent) const;  ///< this^exponent (rules::pow).
    Tensor isnan() const;  ///< Where NaN (bool).
    /// `x.where(condition, other)`: x where the condition holds, other elsewhere.
    Tensor where(const Tensor& condition, const Tensor& other) const;
    Tensor clamp(std::optional<double> min, std::optional<double> max = std::nullopt) const;  ///< gradc::clamp.
    Tensor real() const;  ///< gradc::real.
    Tensor imag() const;  ///< gradc::imag.
    Tensor conj() const;  ///< gradc::conj.
    Tensor angle() const;  ///< gradc::angle.

    // ---- reductions -----------------------------------------------------------------
    Tensor sum() const;  ///< Σ of all elements (0-dim).
    Tensor sum(const Shape& dims, bool keepdim = false) const;  ///< Σ over `dims`.
    /// `sum(0)`, `sum(dim, keepdim)`: one dimension. A template, so that a braced list
    /// (`sum({})`, `sum({0, 1})`) still means dimensions and never converts to one integer.
    template <std::integral I>
    Tensor sum(I dim, bool keepdim = false) const { return sum(Shape{std::int64_t(dim)}, keepdim); }
    Tensor mean() const;  ///< Mean of all elements.
    Tensor mean(const Shape& dims, bool keepdim = false) const;  ///< Mean over `dims`.
    template <std::integral I>
    Tensor mean(I dim, bool keepdim = false) const { return mean(Shape{std::int64_t(dim)}, keepdim); }  ///< One dim.
    Tensor prod() const;  ///< Product of all elements.
    Tensor prod(std::int64_t dim, bool keepdim = false) const;  ///< Product along `dim`.
    Tensor amax(const Shape& dims = {}, bool keepdim = false) const;  ///< Maximum over `dims` (all: {}).
    Tensor amin(const Shape& dims = {}, bool keepdim = false) const;  ///< Minimum over `dims` (all: {}).
    Tensor max() const;  ///< The largest element.
    std::tuple<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;  ///< {values, indices}.
    Tensor min() const;  ///< The smallest element.
    std::tuple<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;  ///< {values, indices}.
    /// `x.max(y)`, `x.min(y)`: LibTorch's member spelling of maximum and minimum.
    Tensor max(const Tensor& other) const { return maximum(other); }
    Tensor min(const Tensor& other) const { return minimum(other); }  ///< minimum(other).
    Tensor norm(double p = 2) const;  ///< The p-norm of all elements.
    Tensor norm(double p, const Shape& dims, bool keepdim = false) const;  ///< The p-norm over `dims`.
    /// Variance and standard deviation with Bessel's correction (`unbiased`), over every
    /// element or over `dims` (`std(0)` is one dimension, as LibTorch's int overloads).
    Tensor var(bool unbiased = true) const;
    Tensor var(const Shape& dims, bool unbiased = true, bool keepdim = false) const;  ///< Over `dims`.
    Tensor std(bool unbiased = true) const;  ///< Standard deviation.
    Tensor std(const Shape& dims, bool unbiased = true, bool keepdim = false) const;  ///< Over `dims`.
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    Tensor var(I dim, bool unbiased = true, bool keepdim = false) const {  ///< One dim.
        return var(Shape{std::int64_t(dim)}, unbiased, keepdim);
    }
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    Tensor std(I dim, bool unbiased = true, bool keepdim = false) const {  ///< One dim.
        return std(Shape{std::int64_t(dim)}, unbiased, keepdim);
    }
    /// The p-norm over one dimension.
    template <std::integral I>
    Tensor norm(double p, I dim, bool keepdim = false) const { return norm(p, Shape{std::int64_t(dim)}, keepdim); }
    Tensor logsumexp(const Shape& dims, bool keepdim = false) const;  ///< log Σ exp, stable.
    Tensor softmax(std::int64_t dim) const;  ///< exp(x)/Σ exp(x) along `dim`.
    Tensor log_softmax(std::int64_t dim) const;  ///< log of softmax, stable.
    Tensor argmax(std::int64_t dim, bool keepdim = false) const;  ///< Index of the maximum (int64).
    Tensor argmin(std::int64_t dim, bool keepdim = false) const;  ///< Index of the minimum (int64).
    Tensor cumsum(std::int64_t dim) const;  ///< Running sum along `dim` (gradc::cumsum).

    // ---- views (share storage and version counter) ---------------------------------
    Tensor view(const Shape& sizes) const;  ///< Same data, new sizes (one may be -1).
    Tensor reshape(const Shape& sizes) const;  ///< A view if possible, else a copy.
    Tensor flatten() const;  ///< reshape({-1}).
    Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;  ///< Swaps two dimensions.
    Tensor t() const;  ///< transpose(0, 1) (at most 2-D).
    Tensor permute(const Shape& dims) const;  ///< Reorders the dimensions.
    Tensor select(std::int64_t dim, std::int64_t index) const;  ///< Index `index` of `dim`, dropped.
    Tensor slice(std::int64_t dim, std::optional<std::int64_t> start = std::nullopt,
                 std::optional<std::int64_t> end = std::nullopt, std::int64_t step = 1) const;  ///< [start, end), step.
    Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;  ///< slice of `length`.
    Tensor expand(const Shape& sizes) const;  ///< Broadcast view (stride 0).
    Tensor expand_as(const Tensor& other) const;  ///< expand(other.sizes()).
    Tensor squeeze() const;  ///< Drops every size-1 dimension.
    Tensor squeeze(std::int64_t dim) const;  ///< Drops `dim` if of size 1.
    Tensor unsqueeze(std::int64_t dim) const;  ///< Inserts a dimension of size 1.
    /// `t[i]`: select along dimension 0.
    Tensor operator[](std::int64_t index) const { return select(0, index); }
    /// `t.index({Slice(1, None), 0, None, Ellipsis, idx})` (gradc::indexing): integers select,
    /// slices narrow, None inserts a dimension, Ellipsis stands for the dimensions not
    /// named, and one int64 tensor picks entries along its dimension (index_select).
    Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
    /// Writes `values` (or a number) into `index(indices)` in place; tensor indices are not
    /// accepted here.
    Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values) const;
    Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, double value) const;  ///< Fills them.

    // ---- linear algebra and indexing ------------------------------------------------
    Tensor matmul(const Tensor& other) const;  ///< gradc::matmul.
    Tensor bmm(const Tensor& other) const;  ///< Batched matrix product.
    Tensor outer(const Tensor& other) const;  ///< Outer product of vectors.
    Tensor mm(const Tensor& other) const;  ///< Matrix product.
    Tensor mv(const Tensor& vec) const;  ///< Matrix-vector product.
    Tensor dot(const Tensor& other) const;  ///< Dot product of vectors.
    Tensor logdet() const;  ///< log det of a square matrix (gradc::logdet).
    Tensor index_select(std::int64_t dim, const Tensor& index) const;  ///< gradc::index_select.
    Tensor gather(std::int64_t dim, const Tensor& index) const;  ///< gradc::gather.
    Tensor scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const;  ///< gradc::scatter_add.
    Tensor index_add(std::int64_t dim, const Tensor& index, const Tensor& source) const;  ///< gradc::index_add.

    // ---- in-place (bump the version counter; const as in LibTorch, so `x.grad().zero_()`
    //      works on the const gradient: the handle stays, the values change) -----------
    Tensor& add_(const Tensor& other, double alpha = 1) const;  ///< this += alpha·other.
    Tensor& add_(double other) const;  ///< this += other.
    Tensor& sub_(const Tensor& other, double alpha = 1) const;  ///< this -= alpha·other.
    Tensor& sub_(double other) const;  ///< this -= other.
    Tensor& mul_(const Tensor& other) const;  ///< this *= other.
    Tensor& mul_(double other) const;  ///< this *= other.
    Tensor& div_(const Tensor& other) const;  ///< this /= other.
    Tensor& div_(double other) const;  ///< this /= other.
    Tensor& zero_() const;  ///< Sets every element to 0.
    Tensor& fill_(double value) const;  ///< Sets every element to `value`.
    Tensor& copy_(const Tensor& src) const;  ///< Copies `src` (broadcast).
    Tensor& clamp_(std::optional<double> min, std::optional<double> max = std::nullopt) const;  ///< In place.
    Tensor& relu_() const;  ///< relu in place.
    Tensor& sin_() const;  ///< sin in place.
    Tensor& cos_() const;  ///< cos in place.
    Tensor& exp_() const;  ///< exp in place.
    Tensor& neg_() const;  ///< Negates in place.
    Tensor& sigmoid_() const;  ///< sigmoid in place.
    Tensor& tanh_() const;  ///< tanh in place.
    /// Compound assignment is the in-place operation, as in LibTorch (`x += y` is
    /// `x.add_(y)`: it bumps the version and is refused on a leaf that requires grad).
    Tensor& operator+=(const Tensor& other) { return add_(other); }
    Tensor& operator+=(double other) { return add_(other); }  ///< add_(other).
    Tensor& operator-=(const Tensor& other) { return sub_(other); }  ///< sub_(other).
    Tensor& operator-=(double other) { return sub_(other); }  ///< sub_(other).
    Tensor& operator*=(const Tensor& other) { return mul_(other); }  ///< mul_(other).
    Tensor& operator*=(double other) { return mul_(other); }  ///< mul_(other).
    Tensor& operator/=(const Tensor& other) { return div_(other); }  ///< div_(other).
    Tensor& operator/=(double other) { return div_(other); }  ///< div_(other).

private:
    void check_element_type(ScalarType expected, const char* what) const;
    void check_dim(std::size_t expected, const char* what) const;
    std::complex<double> item_complex() const;

    std::shared_ptr<TensorImpl> impl_;
};

template <class T>
T Tensor::item() const {
    std::complex<double> v = item_complex();
    if constexpr (std::is_same_v<T, std::complex<double>>) {
        return v;
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
        return std::complex<float>(v);
    } else {
        return static_cast<T>(v.real());
    }
}

}  // namespace gradc

namespace gradc::math {
/// Constants inside rules instantiated on tensors are plain doubles (wrapped numbers).
/// Declared with the type so that every instantiation of a rule on Tensor sees it.
template <>
struct scalar_of<gradc::Tensor, void> {
    using type = double;  ///< Rules' constants on tensors: doubles.
};
}  // namespace gradc::rules
