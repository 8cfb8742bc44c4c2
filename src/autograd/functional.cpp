// torch.autograd.functional on top of autograd::grad (and, for the forward-mode
// strategy, dual tensors).
#include <gradc/autograd/functional.hpp>

#include <string>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/indexing.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "functional_forward.hpp"

namespace gradc::autograd::functional {

namespace {

std::string index_text(const char* what, std::size_t i) { return std::string(what) + " " + std::to_string(i); }

/// Fresh leaves for `func`: detached copies of the handles, or — when the caller wants
/// derivatives of the result (create_graph) — differentiable aliases of inputs that
/// already require grad, so the result's graph reaches the caller's leaves.
tensor_list prepare_inputs(const tensor_list& inputs, bool create_graph, const char* op) {
    if (inputs.empty()) throw Error(std::string("gradc: ") + op + ": expected at least one input tensor, got none");
    tensor_list out;
    out.reserve(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& in = inputs[i];
        if (!in.defined()) throw Error(std::string("gradc: ") + op + ": " + index_text("input", i) + " is undefined");
        if (!is_differentiable_type(in.dtype()))
            throw Error(std::string("gradc: ") + op + ": " + index_text("input", i) + " has dtype " +
                        std::string(to_string(in.dtype())) + "; expected a floating-point or complex tensor");
        if (create_graph && in.requires_grad()) {
            AutoGradMode enable(true);
            out.push_back(in.view(in.sizes()));
        } else {
            out.push_back(in.detach());
            out.back().set_requires_grad(true);
        }
    }
    return out;
}

tensor_list call(const Function& func, const tensor_list& inputs, const char* op) {
    AutoGradMode enable(true);
    tensor_list outputs = func(inputs);
    if (outputs.empty()) throw Error(std::string("gradc: ") + op + ": the function returned no tensors; expected at least one");
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i].defined())
            throw Error(std::string("gradc: ") + op + ": " + index_text("output", i) + " of the function is undefined");
    return outputs;
}

void check_requires_grad(const tensor_list& outputs, bool strict, const char* op) {
    if (!strict) return;
    for (std::size_t i = 0; i < outputs.size(); ++i)
        if (!outputs[i].requires_grad())
            throw Error(std::string("gradc: ") + op + ": " + index_text("output", i) +
                        " of the function does not require grad; in strict mode the outputs must be computed "
                        "differentiably from the inputs");
}

/// autograd::grad restricted to the outputs that are part of a graph (a constant output
/// contributes nothing); an input no output depends on gets an undefined gradient.
tensor_list grad_of(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs,
                    bool create_graph, bool retain_graph = true) {
    tensor_list outs, gouts;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        if (!outputs[i].defined() || !outputs[i].requires_grad()) continue;
        outs.push_back(outputs[i]);
        gouts.push_back(grad_outputs.empty() ? ones_like(outputs[i]) : grad_outputs[i]);
    }
    if (outs.empty() || inputs.empty()) return tensor_list(inputs.size());
    AutoGradMode enable(true);
    return autograd::grad(outs, inputs, gouts, retain_graph, create_graph, /*allow_unused=*/true);
}

enum class Stage { vjp, double_back, back_trick };

/// Undefined gradients become zeros shaped like `refs`, or errors in strict mode.
tensor_list fill_in_zeros(tensor_list grads, const tensor_list& refs, bool strict, Stage stage, const char* op) {
    for (std::size_t i = 0; i < grads.size(); ++i) {
        if (grads[i].defined()) continue;
        if (strict) {
            switch (stage) {
                case Stage::vjp:
                    throw Error(std::string("gradc: ") + op + ": the output of the function is independent of " +
                                index_text("input", i) + "; not allowed in strict mode");
                case Stage::double_back:
                    throw Error(std::string("gradc: ") + op + ": the gradient of the function is independent of " +
                                index_text("input", i) + " (its Hessian w.r.t. it is zero); not allowed in strict mode");
                case Stage::back_trick:
                    throw Error(std::string("gradc: ") + op + ": " + index_text("output", i) +
                                " does not depend on the inputs through a differentiable path; not allowed in strict mode");
            }
        }
        grads[i] = zeros_like(refs[i]);
    }
    return grads;
}

