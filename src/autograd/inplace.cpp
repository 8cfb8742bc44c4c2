// In-place operations ("Autograd mechanics" notes, "In-place operations with autograd").
// The new value is computed out of place from a recorded clone of the old value, written
// into the tensor's storage, and the version counter is bumped. The tensor then takes the
// result's history; a view instead rewrites its base's history (view_history.cpp).
#include <functional>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "forward_grad.hpp"
#include "internal.hpp"

namespace gradc {

namespace {

void check_inplace_allowed(const Tensor& self, const char* op) {
    detail::check_defined(self, op);
    if (self.is_inference() && !InferenceMode::is_enabled())
        throw Error(std::string("gradc: ") + op + ": in-place update to inference tensor " + detail::describe(self) +
                    " outside InferenceMode is not allowed. You can make a clone() to get a normal tensor before doing an in-place update.");
    if (!GradMode::is_enabled()) return;
    if (self.is_leaf() && self.requires_grad() && !self.is_view())
        throw Error(std::string("gradc: ") + op + ": a leaf Variable that requires grad is being used in an in-place operation. Got " +
                    detail::describe(self) + ", a leaf that requires grad. Wrap the update in NoGradGuard, or operate on a clone().");
    if (self.is_view()) {
        const Tensor& base = self._base();
        if (base.is_leaf() && base.requires_grad())
            throw Error(std::string("gradc: ") + op + ": a view of a leaf Variable that requires grad is being used in an in-place "
                        "operation. Got a view of " + detail::describe(base) + ", a leaf that requires grad. Wrap the update in NoGradGuard, or operate on a clone().");
    }
}

// Runs `compute(old value)` and stores the result into `self`.
Tensor& inplace(const Tensor& self, const char* op, const tensor_list& others, const std::function<Tensor(const Tensor&)>& compute) {
    check_inplace_allowed(self, op);
    tensor_list all = others;
    all.push_back(self);
    const bool recording = autograd::compute_requires_grad(all);
    Tensor result;
    if (recording) {
        // The old value must survive the write for the backward formula: compute from a
        // recorded copy (CloneBackward passes the gradient on to the old history).
        result = compute(self.clone());
        if (!result.grad_fn()) result = result.clone();
    } else {
        NoGradGuard no_grad;
        result = compute(self);
    }
    if (result.sizes() != self.sizes())
        throw Error(std::string("gradc: ") + op + ": output with shape " + shape_string(self.sizes()) +
                    " doesn't match the broadcast shape " + shape_string(result.sizes()));
    if (result.is_complex() && !self.is_complex())
        throw Error(std::string("gradc: ") + op + ": result type " + std::string(to_string(result.dtype())) +
                    " can't be cast to the desired output type " + std::string(to_string(self.dtype())));
    detail::copy_into(self, result);
    self.unsafeGetTensorImpl()->version->bump();
    if (recording) {
        if (self.is_view()) {
            detail::rebase_view_history(self, result);
        } else {
            autograd::set_history(self, result.grad_fn(), result.output_nr());
        }
    }
    autograd::forward_ad::detail::update_inplace(self, result);
    // In-place methods are const, as in LibTorch: the handle is unchanged, its values change.
    return const_cast<Tensor&>(self);
}

// A constant as the new value, with a zero gradient back to the old one.
Tensor constant_like(const Tensor& old, double v) {
    Tensor c = full_like(old, v);
    return autograd::record_single_output("fill", {old}, c, {}, [](const tensor_list& g, const autograd::BackwardContext&) -> tensor_list {
        return {zeros_like(g[0])};
    }, [](const tensor_list& t, const autograd::ForwardContext&) -> tensor_list { return {zeros_like(t[0])}; });
}

}  // namespace

Tensor& Tensor::add_(const Tensor& o, double alpha) const { return inplace(*this, "add_", {o}, [&](const Tensor& x) { return gradc::add(x, o, alpha); }); }
Tensor& Tensor::add_(double o) const { return inplace(*this, "add_", {}, [&](const Tensor& x) { return x + o; }); }
Tensor& Tensor::sub_(const Tensor& o, double alpha) const { return inplace(*this, "sub_", {o}, [&](const Tensor& x) { return gradc::sub(x, o, alpha); }); }
Tensor& Tensor::sub_(double o) const { return inplace(*this, "sub_", {}, [&](const Tensor& x) { return x - o; }); }
Tensor& Tensor::mul_(const Tensor& o) const { return inplace(*this, "mul_", {o}, [&](const Tensor& x) { return x * o; }); }
Tensor& Tensor::mul_(double o) const { return inplace(*this, "mul_", {}, [&](const Tensor& x) { return x * o; }); }
Tensor& Tensor::div_(const Tensor& o) const { return inplace(*this, "div_", {o}, [&](const Tensor& x) { return x / o; }); }
Tensor& Tensor::div_(double o) const { return inplace(*this, "div_", {}, [&](const Tensor& x) { return x / o; }); }
Tensor& Tensor::zero_() const { return fill_(0.0); }
Tensor& Tensor::fill_(double v) const { return inplace(*this, "fill_", {}, [&](const Tensor& x) { return constant_like(x, v); }); }
Tensor& Tensor::copy_(const Tensor& src) const {
    detail::check_defined(src, "copy_");
    return inplace(*this, "copy_", {src}, [&](const Tensor& x) {
        // The source must broadcast *to* the destination: [2, 3] into [3] broadcasts
        // together but cannot be written.
        if (broadcast_shapes(src.sizes(), x.sizes(), "copy_") != x.sizes())
            throw Error("gradc: copy_: source " + detail::describe(src) + " cannot be broadcast to the destination's shape " +
                        shape_string(x.sizes()) + "; expected a source of that shape or one that broadcasts to it");
        Tensor s = src.to(src.is_complex() && !x.is_complex() ? src.dtype() : x.dtype());
        // The old value gets no gradient; `fill` keeps it connected with zeros.
        return gradc::expand(s, x.sizes()) + constant_like(x, 0.0);
    });
}
Tensor& Tensor::clamp_(std::optional<double> lo, std::optional<double> hi) const {
    return inplace(*this, "clamp_", {}, [&](const Tensor& x) { return gradc::clamp(x, lo, hi); });
}
Tensor& Tensor::relu_() const { return inplace(*this, "relu_", {}, [](const Tensor& x) { return gradc::relu(x); }); }
Tensor& Tensor::sin_() const { return inplace(*this, "sin_", {}, [](const Tensor& x) { return gradc::sin(x); }); }
Tensor& Tensor::cos_() const { return inplace(*this, "cos_", {}, [](const Tensor& x) { return gradc::cos(x); }); }
Tensor& Tensor::exp_() const { return inplace(*this, "exp_", {}, [](const Tensor& x) { return gradc::exp(x); }); }
Tensor& Tensor::neg_() const { return inplace(*this, "neg_", {}, [](const Tensor& x) { return gradc::neg(x); }); }
Tensor& Tensor::sigmoid_() const { return inplace(*this, "sigmoid_", {}, [](const Tensor& x) { return gradc::sigmoid(x); }); }
Tensor& Tensor::tanh_() const { return inplace(*this, "tanh_", {}, [](const Tensor& x) { return gradc::tanh(x); }); }

}  // namespace gradc
