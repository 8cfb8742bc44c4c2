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
#include <gradc/rules/value_traits.hpp>

namespace gradc {

/// Sizes or strides: up to five dimensions without a heap block.
using Shape = SmallVector<std::int64_t, 5>;

class TensorImpl;
class Tensor;
using tensor_list = std::vector<Tensor>;
namespace indexing {
class TensorIndex;
}

namespace autograd {
class Node;

/// LibTorch's names for tensors in autograd code: a Variable is a Tensor (as in LibTorch
/// since 1.0), and its lists are visible as gradc::autograd::tensor_list / variable_list.
using Variable = Tensor;
using gradc::tensor_list;
using variable_list = tensor_list;

/// A tensor hook: receives the gradient of the tensor, returns a replacement or an
/// undefined Tensor to keep it.
using TensorHook = std::function<Tensor(const Tensor& grad)>;
}  // namespace autograd

class Tensor {
public:
    Tensor() = default;
    Tensor(const Tensor&) = default;
    Tensor(Tensor&&) noexcept = default;
    explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
    /// Assigning to a named tensor rebinds the handle; assigning to a temporary writes
    /// values into what it views, as in LibTorch: `x[0][1] = 2.0`, `x.slice(0, 1) = y`
    /// (fill_ and copy_: versioned and checked like any in-place operation).
    Tensor& operator=(const Tensor&) & = default;
    Tensor& operator=(Tensor&&) & noexcept = default;
    Tensor& operator=(const Tensor& values) &&;
    Tensor& operator=(double value) &&;
    /// A 0-dim float64 "wrapped number": in mixed arithmetic it takes the dtype of the
    /// other operand (`x * 2.0` stays float32 for a float32 `x`), as Python scalars do.
    explicit Tensor(double value);

    // ---- metadata -------------------------------------------------------------------
    bool defined() const { return impl_ != nullptr; }
    ScalarType dtype() const;
    ScalarType scalar_type() const { return dtype(); }
    const Shape& sizes() const;
    /// Size of dimension `dim`; negative `dim` counts from the end.
    std::int64_t size(std::int64_t dim) const;
    const Shape& strides() const;
    std::int64_t stride(std::int64_t dim) const;
    std::int64_t dim() const;
    std::int64_t ndimension() const { return dim(); }
    std::int64_t numel() const;
    std::int64_t storage_offset() const;
    bool is_contiguous() const;
    bool is_complex() const { return gradc::is_complex(dtype()); }
    bool is_floating_point() const { return gradc::is_floating_point(dtype()); }
    TensorOptions options() const;
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
    void* raw_data() const;
    bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
    TensorImpl* unsafeGetTensorImpl() const { return impl_.get(); }
    const std::shared_ptr<TensorImpl>& impl() const { return impl_; }

    // ---- copies and conversions (differentiable) ------------------------------------
    Tensor contiguous() const;
    Tensor clone() const;
    Tensor to(ScalarType t) const;

    // ---- autograd -------------------------------------------------------------------
    bool requires_grad() const;
    /// Marks a leaf as requiring grad (or not). Throws for a non-leaf asked to stop:
    /// its requires_grad follows from its history.
    Tensor& requires_grad_(bool requires_grad = true) const;
    const Tensor& set_requires_grad(bool requires_grad) const;
    /// A leaf is a tensor without grad_fn: created by the user, or made while nothing it
    /// came from required grad.
    bool is_leaf() const;
    const std::shared_ptr<autograd::Node>& grad_fn() const;
    std::uint32_t output_nr() const;
    /// The gradient accumulated by backward (leaves and tensors with retain_grad()).
    const Tensor& grad() const;
    Tensor& mutable_grad() const;
    void retain_grad() const;
    bool retains_grad() const;
    /// Same data and version counter, no history, requires_grad = false.
    Tensor detach() const;
    Tensor& detach_() const;
    /// LibTorch's two shallow copies without history: `tensor_data()` shares the storage
    /// and the version counter (as detach()); `variable_data()` shares the storage with a
    /// new version counter, so in-place changes through it are invisible to the checks of
    /// saved tensors.
    Tensor tensor_data() const;
    Tensor variable_data() const;
    std::uint32_t _version() const;
    bool is_inference() const;
    bool is_view() const;
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
    autograd::RemovableHandle register_tensor_hook(autograd::TensorHook fn) const;
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
    Tensor add(const Tensor& other, double alpha = 1) const;
    Tensor add(double other) const;
    Tensor sub(const Tensor& other, double alpha = 1) const;
    Tensor sub(double other) const;
    Tensor mul(const Tensor& other) const;
    Tensor mul(double other) const;
    Tensor div(const Tensor& other) const;
    Tensor div(double other) const;
    Tensor square() const;
    Tensor clamp_min(double min) const;
    Tensor clamp_max(double max) const;
    /// `value` where `mask` (a bool tensor broadcastable to this one) is true.
    Tensor masked_fill(const Tensor& mask, double value) const;
    /// Comparisons as members (bool results, no gradient).
    Tensor eq(const Tensor& other) const;
    Tensor eq(double other) const;
    Tensor ne(const Tensor& other) const;
    Tensor ne(double other) const;
    /// 0-dim bool tensors, as LibTorch's (`x.eq(y).all().item<bool>()`); the free
    /// functions gradc::all / gradc::any return `bool`.
    Tensor all() const;
    Tensor any() const;
    bool equal(const Tensor& other) const;
    bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8) const;

