#pragma once
/// \file
/// A compiled static kernel as one operation of the dynamic graph:
///
///     auto [x, y] = gradc::variables<2>();
///     const auto k = gradc::compile(sin(x) * y + exp(x * y));
///     auto f = gradc::autograd::fuse(k);            // or fuse(k, "my_op"): the node's name
///     gradc::Tensor Z = f(X, Y);                    // X, Y broadcast like a binary op's operands
///     Z.sum().backward();                           // X.grad(), Y.grad()
///
/// The forward pass runs the kernel's batch value program over the broadcast elements in
/// one pass; the backward node saves only the inputs and runs the batch adjoint program
/// once, with the incoming gradients as weights, summing over broadcast dimensions as it
/// goes; forward-mode AD runs the batch tangent program. Derivatives that must themselves
/// be differentiable (create_graph, a tangent of an input that requires grad) record the
/// same expression with the dynamic mode's operations instead (docs/dynamic.md, "Fused
/// kernels"). Float and Double tensors, contiguous or strided; the result has the
/// promoted dtype and the broadcast shape. A kernel compiled with `gradc::wrt(...)` takes
/// the other variables as non-differentiable inputs.

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <gradc/autograd/tensor.hpp>
#include <gradc/fused/kernel_programs.hpp>
#include <gradc/simd/batch_interface.hpp>

namespace gradc::autograd {

namespace fusion {

/// What gradc::compile returns for scalar variables (a kernel of array variables is not
/// elementwise: its tensors would need trailing dimensions for the variables' shapes).
template <class K>
concept scalar_kernel = std::is_base_of_v<simd::batch_interface<K>, K>;

template <class A>
Tensor as_tensor(const A& a) {
    if constexpr (std::is_same_v<A, Tensor>) {
        return a;
    } else {
        static_assert(std::is_arithmetic_v<A>,
                      "gradc::autograd::fuse: the arguments of a fused kernel are Tensors (or numbers, "
                      "taken as 0-dim tensors), one per variable of the kernel");
        return Tensor(static_cast<double>(a));
    }
}

}  // namespace fusion

/// The callable `fuse` returns: one Tensor per variable of the kernel gives a Tensor (one
/// output) or a tensor_list (several outputs).
template <class Kernel>
class fused_kernel {
public:
    static constexpr std::size_t arity = Kernel::arity;  ///< Arguments: one tensor per variable of the kernel.
    static constexpr std::size_t output_count = Kernel::output_count;  ///< The kernel's outputs.

    /// A fused `k`; `name` names its backward node.
    fused_kernel(const Kernel& k, std::string name)
        : programs_(std::make_shared<const fusion::kernel_programs<Kernel>>(k, std::move(name))) {}

    /// A wrong number of arguments throws gradc::Error (the same as the list form).
    template <class... A>
    auto operator()(const A&... args) const {
        return (*this)(tensor_list{fusion::as_tensor(args)...});
    }

    /// The outputs for a list of input tensors.
    auto operator()(const tensor_list& inputs) const {
        tensor_list out = fusion::call(programs_, inputs);
        if constexpr (output_count == 1) {
            return out[0];
        } else {
            return out;
        }
    }

    std::string_view name() const { return programs_->name(); }  ///< The name of the backward node.

private:
    std::shared_ptr<const fusion::block_programs> programs_;
};

/// The compiled kernel `k` as an operation on tensors (see the top of this file). `name`
/// names its backward node: "fused" gives "FusedBackward", "black_scholes"
/// "BlackScholesBackward".
template <class Kernel>
fused_kernel<Kernel> fuse(const Kernel& k, std::string name = "fused") {
    static_assert(fusion::scalar_kernel<Kernel>,
                  "gradc::autograd::fuse: expected a kernel of scalar variables (gradc::compile of an "
                  "expression over gradc::variables<N>()); a kernel of vector or matrix variables is not "
                  "elementwise and cannot be fused");
    return fused_kernel<Kernel>(k, std::move(name));
}

}  // namespace gradc::autograd
