#pragma once
/// \file
/// What a derivative formula of the dynamic mode is: a backward formula maps the gradients
/// of an operation's outputs to those of its inputs, a forward-mode (JVP) formula maps the
/// tangents of its inputs to those of its outputs; both are written with differentiable
/// tensor operations, and both see the operation's tensors through TensorRefs. Recording
/// an operation with them is function.hpp's; forward-mode propagation uses them too.

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>

#include <gradc/autograd/node.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

/// The tensors given to record(): a braced list `{a, b}` or a tensor_list, read in place
/// (recording an operation on small tensors should not build vectors); also the saved
/// tensors a backward formula sees. It refers to its argument and must not outlive it.
class TensorRefs {
public:
    // The list's array lives until the end of the caller's full-expression, past the call.
    TensorRefs(std::initializer_list<Tensor> list) : data_(std::data(list)), size_(list.size()) {}  ///< `{a, b}`.
    TensorRefs(const tensor_list& list) : data_(list.data()), size_(list.size()) {}  ///< Refers to `list`.
    TensorRefs(const Tensor* data, std::size_t size) : data_(data), size_(size) {}  ///< Refers to `size` tensors.
    const Tensor* begin() const { return data_; }  ///< The first tensor.
    const Tensor* end() const { return data_ + size_; }  ///< Past the last tensor.
    std::size_t size() const { return size_; }  ///< The number of tensors.
    bool empty() const { return size_ == 0; }  ///< Whether there are none.
    const Tensor& operator[](std::size_t i) const { return data_[i]; }  ///< Tensor `i`.
    tensor_list to_list() const;  ///< A copy as a tensor_list.

private:
    const Tensor* data_;
    std::size_t size_;
};

/// What a backward formula sees.
struct BackwardContext {
    TensorRefs saved;  ///< The saved tensors, unpacked, in the order given to record().
    const Node& node;  ///< The node running (for should_compute_output(i)).
    bool needs(std::size_t input) const { return node.should_compute_output(input); }  ///< Input's gradient needed?
};

/// Gradients of the inputs from the gradients of the outputs, with differentiable tensor
/// operations (an undefined result: no gradient for that input).
using BackwardFormula = std::function<tensor_list(const tensor_list& grads, const BackwardContext& ctx)>;

/// What a forward-mode (JVP) formula sees: the operation's primal inputs and outputs. The
/// outputs are aliases with the outputs' history but no tangent (so that a tangent
/// computed from its own primal forms no reference cycle); while the formula runs, no
/// tensor has a tangent (forward_ad.hpp).
struct ForwardContext {
    const tensor_list& inputs;  ///< The primal inputs.
    const tensor_list& outputs;  ///< The primal outputs (without tangents).
};

/// Tangents of the outputs from the tangents of the inputs (`tangents[i]` undefined: input
/// i has none, i.e. zero), written with differentiable tensor operations like a backward
/// formula; an undefined result means no tangent. A result may have a shape that
/// broadcasts to its output's, and a real dtype for a complex output.
using JvpFormula = std::function<tensor_list(const tensor_list& tangents, const ForwardContext& ctx)>;

}  // namespace gradc::autograd
