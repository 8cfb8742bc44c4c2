#pragma once
/// \file
/// Forward-mode AD in the dynamic mode, as `torch.autograd.forward_ad`:
///
///     namespace fwd = gradc::autograd::forward_ad;
///     {
///         fwd::dual_level level;                  // tangents live as long as the level
///         Tensor x = fwd::make_dual(p, u);        // p carrying the tangent u
///         Tensor y = f(x);                        // every operation propagates tangents
///         Tensor jvp = fwd::unpack_dual(y).tangent;   // J_f(p)·u
///     }                                           // every tangent made in the level is dropped
///
/// A tangent has the shape, dtype and memory layout of its primal; views of a dual tensor
/// carry the same views of its tangent, and an in-place operation updates the tangent in
/// place. Tangent computations are ordinary differentiable operations, so reverse mode can
/// run over forward mode and forward mode over reverse mode (Hessian-vector products). For
/// complex numbers forward mode computes (2·CW)·u for real directions, the quantity
/// PyTorch's "Gradcheck mechanics" notes describe; for a holomorphic f it is f'(z)·u. See
/// docs/dynamic.md, "Forward-mode AD".

#include <cstdint>

#include <gradc/autograd/tensor.hpp>

namespace gradc::autograd::forward_ad {

/// The scope of a dual level (PyTorch's `with dual_level():`). Only one level may be
/// active at a time in the process: constructing a second one while the first lives
/// throws, as PyTorch does ("nested forward mode AD is not supported").
class dual_level {
public:
    dual_level();
    ~dual_level();
    dual_level(const dual_level&) = delete;
    dual_level& operator=(const dual_level&) = delete;

private:
    std::uint64_t id_;
};

/// Whether a dual level is active.
bool is_level_active();

/// A tensor that is `primal` (a view sharing its storage and, in reverse mode, its
/// history) carrying `tangent`. Throws outside a dual level, for a primal that already
/// has a tangent, and for a tangent whose shape or dtype differs from the primal's. A
/// tangent laid out like the primal is used as is (an in-place operation on the dual
/// tensor updates it); any other is copied into the primal's layout.
Tensor make_dual(const Tensor& primal, const Tensor& tangent);

/// The two halves of a (possibly) dual tensor.
struct UnpackedDualTensor {
    Tensor primal;   ///< a view of the tensor without its tangent (differentiable in reverse mode)
    Tensor tangent;  ///< undefined when the tensor has none (or no level is active)
};

/// The primal and the tangent of a dual tensor (the tangent undefined for a plain tensor).
UnpackedDualTensor unpack_dual(const Tensor& tensor);

namespace detail {
/// Within this scope, on this thread, no tensor has a tangent and operations propagate
/// none. JVP formulas run in it (they compute with primals and explicit tangents), as do
/// a custom function's forward (its jvp is used instead) and the history rewrites of views.
class IgnoreTangents {
public:
    IgnoreTangents();
    ~IgnoreTangents();
    IgnoreTangents(const IgnoreTangents&) = delete;
    IgnoreTangents& operator=(const IgnoreTangents&) = delete;
};

/// For tests of the operations: while alive, on this thread, every operation but the
/// views derives its JVP from its backward formula (the fallback of operations without a
/// JVP formula), so that each dedicated JVP formula can be compared with its transposed
/// backward. Views keep theirs: their tangent must alias their input's.
class ForceFallback {
public:
    ForceFallback();
    ~ForceFallback();
    ForceFallback(const ForceFallback&) = delete;
    ForceFallback& operator=(const ForceFallback&) = delete;

private:
    bool previous_;
};
}  // namespace detail

}  // namespace gradc::autograd::forward_ad
