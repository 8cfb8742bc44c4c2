#pragma once
/// \file
/// How operations record themselves: `record(name, inputs, outputs, saved, formula)`
/// creates one `FormulaNode` whose backward is a formula written with differentiable
/// tensor operations (so that create_graph records it again). The formula receives the
/// gradients of the outputs and the unpacked saved tensors; it may capture shapes and
/// numbers but never tensors (captured tensors would escape the version checks and could
/// form cycles).

#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
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

/// The name of the backward node of an operation, as PyTorch spells it:
/// "log_softmax" -> "LogSoftmaxBackward".
std::string backward_node_name(std::string_view op_name);

/// A node whose backward is a formula over saved tensors.
class FormulaNode : public Node {
public:
    FormulaNode(std::string_view op_name, BackwardFormula formula);  ///< The node of operation `op_name`.
    ~FormulaNode() override;
    /// "Mul" → "MulBackward"; an op name given in lower case is capitalised ("sin" → "SinBackward").
    std::string name() const override;
    tensor_list apply(tensor_list&& grad_outputs) override;
    void release_variables() override;

    std::vector<SavedVariable>& saved_variables() { return saved_; }  ///< The saved tensors, packed.
    /// What each of saved_variables() is, which gives its name (Node::saved_names): input
    /// i ("self", "other", "inputN"), output o ("result", "resultN") or neither ("savedK").
    struct SavedRole {
        /// Neither, an input, an output.
        enum Kind : std::uint8_t { kOther, kInput, kOutput };
        Kind kind = kOther;  ///< What it is.
        std::uint32_t index = 0;  ///< Which input or output.
    };
    SmallVector<SavedRole, 3>& saved_roles() { return saved_roles_; }  ///< One per saved tensor.
    std::vector<std::pair<std::string, SavedVariable*>> saved_variable_entries() override;

private:
    std::string_view op_name_;
    BackwardFormula formula_;
    std::vector<SavedVariable> saved_;
    SmallVector<SavedRole, 3> saved_roles_;
};

/// True when an operation on `inputs` must be recorded: grad mode is on and one of them
/// requires grad.
bool compute_requires_grad(TensorRefs inputs);
/// The same, for pointers to the inputs.
bool compute_requires_grad(std::initializer_list<const Tensor*> inputs);

/// True when an operation on `inputs` has something to record: a backward node
/// (compute_requires_grad) or tangents of its outputs (a dual level is active and an
/// input has a tangent). Operations that skip record() for speed test this.
bool should_record(std::initializer_list<const Tensor*> inputs);

/// Records `outputs` as produced by the operation `op_name` from `inputs` when
/// `compute_requires_grad(inputs)`; `saved` are the tensors the formula will read (an
/// output among them is recognised and saved as an output). Returns the node, or null
/// when nothing was recorded. `op_name` must outlive the node (use a string literal).
/// When an input has a tangent (forward_ad.hpp), the outputs get theirs from `jvp`, or,
/// without one, from `formula` transposed (slower; see docs/dynamic.md).
std::shared_ptr<Node> record(std::string_view op_name, TensorRefs inputs, TensorRefs outputs, TensorRefs saved,
                             BackwardFormula formula, JvpFormula jvp = nullptr);

/// Single-output convenience: returns `output`, recorded.
Tensor record_single_output(std::string_view op_name, TensorRefs inputs, Tensor output, TensorRefs saved,
                            BackwardFormula formula, JvpFormula jvp = nullptr);

}  // namespace gradc::autograd

// Custom functions (Function<T>, AutogradContext) are part of the recording API.
#include <gradc/autograd/custom_function.hpp>
