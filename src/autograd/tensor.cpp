// Tensor handles, their geometry and their autograd state.
#include <cstring>
#include <numeric>
#include <sstream>

#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/warning.hpp>

#include "internal.hpp"

namespace gradc {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, std::shared_ptr<VersionCounter> version_,
                       ScalarType dtype_, Shape sizes_, Shape strides_, std::int64_t offset_)
    : storage(std::move(storage_)),
      version(std::move(version_)),
      dtype(dtype_),
      sizes(std::move(sizes_)),
      strides(std::move(strides_)),
      offset(offset_),
      numel(shape_numel(sizes)),
      inference(InferenceMode::is_enabled()) {}

AutogradMeta& TensorImpl::meta() {
    return autograd ? *autograd : autograd.emplace();
}

bool TensorImpl::is_contiguous() const { return is_contiguous_geometry(sizes, strides); }

bool is_contiguous_geometry(const Shape& sizes, const Shape& strides) {
    std::int64_t expected = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
        if (sizes[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= sizes[i];
    }
    return true;
}

Shape contiguous_strides(const Shape& sizes) {
    Shape s(sizes.size());
    std::int64_t acc = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
        s[i] = acc;
        acc *= std::max<std::int64_t>(sizes[i], 1);
    }
    return s;
}

std::int64_t shape_numel(const Shape& sizes) {
    return std::accumulate(sizes.begin(), sizes.end(), std::int64_t{1}, std::multiplies<>());
}

std::string shape_string(const Shape& sizes) {
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

namespace {
Tensor new_tensor(const Shape& sizes, ScalarType dtype, bool zero) {
    for (auto s : sizes)
        if (s < 0) throw Error("gradc: cannot create a tensor with negative size " + shape_string(sizes));
    const auto n = shape_numel(sizes);
    auto [storage, version] = make_storage(static_cast<std::size_t>(n) * element_size(dtype), zero);
    return Tensor(std::make_shared<TensorImpl>(std::move(storage), std::move(version), dtype, sizes,
                                               contiguous_strides(sizes), 0));
}
}  // namespace

Tensor zeroed_tensor(const Shape& sizes, ScalarType dtype) { return new_tensor(sizes, dtype, true); }
Tensor uninitialized_tensor(const Shape& sizes, ScalarType dtype) { return new_tensor(sizes, dtype, false); }

Tensor alias_with_geometry(const Tensor& base, Shape sizes, Shape strides, std::int64_t offset) {
    auto* b = base.unsafeGetTensorImpl();
    auto impl = std::make_shared<TensorImpl>(b->storage, b->version, b->dtype, std::move(sizes), std::move(strides), offset);
    impl->inference = b->inference;
    return Tensor(std::move(impl));
}

Tensor::Tensor(double value) : Tensor(zeroed_tensor({}, kFloat64)) {
    *reinterpret_cast<double*>(impl_->data()) = value;
    impl_->wrapped_number = true;
}

TensorImpl& detail::defined_impl(const std::shared_ptr<TensorImpl>& impl, const char* method) {
    if (!impl) throw Error(std::string("gradc: ") + method + " called on an undefined tensor");
    return *impl;
}

ScalarType Tensor::dtype() const { return detail::defined_impl(impl_, "dtype()").dtype; }
const Shape& Tensor::sizes() const { return detail::defined_impl(impl_, "sizes()").sizes; }
const Shape& Tensor::strides() const { return detail::defined_impl(impl_, "strides()").strides; }
std::int64_t Tensor::dim() const { return static_cast<std::int64_t>(detail::defined_impl(impl_, "dim()").sizes.size()); }
std::int64_t Tensor::numel() const { return detail::defined_impl(impl_, "numel()").numel; }
std::int64_t Tensor::storage_offset() const { return detail::defined_impl(impl_, "storage_offset()").offset; }
bool Tensor::is_contiguous() const { return detail::defined_impl(impl_, "is_contiguous()").is_contiguous(); }
void* Tensor::raw_data() const { return detail::defined_impl(impl_, "data_ptr()").data(); }
namespace {
// size(d) and stride(d) of a 0-dim tensor: there is no dimension to read (wrap_dim accepts
// 0 and -1 for the reductions' sake), as PyTorch says.
std::int64_t existing_dim(const Tensor& t, std::int64_t d, const char* op) {
    if (t.dim() == 0)
        throw Error(std::string("gradc: ") + op + ": dimension specified as " + std::to_string(d) +
                    " but tensor has no dimensions");
    return detail::wrap_dim(d, t.dim(), op);
}
}  // namespace

std::int64_t Tensor::size(std::int64_t d) const { return sizes()[existing_dim(*this, d, "size")]; }
std::int64_t Tensor::stride(std::int64_t d) const { return strides()[existing_dim(*this, d, "stride")]; }
TensorOptions Tensor::options() const { return TensorOptions().dtype(dtype()); }

void Tensor::check_dim(std::size_t expected, const char* what) const {
    if (static_cast<std::size_t>(dim()) != expected)
        throw Error(std::string("gradc: ") + what + ": expected " + std::to_string(expected) + " dims but tensor has " +
                    std::to_string(dim()));
}

void Tensor::check_element_type(ScalarType expected, const char* what) const {
    if (dtype() != expected)
        throw Error(std::string("gradc: ") + what + ": expected element type " + std::string(to_string(expected)) +
                    " but the tensor has dtype " + std::string(to_string(dtype())));
}

std::complex<double> Tensor::item_complex() const {
    detail::check_defined(*this, "item()");
    if (numel() != 1)
        throw Error("gradc: item(): a tensor with " + std::to_string(numel()) + " elements (shape " +
                    shape_string(sizes()) + ") cannot be converted to a scalar; expected exactly one element");
    return dispatch(dtype(), [&](auto tag) -> std::complex<double> {
        using T = typename decltype(tag)::type;
        T v = *static_cast<const T*>(raw_data());
        if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
            return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
        else
            return {static_cast<double>(v), 0.0};
    });
}

Scalar Tensor::item() const {
    const std::complex<double> v = item_complex();
    switch (dtype()) {
        case ScalarType::Bool: return Scalar(v.real() != 0);
        case ScalarType::Int64: return Scalar(static_cast<std::int64_t>(v.real()));
        case ScalarType::ComplexFloat:
        case ScalarType::ComplexDouble: return Scalar(v);
        case ScalarType::Float32:
        case ScalarType::Float64: break;
    }
    return Scalar(v.real());
}

// ---- autograd state ------------------------------------------------------------------

bool Tensor::requires_grad() const {
    auto& impl = detail::defined_impl(impl_, "requires_grad()");
    if (!impl.autograd) return false;
    detail::refresh_view_history(impl);
    return impl.autograd->requires_grad || impl.autograd->grad_fn != nullptr;
}

bool Tensor::is_leaf() const {
    return grad_fn() == nullptr;
}

const std::shared_ptr<autograd::Node>& Tensor::grad_fn() const {
    static const std::shared_ptr<autograd::Node> none;
    auto& impl = detail::defined_impl(impl_, "grad_fn()");
    if (!impl.autograd) return none;
    detail::refresh_view_history(impl);
    return impl.autograd->grad_fn;
}

std::uint32_t Tensor::output_nr() const {
    auto& impl = detail::defined_impl(impl_, "output_nr()");
    return impl.autograd ? impl.autograd->output_nr : 0;
}

const Tensor& Tensor::grad() const {
    static const Tensor none;
    auto& impl = detail::defined_impl(impl_, "grad()");
    const Tensor& g = impl.autograd ? impl.autograd->grad : none;
    if (!g.defined() && !is_leaf() && !retains_grad())
        warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
             "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
             "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
             "you access the leaf Tensor instead.");
    return g;
}