tensor_list finish(tensor_list ts, bool create_graph) {
    if (!create_graph)
        for (auto& t : ts)
            if (t.defined()) t = t.detach();
    return ts;
}

void check_v(const tensor_list& v, const tensor_list& refs, const char* ref_name, const char* op) {
    if (v.size() != refs.size())
        throw Error(std::string("gradc: ") + op + ": v has " + std::to_string(v.size()) + " tensors; expected " +
                    std::to_string(refs.size()) + ", one per " + ref_name);
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].defined()) throw Error(std::string("gradc: ") + op + ": v[" + std::to_string(i) + "] is undefined");
        if (v[i].sizes() != refs[i].sizes())
            throw Error(std::string("gradc: ") + op + ": v[" + std::to_string(i) + "] has shape " +
                        shape_string(v[i].sizes()) + "; expected " + shape_string(refs[i].sizes()) + ", the shape of " +
                        ref_name + " " + std::to_string(i));
    }
}

/// v = 1 when `refs` is a single one-element tensor, as PyTorch allows.
tensor_list default_v(const tensor_list& refs, const char* ref_name, const char* op) {
    if (refs.size() != 1 || refs[0].numel() != 1)
        throw Error(std::string("gradc: ") + op + ": v may be omitted only for a single one-element " + ref_name +
                    "; got " + std::to_string(refs.size()) + " " + ref_name + "s" +
                    (refs.size() == 1 ? " of shape " + shape_string(refs[0].sizes()) : std::string()));
    return {ones_like(refs[0])};
}

/// `v` checked against `refs`, or the default v = 1 when it is omitted.
tensor_list resolve_v(const tensor_list& v, const tensor_list& refs, const char* ref_name, const char* op) {
    if (v.empty()) return default_v(refs, ref_name, op);
    check_v(v, refs, ref_name, op);
    return v;
}

/// Zero tensors shaped like `refs` that require grad: the dummy gradients the
/// double-backward trick differentiates with respect to.
tensor_list dummy_gradients(const tensor_list& refs) {
    tensor_list d;
    for (const auto& r : refs) {
        d.push_back(zeros_like(r));
        d.back().set_requires_grad(true);
    }
    return d;
}

Tensor single_scalar_output(const tensor_list& outputs, const char* op) {
    if (outputs.size() != 1 || outputs[0].numel() != 1)
        throw Error(std::string("gradc: ") + op + ": the function must return a single one-element tensor; got " +
                    std::to_string(outputs.size()) + " tensors" +
                    (outputs.size() == 1 ? " with shape " + shape_string(outputs[0].sizes()) : std::string()));
    return outputs[0];
}

/// func's single one-element output y at `x` and its gradient, built with create_graph so
/// that it can be differentiated again (zeros for inputs y does not depend on).
std::pair<Tensor, tensor_list> scalar_gradient(const Function& func, const tensor_list& x, const Options& o,
                                               const char* op) {
    Tensor y = single_scalar_output(call(func, x, op), op);
    check_requires_grad({y}, o.strict, op);
    tensor_list g = grad_of({y}, x, {}, /*create_graph=*/true);
    return {y, fill_in_zeros(std::move(g), x, o.strict, Stage::double_back, op)};
}

Shape concat(const Shape& a, const Shape& b) {
    Shape s = a;
    s.insert(s.end(), b.begin(), b.end());
    return s;
}