    // ---- elementwise ----------------------------------------------------------------
    // Every function of the rule table is a member too (x.exp(), x.atan2(y), x.maximum(y)).
#define GRADC_TENSOR_MEMBER_UNARY(rule, op) Tensor op() const;
#define GRADC_TENSOR_MEMBER_BINARY(rule, op) Tensor op(const Tensor& other) const;
    GRADC_UNARY_PRIMITIVES(GRADC_TENSOR_MEMBER_UNARY)
    GRADC_BINARY_PRIMITIVES(GRADC_TENSOR_MEMBER_BINARY)
#undef GRADC_TENSOR_MEMBER_UNARY
#undef GRADC_TENSOR_MEMBER_BINARY
    Tensor neg() const;
    Tensor pow(double exponent) const;
    Tensor isnan() const;
    /// `x.where(condition, other)`: x where the condition holds, other elsewhere.
    Tensor where(const Tensor& condition, const Tensor& other) const;
    Tensor clamp(std::optional<double> min, std::optional<double> max = std::nullopt) const;
    Tensor real() const;
    Tensor imag() const;
    Tensor conj() const;
    Tensor angle() const;

    // ---- reductions -----------------------------------------------------------------
    Tensor sum() const;
    Tensor sum(const Shape& dims, bool keepdim = false) const;
    /// `sum(0)`, `sum(dim, keepdim)`: one dimension. A template, so that a braced list
    /// (`sum({})`, `sum({0, 1})`) still means dimensions and never converts to one integer.
    template <std::integral I>
    Tensor sum(I dim, bool keepdim = false) const { return sum(Shape{std::int64_t(dim)}, keepdim); }
    Tensor mean() const;
    Tensor mean(const Shape& dims, bool keepdim = false) const;
    template <std::integral I>
    Tensor mean(I dim, bool keepdim = false) const { return mean(Shape{std::int64_t(dim)}, keepdim); }
    Tensor prod() const;
    Tensor prod(std::int64_t dim, bool keepdim = false) const;
    Tensor amax(const Shape& dims = {}, bool keepdim = false) const;
    Tensor amin(const Shape& dims = {}, bool keepdim = false) const;
    Tensor max() const;
    std::tuple<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;
    Tensor min() const;
    std::tuple<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;
    /// `x.max(y)`, `x.min(y)`: LibTorch's member spelling of maximum and minimum.
    Tensor max(const Tensor& other) const { return maximum(other); }
    Tensor min(const Tensor& other) const { return minimum(other); }
    Tensor norm(double p = 2) const;
    Tensor norm(double p, const Shape& dims, bool keepdim = false) const;
    /// Variance and standard deviation with Bessel's correction (`unbiased`), over every
    /// element or over `dims` (`std(0)` is one dimension, as LibTorch's int overloads).
    Tensor var(bool unbiased = true) const;
    Tensor var(const Shape& dims, bool unbiased = true, bool keepdim = false) const;
    Tensor std(bool unbiased = true) const;
    Tensor std(const Shape& dims, bool unbiased = true, bool keepdim = false) const;
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    Tensor var(I dim, bool unbiased = true, bool keepdim = false) const {
        return var(Shape{std::int64_t(dim)}, unbiased, keepdim);
    }
    template <std::integral I>
        requires(!std::is_same_v<I, bool>)
    Tensor std(I dim, bool unbiased = true, bool keepdim = false) const {
        return std(Shape{std::int64_t(dim)}, unbiased, keepdim);
    }
    template <std::integral I>
    Tensor norm(double p, I dim, bool keepdim = false) const { return norm(p, Shape{std::int64_t(dim)}, keepdim); }
    Tensor logsumexp(const Shape& dims, bool keepdim = false) const;
    Tensor softmax(std::int64_t dim) const;
    Tensor log_softmax(std::int64_t dim) const;
    Tensor argmax(std::int64_t dim, bool keepdim = false) const;
    Tensor argmin(std::int64_t dim, bool keepdim = false) const;

