// Tensor's member functions: LibTorch-style spellings of the free functions.
#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/linalg.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/view.hpp>

#include "internal.hpp"

namespace gradc {

Tensor Tensor::clone() const {
    detail::check_defined(*this, "clone");
    Tensor out = detail::copy_as(*this, dtype());
    return autograd::record_single_output("clone", {*this}, out, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {g[0]};
    }, [](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {t[0].clone()}; });
}

Tensor Tensor::contiguous() const {
    detail::check_defined(*this, "contiguous");
    return is_contiguous() ? *this : clone();
}

Tensor Tensor::to(ScalarType t) const {
    detail::check_defined(*this, "to");
    if (t == dtype()) return *this;
    if (requires_grad() && !is_differentiable_type(t) && GradMode::is_enabled()) {
        // Integers and bools carry no gradient: the result is simply not recorded.
        return detail::copy_as(*this, t);
    }
    Tensor out = detail::copy_as(*this, t);
    const ScalarType from = dtype();
    return autograd::record_single_output("to_copy", {*this}, out, {}, [from](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        Tensor gi = g[0];
        if (gi.is_complex() && !gradc::is_complex(from)) gi = gradc::real(gi);
        return {gi.to(from)};
    }, [t](const tensor_list& tangent, const autograd::ForwardContext&) -> tensor_list { return {tangent[0].to(t)}; });
}

Tensor Tensor::add(const Tensor& o, double alpha) const { return gradc::add(*this, o, alpha); }
Tensor Tensor::add(double o) const { return *this + o; }
Tensor Tensor::sub(const Tensor& o, double alpha) const { return gradc::sub(*this, o, alpha); }
Tensor Tensor::sub(double o) const { return *this - o; }
Tensor Tensor::mul(const Tensor& o) const { return gradc::mul(*this, o); }
Tensor Tensor::mul(double o) const { return *this * o; }
Tensor Tensor::div(const Tensor& o) const { return gradc::div(*this, o); }
Tensor Tensor::div(double o) const { return *this / o; }
Tensor Tensor::square() const { return gradc::square(*this); }
Tensor Tensor::clamp_min(double lo) const { return gradc::clamp_min(*this, lo); }
Tensor Tensor::clamp_max(double hi) const { return gradc::clamp_max(*this, hi); }
Tensor Tensor::masked_fill(const Tensor& mask, double value) const { return gradc::masked_fill(*this, mask, value); }
Tensor Tensor::eq(const Tensor& o) const { return *this == o; }
Tensor Tensor::eq(double o) const { return *this == o; }
Tensor Tensor::ne(const Tensor& o) const { return *this != o; }
Tensor Tensor::ne(double o) const { return *this != o; }
Tensor Tensor::all() const { return scalar_tensor(gradc::all(*this) ? 1.0 : 0.0, gradc::dtype(kBool)); }
Tensor Tensor::any() const { return scalar_tensor(gradc::any(*this) ? 1.0 : 0.0, gradc::dtype(kBool)); }
bool Tensor::equal(const Tensor& o) const { return gradc::equal(*this, o); }
bool Tensor::allclose(const Tensor& o, double rtol, double atol) const { return gradc::allclose(*this, o, rtol, atol); }

#define GRADC_TENSOR_MEMBER_UNARY(rule, op) \
    Tensor Tensor::op() const { return gradc::op(*this); }
#define GRADC_TENSOR_MEMBER_BINARY(rule, op) \
    Tensor Tensor::op(const Tensor& other) const { return gradc::op(*this, other); }
GRADC_UNARY_PRIMITIVES(GRADC_TENSOR_MEMBER_UNARY)
GRADC_BINARY_PRIMITIVES(GRADC_TENSOR_MEMBER_BINARY)
#undef GRADC_TENSOR_MEMBER_UNARY
#undef GRADC_TENSOR_MEMBER_BINARY
Tensor Tensor::neg() const { return gradc::neg(*this); }
Tensor Tensor::pow(double e) const { return gradc::pow(*this, e); }
Tensor Tensor::isnan() const { return gradc::isnan(*this); }
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const { return gradc::where(condition, *this, other); }
Tensor Tensor::clamp(std::optional<double> lo, std::optional<double> hi) const { return gradc::clamp(*this, lo, hi); }
Tensor Tensor::real() const { return gradc::real(*this); }
Tensor Tensor::imag() const { return gradc::imag(*this); }
Tensor Tensor::conj() const { return gradc::conj(*this); }
Tensor Tensor::angle() const { return gradc::angle(*this); }

