#pragma once
// The forward-mode strategy of functional::jacobian and hessian: one dual-tensor pass per
// input element. functional.cpp calls it; it needs none of functional.hpp, so the callable
// is spelled as the type that functional::Function names.

#include <functional>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::functional::detail {

/// J[i][j] = ∂outputᵢ/∂inputⱼ, column by column with one-hot tangents inside a dual level.
/// `op` names the calling function in errors.
std::vector<tensor_list> jacobian_forward(const std::function<tensor_list(const tensor_list&)>& func,
                                          const tensor_list& inputs, const char* op);

}  // namespace gradc::autograd::functional::detail