    // ---- views (share storage and version counter) ---------------------------------
    Tensor view(const Shape& sizes) const;
    Tensor reshape(const Shape& sizes) const;
    Tensor flatten() const;
    Tensor transpose(std::int64_t dim0, std::int64_t dim1) const;
    Tensor t() const;
    Tensor permute(const Shape& dims) const;
    Tensor select(std::int64_t dim, std::int64_t index) const;
    Tensor slice(std::int64_t dim, std::optional<std::int64_t> start = std::nullopt,
                 std::optional<std::int64_t> end = std::nullopt, std::int64_t step = 1) const;
    Tensor narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
    Tensor expand(const Shape& sizes) const;
    Tensor expand_as(const Tensor& other) const;
    Tensor squeeze() const;
    Tensor squeeze(std::int64_t dim) const;
    Tensor unsqueeze(std::int64_t dim) const;
    /// `t[i]`: select along dimension 0.
    Tensor operator[](std::int64_t index) const { return select(0, index); }
    /// `t.index({Slice(1, None), 0, None, Ellipsis, idx})` (gradc::indexing): integers select,
    /// slices narrow, None inserts a dimension, Ellipsis stands for the dimensions not
    /// named, and one int64 tensor picks entries along its dimension (index_select).
    Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
    /// Writes `values` (or a number) into `index(indices)` in place; tensor indices are not
    /// accepted here.
    Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values) const;
    Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, double value) const;

    // ---- linear algebra and indexing ------------------------------------------------
    Tensor matmul(const Tensor& other) const;
    Tensor bmm(const Tensor& other) const;
    Tensor outer(const Tensor& other) const;
    Tensor mm(const Tensor& other) const;
    Tensor mv(const Tensor& vec) const;
    Tensor dot(const Tensor& other) const;
    Tensor index_select(std::int64_t dim, const Tensor& index) const;
    Tensor gather(std::int64_t dim, const Tensor& index) const;
    Tensor scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const;
    Tensor index_add(std::int64_t dim, const Tensor& index, const Tensor& source) const;

    // ---- in-place (bump the version counter; const as in LibTorch, so `x.grad().zero_()`
    //      works on the const gradient: the handle stays, the values change) -----------
    Tensor& add_(const Tensor& other, double alpha = 1) const;
    Tensor& add_(double other) const;
    Tensor& sub_(const Tensor& other, double alpha = 1) const;
    Tensor& sub_(double other) const;
    Tensor& mul_(const Tensor& other) const;
    Tensor& mul_(double other) const;
    Tensor& div_(const Tensor& other) const;
    Tensor& div_(double other) const;
    Tensor& zero_() const;
    Tensor& fill_(double value) const;
    Tensor& copy_(const Tensor& src) const;
    Tensor& clamp_(std::optional<double> min, std::optional<double> max = std::nullopt) const;
    Tensor& relu_() const;
    Tensor& sin_() const;
    Tensor& cos_() const;
    Tensor& exp_() const;
    Tensor& neg_() const;
    Tensor& sigmoid_() const;
    Tensor& tanh_() const;
    /// Compound assignment is the in-place operation, as in LibTorch (`x += y` is
    /// `x.add_(y)`: it bumps the version and is refused on a leaf that requires grad).
    Tensor& operator+=(const Tensor& other) { return add_(other); }
    Tensor& operator+=(double other) { return add_(other); }
    Tensor& operator-=(const Tensor& other) { return sub_(other); }
    Tensor& operator-=(double other) { return sub_(other); }
    Tensor& operator*=(const Tensor& other) { return mul_(other); }
    Tensor& operator*=(double other) { return mul_(other); }
    Tensor& operator/=(const Tensor& other) { return div_(other); }
    Tensor& operator/=(double other) { return div_(other); }

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

namespace gradc::rules {
/// Constants inside rules instantiated on tensors are plain doubles (wrapped numbers).
/// Declared with the type so that every instantiation of a rule on Tensor sees it.
template <>
struct scalar_of<gradc::Tensor, void> {
    using type = double;
};
}  // namespace gradc::rules
