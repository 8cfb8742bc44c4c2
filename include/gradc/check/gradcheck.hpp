#pragma once
/// \file
/// `gradcheck` and `gradgradcheck` for the dynamic mode, as PyTorch's "Gradcheck mechanics"
/// notes describe them:
///  - slow mode: the numerical Jacobian column by column by central differences, the
///    analytical one row by row by reverse mode (one-hot v), compared entry by entry with
///    |a - n| <= atol + rtol·|n|;
///  - complex inputs z = a + ib: numerically 2·CW = ∂y/∂a + i·∂y/∂b; complex outputs are
///    split into real(f) (grad_out = 1) and imag(f) (grad_out = 1j);
///  - fast mode: the scalar vᵀJu (complex inputs: real(vᵀ2CW)·ur + i·imag(vᵀ2CW)·ui) for
///    random v and unit u; on a mismatch slow mode reruns so the report names the output
///    and input and prints both matrices;
///  - forward mode (check_forward_ad): the analytical Jacobian column by column from
///    one JVP per input element (one-hot tangent; for complex inputs one along the real
///    and one along the imaginary direction, giving ∂y/∂a + i·∂y/∂b), or in fast mode J·u
///    from one JVP per input against the central difference along u;
///  - gradgradcheck: gradcheck of F(x, v) = vᵀJ_f(x) (with check_forward_ad: forward
///    mode over the reverse pass).
/// Jacobians are printed with one row per output element and one column per input element.

#include <functional>
#include <vector>

#include <gradc/autograd/tensor.hpp>
#include <gradc/check/options.hpp>

namespace gradc::autograd {

/// The function under test: tensors in, tensors out.
using GradcheckFunction = std::function<tensor_list(const tensor_list&)>;

/// Checks the derivatives of `fn` at `inputs` with respect to the inputs that require
/// grad. Returns true, or false / throws `GradcheckError` (see `raise_exception`).
bool gradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const GradcheckOptions& options = {});

/// Checks second derivatives: gradcheck of F(x, v) = vᵀJ_f(x) over (x, v), where v are
/// `grad_outputs` (one per differentiable output) or random tensors of the outputs'
/// shapes and dtypes drawn from `options.seed`.
bool gradgradcheck(const GradcheckFunction& fn, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                   const GradcheckOptions& options = {});

}  // namespace gradc::autograd
