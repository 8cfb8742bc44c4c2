// A fused operation's forward-mode derivative: the outputs' tangents from the tangents of
// its differentiable inputs, by the kernel's batch tangent program, or recorded with the
// dynamic mode's operations when the tangent must itself be differentiable.
#include <algorithm>
#include <vector>

#include <gradc/autograd/creation.hpp>
#include <gradc/autograd/elementwise.hpp>
#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/tensor_impl.hpp>
#include <gradc/autograd/view.hpp>

#include "fused_internal.hpp"
#include "strided_blocks.hpp"

namespace gradc::autograd::fusion {

tensor_list batch_jvp(const block_programs& p, const tensor_list& inputs, const tensor_list& tangents, const geometry& g) {
    const std::size_t n_in = inputs.size(), m_out = p.output_count(), w = tangents.size();
    tensor_list result;
    for (std::size_t m = 0; m < m_out; ++m) result.push_back(uninitialized_tensor(g.sizes, g.dtype));
    std::vector<strided_operand> ops, dx;
    for (const Tensor& t : inputs) ops.push_back(strided_operand::of(t, g.sizes));
    for (const Tensor& t : tangents) dx.push_back(t.defined() ? strided_operand::of(t, g.sizes) : strided_operand{});
    const auto run = [&](auto lane) {
        using T = decltype(lane);
        std::vector<T*> out(m_out);
        for (std::size_t m = 0; m < m_out; ++m) out[m] = static_cast<T*>(result[m].raw_data());
        for_each_chunk_of(0, g.points, [&](std::int64_t begin, std::int64_t end) {
            // A missing tangent is zero: one block of zeros stands for it.
            std::vector<T> buffer((n_in + w + 1) * block_points, T(0));
            T* const zeros_block = buffer.data() + (n_in + w) * block_points;
            std::vector<const T*> in(n_in), d(w);
            std::vector<T*> at(m_out);
            for (std::int64_t s = begin; s < end; s += std::int64_t(block_points)) {
                const std::int64_t count = std::min<std::int64_t>(block_points, end - s);
                for (std::size_t v = 0; v < n_in; ++v) in[v] = gather(ops[v], g.sizes, s, count, buffer.data() + v * block_points);
                for (std::size_t j = 0; j < w; ++j)
                    d[j] = tangents[j].defined() ? gather(dx[j], g.sizes, s, count, buffer.data() + (n_in + j) * block_points)
                                                 : zeros_block;
                for (std::size_t m = 0; m < m_out; ++m) at[m] = out[m] + s;
                p.jvp(static_cast<std::size_t>(count), in.data(), d.data(), at.data());
            }
        });
    };
    if (g.dtype == kFloat64) run(double{}); else run(float{});
    return result;
}

tensor_list recorded_jvp(const block_programs& p, const tensor_list& inputs, const tensor_list& tangents,
                         const geometry& g) {
    const auto wrt = p.wrt_variables();
    // Each output's partial derivatives by each input with a tangent, as tensors of the
    // broadcast shape (the outputs are elementwise: a reverse pass with weights 1
    // gives them, taken with respect to each input expanded to the broadcast shape), then
    // tangent_m = Σⱼ ∂f_m/∂x_j · dx_j, all recorded.
    tensor_list leaves = inputs, targets;
    std::vector<std::size_t> with_tangent;
    for (std::size_t j = 0; j < wrt.size(); ++j) {
        if (!tangents[j].defined()) continue;
        Tensor& x = leaves[wrt[j]];
        x = (x.requires_grad() ? x : x.detach().requires_grad_()).expand(g.sizes);
        targets.push_back(x);
        with_tangent.push_back(j);
    }
    const tensor_list outputs = p.record(leaves);
    tensor_list result(outputs.size());
    if (targets.empty()) return result;
    const Tensor ones_block = ones(g.sizes, TensorOptions().dtype(g.dtype));
    for (std::size_t m = 0; m < outputs.size(); ++m) {
        if (!outputs[m].requires_grad()) continue;
        const tensor_list partials = grad({outputs[m]}, targets, {ones_block.to(outputs[m].dtype())}, /*retain_graph=*/true,
                                          /*create_graph=*/true, /*allow_unused=*/true);
        Tensor sum;
        for (std::size_t k = 0; k < targets.size(); ++k) {
            if (!partials[k].defined()) continue;
            const Tensor term = partials[k] * tangents[with_tangent[k]];
            sum = sum.defined() ? sum + term : term;
        }
        result[m] = sum;
    }
    return result;
}

}  // namespace gradc::autograd::fusion