/// One reverse pass per output element: row k of J[i][·] is the gradient of
/// outputᵢ.flatten()[k].
std::vector<tensor_list> jacobian_reverse(const tensor_list& outputs, const tensor_list& inputs, const Options& o,
                                          const char* op) {
    std::vector<tensor_list> jac(outputs.size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& out = outputs[i];
        const std::int64_t rows = out.numel();
        std::vector<tensor_list> columns(inputs.size());
        const Tensor flat = out.requires_grad() ? out.reshape({-1}) : Tensor();
        for (std::int64_t k = 0; k < rows; ++k) {
            tensor_list g;
            if (flat.defined()) {
                Tensor one_hot = zeros({rows}, TensorOptions().dtype(out.dtype()));
                {
                    NoGradGuard no_grad;
                    one_hot.select(0, k).fill_(1.0);
                }
                g = grad_of({flat}, inputs, {one_hot}, o.create_graph);
            } else {
                g = tensor_list(inputs.size());
            }
            for (std::size_t j = 0; j < inputs.size(); ++j) {
                if (!g[j].defined()) {
                    if (o.strict)
                        throw Error(std::string("gradc: ") + op + ": " + index_text("output", i) +
                                    " of the function is independent of " + index_text("input", j) +
                                    "; not allowed in strict mode");
                    g[j] = zeros_like(inputs[j]);
                } else if (o.strict && o.create_graph && !g[j].requires_grad()) {
                    throw Error(std::string("gradc: ") + op + ": the Jacobian of " + index_text("output", i) +
                                " w.r.t. " + index_text("input", j) +
                                " does not depend on the inputs, so create_graph cannot make it differentiable; "
                                "not allowed in strict mode");
                }
                columns[j].push_back(g[j]);
            }
        }
        for (std::size_t j = 0; j < inputs.size(); ++j) {
            const Shape shape = concat(out.sizes(), inputs[j].sizes());
            jac[i].push_back(rows == 0 ? zeros(shape, TensorOptions().dtype(inputs[j].dtype()))
                                       : stack(columns[j], 0).view(shape));
        }
    }
    return jac;
}

std::vector<tensor_list> finish(std::vector<tensor_list> m, bool create_graph) {
    for (auto& row : m) row = finish(std::move(row), create_graph);
    return m;
}

}  // namespace

std::pair<tensor_list, tensor_list> vjp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        const Options& o) {
    const char* op = "vjp";
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list outputs = call(func, in, op);
    check_requires_grad(outputs, o.strict, op);
    tensor_list vs = resolve_v(v, outputs, "output", op);
    tensor_list g = grad_of(outputs, in, vs, o.create_graph);
    g = fill_in_zeros(std::move(g), in, o.strict, Stage::vjp, op);
    return {finish(outputs, o.create_graph), finish(std::move(g), o.create_graph)};
}

std::pair<tensor_list, tensor_list> jvp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                        const Options& o) {
    const char* op = "jvp";
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list vs = resolve_v(v, in, "input", op);
    tensor_list outputs = call(func, in, op);
    check_requires_grad(outputs, o.strict, op);
    // J·v is the derivative of vᵀ-contracted (Jᵀ·g) with respect to the dummy output
    // gradient g: the reverse pass is linear in g, and its transpose is J.
    tensor_list dummies = dummy_gradients(outputs);
    tensor_list grad_inputs = grad_of(outputs, in, dummies, /*create_graph=*/true);
    if (o.strict)
        for (std::size_t j = 0; j < grad_inputs.size(); ++j)
            if (!grad_inputs[j].defined() || !grad_inputs[j].requires_grad())
                throw Error("gradc: jvp: the gradient w.r.t. " + index_text("input", j) +
                            " does not depend on the output gradients, so J·v cannot be formed by the "
                            "double-backward trick; not allowed in strict mode");
    tensor_list used_grads, used_v;
    for (std::size_t j = 0; j < grad_inputs.size(); ++j) {
        if (!grad_inputs[j].defined()) continue;
        used_grads.push_back(grad_inputs[j]);
        used_v.push_back(vs[j]);
    }
    tensor_list result = grad_of(used_grads, dummies, used_v, o.create_graph);
    result = fill_in_zeros(std::move(result), outputs, o.strict, Stage::back_trick, op);
    return {finish(outputs, o.create_graph), finish(std::move(result), o.create_graph)};
}

std::vector<tensor_list> jacobian(const Function& func, const tensor_list& inputs, const Options& o) {
    const char* op = "jacobian";
    if (o.strategy == Strategy::forward_mode) {
        if (o.create_graph)
            throw Error("gradc: jacobian: strategy forward_mode does not support create_graph=true; use reverse_mode");
        if (o.strict)
            throw Error("gradc: jacobian: strategy forward_mode does not support strict=true; use reverse_mode");
        tensor_list in;
        for (const auto& t : inputs) in.push_back(t.detach());
        return detail::jacobian_forward(func, in, op);
    }
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list outputs = call(func, in, op);
    check_requires_grad(outputs, o.strict, op);
    return finish(jacobian_reverse(outputs, in, o, op), o.create_graph);
}

