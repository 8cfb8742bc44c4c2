#pragma once
// The parts of a fused operation (fused/fuse.hpp), shared by its source files.

#include <cstdint>
#include <vector>

#include <gradc/autograd/tensor.hpp>
#include <gradc/fused/block_programs.hpp>
#include "../autograd/kernels/parallel.hpp"

namespace gradc::autograd::fusion {

/// Where a fused operation runs: the broadcast shape of its inputs, the lane type of the
/// kernel's programs (Float or Double: the promoted dtype of the inputs) and the number
/// of points.
struct geometry {
    Shape sizes;
    ScalarType dtype = kFloat64;
    std::int64_t points = 0;
};

/// Points per chunk when a fused operation runs on several threads; each chunk is
/// processed in blocks of `block_points` (kernel_programs.hpp).
inline constexpr std::int64_t points_per_chunk = 16384;
/// Chunks per round of a backward pass that sums gradients over broadcast dimensions
/// (fused_backward.cpp): the most threads such a pass keeps busy.
inline constexpr std::int64_t chunks_per_round = 8;

/// f(b, e) for the chunks of [begin, end), on gradc::get_num_threads() threads when there
/// are at least two (the dynamic kernels' split, kernels/parallel.hpp, with this grain).
template <class F>
void for_each_chunk_of(std::int64_t begin, std::int64_t end, F&& f) {
    kernels::parallel_ranges(
        end - begin, [&](std::int64_t b, std::int64_t e) { if (e > b) f(begin + b, begin + e); }, points_per_chunk);
}

/// "fuse(name)", for error messages.
std::string operation_text(const block_programs& p);

/// The outputs' values at every point (fused_forward.cpp).
tensor_list forward_values(const block_programs& p, const tensor_list& inputs, const geometry& g);

/// The gradients of the wrt inputs (one entry each, undefined where `needed` is false)
/// for the output gradients `grads`, by the batch adjoint program (fused_backward.cpp).
tensor_list batch_vjp(const block_programs& p, const tensor_list& inputs, const tensor_list& grads,
                      const std::vector<bool>& needed, const geometry& g);

/// The same, recorded with the dynamic mode's operations so that it can be differentiated
/// again (create_graph).
tensor_list recorded_vjp(const block_programs& p, const tensor_list& inputs, const tensor_list& grads,
                         const std::vector<bool>& needed);

/// The outputs' tangents for the wrt inputs' tangents (undefined: zero), by the batch
/// tangent program (fused_tangent.cpp).
tensor_list batch_jvp(const block_programs& p, const tensor_list& inputs, const tensor_list& tangents, const geometry& g);

/// The same, recorded with the dynamic mode's operations (a tangent that must itself be
/// differentiable).
tensor_list recorded_jvp(const block_programs& p, const tensor_list& inputs, const tensor_list& tangents,
                         const geometry& g);

}  // namespace gradc::autograd::fusion
