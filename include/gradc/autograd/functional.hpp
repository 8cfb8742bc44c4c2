#pragma once
/// \file
/// Whole-function derivatives, as torch.autograd.functional: `jacobian`, `hessian`,
/// `vjp`, `jvp`, `vhp`, `hvp` of a function from tensors to tensors.
///
/// Each call evaluates `func` on fresh leaves (the inputs detached, or — with
/// `create_graph` — differentiable aliases of inputs that require grad), so the caller's
/// tensors and their `.grad()` are never touched. Without `create_graph` the results are
/// detached; with it they are differentiable w.r.t. the caller's inputs.
///
/// An input the outputs do not depend on gets a zero derivative, or — with `strict` — a
/// `gradc::Error` naming the input and output. `jvp` and `hvp` use the double-backward
/// trick (the transpose of a reverse pass), as PyTorch does; the results of the functions
/// with several inputs or outputs are indexed [output][input].

#include <functional>
#include <utility>
#include <vector>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::functional {

/// The function being differentiated: tensors in, tensors out.
using Function = std::function<tensor_list(const tensor_list&)>;
/// A function of one tensor.
using TensorFunction = std::function<Tensor(const Tensor&)>;

/// How `jacobian` and `hessian` build the matrix: one reverse pass per output element, or
/// one forward-mode (dual tensor) pass per input element.
enum class Strategy { reverse_mode, forward_mode };

/// The options of every function of this namespace (PyTorch's keyword arguments).
struct Options {
    bool create_graph = false;  ///< Build a graph of the results, for higher derivatives.
    bool strict = false;  ///< Refuse outputs independent of the input (an Error) instead of returning zeros.
    Strategy strategy = Strategy::reverse_mode;  ///< Reverse mode or forward mode for jacobian and hessian.
};

/// (func(inputs), vᵀ·J) for `v` shaped like the outputs. `v` may be omitted when func
/// returns a single one-element tensor.
std::pair<tensor_list, tensor_list> vjp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        const Options& options = {});
/// (func(inputs), J·v) for `v` shaped like the inputs. `v` may be omitted when there is a
/// single one-element input.
std::pair<tensor_list, tensor_list> jvp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                        const Options& options = {});
/// J[i][j] = ∂outputᵢ/∂inputⱼ with shape outputᵢ.sizes() ++ inputⱼ.sizes(). For a complex
/// output, a row is what backward returns for a one-hot output gradient (the conjugate
/// Wirtinger convention of the "Autograd mechanics" notes).
std::vector<tensor_list> jacobian(const Function& func, const tensor_list& inputs, const Options& options = {});
/// H[i][j] = ∂²f/∂inputᵢ∂inputⱼ with shape inputᵢ.sizes() ++ inputⱼ.sizes(), for `func`
/// returning one one-element tensor.
std::vector<tensor_list> hessian(const Function& func, const tensor_list& inputs, const Options& options = {});
/// (func(inputs), vᵀ·H) for scalar `func`, `v` shaped like the inputs.
std::pair<Tensor, tensor_list> vhp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                   const Options& options = {});
/// (func(inputs), H·v) for scalar `func`, `v` shaped like the inputs.
std::pair<Tensor, tensor_list> hvp(const Function& func, const tensor_list& inputs, const tensor_list& v = {},
                                   const Options& options = {});

/// One input, one output.
std::pair<Tensor, Tensor> vjp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              const Options& options = {});
/// {func(input), J·v}: the Jacobian-vector product.
std::pair<Tensor, Tensor> jvp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              const Options& options = {});
/// The Jacobian of func at input, shaped output × input.
Tensor jacobian(const TensorFunction& func, const Tensor& input, const Options& options = {});
/// The Hessian of a scalar func at input, shaped input × input.
Tensor hessian(const TensorFunction& func, const Tensor& input, const Options& options = {});
/// {func(input), vᵀH}: the vector-Hessian product.
std::pair<Tensor, Tensor> vhp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              const Options& options = {});
/// {func(input), H·v}: the Hessian-vector product.
std::pair<Tensor, Tensor> hvp(const TensorFunction& func, const Tensor& input, const Tensor& v = {},
                              const Options& options = {});

}  // namespace gradc::autograd::functional
