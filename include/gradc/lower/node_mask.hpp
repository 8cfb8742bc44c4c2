#pragma once
/// \file
/// A set of nodes (or of edges, or of variables) as a template argument: which nodes a
/// sweep runs (`primal<Part>`, `adjoint<Part, Clear, Edges>`), which vary with the data.
///
/// Why not a plain `std::array<bool, N>`: g++ 12 names a class-type template argument by
/// its value with the elements that were never written left out, and without their
/// positions. An array built as `{}` and then given `a[3] = a[4] = true` is named as if it
/// were {true, true, false, false, false}, so two different sets with as many members
/// become one template argument, and the instantiation made for the first serves the
/// second: a map-reduce swept the nodes computed once in place of those computed per
/// point, and its gradient came out zero (tests/arrays/test_run_time_map_reduce.cpp has
/// that kernel). clang is not affected. A node_mask writes every element in order when
/// it is made, so its name holds every position. The array programs' template parameters
/// that take a set are node_masks, and a `std::array<bool, N>` argument converts to one;
/// the scalar map-reduce's variable masks (lower/map_reduce_nodes.hpp) are written whole
/// where they are made.

#include <array>
#include <cstddef>

namespace gradc::lower {

/// \cond INTERNAL

/// A set of N things (nodes, edges, variables), every member written: a template
/// argument that g++ 12 tells apart from every other set.
template <std::size_t N>
struct node_mask {
    std::array<bool, N> bits{};

    constexpr node_mask() {
        for (std::size_t i = 0; i < N; ++i) bits[i] = false;
    }
    /// Every element written in order, whatever gaps the array has.
    constexpr node_mask(const std::array<bool, N>& m) {
        for (std::size_t i = 0; i < N; ++i) bits[i] = m[i];
    }
    constexpr bool operator[](std::size_t i) const { return bits[i]; }
    constexpr bool& operator[](std::size_t i) { return bits[i]; }
    static constexpr std::size_t size() { return N; }
    constexpr const bool* begin() const { return bits.data(); }
    constexpr const bool* end() const { return bits.data() + N; }
    constexpr operator const std::array<bool, N>&() const { return bits; }
};
template <std::size_t N>
node_mask(std::array<bool, N>) -> node_mask<N>;

/// \endcond

}  // namespace gradc::lower
