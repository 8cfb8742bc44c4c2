#pragma once
/// \file
/// `TensorOptions`: how a tensor is created (dtype, requires_grad), as in LibTorch:
/// `gradc::zeros({2, 3}, gradc::TensorOptions().dtype(gradc::kFloat32).requires_grad(true))`
/// or the shorthands `gradc::dtype(gradc::kFloat32)` and `gradc::requires_grad()`.

#include <optional>

#include <gradc/autograd/dtype.hpp>

namespace gradc {

class TensorOptions {
public:
    TensorOptions() = default;
    TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: implicit, as in LibTorch

    TensorOptions dtype(ScalarType t) const {
        TensorOptions o = *this;
        o.dtype_ = t;
        return o;
    }
    TensorOptions requires_grad(bool r) const {
        TensorOptions o = *this;
        o.requires_grad_ = r;
        return o;
    }
    /// The dtype asked for, or `fallback`.
    ScalarType dtype_or(ScalarType fallback) const { return dtype_.value_or(fallback); }
    bool has_dtype() const { return dtype_.has_value(); }
    /// The dtype asked for, or the default dtype (`get_default_dtype()`).
    ScalarType dtype() const { return dtype_ ? *dtype_ : get_default_dtype(); }
    bool requires_grad() const { return requires_grad_; }

private:
    std::optional<ScalarType> dtype_;
    bool requires_grad_ = false;
};

inline TensorOptions dtype(ScalarType t) {
    return TensorOptions().dtype(t);
}
inline TensorOptions requires_grad(bool r = true) {
    return TensorOptions().requires_grad(r);
}

}  // namespace gradc