Tensor Tensor::sum() const { return gradc::sum(*this); }
Tensor Tensor::sum(const Shape& dims, bool keepdim) const { return gradc::sum(*this, dims, keepdim); }
Tensor Tensor::mean() const { return gradc::mean(*this); }
Tensor Tensor::mean(const Shape& dims, bool keepdim) const { return gradc::mean(*this, dims, keepdim); }
Tensor Tensor::prod() const { return gradc::prod(*this); }
Tensor Tensor::prod(std::int64_t dim, bool keepdim) const { return gradc::prod(*this, dim, keepdim); }
Tensor Tensor::amax(const Shape& dims, bool keepdim) const { return gradc::amax(*this, dims, keepdim); }
Tensor Tensor::amin(const Shape& dims, bool keepdim) const { return gradc::amin(*this, dims, keepdim); }
Tensor Tensor::max() const { return gradc::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(std::int64_t dim, bool keepdim) const { return gradc::max(*this, dim, keepdim); }
Tensor Tensor::min() const { return gradc::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(std::int64_t dim, bool keepdim) const { return gradc::min(*this, dim, keepdim); }
Tensor Tensor::norm(double p) const { return gradc::norm(*this, p); }
Tensor Tensor::logsumexp(const Shape& dims, bool keepdim) const { return gradc::logsumexp(*this, dims, keepdim); }
Tensor Tensor::softmax(std::int64_t dim) const { return gradc::softmax(*this, dim); }
Tensor Tensor::log_softmax(std::int64_t dim) const { return gradc::log_softmax(*this, dim); }
Tensor Tensor::argmax(std::int64_t dim, bool keepdim) const { return gradc::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::int64_t dim, bool keepdim) const { return gradc::argmin(*this, dim, keepdim); }

Tensor Tensor::view(const Shape& s) const { return gradc::view(*this, s); }
Tensor Tensor::reshape(const Shape& s) const { return gradc::reshape(*this, s); }
Tensor Tensor::flatten() const { return gradc::flatten(*this); }
Tensor Tensor::transpose(std::int64_t a, std::int64_t b) const { return gradc::transpose(*this, a, b); }
Tensor Tensor::t() const { return gradc::t(*this); }
Tensor Tensor::permute(const Shape& dims) const { return gradc::permute(*this, dims); }
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const { return gradc::select(*this, dim, index); }
Tensor Tensor::slice(std::int64_t dim, std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                     std::int64_t step) const {
    return gradc::slice(*this, dim, start, end, step);
}
Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
    return gradc::narrow(*this, dim, start, length);
}
Tensor Tensor::expand(const Shape& sizes) const { return gradc::expand(*this, sizes); }
Tensor Tensor::expand_as(const Tensor& other) const { return gradc::expand_as(*this, other); }
Tensor Tensor::squeeze() const { return gradc::squeeze(*this); }
Tensor Tensor::squeeze(std::int64_t dim) const { return gradc::squeeze(*this, dim); }
Tensor Tensor::unsqueeze(std::int64_t dim) const { return gradc::unsqueeze(*this, dim); }

Tensor Tensor::matmul(const Tensor& o) const { return gradc::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return gradc::mm(*this, o); }
Tensor Tensor::bmm(const Tensor& o) const { return gradc::bmm(*this, o); }
Tensor Tensor::outer(const Tensor& o) const { return gradc::outer(*this, o); }
Tensor Tensor::mv(const Tensor& v) const { return gradc::mv(*this, v); }
Tensor Tensor::dot(const Tensor& o) const { return gradc::dot(*this, o); }
Tensor Tensor::index_select(std::int64_t dim, const Tensor& index) const { return gradc::index_select(*this, dim, index); }
Tensor Tensor::gather(std::int64_t dim, const Tensor& index) const { return gradc::gather(*this, dim, index); }
Tensor Tensor::scatter_add(std::int64_t dim, const Tensor& index, const Tensor& src) const {
    return gradc::scatter_add(*this, dim, index, src);
}
Tensor Tensor::index_add(std::int64_t dim, const Tensor& index, const Tensor& source) const {
    return gradc::index_add(*this, dim, index, source);
}

}  // namespace gradc
