// A fused operation's forward pass: checking the inputs, running the kernel's value
// program over the broadcast points, and recording the backward node.
#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gradc/autograd/function.hpp>
#include <gradc/autograd/grad_mode.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>
#include <gradc/error.hpp>
#include <gradc/fused/block_programs.hpp>

#include "../autograd/internal.hpp"
#include "fused_internal.hpp"
#include "strided_blocks.hpp"

namespace gradc::autograd::fusion {

namespace {

/// A recorded node keeps its operation's name as a string_view (function.hpp); the names
/// of fused kernels live here for the program's lifetime (one per distinct name).
std::string_view interned(std::string_view name) {
    static std::mutex lock;
    static std::set<std::string, std::less<>> names;
    std::lock_guard<std::mutex> guard(lock);
    return *names.emplace(name).first;
}

void check_inputs(const block_programs& p, const tensor_list& inputs) {
    const std::string op = operation_text(p);
    if (inputs.size() != p.arity())
        throw Error("gradc: " + op + ": got " + std::to_string(inputs.size()) + " tensors, expected " +
                    std::to_string(p.arity()) + " (one per variable of the kernel)");
    for (std::size_t v = 0; v < inputs.size(); ++v) {
        const Tensor& t = inputs[v];
        if (!t.defined()) throw Error("gradc: " + op + ": argument " + std::to_string(v) + " is an undefined tensor");
        if (t.dtype() != kFloat32 && t.dtype() != kFloat64)
            throw Error("gradc: " + op + ": argument " + std::to_string(v) + " is " + gradc::detail::describe(t) +
                        ", expected a Float or Double tensor (a fused kernel runs on real floating-point lanes)");
    }
}

Shape broadcast_all(const block_programs& p, const tensor_list& inputs) {
    const std::string op = operation_text(p);
    Shape sizes = inputs[0].sizes();
    for (std::size_t v = 1; v < inputs.size(); ++v) sizes = broadcast_shapes(sizes, inputs[v].sizes(), op.c_str());
    return sizes;
}

/// PyTorch's promotion among floating dtypes: tensors with dimensions decide; without
/// them, 0-dim tensors; without those, wrapped numbers. Float only if every operand of
/// the deciding class is Float.
ScalarType result_dtype(const tensor_list& inputs) {
    const auto rank = [](const Tensor& t) { return t.dim() > 0 ? 2 : t.unsafeGetTensorImpl()->wrapped_number ? 0 : 1; };
    int top = 0;
    for (const Tensor& t : inputs) top = std::max(top, rank(t));
    for (const Tensor& t : inputs)
        if (rank(t) == top && t.dtype() == kFloat64) return kFloat64;
    return kFloat32;
}

/// Whether a derivative computed from `tensors` must record a graph (with grad mode on).
bool any_requires_grad(const tensor_list& tensors) {
    for (const Tensor& t : tensors)
        if (t.defined() && t.requires_grad()) return true;
    return false;
}

/// The gradients of the wrt inputs: by the batch adjoint program, or recorded when they
/// must be differentiable (a graph is being built and something in it requires grad).
tensor_list backward(const block_programs& p, const tensor_list& grads, const BackwardContext& ctx, const geometry& g) {
    const tensor_list inputs = ctx.saved.to_list();
    std::vector<bool> needed(p.wrt_variables().size());
    bool any = false;
    for (std::size_t j = 0; j < needed.size(); ++j) {
        needed[j] = ctx.node.task_should_compute_output(j);
        any = any || needed[j];
    }
    if (!any) return tensor_list(needed.size());
    const bool differentiable = GradMode::is_enabled() && (any_requires_grad(inputs) || any_requires_grad(grads));
    return differentiable ? recorded_vjp(p, inputs, grads, needed) : batch_vjp(p, inputs, grads, needed, g);
}

tensor_list tangents_of(const block_programs& p, const tensor_list& inputs, const tensor_list& tangents,
                        const geometry& g) {
    const bool differentiable = GradMode::is_enabled() && (any_requires_grad(inputs) || any_requires_grad(tangents));
    return differentiable ? recorded_jvp(p, inputs, tangents, g) : batch_jvp(p, inputs, tangents, g);
}

}  // namespace

std::string operation_text(const block_programs& p) { return "fuse(" + std::string(p.name()) + ")"; }

tensor_list call(const std::shared_ptr<const block_programs>& programs, const tensor_list& inputs) {
    const block_programs& p = *programs;
    check_inputs(p, inputs);
    geometry g;
    g.sizes = broadcast_all(p, inputs);
    g.dtype = result_dtype(inputs);
    g.points = 1;
    for (std::int64_t s : g.sizes) g.points *= s;
    tensor_list outputs = forward_values(p, inputs, g);

    tensor_list wrt_inputs;
    for (std::size_t v : p.wrt_variables()) wrt_inputs.push_back(inputs[v]);
    // The backward formula captures no tensor: the inputs are saved (version-checked),
    // all of them, since the adjoint program reads the non-differentiable ones too.
    record(interned(p.name()), wrt_inputs, outputs, inputs,
           [programs, g](const tensor_list& grads, const BackwardContext& ctx) { return backward(*programs, grads, ctx, g); },
           // Runs inside record(): `inputs` is alive.
           [&p, &inputs, &g](const tensor_list& tangents, const ForwardContext&) { return tangents_of(p, inputs, tangents, g); });
    return outputs;
}

tensor_list forward_values(const block_programs& p, const tensor_list& inputs, const geometry& g) {
    const std::size_t n_in = inputs.size(), m_out = p.output_count();
    tensor_list outputs;
    for (std::size_t m = 0; m < m_out; ++m) outputs.push_back(uninitialized_tensor(g.sizes, g.dtype));
    std::vector<strided_operand> ops;
    for (const Tensor& t : inputs) ops.push_back(strided_operand::of(t, g.sizes));
    const auto run = [&](auto lane) {
        using T = decltype(lane);
        std::vector<T*> out(m_out);
        for (std::size_t m = 0; m < m_out; ++m) out[m] = static_cast<T*>(outputs[m].raw_data());
        for_each_chunk_of(0, g.points, [&](std::int64_t begin, std::int64_t end) {
            std::vector<T> buffer(n_in * block_points);
            std::vector<const T*> in(n_in);
            std::vector<T*> at(m_out);
            for (std::int64_t s = begin; s < end; s += std::int64_t(block_points)) {
                const std::int64_t count = std::min<std::int64_t>(block_points, end - s);
                for (std::size_t v = 0; v < n_in; ++v) in[v] = gather(ops[v], g.sizes, s, count, buffer.data() + v * block_points);
                for (std::size_t m = 0; m < m_out; ++m) at[m] = out[m] + s;
                p.value(static_cast<std::size_t>(count), in.data(), at.data());
            }
        });
    };
    if (g.dtype == kFloat64) run(double{}); else run(float{});
    return outputs;
}

}  // namespace gradc::autograd::fusion