std::vector<tensor_list> hessian(const Function& func, const tensor_list& inputs, const Options& o) {
    const char* op = "hessian";
    // The Hessian is the Jacobian of the gradient; the inner gradient is always built with
    // create_graph so that the outer pass can differentiate it.
    auto gradient = [&](const tensor_list& x) -> tensor_list { return scalar_gradient(func, x, o, op).second; };
    if (o.strategy == Strategy::forward_mode) {
        if (o.create_graph || o.strict)
            throw Error("gradc: hessian: strategy forward_mode (forward-over-reverse) does not support "
                        "create_graph or strict; use reverse_mode");
        // The inner reverse pass needs leaves that require grad; their tangents then flow
        // through the backward formulas.
        return finish(detail::jacobian_forward(gradient, prepare_inputs(inputs, false, op), op), false);
    }
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list grads = gradient(in);
    return finish(jacobian_reverse(grads, in, o, op), o.create_graph);
}

std::pair<Tensor, tensor_list> vhp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                   const Options& o) {
    const char* op = "vhp";
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list vs = resolve_v(v, in, "input", op);
    auto [y, g] = scalar_gradient(func, in, o, op);
    tensor_list result = grad_of(g, in, vs, o.create_graph);
    result = fill_in_zeros(std::move(result), in, o.strict, Stage::double_back, op);
    return {finish({y}, o.create_graph)[0], finish(std::move(result), o.create_graph)};
}

std::pair<Tensor, tensor_list> hvp(const Function& func, const tensor_list& inputs, const tensor_list& v,
                                   const Options& o) {
    const char* op = "hvp";
    tensor_list in = prepare_inputs(inputs, o.create_graph, op);
    tensor_list vs = resolve_v(v, in, "input", op);
    auto [y, g] = scalar_gradient(func, in, o, op);
    // H·v as the transpose of v ↦ vᵀH: differentiate (Hᵀ·d) w.r.t. a dummy d.
    tensor_list dummies = dummy_gradients(in);
    tensor_list double_back = grad_of(g, in, dummies, /*create_graph=*/true);
    double_back = fill_in_zeros(std::move(double_back), in, o.strict, Stage::double_back, op);
    tensor_list result = grad_of(double_back, dummies, vs, o.create_graph);
    result = fill_in_zeros(std::move(result), in, o.strict, Stage::double_back, op);
    return {finish({y}, o.create_graph)[0], finish(std::move(result), o.create_graph)};
}

namespace {
Function lift(const TensorFunction& f) {
    return [f](const tensor_list& x) -> tensor_list { return {f(x[0])}; };
}
tensor_list maybe(const Tensor& v) { return v.defined() ? tensor_list{v} : tensor_list{}; }
}  // namespace

std::pair<Tensor, Tensor> vjp(const TensorFunction& func, const Tensor& input, const Tensor& v, const Options& o) {
    auto [out, r] = vjp(lift(func), {input}, maybe(v), o);
    return {out[0], r[0]};
}
std::pair<Tensor, Tensor> jvp(const TensorFunction& func, const Tensor& input, const Tensor& v, const Options& o) {
    auto [out, r] = jvp(lift(func), {input}, maybe(v), o);
    return {out[0], r[0]};
}
Tensor jacobian(const TensorFunction& func, const Tensor& input, const Options& o) {
    return jacobian(lift(func), {input}, o)[0][0];
}
Tensor hessian(const TensorFunction& func, const Tensor& input, const Options& o) {
    return hessian(lift(func), {input}, o)[0][0];
}
std::pair<Tensor, Tensor> vhp(const TensorFunction& func, const Tensor& input, const Tensor& v, const Options& o) {
    auto [out, r] = vhp(lift(func), {input}, maybe(v), o);
    return {out, r[0]};
}
std::pair<Tensor, Tensor> hvp(const TensorFunction& func, const Tensor& input, const Tensor& v, const Options& o) {
    auto [out, r] = hvp(lift(func), {input}, maybe(v), o);
    return {out, r[0]};
}

}  // namespace gradc::autograd::functional