Tensor& Tensor::mutable_grad() const {
    return detail::defined_impl(impl_, "mutable_grad()").meta().grad;
}

bool Tensor::retains_grad() const {
    auto& impl = detail::defined_impl(impl_, "retains_grad()");
    if (!impl.autograd) return false;
    std::lock_guard<std::mutex> lock(impl.autograd->mutex);
    return impl.autograd->retains_grad;
}

Tensor Tensor::detach() const {
    auto& impl = detail::defined_impl(impl_, "detach()");
    return alias_with_geometry(*this, impl.sizes, impl.strides, impl.offset);
}

Tensor Tensor::tensor_data() const { return detach(); }

Tensor Tensor::variable_data() const {
    auto& impl = detail::defined_impl(impl_, "variable_data()");
    auto copy = std::make_shared<TensorImpl>(impl.storage, std::make_shared<VersionCounter>(), impl.dtype, impl.sizes,
                                             impl.strides, impl.offset);
    copy->inference = impl.inference;
    return Tensor(std::move(copy));
}

Tensor& Tensor::detach_() const {
    auto& impl = detail::defined_impl(impl_, "detach_()");
    if (is_view())
        throw Error("gradc: detach_(): can't detach views in-place; use detach() instead");
    if (impl.autograd) {
        impl.autograd->grad_fn.reset();
        impl.autograd->requires_grad = false;
        impl.autograd->output_nr = 0;
    }
    return const_cast<Tensor&>(*this);
}

std::uint32_t Tensor::_version() const { return detail::defined_impl(impl_, "_version()").version->current(); }
bool Tensor::is_inference() const { return detail::defined_impl(impl_, "is_inference()").inference; }
bool Tensor::is_view() const {
    auto& impl = detail::defined_impl(impl_, "is_view()");
    return impl.autograd && impl.autograd->base.defined();
}
const Tensor& Tensor::_base() const {
    static const Tensor none;
    auto& impl = detail::defined_impl(impl_, "_base()");
    return impl.autograd ? impl.autograd->base : none;
}

namespace detail {

std::int64_t wrap_dim(std::int64_t dim, std::int64_t ndim, const char* op) {
    const std::int64_t n = std::max<std::int64_t>(ndim, 1);  // a 0-dim tensor accepts dim 0 and -1
    if (dim < -n || dim >= n)
        throw Error(std::string("gradc: ") + op + ": dimension out of range (expected to be in range of [" +
                    std::to_string(-n) + ", " + std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
    return dim < 0 ? dim + n : dim;
}

std::string describe(const Tensor& t) {
    if (!t.defined()) return "[undefined tensor]";
    std::string s = "[";
    s += to_string(t.dtype());
    s += ' ';
    s += shape_string(t.sizes());
    s += ']';
    return s;
}

void check_defined(const Tensor& t, const char* op) {
    if (!t.defined()) throw Error(std::string("gradc: ") + op + ": got an undefined tensor");
}

}  // namespace detail
}  // namespace gradc
