// Recording operations into the backward graph.
#include <cctype>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

FormulaNode::FormulaNode(std::string_view op_name, BackwardFormula formula)
    : op_name_(op_name), formula_(std::move(formula)) {}

std::string FormulaNode::name() const {
    std::string n;
    bool upper = true;
    for (char c : op_name_) {
        if (c == '_') {
            upper = true;
            continue;
        }
        n += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return n + "Backward";
}

tensor_list FormulaNode::apply(tensor_list&& grad_outputs) {
    tensor_list saved;
    saved.reserve(saved_.size());
    auto self = shared_from_this();
    for (auto& s : saved_) saved.push_back(s.unpack(self));
    // Formulas may assume every output gradient is present.
    for (std::size_t i = 0; i < grad_outputs.size(); ++i)
        if (!grad_outputs[i].defined())
            grad_outputs[i] = zeros(input_metadata_[i].sizes, dtype(input_metadata_[i].dtype));
    tensor_list result = formula_(grad_outputs, BackwardContext{saved, *this});
    if (result.size() != next_edges_.size())
        throw Error("gradc: internal error: " + name() + " returned " + std::to_string(result.size()) +
                    " gradients for " + std::to_string(next_edges_.size()) + " inputs");
    return result;
}

void FormulaNode::release_variables() {
    for (auto& s : saved_) s.reset_data();
}

bool compute_requires_grad(const tensor_list& inputs) {
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

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, std::uint32_t output_nr) {
    auto& meta = t.unsafeGetTensorImpl()->meta();
    meta.grad_fn = fn;
    meta.output_nr = output_nr;
    if (!fn) meta.output_nr = 0;
}

void check_not_inference(const Tensor& t, std::string_view op_name) {
    if (t.defined() && t.is_inference())
        throw Error("gradc: " + std::string(op_name) + ": inference tensor " + detail::describe(t) +
                    " cannot be used in a computation recorded for autograd; make a clone() outside InferenceMode.");
}

std::shared_ptr<Node> record(std::string_view op_name, const tensor_list& inputs, const tensor_list& outputs,
                             const tensor_list& saved, BackwardFormula formula) {
    if (!compute_requires_grad(inputs)) return nullptr;
    auto node = std::make_shared<FormulaNode>(op_name, std::move(formula));
    auto& edges = node->mutable_next_edges();
    edges.reserve(inputs.size());
    for (const auto& in : inputs) edges.push_back(gradient_edge(in));
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        node->add_input_metadata(outputs[i]);
        if (is_differentiable_type(outputs[i].dtype())) set_history(outputs[i], node, static_cast<std::uint32_t>(i));
    }
    auto& sv = node->saved_variables();
    sv.reserve(saved.size());
    for (const auto& s : saved) {
        bool is_output = false;
        for (const auto& o : outputs) is_output = is_output || (s.defined() && s.is_same(o));
        sv.emplace_back(s, is_output);
    }
    return node;
}

Tensor record1(std::string_view op_name, const tensor_list& inputs, Tensor output, const tensor_list& saved,
               BackwardFormula formula) {
    record(op_name, inputs, {output}, saved, std::move(formula));
    return output;
}

}  // namespace gradc::autograd
