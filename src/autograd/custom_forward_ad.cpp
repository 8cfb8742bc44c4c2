// Forward-mode AD through custom functions (custom_function.hpp): the function's own
// jvp, or its backward transposed like the backward formula of a built-in operation
// without a JVP formula (forward_propagate.cpp).
#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/custom_function.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "forward_grad.hpp"

namespace gradc::autograd {

namespace fd = forward_ad::detail;

bool CustomFunctionCall::has_tangents(const tensor_list& inputs) { return fd::any_tangent(inputs); }

void CustomFunctionCall::forward_ad(const std::string& name, AutogradContext* ctx, const std::vector<bool>& is_tensor_arg,
                                    const tensor_list& inputs, const tensor_list& outputs, Formula jvp, Formula backward,
                                    bool once_differentiable) {
    if (!jvp && once_differentiable)
        throw Error("gradc: forward-mode AD through the custom function " + name +
                    ": it has no jvp and is declared once_differentiable, so its JVP cannot be derived from its "
                    "backward. Define static tensor_list jvp(AutogradContext* ctx, tensor_list tangents) returning "
                    "one tangent per output.");
    JvpFormula jvp_formula;
    if (jvp)
        jvp_formula = [&](const tensor_list& tangents, const ForwardContext&) {
            tensor_list per_arg(is_tensor_arg.size());
            for (std::size_t k = 0, j = 0; k < is_tensor_arg.size(); ++k) {
                if (!is_tensor_arg[k]) continue;
                const Tensor& x = inputs[j];
                Tensor t = tangents[j++];
                if (!t.defined() && ctx->materialize_grads_ && x.defined() && is_differentiable_type(x.dtype()))
                    t = zeros_like(x);
                per_arg[k] = std::move(t);
            }
            tensor_list r = jvp(ctx, std::move(per_arg));
            if (r.size() != outputs.size())
                throw Error("gradc: function " + name + ": jvp returned " + std::to_string(r.size()) +
                            " tangents; expected one per output of forward (" + std::to_string(outputs.size()) + ")");
            return r;
        };
    fd::Vjp vjp;
    if (!once_differentiable)
        vjp = [&](const tensor_list& grads, const std::vector<bool>& needed) {
            // backward consults needs_input_grad: the inputs with a tangent are needed.
            const std::vector<bool> previous = ctx->needs_input_grad_;
            ctx->needs_input_grad_ = needed;  // one flag per tensor input, as the edges
            tensor_list g;
            try {
                g = backward(ctx, grads);
            } catch (...) {
                ctx->needs_input_grad_ = previous;
                throw;
            }
            ctx->needs_input_grad_ = previous;
            CustomFunctionCall::drop_extra_undefined(g, is_tensor_arg.size());
            if (g.size() != is_tensor_arg.size())
                throw Error("gradc: function " + name + " returned an incorrect number of gradients (expected " +
                            std::to_string(is_tensor_arg.size()) + ", got " + std::to_string(g.size()) +
                            ") when forward mode transposed its backward (it has no jvp)");
            tensor_list per_input;
            for (std::size_t k = 0; k < g.size(); ++k)
                if (is_tensor_arg[k]) per_input.push_back(g[k]);
            return per_input;
        };
    const tensor_list tangents = fd::output_tangents(name, inputs, outputs, jvp_formula, vjp);
    auto listed = [](const std::vector<const TensorImpl*>& list, const Tensor& t) {
        for (const TensorImpl* p : list)
            if (p == t.unsafeGetTensorImpl()) return true;
        return false;
    };
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!outputs[o].defined() || listed(ctx->non_differentiable_, outputs[o])) continue;
        if (listed(ctx->dirty_, outputs[o]))
            fd::assign_inplace(outputs[o], tangents[o]);
        else if (tangents[o].defined())
            fd::set_tangent(outputs[o], tangents[o]);
    }
    // Saved outputs come back from backward as new aliases: give them their tangents
    // (detached: the tangent's graph may lead back to the node that saves it).
    for (std::size_t k = 0; k < ctx->saved_output_.size() && k < ctx->saved_.size(); ++k) {
        const int o = ctx->saved_output_[k];
        if (o < 0 || static_cast<std::size_t>(o) >= outputs.size()) continue;
        const Tensor t = fd::tangent_of(outputs[o]);
        if (t.defined()) ctx->saved_[k].set_forward_grad(t.detach(), fd::active_level());
    }
}

}  // namespace gradc::autograd
