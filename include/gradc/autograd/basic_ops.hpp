#pragma once
/// \file
/// Small autograd utilities under LibTorch's names: `make_variable` and the
/// `UndefinedGrad` function that PyTorch's own tests use to send undefined gradients
/// into a backward pass.

#include <string>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

/// A leaf sharing `data`'s storage (with its own version counter and no history),
/// requiring grad if asked (LibTorch's torch::autograd::make_variable).
Tensor make_variable(const Tensor& data, bool requires_grad = false);

/// `UndefinedGrad().apply({x, y})` returns copies of its inputs whose backward node
/// (UndefinedGradBackward) passes undefined gradients to every input: what a custom
/// function's backward then receives is an undefined tensor (or zeros, with
/// set_materialize_grads).
struct UndefinedGrad {
    std::string name() const { return "UndefinedGrad"; }  ///< "UndefinedGrad".
    tensor_list apply(tensor_list&& inputs) const;  ///< Undefined gradients for every input.
};

}  // namespace gradc::autograd
