#pragma once
/// \file
/// What the dynamic mode needs of a compiled kernel to run it as one operation of its
/// graph: the kernel's batch programs over a block of points held as structure of arrays,
/// for float and double lanes, and the same expression recorded with the dynamic mode's
/// operations (for the derivatives that must themselves be differentiable). The
/// interface is virtual so that the tensor side (src/fused/: broadcasting, strides,
/// threads, recording) is compiled once into the library, and only these few calls are
/// instantiated per kernel (kernel_programs.hpp). One virtual call per block of points
/// costs nothing next to the block.

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::fusion {

/// The most points one call of a block program is given (the tensor side gathers
/// strided and broadcast operands into blocks of this size).
inline constexpr std::size_t block_points = 512;

class block_programs {
public:
    virtual ~block_programs() = default;

    /// The kernel's shape: one input per variable, its outputs, and the variables its
    /// derivatives are taken by (the others are non-differentiable inputs).
    virtual std::size_t arity() const = 0;
    virtual std::size_t output_count() const = 0;
    virtual std::span<const std::size_t> wrt_variables() const = 0;
    /// The name of the operation (the backward node is this name + "Backward").
    virtual std::string_view name() const = 0;

    /// out[m][i] = output m at point i, for i < n; in[v] is variable v's block.
    virtual void value(std::size_t n, const double* const* in, double* const* out) const = 0;
    virtual void value(std::size_t n, const float* const* in, float* const* out) const = 0;
    /// grad[j][i] = Σₘ w[m][i]·∂(output m)/∂(wrt variable j) at point i.
    virtual void vjp(std::size_t n, const double* const* in, const double* const* w, double* const* grad) const = 0;
    virtual void vjp(std::size_t n, const float* const* in, const float* const* w, float* const* grad) const = 0;
    /// out[m][i] = Σⱼ ∂(output m)/∂(wrt variable j)·dx[j][i] at point i.
    virtual void jvp(std::size_t n, const double* const* in, const double* const* dx, double* const* out) const = 0;
    virtual void jvp(std::size_t n, const float* const* in, const float* const* dx, float* const* out) const = 0;

    /// The kernel's outputs computed from `inputs` (one tensor per variable) with the
    /// dynamic mode's operations, node by node, so that they record a graph; the
    /// differentiable derivatives (create_graph, forward over reverse) go through it.
    virtual tensor_list record(const tensor_list& inputs) const = 0;
};

/// The tensor side of every fused call (src/fused/): checks the inputs (count, dtype,
/// broadcasting), runs the value program over the broadcast points, and records the
/// backward node (named after `programs.name()`) and the outputs' tangents.
tensor_list call(const std::shared_ptr<const block_programs>& programs, const tensor_list& inputs);

}  // namespace gradc::autograd::fusion
