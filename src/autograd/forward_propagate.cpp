// How recorded operations give their outputs tangents: the operation's JVP formula, or
// its backward formula transposed (the fallback, docs/dynamic.md "Forward-mode AD").
#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/forward_ad.hpp>
#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/reduction.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "forward_grad.hpp"
#include "internal.hpp"

namespace gradc::autograd::forward_ad::detail {

namespace {

// `tangent` shaped and typed like output `o`: a JVP formula may return a tangent that
// broadcasts to the output (a + b with a tangent for b only) or is real for a complex
// output; a complex tangent for a real output is a bug in the formula.
Tensor fit(std::string_view op, std::size_t o, const Tensor& tangent, const Tensor& out) {
    Tensor t = tangent;
    if (t.is_complex() && !out.is_complex())
        throw Error("gradc: internal error: the JVP of " + std::string(op) + " gave the real output " + std::to_string(o) +
                    " a complex tangent " + gradc::detail::describe(t));
    if (t.sizes() != out.sizes()) {
        if (broadcast_shapes(t.sizes(), out.sizes(), std::string(op).c_str()) != out.sizes())
            throw Error("gradc: internal error: the JVP of " + std::string(op) + " gave output " + std::to_string(o) + " " +
                        gradc::detail::describe(out) + " a tangent of shape " + shape_string(t.sizes()));
        t = expand(t, out.sizes());
    }
    if (t.dtype() != out.dtype()) t = t.to(out.dtype());
    return t;
}

// The node a backward formula consults for ctx.needs(i): input i is needed when it has a
// tangent. Its edges point at a node that is never run.
class NeedsNode final : public Node {
public:
    NeedsNode(const std::vector<bool>& needed, const std::shared_ptr<Node>& sink) {
        for (bool n : needed) next_edges_.push_back(n ? Edge{sink, 0} : Edge{});
    }
    std::string name() const override { return "JvpFallback"; }
    tensor_list apply(tensor_list&&) override { throw Error("gradc: internal error: JvpFallback node run"); }
};

const std::shared_ptr<Node>& sink() {
    static const std::shared_ptr<Node> s = std::make_shared<NeedsNode>(std::vector<bool>{}, nullptr);
    return s;
}

bool is_view_op(const tensor_list& inputs, const tensor_list& outputs) {
    for (const auto& o : outputs)
        for (const auto& i : inputs)
            if (o.defined() && i.defined() && o.unsafeGetTensorImpl()->storage == i.unsafeGetTensorImpl()->storage) return true;
    return false;
}

bool any_requires_grad(const tensor_list& tensors) {
    for (const auto& t : tensors)
        if (t.defined() && t.requires_grad()) return true;
    return false;
}

}  // namespace

tensor_list jvp_by_transposition(std::string_view op, const tensor_list& inputs, const tensor_list& outputs,
                                 const tensor_list& tangents, const Vjp& vjp) {
    // The result must be differentiable when the primal computation is (reverse over
    // forward) or the tangents are.
    const bool graph = GradMode::is_enabled() && (any_requires_grad(inputs) || any_requires_grad(tangents));
    AutoGradMode enable(true);
    tensor_list g(outputs.size()), leaves;
    std::vector<std::size_t> which;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!outputs[o].defined()) continue;
        g[o] = zeros(outputs[o].sizes(), dtype(outputs[o].dtype()));
        if (!is_differentiable_type(outputs[o].dtype())) continue;
        g[o].requires_grad_(true);
        leaves.push_back(g[o]);
        which.push_back(o);
    }
    std::vector<bool> needed(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) needed[i] = i < tangents.size() && tangents[i].defined();
    const tensor_list b = vjp(g, needed);
    // s(g) = Σᵢ Re⟨vjp(g)ᵢ, uᵢ⟩ = Re⟨g, J·u⟩, whose gradient in g is J·u. A gradient of a
    // broadcast shape multiplies the tangent broadcast, which sums it back.
    Tensor s;
    for (std::size_t i = 0; i < b.size() && i < inputs.size(); ++i) {
        if (!needed[i] || !b[i].defined()) continue;
        Tensor term = sum(real(conj(b[i]) * tangents[i]));
        s = s.defined() ? s + term : term;
    }
    tensor_list out(outputs.size());
    if (!s.defined() || leaves.empty()) return out;
    if (!s.requires_grad())
        throw Error("gradc: forward-mode AD through " + std::string(op) +
                    ": it has no JVP formula, and its backward is not differentiable with respect to the output "
                    "gradients, so the JVP cannot be derived from it; give the operation a JVP formula.");
    const tensor_list r = grad({s}, leaves, {}, false, graph, true);
    for (std::size_t k = 0; k < which.size(); ++k) out[which[k]] = r[k];
    return out;
}

