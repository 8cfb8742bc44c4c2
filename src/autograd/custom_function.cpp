// Custom functions (custom_function.hpp): the context a user's forward and backward share,
// the node that runs the user's backward, and the wrapping of forward's outputs.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/custom_function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "internal.hpp"

namespace gradc::autograd {

namespace {

bool contains(const std::vector<const TensorImpl*>& list, const Tensor& t) {
    return t.defined() && std::find(list.begin(), list.end(), t.unsafeGetTensorImpl()) != list.end();
}

bool same_impl(const tensor_list& list, const Tensor& t) {
    if (!t.defined()) return false;
    for (const auto& x : list)
        if (x.is_same(t)) return true;
    return false;
}

// The gradient of a once-differentiable function's backward: differentiating it again
// reaches this node, which refuses (PyTorch's DelayedError).
class DelayedError : public Node {
public:
    explicit DelayedError(std::string msg) : msg_(std::move(msg)) {}
    std::string name() const override { return "DelayedError"; }
    tensor_list apply(tensor_list&&) override { throw Error(msg_); }

private:
    std::string msg_;
};

// While backward runs: needs_input_grad (one flag per edge) narrowed to what the running
// pass computes (an input autograd::grad was not asked for needs no gradient), restored
// afterwards.
class NarrowNeedsToTask {
public:
    NarrowNeedsToTask(std::vector<bool>& needs, const Node& node) : needs_(needs), recorded_(needs) {
        for (std::size_t edge = 0; edge < needs.size(); ++edge)
            needs_[edge] = recorded_[edge] && node.task_should_compute_output(edge);
    }
    ~NarrowNeedsToTask() { needs_ = std::move(recorded_); }
    NarrowNeedsToTask(const NarrowNeedsToTask&) = delete;
    NarrowNeedsToTask& operator=(const NarrowNeedsToTask&) = delete;

private:
    std::vector<bool>& needs_;
    std::vector<bool> recorded_;
};

}  // namespace

void AutogradContext::save_for_backward(tensor_list to_save) {
    to_save_ = std::move(to_save);
    saved_called_ = true;
}

tensor_list AutogradContext::get_saved_variables() const {
    auto node = node_.lock();
    if (!node) return to_save_;  // forward without recording
    tensor_list out;
    out.reserve(saved_.size());
    for (const auto& s : saved_) out.push_back(s.unpack(node));
    return out;
}

void AutogradContext::mark_dirty(const tensor_list& inputs) {
    dirty_.clear();  // the last call counts, as in LibTorch; each tensor once (one version bump)
    for (const auto& t : inputs)
        if (t.defined() && !contains(dirty_, t)) dirty_.push_back(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const tensor_list& outputs) {
    for (const auto& t : outputs)
        if (t.defined()) non_differentiable_.push_back(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(std::size_t index) const {
    return index < needs_input_grad_.size() && needs_input_grad_[index];
}

bool AutogradContext::needs_input_grad(std::initializer_list<IndexRange> ranges) const {
    for (const auto& [first, last] : ranges)
        for (std::size_t i = first; i < last; ++i)
            if (needs_input_grad(i)) return true;
    return false;
}

CustomNodeBase::CustomNodeBase(std::string name, std::vector<bool> is_tensor_arg, bool once_differentiable)
    : name_(std::move(name)), is_tensor_arg_(std::move(is_tensor_arg)), once_differentiable_(once_differentiable) {}

CustomNodeBase::~CustomNodeBase() {
    begin_release();
    for (auto& s : ctx_.saved_) s.defer_release();
    for (auto& t : ctx_.to_save_) defer_release(t.impl());
    ctx_.to_save_.clear();
}

tensor_list CustomNodeBase::apply(tensor_list&& grad_outputs) {
    if (ctx_.materialize_grads_)
        for (std::size_t i = 0; i < grad_outputs.size(); ++i)
            if (!grad_outputs[i].defined())
                grad_outputs[i] = zeros(input_metadata_[i].sizes, dtype(input_metadata_[i].dtype));
    // With create_graph, the gradients of a once-differentiable function get a history that
    // refuses differentiation (reaching both the function's inputs and any differentiable
    // grad_outputs), so that double backward fails with a clear error. PyTorch only does
    // this when a grad_output requires grad.
    const bool delayed_error = once_differentiable_ && GradMode::is_enabled();
    NarrowNeedsToTask narrowed(ctx_.needs_input_grad_, *this);
    tensor_list grads;
    if (once_differentiable_) {
        // Recorded differentiated inputs of a DelayedError instead of this backward's history.
        tensor_list kept = delayed_error ? grad_outputs : tensor_list{};
        {
            AutoGradMode no_grad(false);
            grads = call_backward(&ctx_, std::move(grad_outputs));
        }
        if (delayed_error) {
            auto err = std::make_shared<DelayedError>(
                "gradc: trying to differentiate twice the custom function " + name_ +
                ", which is declared once_differentiable (static constexpr bool once_differentiable = true); its "
                "backward cannot be differentiated. Remove the declaration and write backward with "
                "differentiable operations to allow double backward.");
            for (const auto& e : next_edges_)
                if (e.is_valid()) err->mutable_next_edges().push_back(e);
            for (const auto& g : kept)
                if (g.defined() && g.requires_grad()) err->mutable_next_edges().push_back(gradient_edge(g));
            for (auto& g : grads) {
                if (!g.defined()) continue;
                g = g.detach();
                std::uint32_t nr = err->add_input_metadata(g);
                set_history(g, err, nr);
            }
        }
    } else {
        grads = call_backward(&ctx_, std::move(grad_outputs));
    }
    CustomFunctionCall::drop_extra_undefined(grads, is_tensor_arg_.size());
    if (grads.size() != is_tensor_arg_.size())
        throw Error("gradc: function " + name_ + " returned an incorrect number of gradients (expected " +
                    std::to_string(is_tensor_arg_.size()) + ", got " + std::to_string(grads.size()) +
                    "): backward must return one gradient per forward argument after ctx, an undefined Tensor "
                    "for arguments without a gradient");
    tensor_list result;
    result.reserve(next_edges_.size());
    for (std::size_t i = 0; i < grads.size(); ++i) {
        if (!is_tensor_arg_[i]) {
            if (grads[i].defined())
                throw Error("gradc: function " + name_ + " returned a gradient different than an undefined Tensor at "
                            "position " + std::to_string(i) + ", but the corresponding forward argument was not a Tensor");
            continue;
        }
        const std::size_t edge = result.size();
        result.push_back(should_compute_output(edge) ? std::move(grads[i]) : Tensor());
    }
    return result;
}

std::vector<std::pair<std::string, SavedVariable*>> CustomNodeBase::saved_variable_entries() {
    std::vector<std::pair<std::string, SavedVariable*>> out;
    for (std::size_t i = 0; i < ctx_.saved_.size(); ++i)
        if (ctx_.saved_[i].defined()) out.emplace_back("saved" + std::to_string(i), &ctx_.saved_[i]);
    return out;
}

void CustomNodeBase::release_variables() {
    for (auto& s : ctx_.saved_) s.reset_data();
}

void CustomFunctionCall::drop_extra_undefined(tensor_list& grads, std::size_t expected) {
    for (std::size_t i = expected; i < grads.size(); ++i)
        if (grads[i].defined()) return;
    if (grads.size() > expected) grads.resize(expected);
}

std::string CustomFunctionCall::short_name(const char* mangled) {
    int status = 0;
    char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string name = (status == 0 && d) ? d : mangled;
    std::free(d);
    if (name.find('<') == std::string::npos)
        if (auto pos = name.rfind("::"); pos != std::string::npos) name = name.substr(pos + 2);
    return name;
}

void CustomFunctionCall::prepare(const std::shared_ptr<CustomNodeBase>& node, AutogradContext* ctx,
                                 const tensor_list& inputs, bool record) {
    if (!record || !node) return;
    ctx->node_ = node;
    auto& edges = node->mutable_next_edges();
    for (const auto& in : inputs) {
        check_not_inference(in, node->name());
        edges.push_back(gradient_edge(in));
    }
    for (const auto& e : edges) ctx->needs_input_grad_.push_back(e.is_valid());
}

tensor_list CustomFunctionCall::wrap_outputs(const std::shared_ptr<CustomNodeBase>& node, AutogradContext* ctx,
                                             const tensor_list& inputs, tensor_list outputs) {
    if (node) {
        const std::string& fname = node->name_;
        for (const TensorImpl* d : ctx->dirty_) {
            bool is_input = false, is_output = false;
            for (const auto& in : inputs) is_input = is_input || in.unsafeGetTensorImpl() == d;
            for (const auto& o : outputs) is_output = is_output || o.unsafeGetTensorImpl() == d;
            if (!is_input)
                throw Error("gradc: " + fname + ": mark_dirty() was given a tensor that is not an input of forward; "
                            "only inputs modified in place can be marked dirty");
            if (!is_output)
                throw Error("gradc: " + fname + ": some tensors marked dirty in forward were not returned as "
                            "outputs; forward must return the tensors it modified in place");
        }
    }
    // Marking a tensor dirty is a write to it, whatever forward did to its storage (a raw
    // write through data_ptr bumps nothing): tensors saved earlier must see a new version,
    // recorded or not, as LibTorch's get_and_bump_dirty does.
    for (const TensorImpl* d : ctx->dirty_) d->version->bump();
    if (!node) return outputs;
    const std::string& fname = node->name_;
    const tensor_list original = outputs;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        Tensor& out = outputs[i];
        if (!out.defined()) {
            node->input_metadata_.push_back(InputMetadata{});
            continue;
        }
        const bool differentiable = is_differentiable_type(out.dtype()) && !contains(ctx->non_differentiable_, out);
        const auto nr = static_cast<std::uint32_t>(i);
        if (contains(ctx->dirty_, out)) {
            if (out.is_leaf() && out.requires_grad() && !out.is_view())
                throw Error("gradc: " + fname + ": a leaf Variable that requires grad has been used in an in-place operation. Got " +
                            gradc::detail::describe(out) + ", marked dirty (modified in place) by a custom function; "
                            "operate on a clone()");
            node->add_input_metadata(out);
            if (!differentiable) continue;
            if (out.is_view()) {
                const Tensor& base = out._base();
                if (base.is_leaf() && base.requires_grad())
                    throw Error("gradc: " + fname + ": a view of a leaf Variable that requires grad has been used in an in-place "
                                "operation. Got a view of " + gradc::detail::describe(base) +
                                ", marked dirty (modified in place) by a custom function; operate on a clone()");
                Tensor result = out.detach();
                set_history(result, node, nr);
                AutoGradMode enable(true);
                gradc::detail::rebase_view_history(out, result);
            } else {
                set_history(out, node, nr);
            }
            continue;
        }
        if (same_impl(inputs, out)) out = out.detach();  // an input returned unchanged: a new alias
        node->add_input_metadata(out);
        if (differentiable) set_history(out, node, nr);
    }
    for (const auto& s : ctx->to_save_) {
        const bool is_output = same_impl(original, s) && !(same_impl(inputs, s) && !contains(ctx->dirty_, s));
        ctx->saved_.emplace_back(s, is_output && s.grad_fn() == node);
        int which = -1;
        for (std::size_t o = 0; o < original.size() && is_output && s.grad_fn() == node; ++o)
            if (original[o].is_same(s)) which = static_cast<int>(o);
        ctx->saved_output_.push_back(which);
    }
    ctx->to_save_.clear();
    return outputs;
}

}  // namespace gradc::autograd
