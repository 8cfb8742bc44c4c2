#pragma once
// The forward-mode strategy of functional::jacobian and hessian: one dual-tensor pass per
// input element.

#include <vector>

#include <gradc/autograd/functional.hpp>

namespace gradc::autograd::functional::detail {

/// J[i][j] = ∂outputᵢ/∂inputⱼ, column by column with one-hot tangents inside a dual level.
/// `op` names the calling function in errors.
std::vector<tensor_list> jacobian_forward(const Function& func, const tensor_list& inputs, const char* op);

}  // namespace gradc::autograd::functional::detail
