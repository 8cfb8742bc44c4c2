#pragma once
/// \file
/// `SmallVector<T, N>`: a vector whose first N elements live inside the object. Tensor
/// shapes and strides, a node's edges and the engine's gradient buffers almost always
/// fit, so creating a tensor or recording an operation on small tensors needs no separate
/// heap block for them; past N it moves to the heap like a vector.
///
/// It is Boost.Container's `small_vector` (Boost is already a dependency of the static
/// mode). It is a class of gradc's, derived without any member of its own, rather than
/// an alias, so that argument-dependent lookup finds gradc's functions for it:
/// `std::cout << t.sizes()` prints, as in LibTorch, without a `using namespace`. Its
/// per-operation cost: docs/benchmark-history.md, "Shapes in Boost.Container's small_vector".

#include <cstddef>

// g++ 12 at -O3 reports -Wstringop-overread inside Boost.Container's move of a
// small_vector's inline buffer ("reading between 41 and 9223372036854775800 bytes from a
// region of size 40"): a false positive of its range analysis on a branch that runs only
// for heap storage. It is reported where the code comes from, so it is silenced here and
// nowhere else.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace gradc {

/// Boost.Container's `small_vector<T, N>` under gradc's name (the class of `gradc::Shape`).
template <class T, std::size_t N>
class SmallVector : public boost::container::small_vector<T, N> {
public:
    using boost::container::small_vector<T, N>::small_vector;
};

}  // namespace gradc
