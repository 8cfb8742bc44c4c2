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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gradc/autograd/formula.hpp>
#include <gradc/autograd/node.hpp>
#include <gradc/autograd/saved_variable.hpp>
#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd {

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
