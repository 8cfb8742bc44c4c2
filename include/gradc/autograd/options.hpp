#pragma once
/// \file
/// `TensorOptions`: how a tensor is created (dtype, requires_grad), as in LibTorch:
/// `gradc::zeros({2, 3}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true))`
/// or the shorthands `gradc::dtype(gradc::kFloat32)` and `gradc::requires_grad()`.

#include <optional>

#include <gradc/autograd/dtype.hpp>

namespace gradc {

/// A tensor's dtype and requires_grad for the factories, as LibTorch's TensorOptions (`gradc::dtype(gradc::kFloat64).requires_grad(true)`).
class TensorOptions {
public:
    TensorOptions() = default;
    /// Options with dtype `t`.
    TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: implicit, as in LibTorch

    /// A copy with dtype `t`.
    TensorOptions dtype(ScalarType t) const {
        TensorOptions o = *this;
        o.dtype_ = t;
        return o;
    }
    /// A copy with requires_grad `r`.
    TensorOptions requires_grad(bool r) const {
        TensorOptions o = *this;
        o.requires_grad_ = r;
        return o;
    }
    /// The dtype asked for, or `fallback`.
    ScalarType dtype_or(ScalarType fallback) const { return dtype_.value_or(fallback); }
    bool has_dtype() const { return dtype_.has_value(); }  ///< Whether a dtype was given.
    /// The dtype asked for, or the default dtype (`get_default_dtype()`).
    ScalarType dtype() const { return dtype_ ? *dtype_ : get_default_dtype(); }
    bool requires_grad() const { return requires_grad_; }  ///< Whether the tensor will require grad.

private:
    std::optional<ScalarType> dtype_;
    bool requires_grad_ = false;
};

/// TensorOptions with dtype `t`.
inline TensorOptions dtype(ScalarType t) {
    return TensorOptions().dtype(t);
}
/// TensorOptions with requires_grad `r`.
inline TensorOptions requires_grad(bool r = true) {
    return TensorOptions().requires_grad(r);
}

}  // namespace gradc
