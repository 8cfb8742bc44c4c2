// Recording operations into the backward graph.
#include <cctype>
#include <mutex>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "forward_grad.hpp"
#include "internal.hpp"

namespace gradc::autograd {

FormulaNode::FormulaNode(std::string_view op_name, BackwardFormula formula)
    : op_name_(op_name), formula_(std::move(formula)) {}

FormulaNode::~FormulaNode() {
    begin_release();
    for (auto& s : saved_) s.defer_release();
}

std::string backward_node_name(std::string_view op_name) {
    std::string n;
    bool upper = true;
    for (char c : op_name) {
        if (c == '_') {
            upper = true;
            continue;
        }
        n += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return n + "Backward";
}

std::string FormulaNode::name() const { return backward_node_name(op_name_); }

tensor_list FormulaNode::apply(tensor_list&& grad_outputs) {
    SmallVector<Tensor, 3> saved;
    saved.reserve(saved_.size());
    auto self = shared_from_this();
    for (auto& s : saved_) saved.push_back(s.unpack(self));
    // Formulas may assume every output gradient is present.
    for (std::size_t i = 0; i < grad_outputs.size(); ++i)
        if (!grad_outputs[i].defined())
            grad_outputs[i] = zeros(input_metadata_[i].sizes, dtype(input_metadata_[i].dtype));
    tensor_list result = formula_(grad_outputs, BackwardContext{TensorRefs(saved.data(), saved.size()), *this});
    if (result.size() != next_edges_.size())
        throw Error("gradc: internal error: " + name() + " returned " + std::to_string(result.size()) +
                    " gradients for " + std::to_string(next_edges_.size()) + " inputs");
    return result;
}

std::vector<std::pair<std::string, SavedVariable*>> FormulaNode::saved_variable_entries() {
    std::vector<std::pair<std::string, SavedVariable*>> out;
    for (std::size_t i = 0; i < saved_.size(); ++i) {
        if (!saved_[i].defined()) continue;
        const auto [kind, k] = saved_roles_[i];
        // num_inputs(): the number of forward outputs; a single one is plainly "result".
        std::string name = kind == SavedRole::kOutput  ? (num_inputs() == 1 ? "result" : "result" + std::to_string(k))
                           : kind == SavedRole::kOther ? "saved" + std::to_string(k)
                           : k == 0                    ? "self"
                           : k == 1                    ? "other"
                                                       : "input" + std::to_string(k);
        out.emplace_back(std::move(name), &saved_[i]);
    }
    return out;
}

void FormulaNode::release_variables() {
    for (auto& s : saved_) s.reset_data();
}

bool compute_requires_grad(TensorRefs inputs) {
    if (!GradMode::is_enabled()) return false;
    for (const auto& t : inputs)
        if (t.defined() && t.requires_grad()) return true;
    return false;
}

bool compute_requires_grad(std::initializer_list<const Tensor*> inputs) {
    if (!GradMode::is_enabled()) return false;
    for (const auto* t : inputs)
        if (t->defined() && t->requires_grad()) return true;
    return false;
}

bool should_record(std::initializer_list<const Tensor*> inputs) {
    return compute_requires_grad(inputs) || forward_ad::detail::any_tangent(inputs);
}

tensor_list TensorRefs::to_list() const { return tensor_list(begin(), end()); }

namespace {

/// The backward node of an operation: its edges to the inputs' histories, the outputs'
/// history, and the saved tensors with their roles (an input's name, an output).
std::shared_ptr<Node> new_formula_node(std::string_view op_name, TensorRefs inputs, TensorRefs outputs,
                                       TensorRefs saved, BackwardFormula formula) {
    auto node = std::make_shared<FormulaNode>(op_name, std::move(formula));
    auto& edges = node->mutable_next_edges();
    edges.reserve(inputs.size());
    for (const auto& in : inputs) edges.push_back(gradient_edge(in));
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        node->add_input_metadata(outputs[i]);
        if (is_differentiable_type(outputs[i].dtype())) set_history(outputs[i], node, static_cast<std::uint32_t>(i));
    }
    auto& saved_variables = node->saved_variables();
    auto& roles = node->saved_roles();
    saved_variables.reserve(saved.size());
    using Role = FormulaNode::SavedRole;
    for (std::size_t k = 0; k < saved.size(); ++k) {
        const Tensor& s = saved[k];
        Role role{Role::kOther, static_cast<std::uint32_t>(k)};
        for (std::size_t o = 0; o < outputs.size() && s.defined(); ++o) {
            if (s.is_same(outputs[o])) {
                role = Role{Role::kOutput, static_cast<std::uint32_t>(o)};
                break;
            }
        }
        // Each input lends its name once: x saved twice for mul(x, x) is "self", then "other".
        for (std::size_t i = 0; i < inputs.size() && role.kind == Role::kOther && s.defined(); ++i) {
            if (!inputs[i].defined() || !s.is_same(inputs[i])) continue;
            bool named = false;
            for (const Role& r : roles) named = named || (r.kind == Role::kInput && r.index == i);
            if (!named) role = Role{Role::kInput, static_cast<std::uint32_t>(i)};
        }
        saved_variables.emplace_back(s, role.kind == Role::kOutput);
        roles.push_back(role);
    }
    return node;
}

}  // namespace

// The backward node first, then the forward-mode tangents (PyTorch's generated code
// does the same, in sequence): neither half calls the other.
std::shared_ptr<Node> record(std::string_view op_name, TensorRefs inputs, TensorRefs outputs, TensorRefs saved,
                             BackwardFormula formula, JvpFormula jvp) {
    const bool tangents = forward_ad::detail::any_tangent(inputs);
    const bool backward = compute_requires_grad(inputs);
    if (!tangents && !backward) return nullptr;
    // Kept before the node takes the formula: the JVP may fall back on it.
    BackwardFormula fallback = tangents ? forward_ad::detail::jvp_fallback(formula, jvp) : nullptr;
    std::shared_ptr<Node> node = backward ? new_formula_node(op_name, inputs, outputs, saved, std::move(formula)) : nullptr;
    if (tangents)
        forward_ad::detail::propagate_tangents(node, op_name, inputs.to_list(), outputs.to_list(), saved.to_list(),
                                               fallback, jvp);
    return node;
}

Tensor record_single_output(std::string_view op_name, TensorRefs inputs, Tensor output, TensorRefs saved,
                            BackwardFormula formula, JvpFormula jvp) {
    record(op_name, inputs, {output}, saved, std::move(formula), std::move(jvp));
    return output;
}

}  // namespace gradc::autograd
