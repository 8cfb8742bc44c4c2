#pragma once
/// \file
/// Options and error type of `gradc::autograd::gradcheck` / `gradgradcheck` (and of the
/// static-kernel checker `gradc::check::gradcheck`). Defaults are PyTorch's. See
/// docs/gradcheck.md for what each option does.

#include <cstdint>

#include <gradc/error.hpp>

namespace gradc::autograd {

/// The options of gradcheck and gradgradcheck, with PyTorch's names and defaults (docs/gradcheck.md).
struct GradcheckOptions {
    /// Step of the central differences (f(x+eps) - f(x-eps)) / 2eps.
    double eps = 1e-6;
    /// Absolute and relative tolerance: an entry passes when |a - n| <= atol + rtol·|n|.
    double atol = 1e-5;
    double rtol = 1e-3;  ///< The relative tolerance.
    /// On failure, throw `GradcheckError` (true) or return false (false).
    bool raise_exception = true;
    /// Two evaluations of the function, and two backward passes, may differ by this much.
    double nondet_tol = 0.0;
    /// Check that backward accepts undefined (zero) output gradients and returns zeros.
    bool check_undefined_grad = true;
    /// Check that each analytical gradient has its input's dtype.
    bool check_grad_dtypes = false;
    /// Compare reverse mode (vᵀJ) with finite differences.
    bool check_backward_ad = true;
    /// Compare forward mode (J·u, with dual tensors: forward_ad.hpp) with finite
    /// differences: column by column, or in fast mode J·u for a random unit u; with
    /// check_undefined_grad, also that an input without tangent acts as a zero tangent.
    /// Complex inputs are checked along real and imaginary directions.
    bool check_forward_ad = false;
    /// Compare the scalar vᵀJu for random v, unit u instead of whole Jacobians.
    bool fast_mode = false;
    /// Seed of the random v and u of fast mode (and of gradgradcheck's grad outputs):
    /// the same seed gives the same vectors on every platform.
    std::uint64_t seed = 0;
};

/// What a failed check throws when `raise_exception` is true.
class GradcheckError : public gradc::Error {
public:
    using gradc::Error::Error;
};

}  // namespace gradc::autograd
