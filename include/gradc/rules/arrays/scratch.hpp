#pragma once
/// \file
/// Room for the intermediate matrices of an operation's adjoint or tangent (cholesky's
/// derivatives need one n×n matrix beside their operands, lu_solve's one of the
/// right-hand sides' size). Small ones live on the stack like any local array. A large one would eat a
/// worker thread's stack (a 64×64 matrix of AVX-512 batches is 256 KiB), so beyond
/// `scratch_stack_bytes` it is allocated for the call: the lowering's workspace
/// (lower/array_workspace.hpp) holds node values and adjoints, not an operation's
/// temporaries.

#include <array>
#include <cstddef>
#include <memory>

namespace gradc::rules::arrays {

/// Bytes of intermediate values an operation keeps on the stack; larger ones are allocated.
inline constexpr std::size_t scratch_stack_bytes = 16 * 1024;

/// N uninitialised values of T, on the stack when they fit in `scratch_stack_bytes`.
template <class T, std::size_t N, bool OnStack = (N * sizeof(T) <= scratch_stack_bytes)>
class scratch {
public:
    T* data() { return values_.data(); }  ///< The first value.

private:
    std::array<T, N> values_;
};

/// \cond INTERNAL
template <class T, std::size_t N>
class scratch<T, N, false> {
public:
    T* data() { return values_.get(); }

private:
    std::unique_ptr<T[]> values_ = std::make_unique_for_overwrite<T[]>(N);
};
/// \endcond

}  // namespace gradc::rules::arrays