tensor_list output_tangents(std::string_view op, const tensor_list& inputs, const tensor_list& outputs,
                            const JvpFormula& jvp, const Vjp& vjp) {
    tensor_list tangents;
    tangents.reserve(inputs.size());
    for (const auto& in : inputs) tangents.push_back(tangent_of(in));
    IgnoreTangents hide;
    tensor_list result;
    // A view's tangent must be the same view of its input's tangent (in-place operations
    // rely on the aliasing), which a transposed backward cannot give: views keep their JVP.
    if (jvp && !(vjp && fallback_forced() && !is_view_op(inputs, outputs))) {
        tensor_list aliases;
        aliases.reserve(outputs.size());
        for (const auto& o : outputs) aliases.push_back(history_alias(o));
        result = jvp(tangents, ForwardContext{inputs, aliases});
    } else if (vjp) {
        result = jvp_by_transposition(op, inputs, outputs, tangents, vjp);
    }
    if (result.size() != outputs.size())
        throw Error("gradc: internal error: the JVP of " + std::string(op) + " returned " + std::to_string(result.size()) +
                    " tangents for " + std::to_string(outputs.size()) + " outputs");
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!result[o].defined()) continue;
        if (!outputs[o].defined() || !is_differentiable_type(outputs[o].dtype())) {
            result[o] = Tensor();
            continue;
        }
        result[o] = fit(op, o, result[o], outputs[o]);
        // A formula may return an input's tangent itself (a + c: tangent of a). Only a view
        // may share its tangent with its input; any other output gets its own, or an
        // in-place operation on it would change the input's tangent too.
        const auto& storage = result[o].unsafeGetTensorImpl()->storage;
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            if (!tangents[i].defined() || tangents[i].unsafeGetTensorImpl()->storage != storage) continue;
            if (inputs[i].unsafeGetTensorImpl()->storage != outputs[o].unsafeGetTensorImpl()->storage)
                result[o] = result[o].clone();
            break;
        }
    }
    return result;
}

BackwardFormula jvp_fallback(const BackwardFormula& formula, const JvpFormula& jvp) {
    return (jvp && !fallback_forced()) ? nullptr : formula;
}

void propagate_tangents(const std::shared_ptr<Node>& node, std::string_view op, const tensor_list& inputs,
                        const tensor_list& outputs, const tensor_list& saved, const BackwardFormula& fallback,
                        const JvpFormula& jvp) {
    Vjp vjp;
    if (fallback)
        vjp = [&](const tensor_list& g, const std::vector<bool>& needed) {
            // Saved outputs as aliases: a tangent whose graph held its own primal would own itself.
            tensor_list s = saved;
            for (auto& t : s)
                for (const auto& o : outputs)
                    if (t.defined() && t.is_same(o)) t = history_alias(o);
            NeedsNode needs(needed, sink());
            return fallback(g, BackwardContext{s, needs});
        };
    const tensor_list t = output_tangents(op, inputs, outputs, jvp, vjp);
    for (std::size_t o = 0; o < outputs.size(); ++o)
        if (t[o].defined()) set_tangent(outputs[o], t[o]);
    if (!node) return;
    // Backward unpacks saved outputs as new aliases: they take their tangent with them
    // (detached, for the same reason as the aliases above), for forward over reverse.
    auto& vars = static_cast<FormulaNode&>(*node).saved_variables();
    for (std::size_t k = 0; k < saved.size() && k < vars.size(); ++k) {
        if (!saved[k].defined()) continue;
        const Tensor tangent = tangent_of(saved[k]);
        if (!tangent.defined()) continue;
        bool is_output = false;
        for (const auto& o : outputs) is_output = is_output || saved[k].is_same(o);
        vars[k].set_forward_grad(is_output ? tangent.detach() : tangent, active_level());
    }
}

}  // namespace gradc::autograd::forward_ad::detail
