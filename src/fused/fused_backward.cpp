// A fused operation's backward pass: the gradients of its differentiable inputs for the
// gradients of its outputs, by the kernel's batch adjoint program (one pass over the
// points, the output gradients as weights), or recorded with the dynamic mode's
// operations when they must themselves be differentiable.
#include <algorithm>
#include <vector>

#include <gradc/autograd/engine.hpp>
#include <gradc/autograd/tensor_impl.hpp>

#include "fused_internal.hpp"
#include "strided_blocks.hpp"

namespace gradc::autograd::fusion {

namespace {

/// Where the adjoint program writes the gradient of one wrt input.
struct gradient_target {
    enum kind { unused, direct, summed } how = unused;
    Tensor tensor;   // the gradient (input's shape, lane dtype): written or summed into
    Shape strides;   // summed: its strides along the broadcast shape
    std::size_t scratch = 0;  // summed: its array in the round's scratch
};

template <class T>
void run_vjp(const block_programs& p, const tensor_list& inputs, const tensor_list& grads,
             std::vector<gradient_target>& targets, std::size_t summed_count, const geometry& g) {
    const std::size_t n_in = inputs.size(), m_out = grads.size(), w = targets.size();
    std::vector<strided_operand> ops, weights;
    for (const Tensor& t : inputs) ops.push_back(strided_operand::of(t, g.sizes));
    for (const Tensor& t : grads) weights.push_back(strided_operand::of(t, g.sizes));
    // Gradients summed over broadcast dimensions go through a scratch array per round of
    // points (the chunks the threads run at once), then are summed in point order. The
    // rounds are cut by the number of points alone, so the sums are the same for any
    // number of threads. Nothing is allocated per point beyond the gradients themselves
    // (a round's scratch is 1 MiB per summed double gradient).
    const std::int64_t round = points_per_chunk * chunks_per_round;
    const std::int64_t round_size = std::min(round, g.points);
    std::vector<T> scratch(summed_count * static_cast<std::size_t>(round_size));
    for (std::int64_t r = 0; r < g.points; r += round) {
        const std::int64_t r_end = std::min(g.points, r + round);
        for_each_chunk_of(r, r_end, [&](std::int64_t begin, std::int64_t end) {
            std::vector<T> buffer((n_in + m_out + w) * block_points);
            T* const input_block = buffer.data();
            T* const weight_block = input_block + n_in * block_points;
            T* const unused_block = weight_block + m_out * block_points;
            std::vector<const T*> in(n_in), wt(m_out);
            std::vector<T*> out(w);
            for (std::int64_t s = begin; s < end; s += std::int64_t(block_points)) {
                const std::int64_t count = std::min<std::int64_t>(block_points, end - s);
                for (std::size_t v = 0; v < n_in; ++v) in[v] = gather(ops[v], g.sizes, s, count, input_block + v * block_points);
                for (std::size_t m = 0; m < m_out; ++m)
                    wt[m] = gather(weights[m], g.sizes, s, count, weight_block + m * block_points);
                for (std::size_t j = 0; j < w; ++j) {
                    const gradient_target& t = targets[j];
                    out[j] = t.how == gradient_target::direct   ? static_cast<T*>(t.tensor.raw_data()) + s
                             : t.how == gradient_target::summed ? scratch.data() + t.scratch * round_size + (s - r)
                                                                : unused_block + j * block_points;
                }
                p.vjp(static_cast<std::size_t>(count), in.data(), wt.data(), out.data());
            }
        });
        for (const gradient_target& t : targets)
            if (t.how == gradient_target::summed)
                scatter_add(static_cast<T*>(t.tensor.raw_data()), t.strides, g.sizes, r, r_end - r,
                            scratch.data() + t.scratch * round_size);
    }
}

}  // namespace

tensor_list batch_vjp(const block_programs& p, const tensor_list& inputs, const tensor_list& grads,
                      const std::vector<bool>& needed, const geometry& g) {
    const auto wrt = p.wrt_variables();
    std::vector<gradient_target> targets(wrt.size());
    std::size_t summed = 0;
    for (std::size_t j = 0; j < wrt.size(); ++j) {
        if (!needed[j]) continue;
        const Tensor& x = inputs[wrt[j]];
        gradient_target& t = targets[j];
        if (x.sizes() == g.sizes) {
            t.how = gradient_target::direct;
            t.tensor = uninitialized_tensor(g.sizes, g.dtype);
        } else {
            t.how = gradient_target::summed;
            t.tensor = zeroed_tensor(x.sizes(), g.dtype);  // zeros
            t.strides = summed_strides(x.sizes(), g.sizes);
            t.scratch = summed++;
        }
    }
    if (g.dtype == kFloat64) {
        run_vjp<double>(p, inputs, grads, targets, summed, g);
    } else {
        run_vjp<float>(p, inputs, grads, targets, summed, g);
    }
    tensor_list result(wrt.size());
    for (std::size_t j = 0; j < wrt.size(); ++j) {
        if (targets[j].how == gradient_target::unused) continue;
        const Tensor& x = inputs[wrt[j]];
        result[j] = x.dtype() == g.dtype ? targets[j].tensor : targets[j].tensor.to(x.dtype());
    }
    return result;
}

tensor_list recorded_vjp(const block_programs& p, const tensor_list& inputs, const tensor_list& grads,
                         const std::vector<bool>& needed) {
    const auto wrt = p.wrt_variables();
    // The gradient is taken with respect to a view of each needed input (its history
    // continues the graph being built; one view per argument, so that a tensor passed
    // twice gets each argument's share); an input that does not require grad is replaced
    // by a detached copy that does, so that the gradient exists as a tensor that depends
    // on the output gradients.
    tensor_list leaves = inputs, targets;
    std::vector<std::size_t> target_of(wrt.size(), wrt.size());
    for (std::size_t j = 0; j < wrt.size(); ++j) {
        if (!needed[j]) continue;
        Tensor& x = leaves[wrt[j]];
        x = x.requires_grad() ? x.expand(x.sizes()) : x.detach().requires_grad_();
        target_of[j] = targets.size();
        targets.push_back(x);
    }
    const tensor_list outputs = p.record(leaves);
    tensor_list used_outputs, used_grads;
    for (std::size_t m = 0; m < outputs.size(); ++m) {
        if (!outputs[m].requires_grad()) continue;  // depends on no differentiable input
        used_outputs.push_back(outputs[m]);
        used_grads.push_back(grads[m]);
    }
    tensor_list result(wrt.size());
    if (used_outputs.empty() || targets.empty()) return result;
    const tensor_list d = grad(used_outputs, targets, used_grads, /*retain_graph=*/true, /*create_graph=*/true,
                               /*allow_unused=*/true);
    for (std::size_t j = 0; j < wrt.size(); ++j)
        if (target_of[j] < targets.size()) result[j] = d[target_of[j]];
    return result;
}

}  // namespace gradc::autograd::fusion
